import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, parseTurtle, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

// Issue 55: evidence that does not mislead. Conflicting duplicates (rows of one structure whose
// labels disagree) are reported as conflicts in the upload, its preview and the QMRF's 3.7.

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

/**
 * 110 rows: alcohols and amines, a Lab ID each. Pentachlorophenol is carcinogenic in rows 3 and
 * 50 and non-carcinogenic in row 105 (the table's rows count from the header's, row 1); phenol
 * comes twice with the same label (a duplicate, not a conflict) and logP 1.5 and 1.6 (replicates
 * that differ).
 */
function table(): string {
  const lines = ['SMILES,Lab ID,logP,Carcinogenicity'];
  const pcp = 'Oc1c(Cl)c(Cl)c(Cl)c(Cl)c1Cl';
  for (let k = 1; lines.length < 110; k++) {
    const row = lines.length + 1;
    const [smiles, logp, label] =
      row === 3 || row === 50
        ? [pcp, '5.1', 'carcinogenic']
        : row === 105
          ? [pcp, '5.1', 'non-carcinogenic']
          : row === 7 || row === 101
            ? ['Oc1ccccc1', row === 7 ? '1.5' : '1.6', 'non-carcinogenic']
            : [`${'C'.repeat(1 + (k % 40))}${k % 2 ? 'O' : 'N'}${k > 40 ? 'C(C)'.repeat(1 + Math.floor(k / 40)) : ''}`, String(k / 10), k % 3 ? 'carcinogenic' : 'non-carcinogenic'];
    lines.push(`${smiles},L-${row},${logp},${label}`);
  }
  return `${lines.join('\n')}\n`;
}

const rowOf = (w: string) => Number(/^row (\d+)/.exec(w)?.[1]);

test('conflicting duplicates: the upload names each row that disagrees with its structure’s first row, warnings in row order, and the QMRF 3.7 is not met', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: table(), contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  const meta = parseTurtle((await http(local(dataset), { accept: 'text/turtle' })).text);
  const warnings = valuesOf(meta, dataset, `${OT}warning`);
  const conflicts = warnings.filter((w) => /^row \d+: conflicting duplicate of/.test(w));
  assert.deepEqual(conflicts.map(rowOf), [105], `only pentachlorophenol's non-carcinogenic row conflicts (phenol agrees, Lab ID is an identifier): ${conflicts.join(' | ')}`);
  assert.match(conflicts[0], /row 105: conflicting duplicate of row 3 \(.+\): Carcinogenicity is "non-carcinogenic" here, "carcinogenic" in row 3/);
  assert.ok(
    warnings.some((w) => /^1 structure\(s\) have rows whose classes disagree/.test(w)),
    warnings.join(' | '),
  );
  // numbers that differ are replicates, not conflicts
  assert.ok(
    warnings.some((w) => /^row 101: differing replicate of row 7 \(.+\): logP is "1\.6" here, "1\.5" in row 7$/.test(w)),
    warnings.join(' | '),
  );
  assert.ok(warnings.some((w) => /^1 structure\(s\) have replicate rows whose numbers differ/.test(w)));
  // the JSON of the dataset lists the warnings in the order of their rows: row 50 before row 101
  const listed = (JSON.parse((await http(local(dataset), { accept: 'application/json' })).text).warnings as string[]) ?? [];
  const numbered = listed.map(rowOf).filter((n) => Number.isFinite(n));
  assert.ok(numbered.includes(50) && numbered.includes(101), listed.join(' | '));
  assert.deepEqual(
    numbered,
    [...numbered].sort((a, b) => a - b),
    `warnings in row order: ${numbered.join(', ')}`,
  );

  // the QMRF of a model trained on it: 3.7 names the conflict, and the QAF's data-quality question is not met
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const titled = await Promise.all(features.map(async (f) => [f, valuesOf(parseTurtle((await http(local(f), { accept: 'text/turtle' })).text), f, 'http://purl.org/dc/elements/1.1/title')[0]]));
  const target = titled.find(([, t]) => t === 'Carcinogenicity')![0];
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'tpsa,exactmw,CrippenClogP' });
  const model = await run(`${s.base}/algorithm/random-forest-classification`, { dataset_uri: described, prediction_feature: target });
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: model });
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  const quality = /<endpoint_data_quality[^>]*>([^<]*)</.exec(xml)?.[1] ?? '';
  assert.match(
    quality,
    /1 structure\(s\) are conflicting duplicates, with rows whose values of the dependent variable disagree: .+ \(&quot;carcinogenic&quot; and &quot;non-carcinogenic&quot;\)/,
    quality,
  );
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  const verdicts = new Map(valuesOf(rdf, report, `${OT}qafChecklistElement`).map((n) => [valuesOf(rdf, n, `${OT}qafQuestion`)[0], valuesOf(rdf, n, `${OT}qafVerdict`)[0]]));
  assert.equal(verdicts.get('Are the quality and variability of the endpoint data described?'), 'not met');
  // a number measured twice with different values: replicates whose variability 3.7 describes (met)
  const regression = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: described, prediction_feature: await featureTitled(dataset, 'logP') });
  const numeric = await run(`${s.base}/reach_report/qmrf`, { model_uri: regression });
  const spread = /<endpoint_data_quality[^>]*>([^<]*)</.exec((await http(local(numeric), { accept: 'application/qmrf-xml' })).text)?.[1] ?? '';
  assert.match(spread, /1 structure\(s\) have replicate measurements that differ: .+ \(&quot;1\.5&quot; and &quot;1\.6&quot;\)/, spread);
  const numericRdf = parseTurtle((await http(local(numeric), { accept: 'text/turtle' })).text);
  const numericVerdicts = new Map(
    valuesOf(numericRdf, numeric, `${OT}qafChecklistElement`).map((n) => [valuesOf(numericRdf, n, `${OT}qafQuestion`)[0], valuesOf(numericRdf, n, `${OT}qafVerdict`)[0]]),
  );
  assert.equal(numericVerdicts.get('Are the quality and variability of the endpoint data described?'), 'met');
});

test('the upload preview shows the rows of one structure whose values disagree', async () => {
  const fd = new FormData();
  fd.append('file', new Blob([table()], { type: 'text/csv' }), 'carcinogenicity.csv');
  const preview = await http(`${s.url}/dataset/preview`, { method: 'POST', body: fd, accept: 'application/json' });
  assert.equal(preview.status, 200, preview.text);
  const { conflicts } = JSON.parse(preview.text) as { conflicts: string[] };
  assert.deepEqual(conflicts.map(rowOf), [101, 105], conflicts.join(' | '));
  assert.match(conflicts[0], /^row 101: differing replicate of row 7 .*logP is "1\.6" here/);
  assert.match(conflicts[1], /^row 105: conflicting duplicate of row 3 .*Carcinogenicity is "non-carcinogenic" here, "carcinogenic" in row 3/);
  const { pending } = JSON.parse(preview.text) as { pending: string };
  const page = await http(`${s.url}/dataset/preview/${pending}`, { accept: 'text/html' });
  assert.match(page.text, /Rows of the same structure whose values disagree/);
});

/** The feature of a dataset with this title. */
async function featureTitled(dataset: string, title: string): Promise<string> {
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  for (const f of features) if (valuesOf(parseTurtle((await http(local(f), { accept: 'text/turtle' })).text), f, 'http://purl.org/dc/elements/1.1/title')[0] === title) return f;
  throw new Error(`no feature ${title}`);
}

/** The training form's "Feature to predict": its options' titles in order, and the selected one. */
async function targetSelect(algorithm: string, dataset: string): Promise<{ titles: string[]; selected?: string; html: string }> {
  const page = await http(`${s.url}/algorithm/${algorithm}?dataset_uri=${encodeURIComponent(dataset)}`, { accept: 'text/html' });
  assert.equal(page.status, 200, page.text);
  const html = /<select name="prediction_feature" required>(.*?)<\/select>/s.exec(page.text)?.[1] ?? '';
  const options = [...html.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)];
  return { titles: options.map((o) => o[3]), selected: options.find((o) => o[2])?.[3], html };
}

test('the training form: the feature to predict defaults to the only class (or number) column that is not an identifier, the dataset’s own columns listed before the descriptors; a text target gets the right hint', async () => {
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: table(), contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'tpsa,exactmw' });
  const classes = await targetSelect('random-forest-classification', described);
  assert.equal(classes.selected, 'Carcinogenicity', `not the first column (Lab ID): ${classes.titles.join(', ')}`);
  assert.match(classes.html, /^<optgroup label="The dataset's own columns">(?:(?!optgroup).)*Lab ID(?:(?!optgroup).)*<\/optgroup><optgroup label="Calculated descriptors">.*tpsa/s);
  const numbers = await targetSelect('random-forest-regression', described);
  assert.equal(numbers.selected, 'logP', numbers.titles.join(', '));
  // the identifier as the target: a hint to choose the endpoint, not "use a regression learner"
  const labId = await featureTitled(dataset, 'Lab ID');
  const started = await http(`${s.url}/algorithm/random-forest-classification`, { method: 'POST', body: form({ dataset_uri: described, prediction_feature: labId }), accept: 'text/uri-list' });
  const failed = started.status === 202 ? await waitForTask(s, started.text.trim()).then(String, (e: Error) => e.message) : started.text;
  assert.match(failed, /\(Lab ID\) is a text column with \d+ distinct values, most likely an identifier or a name, not classes/);
  assert.doesNotMatch(failed, /use a regression learner/);
});

test('predicting a dataset keeps the person’s identifier column beside the predictions, in every format', async () => {
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: table(), contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'tpsa,exactmw' });
  const model = await run(`${s.base}/algorithm/random-forest-classification`, { dataset_uri: described, prediction_feature: await featureTitled(dataset, 'Carcinogenicity') });
  // the raw upload: the descriptors are calculated for the prediction
  const predicted = await run(model, { dataset_uri: dataset });
  const csv = (await http(local(predicted), { accept: 'text/csv' })).text;
  const [header, first] = csv.split(/\r?\n/);
  assert.match(header, /Lab ID/, header);
  assert.doesNotMatch(header, /logP|tpsa/, 'only the identifiers are kept, not the values the model read or other columns');
  assert.match(first, /L-2\b/, first);
  for (const accept of ['application/json', 'text/arff', 'chemical/x-mdl-sdfile', 'text/turtle', 'text/html']) {
    const text = (await http(local(predicted), { accept })).text;
    assert.match(text, /Lab ID/, accept);
    assert.match(text, /L-2\b/, accept);
  }
});

test('descriptor values a structure does not define are left empty with a warning: Kier’s κ of single atoms, salts and paths too short', async () => {
  // [Cd+2] and water: no bond; CCl4: no path of three bonds; butane and benzene: every κ defined
  const csv = 'SMILES,Name\n[Cd+2],cadmium\nO,water\nClC(Cl)(Cl)Cl,carbon tetrachloride\nCCCC,butane\nc1ccccc1,benzene\n[Na+].[Cl-],sodium chloride\n';
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'kappa1,kappa3,Phi,tpsa' });
  const [header, ...lines] = (await http(local(described), { accept: 'text/csv' })).text.trim().split(/\r?\n/);
  const titles = header.split(',').map((t) => t.replace(/^"|"$/g, ''));
  const cell = (name: string, title: string) => {
    const line = lines.find((l) => l.includes(`,${name},`) || l.includes(`,${name}`))!;
    return line.split(',')[titles.indexOf(title)];
  };
  for (const name of ['cadmium', 'water', 'carbon tetrachloride', 'sodium chloride']) assert.equal(cell(name, 'kappa3'), '', `${name}: ${lines.join(' | ')}`);
  for (const name of ['cadmium', 'water', 'sodium chloride']) assert.equal(cell(name, 'kappa1'), '', name);
  assert.ok(Number(cell('carbon tetrachloride', 'kappa1')) > 0, 'CCl4 has bonds: κ1 is defined');
  for (const name of ['butane', 'benzene']) for (const t of ['kappa1', 'kappa3', 'Phi']) assert.ok(Number.isFinite(Number.parseFloat(cell(name, t))), `${name} ${t}`);
  assert.notEqual(cell('cadmium', 'tpsa'), '', 'tpsa is defined for any structure');
  const warnings = valuesOf(parseTurtle((await http(local(described), { accept: 'text/turtle' })).text), described, `${OT}warning`);
  assert.ok(
    warnings.some((w) => /^kappa3 left empty for 4 structure\(s\) \(rows [\d, ]+\): Kier's κ3 is defined only for a structure with a path of 3 bond\(s\) between heavy atoms$/.test(w)),
    warnings.join(' | '),
  );
  // the same into an existing dataset (result_dataset): its warnings say so too
  assert.equal(await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, result_dataset: dataset, descriptors: 'kappa3' }), dataset);
  const own = valuesOf(parseTurtle((await http(local(dataset), { accept: 'text/turtle' })).text), dataset, `${OT}warning`);
  assert.ok(
    own.some((w) => /^kappa3 left empty for 4 structure\(s\)/.test(w)),
    own.join(' | '),
  );
});

test('a URI parameter with a trailing CR or white space (x=$(curl …) of a text/uri-list answer) names the resource', async () => {
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,Name\nCCO,ethanol\nCCCO,propanol\n', contentType: 'text/csv', accept: 'text/uri-list' })).text;
  // a text/uri-list answer read into a shell variable from a CRLF line keeps its CR
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: `${dataset.trim()}\r`, descriptors: 'tpsa' });
  assert.match(described, new RegExp(`^${s.base}/dataset/\\d+$`));
  const padded = await http(
    `${s.url}/dataset/${dataset.trim().split('/').pop()}/compounds?feature_uris[]=${encodeURIComponent(` ${(await http(`${local(dataset.trim())}/features`, { accept: 'text/uri-list' })).text.trim()}\r`)}`,
    {
      accept: 'text/uri-list',
    },
  );
  assert.equal(padded.status, 200, padded.text);
});

test('the compound list shows each compound by its name and SMILES, not by its URI', async () => {
  await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,Name\nCCO,ethanol\nCC(=O)O,acetic acid\n', contentType: 'text/csv', accept: 'text/uri-list' });
  const page = (await http(`${s.url}/compound`, { accept: 'text/html' })).text;
  const captions = [...page.matchAll(/<figcaption>(.*?)<\/figcaption>/g)].map((m) => m[1]);
  assert.ok(
    captions.some((c) => />ethanol<\/a><br><code>CCO<\/code>/.test(c)),
    captions.slice(0, 5).join(' | '),
  );
  assert.ok(captions.some((c) => />acetic acid<\/a><br><code>CC\(=O\)O<\/code>/.test(c)));
  assert.ok(!captions.some((c) => />\/compound\/\d+<\/a>/.test(c)), 'no bare URI as a caption');
});

test('the training form: with two class columns none is chosen until one is declared the measured endpoint, then that one is', async () => {
  const csv = [
    'SMILES,Lab ID,Mutagenicity,Carcinogenicity',
    'CCO,A1,positive,carcinogenic',
    'CCCO,A2,negative,non-carcinogenic',
    'CCCCO,A3,positive,non-carcinogenic',
    'CCN,A4,negative,carcinogenic',
  ].join('\n');
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: `${csv}\n`, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const before = await targetSelect('random-forest-classification', dataset);
  assert.equal(before.selected, undefined, before.titles.join(', '));
  assert.match(before.html, /^<option value="">choose the endpoint<\/option>/);
  const carcinogenicity = await featureTitled(dataset, 'Carcinogenicity');
  const put = await http(local(carcinogenicity), {
    method: 'PUT',
    contentType: 'text/turtle',
    body: `<${carcinogenicity}> a <${OT}Feature>, <${OT}NominalFeature> ; <http://purl.org/dc/elements/1.1/title> "Carcinogenicity" ; <${OT}species> "rat" .`,
  });
  assert.equal(put.status, 200, put.text);
  assert.equal((await targetSelect('random-forest-classification', dataset)).selected, 'Carcinogenicity');
});

test('a PUT merging a table whose rows of one structure disagree names the conflict, and which value is kept', async () => {
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,Name\nCCO,ethanol\n', contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const put = await http(local(dataset), { method: 'PUT', body: 'SMILES,Carcinogenicity\nCCO,carcinogenic\nCCO,non-carcinogenic\n', contentType: 'text/csv' });
  assert.equal(put.status, 200, put.text);
  const warnings = valuesOf(parseTurtle((await http(local(dataset), { accept: 'text/turtle' })).text), dataset, `${OT}warning`);
  assert.ok(
    warnings.some((w) => /^row 3: conflicting duplicate of row 2 \(.+\): Carcinogenicity is "non-carcinogenic" here, "carcinogenic" in row 2 \(the later value is kept\)$/.test(w)),
    warnings.join(' | '),
  );
});
