import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { sharedCsv, startTestServer, http, form, errorReport, waitForTask, parseTurtle, valuesOf, OT, type TestServer } from '../helpers.ts';

/**
 * Read-across (GenRA, issue 56) over HTTP: /algorithm/genra calculates its fingerprints, learns
 * for a numeric or a nominal endpoint, and predicts what a brute-force similarity scan over the
 * same fingerprints (downloaded from the server) gives.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const csvRows = (text: string) => parseCsv(text) as string[][];

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, `${url} ${JSON.stringify(params)}: ${r.status} ${r.text}`);
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}

const features = async (dataset: string) => (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');

/** A dataset's rows as the store holds them: compound URI and values by feature URI (Turtle). */
async function entries(dataset: string): Promise<{ compound: string; values: Map<string, string> }[]> {
  const quads = parseTurtle((await http(local(dataset), { accept: 'text/turtle' })).text);
  const of = (subject: string, predicate: string) => valuesOf(quads, subject, predicate);
  return of(dataset, `${OT}dataEntry`).map((e) => ({
    compound: of(e, `${OT}compound`)[0],
    values: new Map(of(e, `${OT}values`).map((v) => [of(v, `${OT}feature`)[0], of(v, `${OT}value`)[0]])),
  }));
}

/** The Morgan bits the server calculates for a dataset's compounds: compound URI → set bits. */
async function morganBits(dataset: string, radius: number, nBits: number): Promise<Map<string, Set<number>>> {
  const before = new Set(await features(dataset));
  const described = await run(`${s.base}/algorithm/morgan-fingerprint`, { dataset_uri: dataset, radius: String(radius), nBits: String(nBits) });
  const [fingerprint] = (await features(described)).filter((f) => !before.has(f));
  return new Map((await entries(described)).map((e) => [e.compound, new Set((e.values.get(fingerprint) ?? '').split(/\s+/).filter(Boolean).map(Number))]));
}

/** The feature of a list whose title matches. */
async function featureTitled(list: string[], pattern: RegExp): Promise<string> {
  for (const f of list) {
    const title = valuesOf(parseTurtle((await http(local(f), { accept: 'text/turtle' })).text), f, 'http://purl.org/dc/elements/1.1/title')[0] ?? '';
    if (pattern.test(title)) return f;
  }
  throw new Error(`no feature titled ${pattern} among ${list.join(' ')}`);
}

/** The feature of a model's predicted values (not its confidence or domain). */
async function predictedFeature(model: string): Promise<string> {
  const quads = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  for (const f of valuesOf(quads, model, `${OT}predictedVariables`)) {
    const title = valuesOf(parseTurtle((await http(local(f), { accept: 'text/turtle' })).text), f, 'http://purl.org/dc/elements/1.1/title')[0] ?? '';
    if (!/confidence|domain|bound of the|read across|why not/i.test(title)) return f;
  }
  throw new Error(`model ${model} names no predicted feature`);
}

function jaccard(a: Set<number>, b: Set<number>): number {
  let both = 0;
  for (const v of a) if (b.has(v)) both++;
  const either = a.size + b.size - both;
  return either ? both / either : 0;
}

const byId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** GenRA by brute force: the k most similar sources with similarity ≥ s0 (ties by compound id), similarity-weighted. */
function genra(sources: { uri: string; bits: Set<number>; y: number }[], query: Set<number>, k: number, s0: number): number {
  const ranked = nearest(sources, query, k, s0).filter((n) => n.s > 0);
  const den = ranked.reduce((t, n) => t + n.s, 0);
  return den > 0 ? ranked.reduce((t, n) => t + n.s * n.y, 0) / den : Number.NaN;
}

function nearest(sources: { uri: string; bits: Set<number>; y: number }[], query: Set<number>, k: number, s0: number) {
  return sources
    .map((src) => ({ ...src, s: jaccard(query, src.bits) }))
    .filter((n) => n.s >= s0)
    .sort((a, b) => b.s - a.s || byId(a.uri, b.uri))
    .slice(0, k);
}

test('regression: /algorithm/genra calculates Morgan bits, and predicts what a brute-force scan over them gives; a batch equals one-at-a-time', async () => {
  const training = await upload(sharedCsv('EPAFHM_log10.csv', 80));
  const target = (await features(training))[0];
  const model = await run(`${s.base}/algorithm/genra`, { dataset_uri: training, prediction_feature: target, k: '5', morgan_radius: '2', morgan_bits: '1024' });
  assert.match(model, /\/model\/\d+$/);
  const ttl = (await http(local(model), { accept: 'text/turtle' })).text;
  assert.ok(ttl.includes(`${s.base}/algorithm/genra`), 'the model names /algorithm/genra');

  // the queries: other EPAFHM structures, as bare SMILES
  const queryCsv = sharedCsv('EPAFHM_log10.csv', 100)
    .trim()
    .split('\n')
    .slice(81)
    .map((line) => line.split(',')[0]);
  const queries = await upload(`SMILES\n${queryCsv.join('\n')}\n`);
  const predicted = await run(local(model), { dataset_uri: queries });
  const value = await predictedFeature(model);
  const rows = await entries(predicted);

  // the reference: the server's own Morgan bits of both sets, and the measured values
  const trainingBits = await morganBits(training, 2, 1024);
  const queryBits = await morganBits(queries, 2, 1024);
  const sources = (await entries(training)).map((e) => ({ uri: e.compound, bits: trainingBits.get(e.compound)!, y: Number(e.values.get(target)) }));
  let compared = 0;
  for (const r of rows) {
    const expected = genra(sources, queryBits.get(r.compound)!, 5, 0);
    if (Number.isNaN(expected)) assert.equal(r.values.get(value), undefined, `${r.compound} is not predicted`);
    else {
      assert.ok(Math.abs(Number(r.values.get(value)) - expected) < 1e-9, `${r.compound}: ${r.values.get(value)} against ${expected}`);
      compared++;
    }
  }
  assert.ok(compared >= 15, `${compared} predictions compared`);
  // each prediction names its sources: the brute force's five, most similar first, with similarity and measured value
  const outputs = valuesOf(parseTurtle((await http(local(model), { accept: 'text/turtle' })).text), model, `${OT}predictedVariables`);
  const neighboursFeature = await featureTitled(outputs, /source compounds read across/);
  const neighbourhoodFeature = await featureTitled(outputs, /the neighbourhood's statistics/);
  for (const r of rows.slice(0, 3))
    assert.match(
      r.values.get(neighbourhoodFeature) ?? '',
      new RegExp(`^5 source\\(s\\) used, similarity mean [\\d.]+, least [\\d.]+; similarity-weighted SD of their values [\\d.e+-]+; sources from ${s.base.replace(/[/.]/g, '\\$&')}\\/dataset\\/\\d+$`),
    );
  for (const r of rows.slice(0, 5)) {
    const text = r.values.get(neighboursFeature) ?? '';
    const expected = nearest(sources, queryBits.get(r.compound)!, 5, 0);
    assert.deepEqual(
      text.split('; ').map((n) => n.split(' ')[0]),
      expected.map((n) => n.uri),
      text,
    );
    assert.match(text, new RegExp(`^${expected[0].uri.replace(/[/.]/g, '\\$&')} \\(similarity ${expected[0].s.toFixed(3)}, measured ${expected[0].y}\\)`));
  }

  // training computed every source's leave-one-out read-across: a dataset (GET /model/{id}/loo) and a validation of the model
  const looReply = await http(`${local(model)}/loo`, { accept: 'text/turtle' });
  assert.equal(looReply.status, 303, looReply.text);
  const loo = `${s.base}${looReply.headers.get('location')}`;
  const looFeatures = await features(loo);
  const looPredicted = await featureTitled(looFeatures, /leave-one-out read-across/);
  const looUsed = await featureTitled(looFeatures, /neighbours used/);
  const looRows = await entries(loo);
  assert.equal(looRows.length, sources.length);
  const once = new Map<string, number>();
  for (const src of sources) once.set(src.uri, (once.get(src.uri) ?? 0) + 1);
  const pairs: [number, number][] = [];
  for (const r of looRows) {
    assert.equal(Number(r.values.get(target)), sources.find((x) => x.uri === r.compound)!.y, 'the measured value');
    if (once.get(r.compound) !== 1) continue;
    const others = sources.filter((x) => x.uri !== r.compound);
    const expected = genra(others, trainingBits.get(r.compound)!, 5, 0);
    const got = r.values.get(looPredicted);
    if (Number.isNaN(expected)) assert.equal(got, undefined);
    else {
      assert.ok(Math.abs(Number(got) - expected) < 1e-9, `leave-one-out of ${r.compound}: ${got} against ${expected}`);
      pairs.push([Number(r.values.get(target)), Number(got)]);
    }
    assert.equal(Number(r.values.get(looUsed)), nearest(others, trainingBits.get(r.compound)!, 5, 0).filter((n) => n.s > 0).length);
  }
  assert.ok(pairs.length >= 60, `${pairs.length} leave-one-out predictions compared`);
  const described = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  const validation = valuesOf(described, model, 'http://www.w3.org/2000/01/rdf-schema#seeAlso').find((u) => /\/validation\//.test(u));
  assert.ok(validation, 'the model links its leave-one-out validation');
  const v = parseTurtle((await http(local(validation), { accept: 'text/turtle' })).text);
  const statistic = (name: string) => Number(v.find((q) => q.predicate.value === `${OT}${name}`)?.object.value);
  assert.equal(v.find((q) => q.predicate.value === `${OT}validationType`)?.object.value, 'leave_one_out_read_across');
  // the validation's statistics are those of the dataset's pairs (every source predicted from the others)
  const all = looRows.filter((r) => r.values.has(looPredicted)).map((r) => [Number(r.values.get(target)), Number(r.values.get(looPredicted))]);
  const rmse = Math.sqrt(all.reduce((t, [y, p]) => t + (y - p) ** 2, 0) / all.length);
  assert.ok(Math.abs(statistic('rootMeanSquaredError') - rmse) < 1e-9, `RMSE ${statistic('rootMeanSquaredError')} against ${rmse}`);
  assert.equal(statistic('numUnpredicted'), looRows.length - all.length);
  assert.equal(statistic('numInstances'), looRows.length);

  // a QMRF of the read-across
  const qmrf = await run(`${s.base}/reach_report/qmrf`, { model_uri: model });
  const xml = (await http(local(qmrf), { accept: 'application/qmrf-xml' })).text;
  assert.match(xml, /Read-across \(GenRA\)/);
  // its leave-one-out is the QMRF's leave-one-out (6.9), not an external validation (7)
  const cited = /<loo\b[^>]*>([\s\S]*?)<\/loo>/.exec(xml)?.[1] ?? '';
  assert.ok(cited.includes(validation), `QMRF 6.9 cites ${validation}: ${cited.slice(0, 300)}`);
  assert.ok(!(/<validation_predictivity\b[^>]*>([\s\S]*?)<\/validation_predictivity>/.exec(xml)?.[1] ?? '').includes(validation));

  // a QPRF of one read-across prediction: its neighbours are the read-across's sources
  const qprf = await run(`${s.base}/reach_report/qprf`, { model_uri: model, compound_uri: rows[0].compound });
  const qprfText = (await http(local(qprf), { accept: 'text/html' })).text;
  assert.equal((await http(local(qprf), { accept: 'text/html' })).status, 200);
  assert.match(qprfText, /Read-across \(GenRA\)/);
  const nearestSource = (rows[0].values.get(neighboursFeature) ?? '').split(' ')[0];
  assert.ok(qprfText.includes(new URL(nearestSource).pathname), `the QPRF's neighbours include the nearest source ${nearestSource}`);

  // one compound at a time gives the batch's value, value for value
  for (const r of rows.slice(0, 5)) {
    const one = await run(local(model), { compound_uri: r.compound });
    const [alone] = await entries(one);
    assert.equal(alone.values.get(value), r.values.get(value), r.compound);
  }
});

test('no source at or above s0: the row is not predicted, and says why; every source used is at least that similar', async () => {
  const training = await upload(sharedCsv('EPAFHM_log10.csv', 60));
  const target = (await features(training))[0];
  const model = await run(`${s.base}/algorithm/genra`, { dataset_uri: training, prediction_feature: target, k: '3', similarity_threshold: '0.6', morgan_bits: '1024' });
  const queries = await upload('SMILES\nCCCCCCCCCCCCCCCCCC(=O)O\nC1=CC(C=O)=CC(OC)=C1OCCCCCCC\nFC(F)(F)C(F)(F)C(F)(F)S(=O)(=O)O\n');
  const predicted = await run(local(model), { dataset_uri: queries });
  const value = await predictedFeature(model);
  const featureList = await features(predicted);
  const reason = await featureTitled(featureList, /why not predicted/);
  const rows = await entries(predicted);
  const unpredicted = rows.filter((r) => !r.values.has(value));
  assert.ok(unpredicted.length >= 1, 'a perfluorinated sulfonic acid has no source at 0.6 among these fish data');
  for (const r of unpredicted) assert.match(r.values.get(reason) ?? '', /no source compound has similarity ≥ 0\.6 \(similarity_threshold\)/);
  const neighbours = await featureTitled(featureList, /source compounds read across/);
  const predictedRows = rows.filter((x) => x.values.has(value));
  assert.ok(predictedRows.length >= 1, 'the fish-toxicity analogue has sources');
  for (const r of predictedRows) {
    assert.equal(r.values.get(reason), undefined);
    const similarities = [...(r.values.get(neighbours) ?? '').matchAll(/similarity ([\d.]+)/g)].map((m) => Number(m[1]));
    assert.ok(similarities.length >= 1 && similarities.every((x) => x >= 0.6), r.values.get(neighbours) ?? '');
  }
});

test('classification: a nominal endpoint gives a read-across of classes with the same algorithm', async () => {
  const training = await upload(sharedCsv('kazius.csv', 80, 40));
  const target = (await features(training))[0];
  const model = await run(`${s.base}/algorithm/genra`, { dataset_uri: training, prediction_feature: target, k: '5' });
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'O=[N+]([O-])c1ccc2ccccc2c1', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const one = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(one.status, 200, one.text);
  const [h, v] = csvRows(one.text);
  const value = v[h.findIndex((x) => /predicted/i.test(x) && !/confidence|domain/i.test(x))];
  assert.ok(['mutagenic', 'non-mutagenic', 'nonmutagenic'].includes(value) || /mutagen/i.test(value), `a class: ${value} (${h.join(' | ')})`);
  const neighbourhood = v[h.findIndex((x) => /the neighbourhood's statistics/.test(x))] ?? '';
  assert.match(
    neighbourhood,
    /^5 source\(s\) used, similarity mean [\d.]+, least [\d.]+; activity score [\d.]+, threshold [\d.]+ (chosen on the neighbourhood for balanced accuracy \(AUC [\d.]+, permutation p = [\d.]+\)|\(0\.5: the neighbourhood's AUC|\(the neighbourhood lacks a class\))/,
  );
});

test('bad parameters answer 400 naming the parameter, before any work', async () => {
  const training = await upload(sharedCsv('EPAFHM_log10.csv', 20));
  const target = (await features(training))[0];
  for (const [params, pattern] of [
    [{ k: '0' }, /k/],
    [{ similarity_threshold: '1.5' }, /similarity_threshold/],
    [{ similarity_threshold: '-0.1' }, /similarity_threshold/],
    [{ fingerprint: 'nonsense' }, /fingerprint: nonsense is not morgan, maccs or a descriptor algorithm/],
    [{ fingerprint: 'morgan,maccs', fingerprint_weights: '1' }, /fingerprint_weights: 1 weight\(s\) for 2 fingerprint\(s\)/],
    [{ fingerprint_weights: 'a,b' }, /fingerprint_weights/],
  ] as [Record<string, string>, RegExp][]) {
    const r = await http(`${s.url}/algorithm/genra`, { method: 'POST', body: form({ dataset_uri: training, prediction_feature: target, ...params }), accept: 'text/uri-list' });
    assert.equal(r.status, 400, `${JSON.stringify(params)}: ${r.status} ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
});

test('as any learner: a cross-validation of classes, a superalgorithm chain, conformal intervals normalised by the neighbours’ spread', async () => {
  const raw = await upload(sharedCsv('kazius.csv', 90, 40));
  const target = (await features(raw))[0];
  const described = await run(`${s.base}/algorithm/morgan-fingerprint`, { dataset_uri: raw, nBits: '1024' });
  // a cross-validation validates the classification form (its statistics are of classes)
  const cv = await run(`${s.base}/crossvalidation`, { algorithm_uri: `${s.base}/algorithm/genra`, dataset_uri: described, prediction_feature: target, num_folds: '3', algorithm_params: 'k=5' });
  const folds = valuesOf(parseTurtle((await http(local(cv), { accept: 'text/turtle' })).text), cv, `${OT}validation`);
  assert.equal(folds.length, 3);
  const fold = (await http(local(folds[0]), { accept: 'text/turtle' })).text;
  assert.match(fold, /classificationStatistics/, 'classification statistics');
  assert.doesNotMatch(fold, /rootMeanSquaredError/);
  // a supermodel: Morgan bits calculated, read-across learnt, a SMILES predicted as a class
  const supermodel = await run(`${s.base}/algorithm/superalgorithm`, { dataset_uri: raw, prediction_feature: target, feature_calculation: 'morgan-fingerprint', model_learning: 'genra' });
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'Nc1ccc2ccccc2c1', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const [row] = await entries(await run(local(supermodel), { compound_uri: compound }));
  const classes = new Set((await entries(raw)).map((e) => e.values.get(target)));
  assert.ok(classes.has(row.values.get(await predictedFeature(supermodel))), `a class of the endpoint: ${[...row.values.values()].join(' | ')}`);
  // conformal intervals: the spread of the neighbours' values is the difficulty
  const fish = await upload(sharedCsv('EPAFHM_log10.csv', 120));
  const lc50 = (await features(fish))[0];
  const conformal = await run(`${s.base}/algorithm/genra`, { dataset_uri: fish, prediction_feature: lc50, k: '5', conformal: 'split', confidence_level: '0.9', conformal_normalisation: 'spread' });
  const outputs = valuesOf(parseTurtle((await http(local(conformal), { accept: 'text/turtle' })).text), conformal, `${OT}predictedVariables`);
  const lower = await featureTitled(outputs, /lower bound of the 90 % prediction interval/);
  const upper = await featureTitled(outputs, /upper bound of the 90 % prediction interval/);
  const value = await predictedFeature(conformal);
  const octanol = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const [interval] = await entries(await run(local(conformal), { compound_uri: octanol }));
  const [lo, v, hi] = [lower, value, upper].map((f) => Number(interval.values.get(f)));
  assert.ok(lo < v && v < hi, `${lo} < ${v} < ${hi}`);
});

test('jackknife+ (read-across’s own conformal calibration): the leave-one-out intervals of every source cover it at the stated rate; predictions carry intervals; other learners refuse it', async () => {
  const fish = await upload(sharedCsv('EPAFHM_log10.csv', 580));
  const target = (await features(fish))[0];
  const model = await run(`${s.base}/algorithm/genra`, { dataset_uri: fish, prediction_feature: target, k: '10', morgan_bits: '1024', conformal: 'jackknife+', confidence_level: '0.8,0.9' });
  // the leave-one-out validation measures the intervals: coverage within a binomial tolerance of each level
  const described = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  const validation = valuesOf(described, model, 'http://www.w3.org/2000/01/rdf-schema#seeAlso').find((u) => /\/validation\//.test(u))!;
  const v = parseTurtle((await http(local(validation), { accept: 'text/turtle' })).text);
  const nodes = valuesOf(v, validation, `${OT}conformalStatistics`);
  assert.equal(nodes.length, 2);
  for (const node of nodes) {
    const level = Number(valuesOf(v, node, `${OT}confidenceLevel`)[0]);
    const coverage = Number(valuesOf(v, node, `${OT}coverage`)[0]);
    const n = Number(valuesOf(v, node, `${OT}numInstances`)[0]);
    const tolerance = 3 * Math.sqrt((level * (1 - level)) / n);
    assert.ok(Math.abs(coverage - level) <= tolerance, `coverage ${coverage} at ${level} over ${n} sources (± ${tolerance.toFixed(3)})`);
  }
  // a new compound's interval brackets its value, and the 90 % one holds the 80 % one
  const octanol = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const [row] = await entries(await run(local(model), { compound_uri: octanol }));
  const outputs = valuesOf(described, model, `${OT}predictedVariables`);
  const bound = async (which: string, level: string) => Number(row.values.get(await featureTitled(outputs, new RegExp(`${which} bound of the ${level} % prediction interval`))));
  const value = Number(row.values.get(await predictedFeature(model)));
  const [lo80, hi80, lo90, hi90] = [await bound('lower', '80'), await bound('upper', '80'), await bound('lower', '90'), await bound('upper', '90')];
  assert.ok(lo90 <= lo80 && lo80 < value && value < hi80 && hi80 <= hi90, `${lo90} ≤ ${lo80} < ${value} < ${hi80} ≤ ${hi90}`);
  const tpsa = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: fish, descriptors: 'tpsa' });
  const refused = await http(`${s.url}/algorithm/random-forest-regression`, {
    method: 'POST',
    body: form({ dataset_uri: tpsa, prediction_feature: target, conformal: 'jackknife+' }),
    accept: 'text/turtle',
  });
  assert.equal(refused.status, 400);
  assert.match((await errorReport(refused)).message ?? '', /jackknife\+ needs a learner that computes its leave-one-out predictions/);
});
