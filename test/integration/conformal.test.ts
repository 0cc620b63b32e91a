import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestServer, http, form, errorReport, OT, waitForTask, parseTurtle, valuesOf, checkRdfXml, type TestServer } from '../helpers.ts';

/**
 * Conformal prediction over HTTP (issue 39): the guarantee measured on the shared data sets, the
 * features a conformal model's predictions fill, and the requests it refuses.
 */
let s: TestServer;
let epafhm: { dataset: string; target: string };
before(async () => {
  s = await startTestServer();
  const raw = await upload(readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8'));
  const target = (await features(raw))[0];
  epafhm = { dataset: await task('/algorithm/rdkit-descriptors', { dataset_uri: raw }), target };
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const LEVELS = [0.8, 0.9, 0.95];
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, r.text);
  // a large table is read as a task
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}
const features = async (dataset: string) => (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
async function task(path: string, params: Record<string, string>): Promise<string> {
  const r = await http(path.startsWith('/') ? `${s.url}${path}` : local(path), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, `${path}: ${r.text.slice(0, 500)} ${r.status === 400 ? (await errorReport(r)).message : ''}`);
  return waitForTask(s, r.text.trim());
}
const json = async (uri: string) => JSON.parse((await http(local(uri), { accept: 'application/json' })).text);

interface LevelStatistics {
  confidenceLevel: number;
  numInstances: number;
  coverage: number;
  meanIntervalWidth?: number;
  singletonRate?: number;
  emptySetRate?: number;
  meanSetSize?: number;
  conformalClassStatistics?: ClassStatistics[];
}
interface ClassStatistics {
  classValue: string;
  numInstances: number;
  coverage: number;
  singletonRate: number;
  emptySetRate: number;
  meanSetSize: number;
}
const conformalOf = (v: { conformalStatistics?: LevelStatistics[] }) => [...(v.conformalStatistics ?? [])].sort((a, b) => a.confidenceLevel - b.confidenceLevel);

/**
 * Three standard errors of the coverage at `level` over n test rows; with `calibration` rows per
 * model over several models, the spread of the guarantee given each calibration set too (the
 * coverage of one split calibration is Beta-distributed about the level, with variance of about
 * level · (1 − level) / calibration rows).
 */
const tolerance = (level: number, n: number, calibration = Number.POSITIVE_INFINITY) => 3 * Math.sqrt(level * (1 - level) * (1 / n + 1 / calibration));
const SEEDS = ['1', '2', '3', '4', '5'];

test('regression intervals (EPAFHM, random forest): coverage at 0.8, 0.9 and 0.95 within a binomial tolerance over five seeds; cv+ against split', async (t) => {
  const pooled = new Map<string, { covered: number[]; n: number; width: number[] }>();
  const METHODS = ['split', 'cv+'];
  // every validation requested at once (the server runs as many as it has threads, the rest wait
  // in its queue; each depends on its seed only), then read in order
  const validations = METHODS.map((method) =>
    SEEDS.map((seed) =>
      task('/validation/training_test_split', {
        dataset_uri: epafhm.dataset,
        algorithm_uri: `${s.base}/algorithm/random-forest-regression`,
        prediction_feature: epafhm.target,
        random_seed: seed,
        split_ratio: '0.7',
        // a + in algorithm_params is a space (URL form encoding): cv+ is written cv%2B
        algorithm_params: `numTrees=50;conformal=${encodeURIComponent(method)};confidence_level=0.8,0.9,0.95;calibration_fraction=0.3`,
      }),
    ),
  );
  await Promise.allSettled(validations.flat());
  for (const [m, method] of METHODS.entries()) {
    const sums = { covered: LEVELS.map(() => 0), n: 0, width: LEVELS.map(() => 0) };
    for (const validation of validations[m]) {
      const v = await json(await validation);
      const levels = conformalOf(v);
      assert.deepEqual(
        levels.map((l) => l.confidenceLevel),
        LEVELS,
      );
      sums.n += levels[0].numInstances;
      levels.forEach((l, i) => {
        sums.covered[i] += l.coverage * l.numInstances;
        sums.width[i] += l.meanIntervalWidth! * l.numInstances;
        assert.ok(i === 0 || l.meanIntervalWidth! >= levels[i - 1].meanIntervalWidth!, 'a higher level never gives narrower intervals');
      });
    }
    pooled.set(method, sums);
    LEVELS.forEach((level, i) => {
      const coverage = sums.covered[i] / sums.n;
      t.diagnostic(`${method} at ${level}: coverage ${coverage.toFixed(3)} over ${sums.n} test rows, mean width ${(sums.width[i] / sums.n).toFixed(3)}`);
      // split: exact (at least the level); cv+: at least 1 − 2α in theory, about 1 − α in practice
      const floor = method === 'split' ? level : 1 - 2 * (1 - level);
      // each seed's model is calibrated on 30 % of its 70 % training side
      const margin = tolerance(level, sums.n, Math.round(0.3 * 0.7 * 580) * SEEDS.length);
      assert.ok(coverage >= floor - margin, `${method} at ${level}: coverage ${coverage} over ${sums.n} rows`);
      assert.ok(coverage <= level + margin + 0.03, `${method} at ${level}: coverage ${coverage} is far above the level (intervals too wide)`);
    });
  }
  // cv+ against split: widths are comparable only where the coverages are alike, so each level states both
  const split = pooled.get('split')!;
  const cv = pooled.get('cv+')!;
  LEVELS.forEach((level, i) => {
    const [coverage, width] = [(m: typeof split) => m.covered[i] / m.n, (m: typeof split) => m.width[i] / m.n];
    const gap = coverage(cv) - coverage(split);
    const error = Math.sqrt((level * (1 - level) * 2) / split.n);
    t.diagnostic(
      `at ${level}: split coverage ${coverage(split).toFixed(3)}, mean width ${width(split).toFixed(3)}; cv+ coverage ${coverage(cv).toFixed(3)}, mean width ${width(cv).toFixed(3)}: cv+ is ${width(cv) < width(split) ? 'narrower' : 'NOT narrower'} (${(width(cv) / width(split)).toFixed(3)} times the width), its coverage ${gap >= 0 ? 'higher' : 'lower'} by ${Math.abs(gap).toFixed(3)} (${Math.abs(gap) <= 2 * error ? 'equal within' : 'beyond'} two standard errors, ${(2 * error).toFixed(3)})`,
    );
  });
});

/** The XML of a validation checked against the published schema (by xmllint, when it is installed). */
async function checkSchema(xml: string): Promise<void> {
  if (spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).error) return;
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-xsd-'));
  try {
    writeFileSync(join(dir, 'schema.xsd'), (await http(`${s.url}/validation/schema.xsd`)).text);
    const r = spawnSync('xmllint', ['--noout', '--schema', join(dir, 'schema.xsd'), '-'], { input: xml, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const KAZIUS_SEEDS = ['1', '2', '3'];

test('class sets (Kazius, random forest on Morgan bits, 5-fold cross-validation over three seeds): coverage per class within a binomial tolerance of each level; efficiency per class stated and consistent', async (t) => {
  const raw = await upload(readFileSync('../shared/data/kazius.csv', 'utf8'));
  const target = (await features(raw))[0];
  // the fingerprints are calculated once; each seed draws its own folds (and so its own calibration sets)
  const dataset = await task('/algorithm/morgan-fingerprint', { dataset_uri: raw, nBits: '1024' });
  const runs: { cv: string; levels: LevelStatistics[] }[] = [];
  // the three cross-validations requested at once (each depends on its seed only), read in order
  const crossvalidations = KAZIUS_SEEDS.map((seed) =>
    task('/crossvalidation', {
      dataset_uri: dataset,
      algorithm_uri: `${s.base}/algorithm/random-forest-classification`,
      prediction_feature: target,
      num_folds: '5',
      random_seed: seed,
      algorithm_params: 'numTrees=50;conformal=split;confidence_level=0.8,0.9,0.95',
    }),
  );
  await Promise.allSettled(crossvalidations);
  for (const crossvalidation of crossvalidations) {
    const cv = await crossvalidation;
    runs.push({ cv, levels: conformalOf(await json(`${cv}/statistics`)) });
  }
  for (const [r, { levels }] of runs.entries()) {
    assert.deepEqual(
      levels.map((l) => l.confidenceLevel),
      LEVELS,
    );
    levels.forEach((l, i) => {
      assert.ok(l.numInstances > 4000, `${l.numInstances} pooled rows`);
      const classes = l.conformalClassStatistics!;
      assert.deepEqual(
        classes.map((c) => c.classValue),
        ['mutagenic', 'non-mutagenic'],
      );
      for (const c of classes) {
        // each fold's model is calibrated on a quarter of its training side (80 %), stratified by class: over the five folds, as many calibration rows of the class as test rows
        const margin = tolerance(l.confidenceLevel, c.numInstances, c.numInstances);
        assert.ok(c.coverage >= l.confidenceLevel - margin, `seed ${KAZIUS_SEEDS[r]}: class ${c.classValue} at ${l.confidenceLevel}: coverage ${c.coverage} over ${c.numInstances} rows`);
        // above the level as well, a little more where the forest's probabilities tie (the p-values are conservative)
        assert.ok(c.coverage <= l.confidenceLevel + margin + 0.03, `seed ${KAZIUS_SEEDS[r]}: class ${c.classValue} at ${l.confidenceLevel}: coverage ${c.coverage} is far above the level`);
        // the efficiency of the class's sets: shares within [0, 1], a mean size within [0, 2]
        for (const share of [c.singletonRate, c.emptySetRate, c.singletonRate + c.emptySetRate]) assert.ok(share >= 0 && share <= 1 + 1e-9, JSON.stringify(c));
        assert.ok(c.meanSetSize >= 0 && c.meanSetSize <= classes.length, JSON.stringify(c));
        // of two classes, a set that is neither single nor empty holds both, and always the true class; an empty set never does
        assert.ok(Math.abs(c.meanSetSize - (c.singletonRate + 2 * (1 - c.singletonRate - c.emptySetRate))) < 1e-9, JSON.stringify(c));
        assert.ok(c.coverage >= 1 - c.singletonRate - c.emptySetRate - 1e-9 && c.coverage <= 1 - c.emptySetRate + 1e-9, JSON.stringify(c));
        // a higher level only adds classes to the sets
        const lower = i ? levels[i - 1].conformalClassStatistics!.find((k) => k.classValue === c.classValue)! : undefined;
        if (lower) assert.ok(c.coverage >= lower.coverage && c.meanSetSize >= lower.meanSetSize && c.emptySetRate <= lower.emptySetRate, `${c.classValue}: ${JSON.stringify([lower, c])}`);
      }
      // the level's statistics are those of its classes, weighted by their rows
      const n = classes.reduce((a, c) => a + c.numInstances, 0);
      assert.equal(n, l.numInstances);
      for (const key of ['coverage', 'singletonRate', 'emptySetRate', 'meanSetSize'] as const)
        assert.ok(Math.abs(classes.reduce((a, c) => a + c[key] * c.numInstances, 0) / n - l[key]!) < 1e-9, `${key} at ${l.confidenceLevel}`);
      // the right single-label sets are at most the coverage (the rest is sets of both classes)
      assert.ok(l.coverage >= 1 - l.singletonRate! - l.emptySetRate! - 1e-9);
      assert.ok(l.singletonRate! > 0.2, 'the sets say something: not all of them hold both classes');
    });
  }
  LEVELS.forEach((level, i) => {
    for (const value of ['mutagenic', 'non-mutagenic']) {
      const of = runs.map(({ levels }) => levels[i].conformalClassStatistics!.find((c) => c.classValue === value)!);
      t.diagnostic(
        `${level}: class ${value} over ${of[0].numInstances} rows, seeds ${KAZIUS_SEEDS.join(', ')}: coverage ${of.map((c) => c.coverage.toFixed(3)).join(', ')}; single-label sets ${of.map((c) => c.singletonRate.toFixed(3)).join(', ')}; empty sets ${of.map((c) => c.emptySetRate.toFixed(3)).join(', ')}; mean set size ${of.map((c) => c.meanSetSize.toFixed(3)).join(', ')}`,
      );
    }
  });
  const { cv, levels } = runs[0];
  // the per-class efficiency in every format: XML valid against the published schema, YAML, HTML
  const statistics = local(`${cv}/statistics`);
  const xml = (await http(statistics, { accept: 'application/xml' })).text;
  assert.match(xml, /<conformalClassStatistics>(?:(?!<\/conformalClassStatistics>)[\s\S])*<meanSetSize>/);
  await checkSchema(xml);
  assert.match((await http(statistics, { accept: 'text/x-yaml' })).text, /conformalClassStatistics:[\s\S]*emptySetRate:/);
  const html = (await http(statistics, { accept: 'text/html' })).text;
  assert.match(html, /Conformal prediction: coverage and efficiency/);
  assert.match(
    html,
    /Per class \(the test rows of each class\)<\/h3><table><thead><tr><th>confidence level<\/th><th>class<\/th><th>coverage<\/th><th>test rows<\/th><th>single-label sets<\/th><th>empty sets<\/th><th>mean set size<\/th>/,
  );
  // every fold's validation states its own guarantee as well, per class
  const folds = (await http(`${local(cv)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const fold = await json(folds[0]);
  assert.equal(conformalOf(fold).length, 3);
  assert.equal(typeof conformalOf(fold)[0].conformalClassStatistics![0].singletonRate, 'number');
  // the fold's model: a p-value per class and a set per level among its predicted variables, and in its prediction dataset's CSV
  const variables = (await http(`${local(fold.model)}/predicted`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const described = await Promise.all(variables.map(async (f) => ({ f, quads: parseTurtle((await http(local(f), { accept: 'text/turtle' })).text) })));
  const typed = (type: string) => described.filter((d) => valuesOf(d.quads, d.f, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OT}${type}`));
  assert.deepEqual(
    typed('ClassPValue')
      .map((d) => valuesOf(d.quads, d.f, `${OT}pValueClass`)[0])
      .sort(),
    ['mutagenic', 'non-mutagenic'],
  );
  assert.deepEqual(
    typed('PredictionSet')
      .map((d) => Number(valuesOf(d.quads, d.f, `${OT}confidenceLevel`)[0]))
      .sort(),
    LEVELS,
  );
  const [header, ...lines] = parseCsv((await http(local(fold.predictionDataset), { accept: 'text/csv' })).text) as string[][];
  const column = (pattern: RegExp) => header.findIndex((h) => pattern.test(h));
  const pColumns = ['mutagenic', 'non-mutagenic'].map((c) => column(new RegExp(`conformal p-value of class ${c} `)));
  const setColumns = ['80', '90', '95'].map((level) => column(new RegExp(`: ${level} % prediction set`)));
  assert.ok(
    [...pColumns, ...setColumns].every((i) => i > 0),
    header.join(' | '),
  );
  assert.ok(lines.length > 700, `${lines.length} rows`);
  for (const cells of lines) {
    const p = pColumns.map((i) => Number(cells[i]));
    assert.ok(
      p.every((v) => v > 0 && v <= 1),
      cells.join(','),
    );
    // the set at a level holds the classes whose p-value is above 1 − the level
    LEVELS.forEach((level, l) => {
      const expected = ['mutagenic', 'non-mutagenic'].filter((_, k) => p[k] > 1 - level + 1e-12);
      assert.equal(cells[setColumns[l]], `{${expected.join(', ')}}`, `${level}: ${cells.join(',')}`);
    });
  }
  // the cross-validation's report: the measured guarantee per level and per class, and the calibration plot
  const report = await run(`${s.base}/validation/report/crossvalidation`, { validation_uris: cv });
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  assert.match(docbook, /Conformal prediction: the guarantee, measured/);
  assert.match(docbook, /Coverage and efficiency per class \(the test rows of each class\)/);
  const mutagenic = levels[1].conformalClassStatistics!.find((c) => c.classValue === 'mutagenic')!;
  assert.ok(docbook.includes(`<entry>mutagenic</entry><entry>${mutagenic.numInstances}</entry>`), 'per-class rows with their counts');
  assert.match(docbook, /Calibration: coverage against confidence level/);
});

test('a conformal model: its predictions fill interval features linked to the predicted feature, typed with the ontology terms, listed as predicted variables', async () => {
  const model = await task(`${s.base}/algorithm/random-forest-regression`, {
    dataset_uri: epafhm.dataset,
    prediction_feature: epafhm.target,
    numTrees: '30',
    conformal: 'cv+',
    confidence_level: '0.9',
    conformal_normalisation: 'knn',
  });
  const predicted = (await http(`${local(model)}/predicted`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(predicted.length, 4, 'prediction, confidence, lower and upper bound');
  const graphs = await Promise.all(predicted.map(async (f) => ({ f, quads: parseTurtle((await http(local(f), { accept: 'text/turtle' })).text) })));
  const typed = (type: string) => graphs.find((g) => valuesOf(g.quads, g.f, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OT}${type}`));
  const lower = typed('PredictionIntervalLower')!;
  const upper = typed('PredictionIntervalUpper')!;
  assert.ok(lower && upper);
  const main = graphs.find((g) => g !== lower && g !== upper && !valuesOf(g.quads, g.f, `${OT}confidenceOf`).length)!;
  assert.deepEqual(valuesOf(lower.quads, lower.f, `${OT}conformalOf`), [main.f]);
  assert.deepEqual(valuesOf(upper.quads, upper.f, `${OT}confidenceLevel`).map(Number), [0.9]);
  const r = await http(local(model), { method: 'POST', body: form({ dataset_uri: epafhm.dataset }), accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, r.text);
  const predictions = r.status === 202 ? await waitForTask(s, r.text.trim()) : r.text.trim();
  const turtle = parseTurtle((await http(local(predictions), { accept: 'text/turtle' })).text);
  const valuesOfFeature = (f: string) => {
    const nodes = turtle.filter((q) => q.predicate.value === `${OT}feature` && q.object.value === f).map((q) => q.subject.value);
    return turtle.filter((q) => nodes.includes(q.subject.value) && q.predicate.value === `${OT}value`).length;
  };
  assert.ok(valuesOfFeature(lower.f) > 500 && valuesOfFeature(upper.f) > 500, 'the prediction dataset holds both bounds for every row');
  // the bounds enclose the prediction in every row, and the CSV names them
  const [header, ...lines] = parseCsv((await http(local(predictions), { accept: 'text/csv' })).text) as string[][];
  const column = (pattern: RegExp) => header.findIndex((h) => pattern.test(h));
  const [p, lo, hi] = [column(/predicted by model/), column(/lower bound of the 90 % prediction interval/), column(/upper bound of the 90 % prediction interval/)];
  assert.ok(p > 0 && lo > 0 && hi > 0, header.join(' | '));
  for (const cells of lines) assert.ok(Number(cells[lo]) < Number(cells[p]) && Number(cells[p]) < Number(cells[hi]), cells.join(','));
  // and the workbook: the same columns, the bounds as numbers
  const xlsx = await fetch(local(predictions), { headers: { accept: XLSX } });
  assert.equal(xlsx.headers.get('content-type'), XLSX);
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.from(await xlsx.arrayBuffer()) as never);
  const sheet = book.worksheets[0];
  const titles = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  const cell = (pattern: RegExp) => titles.findIndex((h) => pattern.test(h)) + 1;
  const [xp, xlo, xhi] = [cell(/predicted by model/), cell(/lower bound of the 90 % prediction interval/), cell(/upper bound of the 90 % prediction interval/)];
  assert.ok(xp > 1 && xlo > 1 && xhi > 1, titles.join(' | '));
  assert.equal(sheet.actualRowCount, lines.length + 1);
  for (let r = 2; r <= sheet.actualRowCount; r++) {
    const [vp, vlo, vhi] = [xp, xlo, xhi].map((c) => sheet.getRow(r).getCell(c).value);
    assert.ok(typeof vlo === 'number' && typeof vhi === 'number' && (vlo as number) < (vp as number) && (vp as number) < (vhi as number), `row ${r}: ${vlo} ${vp} ${vhi}`);
  }
});

test('conformal parameters are checked before any work: 400 naming the parameter', async () => {
  const base = { dataset_uri: epafhm.dataset, prediction_feature: epafhm.target };
  const refused = async (algorithm: string, params: Record<string, string | string[]>, pattern: RegExp) => {
    const r = await http(`${s.url}/algorithm/${algorithm}`, { method: 'POST', body: form({ ...base, ...params }), accept: 'text/turtle' });
    assert.equal(r.status, 400, `${JSON.stringify(params)}: ${r.status} ${r.text.slice(0, 300)}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  };
  await refused('random-forest-regression', { conformal: 'bogus' }, /conformal/);
  await refused('random-forest-regression', { conformal: 'split', confidence_level: '1.5' }, /confidence_level/);
  await refused('random-forest-regression', { conformal: 'split', confidence_level: '0.9; DROP ALL' }, /confidence_level/);
  await refused('svr', { conformal: 'split', conformal_normalisation: 'spread' }, /conformal_normalisation: spread/);
  await refused('random-forest-regression', { conformal: 'split', calibration_fraction: '1' }, /calibration_fraction/);
  await refused('random-forest-regression', { conformal: 'cv+', calibration_sets: '1' }, /calibration_sets/);
  await refused('random-forest-regression', { conformal: 'split', confidence_level: '0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95' }, /at most 9/);
  await refused('random-forest-classification', { conformal: 'split', conformal_normalisation: 'knn' }, /applies to regression/);
  await refused('superalgorithm', { model_learning: ['mlr', 'pls'], parameter: ['mlr conformal split'] }, /a consensus of several learners is not calibrated/);
  await refused('superalgorithm', { model_learning: 'mlr', feature_selection: 'fs-correlation', parameter: ['mlr conformal split'] }, /fs-correlation selects features by the target/);
});

test('a calibration too small for a level: unbounded intervals (INF in RDF, JSON and CSV), coverage 1, and a warning on the model', async () => {
  const v = await json(
    await task('/validation/training_test_split', {
      dataset_uri: epafhm.dataset,
      algorithm_uri: `${s.base}/algorithm/random-forest-regression`,
      prediction_feature: epafhm.target,
      split_ratio: '0.7',
      // 406 training rows, 2 % of them calibrate: 8 rows, enough for 80 % (4), too few for 95 % (19)
      algorithm_params: 'numTrees=20;conformal=split;confidence_level=0.8,0.95;calibration_fraction=0.02',
    }),
  );
  const [eighty, ninetyFive] = conformalOf(v);
  assert.equal(typeof eighty.meanIntervalWidth, 'number');
  assert.equal(ninetyFive.meanIntervalWidth, 'INF' as unknown as number);
  assert.equal(ninetyFive.coverage, 1);
  const turtle = (await http(local(v.uri ?? ''), { accept: 'text/turtle' })).text;
  // the conformal statistics (an INF among them) in RDF/XML that an independent parser reads
  const rdfXml = await checkRdfXml((await http(local(v.uri ?? ''), { accept: 'application/rdf+xml' })).text);
  assert.ok(rdfXml.some((q) => q.predicate.value === `${OT}coverage`));
  assert.match(turtle, /"INF"\^\^(xsd:double|<http:\/\/www\.w3\.org\/2001\/XMLSchema#double>)/);
  const model = parseTurtle((await http(local(v.model), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(model, v.model, `${OT}warning`).some((w) => /fewer than the 19 the 95 % level needs: its intervals are unbounded/.test(w)));
  const [header, row] = parseCsv((await http(local(v.predictionDataset), { accept: 'text/csv' })).text) as string[][];
  assert.equal(row[header.findIndex((h) => /upper bound of the 95 %/.test(h))], 'INF');
  // the same predictions validated as datasets (validate_datasets): the model's intervals are measured alike
  const variables = (await http(`${local(v.model)}/predicted`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const described = await Promise.all(variables.map(async (f) => ({ f, quads: parseTurtle((await http(local(f), { accept: 'text/turtle' })).text) })));
  const predicted = described.find((d) => !valuesOf(d.quads, d.f, `${OT}conformalOf`).length && !valuesOf(d.quads, d.f, `${OT}confidenceOf`).length)!.f;
  const again = await json(
    await task('/validation/validate_datasets', { test_dataset_uri: v.testDataset, prediction_feature: epafhm.target, prediction_dataset_uri: v.predictionDataset, predicted_feature: predicted }),
  );
  assert.deepEqual(
    conformalOf(again).map((l) => [l.confidenceLevel, l.coverage, l.numInstances]),
    conformalOf(v).map((l) => [l.confidenceLevel, l.coverage, l.numInstances]),
  );
});

/** POST and answer the resulting URI (at once, or when its task ends). */
async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

test('a conformal supermodel predicts a SMILES with its interval; its page, QPRF and QMRF state the uncertainty and the measured coverage', async () => {
  const raw = await upload(readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8').trim().split('\n').slice(0, 201).join('\n'));
  const target = (await features(raw))[0];
  const supermodel = await run(`${s.base}/algorithm/superalgorithm`, {
    dataset_uri: raw,
    prediction_feature: target,
    feature_calculation: 'rdkit-descriptors',
    model_learning: 'random-forest-regression',
    parameter: ['random-forest-regression conformal split', 'random-forest-regression confidence_level 0.9', 'random-forest-regression numTrees 30'],
  });
  // a structure the training set does not hold: its descriptors are calculated, and the interval comes with the prediction
  const r = await http(local(supermodel), { method: 'POST', body: form({ smiles: 'CCCCCCCCCCO' }), accept: 'text/csv' });
  assert.equal(r.status, 200, r.text);
  const [header, row] = parseCsv(r.text) as string[][];
  const at = (pattern: RegExp) => Number(row[header.findIndex((h) => pattern.test(h))]);
  const [value, lower, upper] = [at(/predicted by model/), at(/lower bound of the 90 %/), at(/upper bound of the 90 %/)];
  assert.ok(lower < value && value < upper, `${lower} < ${value} < ${upper}`);

  const page = (await http(local(supermodel), { accept: 'text/html' })).text;
  assert.match(page, /<dt>Uncertainty<\/dt><dd>conformal prediction \(split\): every prediction comes with its 90 % prediction interval/);

  const compound = (await http(`${local(raw)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[3];
  const qprf = await run(`${s.base}/reach_report/qprf`, { model_uri: supermodel, compound_uri: compound });
  const docbook = (await http(local(qprf), { accept: 'text/xml' })).text;
  assert.match(docbook, /90 % prediction interval/);
  assert.match(docbook, /misses the true value for at most 10 % of new compounds/);

  // a validation of the model on a held-out part measures the coverage; the QMRF (6.12, and 7) says so
  const external = await upload(['SMILES,value', ...readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8').trim().split('\n').slice(201, 301)].join('\n'));
  const validation = await run(`${s.base}/validation/test_set_validation`, { model_uri: supermodel, test_dataset_uri: external, prediction_feature: (await features(external))[0] });
  const measured = conformalOf(await json(validation));
  assert.equal(measured.length, 1);
  assert.equal(measured[0].numInstances, 100);
  const qmrf = await run(`${s.base}/reach_report/qmrf`, { model_uri: supermodel });
  const xml = (await http(local(qmrf), { accept: 'application/qmrf-xml' })).text;
  const other = /<other_statistics[^>]*>([^<]*)<\/other_statistics>/.exec(xml)?.[1] ?? '';
  assert.match(other, /Every prediction comes with a prediction interval at 90 % confidence, calibrated on \d+ training rows held out/);
  assert.ok(other.includes(`Measured: ${validation}; conformal prediction, 90 %: coverage `), other);
});
