import { sparql } from '../src/store/sparql-template.ts';
import { df } from '../src/rdf/namespaces.ts';
import { benchServer, describedSharedSet, fmt, median, now, postAndFollow, ratio, type Row } from './util.ts';

/** Rows predicted in the prediction comparison (the dataset's rows repeated). */
const ROWS = 10_000;

/**
 * ONNX export and import (issue 40): exporting a model against training it (through the
 * service); predicting 10,000 rows with the exported file in onnxruntime against the server's own
 * learner on the same matrix in process (both on this thread, after a warm-up run); and a forest
 * imported from its file against the native forest, predicting 10,000 structures through the service.
 */
export async function benchOnnx(): Promise<Row[]> {
  const bench = 'ONNX export and import: export vs training, onnxruntime vs the native learner, an imported forest vs the native one (EPAFHM, RDKit descriptors)';
  const server = await benchServer('toxgraph-bench-onnx-');
  const { base } = server;
  const rows: Row[] = [];
  try {
    const { target, dataset } = await describedSharedSet(base, 'EPAFHM_log10.csv', 'rdkit-descriptors');
    const ort = await import('onnxruntime-node');
    const onnxProto = (await import('onnx-proto')).default;
    const { learnerById } = await import('../src/learning/learners.ts');
    for (const algorithm of ['random-forest-regression', 'gradient-boosting-regression', 'mlr']) {
      const t = now();
      const model = await postAndFollow(`${base}/algorithm/${algorithm}`, { dataset_uri: dataset, prediction_feature: target });
      const trainingMs = now() - t;
      const exports: number[] = [];
      let bytes = new Uint8Array();
      for (let i = 0; i < 3; i++) {
        const e = now();
        bytes = new Uint8Array(await (await fetch(model, { headers: { Accept: 'application/onnx' } })).arrayBuffer());
        exports.push(now() - e);
      }
      rows.push({ bench, measure: `${algorithm}: training through the service (baseline)`, value: `${fmt(trainingMs, 0)} ms`, ratio: '1.00x' });
      if (algorithm !== 'gradient-boosting-regression') {
        // PMML (boosting has none)
        const p = now();
        const pmml = await (await fetch(model, { headers: { Accept: 'text/xml' } })).text();
        const pmmlMs = now() - p;
        rows.push({ bench, measure: `${algorithm}: GET as PMML (${fmt(pmml.length / 1024, 0)} KiB)`, value: `${fmt(pmmlMs, 0)} ms`, ratio: ratio(pmmlMs / trainingMs) });
      }
      rows.push({ bench, measure: `${algorithm}: GET as application/onnx (${fmt(bytes.length / 1024, 0)} KiB)`, value: `${fmt(median(exports), 0)} ms`, ratio: ratio(median(exports) / trainingMs) });
      // the matrix in the file's column order, rows repeated to ROWS
      const decoded = onnxProto.onnx.ModelProto.decode(bytes);
      const meta = new Map(decoded.metadataProps.map((p) => [p.key, p.value]));
      const columns = Array.from({ length: Number(meta.get('toxgraph.columns')) }, (_, i) => meta.get(`column.${i}`)!);
      const entries = ((await (await fetch(dataset, { headers: { Accept: 'application/json' } })).json()) as { entries: { values: Record<string, unknown> }[] }).entries;
      const x = new Float64Array(ROWS * columns.length);
      for (let r = 0; r < ROWS; r++) {
        const e = entries[r % entries.length];
        columns.forEach((c, j) => {
          const v = e.values[c];
          x[r * columns.length + j] = typeof v === 'number' ? v : Number.NaN;
        });
      }
      const session = await ort.InferenceSession.create(bytes);
      const input = new ort.Tensor('float64', x, [ROWS, columns.length]);
      await session.run({ X: input });
      const o = now();
      await session.run({ X: input });
      const onnxMs = now() - o;
      // the server's learner on the same matrix: its state read back as the server stores it
      const state = await modelState(model);
      const learner = learnerById(algorithm)!;
      const matrix = { rows: ROWS, cols: columns.length, data: x.map((v, i) => (Number.isNaN(v) ? (state.means[i % columns.length] ?? 0) : v)) };
      learner.predict(state.state, matrix);
      const n = now();
      learner.predict(state.state, matrix);
      const nativeMs = now() - n;
      rows.push(
        { bench, measure: `${algorithm}: predicting ${ROWS} rows natively in process (baseline)`, value: `${fmt(nativeMs, 0)} ms`, ratio: '1.00x' },
        { bench, measure: `${algorithm}: predicting them with the exported file in onnxruntime`, value: `${fmt(onnxMs, 0)} ms`, ratio: ratio(onnxMs / nativeMs) },
      );
      if (algorithm === 'random-forest-regression') rows.push(...(await importedAgainstNative({ native: model, bytes, columns, dataset, target, datasetRows: entries.length })));
    }
    rows.push(...(await largeImport()));
  } finally {
    await server.stop();
  }
  return rows;

  /**
   * A 30 MB file imported (checked and run in a worker, stored) while GET /health is asked every
   * 20 ms: the slowest answer shows how long the main thread was held. Baseline: the slowest
   * /health answer in the same time with nothing else running.
   */
  async function largeImport(): Promise<Row[]> {
    const { largeOnnxFile } = await import('../test/onnx-fixtures.ts');
    const bytes = largeOnnxFile(30);
    const table = await postAndFollow(`${base}/dataset`, {}, 'SMILES,x1,y\nCCO,1,2\nCCC,2,3\n', 'text/csv');
    const [x1, y] = (await (await fetch(`${table}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n');
    const worstHealth = async (during: Promise<unknown>) => {
      let worst = 0;
      let done = false;
      const finished = during.finally(() => {
        done = true;
      });
      while (!done) {
        const t = now();
        await fetch(`${base}/health`);
        worst = Math.max(worst, now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
      await finished;
      return worst;
    };
    const t = now();
    const fd = new FormData();
    fd.append('file', new Blob([Buffer.from(bytes)], { type: 'application/onnx' }), 'large.onnx');
    fd.append('independent_features', x1);
    fd.append('prediction_feature', y);
    const importing = fetch(`${base}/model`, { method: 'POST', body: fd, headers: { Accept: 'text/uri-list' } }).then(async (r) => {
      if (r.status !== 201) throw new Error(`large import: ${r.status} ${(await r.text()).slice(0, 300)}`);
    });
    const duringImport = await worstHealth(importing);
    const importMs = now() - t;
    const idle = await worstHealth(new Promise((r) => setTimeout(r, importMs)));
    return [
      { bench, measure: 'slowest GET /health with nothing running (baseline)', value: `${fmt(idle, 0)} ms`, ratio: '1.00x' },
      {
        bench,
        measure: `slowest GET /health during an import of a ${fmt(bytes.length / 1048576, 0)} MB file (${fmt(importMs, 0)} ms)`,
        value: `${fmt(duringImport, 0)} ms`,
        ratio: ratio(duringImport / idle),
      },
    ];
  }

  /**
   * The forest's file imported again (POST /model) against the native forest, both predicting the
   * dataset through the service until at least ROWS structures are predicted (prediction datasets
   * written), after one warm-up prediction each.
   */
  async function importedAgainstNative(given: { native: string; bytes: Uint8Array; columns: string[]; dataset: string; target: string; datasetRows: number }): Promise<Row[]> {
    const { native, bytes, columns, dataset, target, datasetRows } = given;
    const fd = new FormData();
    fd.append('file', new Blob([Buffer.from(bytes)], { type: 'application/onnx' }), 'forest.onnx');
    for (const c of columns) fd.append('independent_features', c);
    fd.append('prediction_feature', target);
    fd.append('training_dataset', dataset);
    const i = now();
    const reply = await fetch(`${base}/model`, { method: 'POST', body: fd, headers: { Accept: 'text/uri-list' } });
    const importMs = now() - i;
    const imported = (await reply.text()).trim();
    if (reply.status !== 201) throw new Error(`import: ${reply.status} ${imported.slice(0, 300)}`);
    const repeats = Math.ceil(ROWS / datasetRows);
    const timeOf = async (model: string) => {
      await postAndFollow(model, { dataset_uri: dataset });
      const t = now();
      for (let k = 0; k < repeats; k++) await postAndFollow(model, { dataset_uri: dataset });
      return now() - t;
    };
    const nativeMs = await timeOf(native);
    const importedMs = await timeOf(imported);
    const n = repeats * datasetRows;
    return [
      { bench, measure: `forest imported again: POST /model (${fmt(bytes.length / 1024, 0)} KiB, checked and run once)`, value: `${fmt(importMs, 0)} ms`, ratio: '' },
      { bench, measure: `native forest: predicting ${n} structures through the service (baseline)`, value: `${fmt(nativeMs, 0)} ms`, ratio: '1.00x' },
      { bench, measure: `the same forest imported from its ONNX file: predicting them`, value: `${fmt(importedMs, 0)} ms`, ratio: ratio(importedMs / nativeMs) },
    ];
  }

  /** A model's learner state and its columns' training means, read from the store's Turtle of its content graph. */
  async function modelState(model: string): Promise<{ state: unknown; means: number[] }> {
    const { textOfChunks } = await import('../src/rdf/text-chunks.ts');
    const { parseTurtle } = await import('../test/helpers.ts');
    const turtle = await (
      await fetch(`${base}/sparql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sparql-query', Accept: 'text/turtle' },
        body: String(sparql`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ${df.namedNode(`${model}/content`)} { ?s ?p ?o } }`),
      })
    ).text();
    const content = JSON.parse(textOfChunks(parseTurtle(turtle)));
    return { state: content.state, means: (content.encodings as { kind: string; mean?: number }[]).map((e) => e.mean ?? 0) };
  }
}
