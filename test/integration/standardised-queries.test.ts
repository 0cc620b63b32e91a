import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, parseTurtle, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

// issue 55, item 1: a model trained on data that descends from a standardisation predicts every structure from its parent

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const DC = 'http://purl.org/dc/elements/1.1/';

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

/** A small regression table with salts beside other structures (sodium 2-ethylhexanoate first). */
const TABLE = `SMILES,logLC50
CCCCC(CC)C(=O)[O-].[Na+],2.1
CCCCCC(=O)O,1.8
CCCCCCCC(=O)[O-].[K+],2.6
CCCCCCO,1.5
CCCCCCCCO,2.4
CCCCN.Cl,0.9
CCCCCCN,1.3
c1ccccc1O,1.6
Cc1ccccc1O,1.9
O=C([O-])c1ccccc1.[Na+],1.2
CC(C)CC(=O)O,1.0
CCCCCCCCCC(=O)O,3.0
CCOC(C)=O,0.7
CCCCOC(C)=O,1.4
ClCCCl,1.1
ClC(Cl)Cl,1.3
Clc1ccccc1,2.2
Clc1ccccc1Cl,2.9
Oc1ccc(Cl)cc1,2.3
CCCCCCCCN.Cl,2.5
`;
const SALT = 'CCCCC(CC)C(=O)[O-].[Na+]';
const ACID = 'CCCCC(CC)C(=O)O';
const DESCRIPTORS = { descriptors: 'tpsa,exactmw,CrippenClogP,NumHBD,NumRotatableBonds' };

const parametersOf = async (model: string) => {
  const q = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  return new Map(valuesOf(q, model, `${OT}parameters`).map((p) => [valuesOf(q, p, `${DC}title`)[0], valuesOf(q, p, `${OT}paramValue`)[0]]));
};

const posted = async (smiles: string) => (await http(`${s.url}/compound`, { method: 'POST', body: smiles, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();

/** A model's answer for one compound: every predicted column (value, confidence, domain metric and verdict). */
async function predictOne(model: string, compound: string): Promise<string[]> {
  const r = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(r.status, 200, r.text);
  return (parseCsv(r.text) as string[][])[1].slice(1);
}

/** A QPRF's nearest training compounds (in rank order, with their similarities) and its checklist evidence and substance rows. */
async function qprf(model: string, compound: string): Promise<{ neighbours: string[]; input: { verdict: string; evidence: string }; docbook: string }> {
  const report = await run(`${s.base}/reach_report/qprf`, { model_uri: model, compound_uri: compound });
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  // each neighbour's row: rank, compound, SMILES, similarity, measured, predicted
  const neighbours = [...docbook.matchAll(/<row><entry>\d<\/entry><entry><link xlink:href=[\s\S]*?<\/row>/g)].map((m) => m[0]);
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  const node = valuesOf(rdf, report, `${OT}qafChecklistElement`).find((n) => valuesOf(rdf, n, `${OT}qafQuestion`)[0] === 'Is the substance’s structure correct and unambiguous?')!;
  return { neighbours, input: { verdict: valuesOf(rdf, node, `${OT}qafVerdict`)[0], evidence: valuesOf(rdf, node, `${OT}qafEvidence`)[0] }, docbook };
}

test('a model trained on standardised data (through its descriptors) predicts a salt from its parent: the same value, domain verdict and neighbours, and says so on the page, in the QPRF and in QMRF 6.6', async () => {
  const raw = (await http(`${s.url}/dataset`, { method: 'POST', body: TABLE, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const standardised = await run(`${s.base}/algorithm/standardise-structures`, { dataset_uri: raw, stereo: 'remove' });
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: standardised, ...DESCRIPTORS });
  const model = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: described, prediction_feature: target, numTrees: '20' });

  // the standardisation the training set descends from is recorded on the model, with its options
  const parameters = await parametersOf(model);
  assert.equal(parameters.get('structure_standardisation'), `${s.base}/algorithm/standardise-structures`);
  assert.equal(parameters.get('standardise-structures.stereo'), 'remove');
  assert.equal(parameters.get('standardise-structures.isotopes'), 'keep');

  // the salt and its parent acid: the same prediction, confidence, domain metric and verdict
  const salt = await posted(SALT);
  const acid = await posted(ACID);
  assert.notEqual(salt, acid);
  const ofSalt = await predictOne(model, salt);
  const ofAcid = await predictOne(model, acid);
  assert.ok(ofSalt.length >= 4, `a value, its confidence and the domain's metric and verdict: ${ofSalt}`);
  assert.ok(Number.isFinite(Number(ofSalt[0])));
  assert.deepEqual(ofSalt, ofAcid, 'the salt is predicted as its parent');

  // a dataset of the two: the same again, each row keeping its own structure
  const pair = (await http(`${s.url}/dataset`, { method: 'POST', body: `SMILES\n${SALT}\n${ACID}\n`, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const predictions = await run(model, { dataset_uri: pair });
  const rows = (parseCsv((await http(local(predictions), { accept: 'text/csv' })).text) as string[][]).slice(1);
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0].slice(1), rows[1].slice(1));
  assert.deepEqual(rows[0].slice(1), ofSalt);

  // the QPRF: the same neighbours, and the correct-input item names the standardisation and the parent used
  const saltReport = await qprf(model, salt);
  const acidReport = await qprf(model, acid);
  assert.equal(saltReport.neighbours.length, 5);
  assert.deepEqual(saltReport.neighbours, acidReport.neighbours, 'the neighbours are found by the parent, with the same similarities');
  assert.equal(saltReport.input.verdict, 'met');
  assert.match(
    saltReport.input.evidence,
    /standardised first, as the model's training structures were \(standardise-structures: stereo remove, isotopes keep, hydrogens implicit\): predicted from the QSAR-ready parent CCCCC\(CC\)C\(=O\)O/,
  );
  assert.match(saltReport.docbook, /Structure predicted/);

  // the prediction page says it beside the value
  const page = (await http(local(predictions), { accept: 'text/html' })).text;
  const explained = /<section class="explained"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  assert.match(explained, /Structure predicted<\/dt><dd>standardised first, as the model(&#39;|&#x27;|')s training structures were/);
  assert.match(explained, /QSAR-ready parent CCCCC\(CC\)C\(=O\)O/);

  // QMRF 6.6 (pre-processing) states the standardisation and that every query goes through it
  const qmrf = await run(`${s.base}/reach_report/qmrf`, { model_uri: model });
  const xml = (await http(local(qmrf), { accept: 'application/qmrf-xml' })).text;
  const preprocessing = /<preprocessing[^>]*>([^<]*)<\/preprocessing>/.exec(xml)?.[1] ?? '';
  assert.match(preprocessing, /standardised to QSAR-ready parents .*stereo remove, isotopes keep, hydrogens implicit/);
  assert.match(preprocessing, /Every structure the model predicts is standardised the same way first/);
  // 4.5 lists the learner's parameters only: the standardisation is 6.6's
  const generation = /<descriptors_generation[^>]*>([^<]*)<\/descriptors_generation>/.exec(xml)?.[1] ?? '';
  assert.match(generation, /Learner parameters: /);
  assert.doesNotMatch(generation, /standardis/);
});

test('a model trained on data that was never standardised records none and predicts a salt as it is given', async () => {
  const raw = (await http(`${s.url}/dataset`, { method: 'POST', body: TABLE, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: raw, ...DESCRIPTORS });
  const model = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: described, prediction_feature: target, numTrees: '20' });
  assert.equal((await parametersOf(model)).get('structure_standardisation'), undefined);
  const ofSalt = await predictOne(model, await posted(SALT));
  const ofAcid = await predictOne(model, await posted(ACID));
  assert.notDeepEqual(ofSalt, ofAcid, 'the salt is predicted from its own structure');
  const report = await qprf(model, await posted(SALT));
  assert.doesNotMatch(report.input.evidence, /standardised first/);
  assert.doesNotMatch(report.docbook, /Structure predicted/);
});
