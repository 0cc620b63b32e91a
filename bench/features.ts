import type * as RDF from '@rdfjs/types';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../src/server/server.ts';
import { loadConfig } from '../src/core/config.ts';
import { df } from '../src/rdf/namespaces.ts';
import { featureTurtle, fmt, median, now, openRawQuadstore, pool, postFeature, ratio, tempDir, type Row } from './util.ts';

const N = 500;
const WARMUP = 50;
const CONCURRENCY = 8;
const INSTRUMENTED = 200;

/** These runs are short (a fraction of a second), so each is repeated and the median rate kept. */
const REPS = 5;

/** Median over REPS runs of N items per second; `work(rep)` writes N features under fresh graph IRIs. */
async function medianRate(work: (rep: number) => Promise<void>): Promise<number> {
  const rates: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const t = now();
    await work(rep);
    rates.push(N / ((now() - t) / 1000));
  }
  return median(rates);
}

/**
 * Features created per second through POST /feature, against raw quadstore multiPut of the
 * same quads (one multiPut per feature) into a fresh store with the same indexes.
 */
export async function benchFeatures(): Promise<Row[]> {
  const serverDir = await tempDir('toxgraph-bench-features-');
  const rawDir = await tempDir('toxgraph-bench-raw-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', serverDir.dir, '--quiet'], {}));
  const rows: Row[] = [];
  try {
    // --- HTTP ---
    for (let i = 0; i < WARMUP; i++) await postFeature(server.url, -1 - i);

    const seqUris: string[] = [];
    let t = now();
    for (let i = 0; i < N; i++) seqUris.push(await postFeature(server.url, i));
    const httpSeq = N / ((now() - t) / 1000);

    t = now();
    await pool(N, CONCURRENCY, async (i) => void (await postFeature(server.url, N + i)));
    const httpConc = N / ((now() - t) / 1000);

    // The quads those requests stored, one group per feature.
    const groups: RDF.Quad[][] = [];
    for (const uri of seqUris) groups.push(await server.services.store.readGraph(uri));
    const quadsPerFeature = groups.reduce((n, g) => n + g.length, 0) / groups.length;
    const regraph = (quads: RDF.Quad[], iri: string) => {
      const g = df.namedNode(iri);
      return quads.map((q) => df.quad(q.subject, q.predicate, q.object, g));
    };

    // --- Where a POST spends its time: a separate, instrumented pass (wrappers on the service objects) ---
    const spent = { shapes: 0, replace: 0, mint: 0 };
    const instrument = <T extends object>(obj: T, method: keyof T & string, key: keyof typeof spent) => {
      const original = (obj as any)[method];
      (obj as any)[method] = async function (this: unknown, ...args: unknown[]) {
        const t0 = now();
        try {
          return await original.apply(this, args);
        } finally {
          spent[key] += now() - t0;
        }
      };
      return () => void ((obj as any)[method] = original);
    };
    const restore = [instrument(server.services.shapes, 'check', 'shapes'), instrument(server.services.store, 'replaceGraphs', 'replace'), instrument(server.services.ids, 'next', 'mint')];
    t = now();
    for (let i = 0; i < INSTRUMENTED; i++) await postFeature(server.url, 2 * N + i);
    const perPost = (now() - t) / INSTRUMENTED;
    for (const r of restore) r();
    const share = (ms: number) => `${fmt(ms / INSTRUMENTED, 2)} ms (${fmt((100 * ms) / INSTRUMENTED / perPost, 0)}%)`;

    // --- HTTP floor: a bare node:http server that reads the same body and answers, same client ---
    const bare = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
    const barePost = async (i: number) => void (await (await fetch(bareUrl, { method: 'POST', headers: { 'Content-Type': 'text/turtle' }, body: featureTurtle(i) })).text());
    for (let i = 0; i < WARMUP; i++) await barePost(i);
    t = now();
    for (let i = 0; i < N; i++) await barePost(i);
    const bareRate = N / ((now() - t) / 1000);
    await new Promise<void>((resolve) => bare.close(() => resolve()));

    // --- Breakdown (no HTTP): the store layer's replaceGraphs on the server's own store, and the id minter ---
    const store = server.services.store;
    for (let i = 0; i < WARMUP; i++) await store.replaceGraphs({ [`urn:bench:warm/${i}`]: groups[i % groups.length] });
    const replaceRate = await medianRate(async (rep) => {
      for (let i = 0; i < N; i++) await store.replaceGraphs({ [`urn:bench:tg/${rep}/${i}`]: groups[i] });
    });
    const mintRate = await medianRate(async () => {
      for (let i = 0; i < N; i++) await server.services.ids.next('urn:bench:collection');
    });

    // --- Baseline: raw quadstore, same index set, fresh directory ---
    const raw = await openRawQuadstore(rawDir.dir);
    try {
      for (let i = 0; i < WARMUP; i++) await raw.multiPut(regraph(groups[i % groups.length], `urn:bench:warm/${i}`) as any);
      const rawSeq = await medianRate(async (rep) => {
        for (let i = 0; i < N; i++) await raw.multiPut(regraph(groups[i], `urn:bench:f/${rep}/${i}`) as any);
      });
      const rawConc = await medianRate(async (rep) => {
        await pool(N, CONCURRENCY, async (i) => void (await raw.multiPut(regraph(groups[i], `urn:bench:fc/${rep}/${i}`) as any)));
      });

      const b = `features (N=${N}, ${fmt(quadsPerFeature)} quads each; store-only rates: median of ${REPS} runs)`;
      rows.push(
        { bench: b, measure: 'raw quadstore multiPut, sequential [baseline]', value: `${fmt(rawSeq, 0)} /s`, ratio: ratio(1) },
        { bench: b, measure: `raw quadstore multiPut, concurrency ${CONCURRENCY}`, value: `${fmt(rawConc, 0)} /s`, ratio: ratio(rawConc / rawSeq) },
        { bench: b, measure: 'POST /feature, sequential', value: `${fmt(httpSeq, 0)} /s`, ratio: ratio(httpSeq / rawSeq) },
        { bench: b, measure: `POST /feature, concurrency ${CONCURRENCY}`, value: `${fmt(httpConc, 0)} /s`, ratio: ratio(httpConc / rawSeq) },
        { bench: b, measure: `POST /feature, conc ${CONCURRENCY} vs raw conc ${CONCURRENCY}`, value: '', ratio: ratio(httpConc / rawConc) },
        { bench: b, measure: 'breakdown: store.replaceGraphs (read+multiPatch)', value: `${fmt(replaceRate, 0)} /s`, ratio: ratio(replaceRate / rawSeq) },
        { bench: b, measure: 'breakdown: ids.next (counter graph rewrite)', value: `${fmt(mintRate, 0)} /s`, ratio: ratio(mintRate / rawSeq) },
        { bench: b, measure: 'floor: bare node:http POST round trip, same client', value: `${fmt(bareRate, 0)} /s`, ratio: ratio(bareRate / rawSeq) },
        { bench: b, measure: `per POST (instrumented pass, N=${INSTRUMENTED}): total`, value: `${fmt(perPost, 2)} ms` },
        { bench: b, measure: '  in store.replaceGraphs (feature + id counter)', value: share(spent.replace) },
        { bench: b, measure: '    of which ids.next (counter graph)', value: share(spent.mint) },
        { bench: b, measure: '  in shapes.check (SHACL)', value: share(spent.shapes) },
        { bench: b, measure: '  rest (HTTP, Koa, parse, fetch client)', value: share(perPost * INSTRUMENTED - spent.replace - spent.shapes) },
      );
    } finally {
      await raw.close();
    }
  } finally {
    await server.close();
    await serverDir.remove();
    await rawDir.remove();
  }
  return rows;
}
