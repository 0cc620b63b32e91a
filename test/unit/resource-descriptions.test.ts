import { test } from 'node:test';
import { throughText } from './through-text.ts';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import type * as RDF from '@rdfjs/types';
import { df, literal, ot, owl, rdf } from '../../src/rdf/namespaces.ts';
import { describeResource, many, optional, required, type ResourceDescription } from '../../src/rdf/resource-description.ts';
import { featureDescription, featureGraph, featureRecord } from '../../src/feature/feature-record.ts';
import { datasetDescription, datasetMeta, metadataQuads } from '../../src/dataset/dataset-codec.ts';
import { modelDescription, modelDescriptionOf, modelGraphs } from '../../src/model/model-codec.ts';
import {
  crossvalidationDescription,
  crossvalidationQuads,
  crossvalidationRecord,
  validationDescription,
  validationQuads,
  validationRecord,
  type CrossvalidationRecord,
  type ValidationRecord,
} from '../../src/validation/validation-record.ts';

const BASE = 'http://toxgraph.test';

test('a description reads only its subject, and only terms of the kind a field holds', () => {
  const thing = describeResource([ot('Thing')], {
    title: optional('text', df.namedNode(`${BASE}/title`)),
    links: many('iri', df.namedNode(`${BASE}/link`)),
    n: required('integer', df.namedNode(`${BASE}/n`)),
  });
  const s = df.namedNode(`${BASE}/a`);
  const quads = [
    df.quad(s, rdf('type'), ot('Thing')),
    df.quad(s, df.namedNode(`${BASE}/title`), df.namedNode(`${BASE}/not-a-literal`)),
    df.quad(s, df.namedNode(`${BASE}/link`), literal('not an IRI')),
    df.quad(s, df.namedNode(`${BASE}/link`), df.namedNode(`${BASE}/b`)),
    df.quad(s, df.namedNode(`${BASE}/n`), literal('not a number')),
    df.quad(s, df.namedNode(`${BASE}/n`), literal(7)),
    df.quad(df.namedNode(`${BASE}/other`), df.namedNode(`${BASE}/title`), literal('another subject')),
  ];
  assert.deepEqual(thing.decode(quads, s.value), { uri: s.value, links: [`${BASE}/b`], n: 7 });
  assert.equal(thing.isOne(quads, s.value), true);
  assert.equal(thing.isOne(quads, `${BASE}/other`), false);
  assert.throws(() => thing.encode({ uri: s.value } as never), /n is required/);
});

test('feature: what the server makes reads back as the record it describes', async () => {
  const uri = `${BASE}/feature/3`;
  const quads = await throughText(
    featureGraph({
      uri,
      title: 'Mutagenicity "TA98" <in vitro>',
      description: 'Ames test\nresult',
      kind: 'nominal',
      source: `${BASE}/dataset/1`,
      sameAs: ['http://www.opentox.org/echaEndpoints.owl#Mutagenicity'],
      accepted: ['active', 'inactive'],
    }),
  );
  assert.deepEqual(featureRecord(quads, uri), {
    uri,
    exists: true,
    numeric: false,
    nominal: true,
    title: 'Mutagenicity "TA98" <in vitro>',
    description: 'Ames test\nresult',
    units: undefined,
    source: `${BASE}/dataset/1`,
    bits: undefined,
    sameAs: ['http://www.opentox.org/echaEndpoints.owl#Mutagenicity'],
    accepted: ['active', 'inactive'],
    smarts: undefined,
  });
  const fingerprint = featureRecord(await throughText(featureGraph({ uri, title: 'MACCS', kind: 'fingerprint', bits: 166, units: 'bits', source: `${BASE}/algorithm/maccs` })), uri);
  assert.equal(fingerprint.bits, 166);
  assert.equal(fingerprint.units, 'bits');
  const substructure = featureRecord(await throughText(featureGraph({ uri, title: 'nitro', kind: 'substructure', smarts: '[N+](=O)[O-]', source: `${BASE}/algorithm/smarts` })), uri);
  assert.deepEqual([substructure.numeric, substructure.smarts], [true, '[N+](=O)[O-]']);
  assert.equal(featureRecord([], uri).exists, false);
});

const classification: ValidationRecord = {
  validationType: 'training_test_split',
  model: `${BASE}/model/4`,
  algorithm: `${BASE}/algorithm/random-forest`,
  algorithmParams: 'n_trees=50',
  trainingDataset: `${BASE}/dataset/5`,
  testDataset: `${BASE}/dataset/6`,
  predictionDataset: `${BASE}/dataset/7`,
  predictionFeature: `${BASE}/feature/8`,
  randomSeed: 42,
  realRuntimeMs: 1234,
  date: new Date('2026-11-26T06:00:00.000Z'),
  sides: { training: { rows: 80, structures: 78 }, test: { rows: 20, structures: 20 } },
  crossvalidation: { uri: `${BASE}/crossvalidation/2`, fold: 3 },
  statistics: {
    kind: 'classification',
    values: {
      numInstances: 20,
      numWithoutClass: 0,
      numUnpredicted: 1,
      percentUnpredicted: 5,
      numCorrect: 15,
      numIncorrect: 4,
      accuracy: 15 / 19,
      confusionMatrix: { active: { active: 8, 'in active #1': 2 }, 'in active #1': { active: 2, 'in active #1': 7 } },
      classValueStatistics: {
        active: { numTruePositives: 8, numTrueNegatives: 7, numFalsePositives: 2, numFalseNegatives: 2, truePositiveRate: 0.8 },
        'in active #1': { numTruePositives: 7, numTrueNegatives: 8, numFalsePositives: 2, numFalseNegatives: 2 },
      },
    },
  },
};

test('validation: a classification with its folds, sides and confusion matrix round-trips', async () => {
  const uri = `${BASE}/validation/9`;
  assert.deepEqual(validationRecord(await throughText(validationQuads(uri, classification)), uri), classification);
  assert.equal(validationRecord(await throughText(validationQuads(uri, classification)), `${BASE}/validation/10`), undefined);
});

test('validation: pooled regression statistics keep Q² as pooled, and a bare record stays bare', async () => {
  const uri = `${BASE}/crossvalidation/2/statistics`;
  const pooled: ValidationRecord = {
    validationType: 'crossvalidation',
    predictionFeature: `${BASE}/feature/8`,
    realRuntimeMs: 20,
    date: new Date('2026-11-26T06:00:00.000Z'),
    pooled: true,
    statistics: { kind: 'regression', values: { numInstances: 30, numWithoutClass: 0, numUnpredicted: 0, sumSquaredError: 2.5, rSquare: 0.71, rootMeanSquaredError: 0.288 } },
  };
  assert.deepEqual(validationRecord(await throughText(validationQuads(uri, pooled)), uri), pooled);
  const { pooled: _, ...bare } = pooled;
  assert.deepEqual(validationRecord(await throughText(validationQuads(uri, bare)), uri), bare);
});

test('cross-validation: its record round-trips (folds as a set)', async () => {
  const uri = `${BASE}/crossvalidation/2`;
  const cv: CrossvalidationRecord = {
    algorithm: `${BASE}/algorithm/knn`,
    algorithmParams: '',
    predictionFeature: `${BASE}/feature/8`,
    dataset: `${BASE}/dataset/5`,
    numFolds: 3,
    stratified: 'true',
    randomSeed: 1,
    leaveOneOut: false,
    yScrambleSeed: 7,
    note: 'folds by structure',
    folds: [`${BASE}/validation/11`, `${BASE}/validation/12`, `${BASE}/validation/13`],
    date: new Date('2026-11-26T06:00:00.000Z'),
  };
  const back = crossvalidationRecord(await throughText(crossvalidationQuads(uri, cv)), uri);
  assert.deepEqual({ ...back, folds: [...(back?.folds ?? [])].sort() }, cv);
  const { yScrambleSeed: _, note: __, ...plain } = cv;
  assert.deepEqual({ ...crossvalidationRecord(crossvalidationQuads(uri, plain), uri), folds: plain.folds }, plain);
});

test('dataset metadata: annotations, columns in order, warnings and the creation date round-trip', async () => {
  const uri = `${BASE}/dataset/5`;
  const created = new Date('2026-01-02T03:04:05.678Z');
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [df.namedNode('http://purl.org/dc/elements/1.1/title'), literal('Kazius "mutagenicity"')],
    [df.namedNode('http://purl.org/dc/terms/license'), df.namedNode('https://creativecommons.org/licenses/by/4.0/')],
  ];
  const features = Array.from({ length: 12 }, (_, i) => `${BASE}/feature/${12 - i}`);
  const meta = datasetMeta(await throughText(metadataQuads(uri, { annotations, features, warnings: ['row 3: no structure'], created })), uri);
  assert.ok(meta);
  assert.deepEqual(
    { title: meta.title, features: meta.features, warnings: meta.warnings, created: meta.created, annotations: meta.annotations.map(([p, o]) => [p.value, o.value]) },
    { title: 'Kazius "mutagenicity"', features, warnings: ['row 3: no structure'], created, annotations: annotations.map(([p, o]) => [p.value, o.value]) },
  );
  assert.equal(datasetMeta(metadataQuads(uri, { annotations, features, warnings: [] }), `${BASE}/dataset/6`), undefined);
});

test('model: the description graph of a new model reads back as its description', async () => {
  const at = {
    uri: `${BASE}/model/4`,
    predicted: `${BASE}/feature/20`,
    confidence: `${BASE}/feature/21`,
    content: `${BASE}/model/4/content`,
    domain: { metric: `${BASE}/feature/22`, membership: `${BASE}/feature/23` },
  };
  const graphs = modelGraphs(at, {
    algorithm: `${BASE}/algorithm/knn`,
    learnerId: 'knn',
    trainingDataset: `${BASE}/dataset/5`,
    parameters: { k: 3 },
    parameterSpecs: [{ name: 'k', type: 'integer', description: 'neighbours', default: 5 } as never],
    task: 'regression',
    classes: [],
    independent: [`${BASE}/feature/1`, `${BASE}/feature/2`],
    dependent: `${BASE}/feature/3`,
    encodings: [],
    state: {},
    domain: { method: 'leverage', state: {} },
    linkedDomains: [`${BASE}/model/2`],
    targetTitle: 'LC50',
    warnings: [],
    endpoints: ['http://www.opentox.org/echaEndpoints.owl#AcuteToxicity'],
  });
  const d = modelDescription(await throughText(graphs[at.uri]), at.uri);
  assert.deepEqual(
    { ...d, predictedVariables: [...d.predictedVariables].sort(), hasDomain: [...d.hasDomain].sort() },
    {
      uri: at.uri,
      title: 'LC50 (regression model 4)',
      algorithm: `${BASE}/algorithm/knn`,
      trainingDataset: `${BASE}/dataset/5`,
      independent: [`${BASE}/feature/1`, `${BASE}/feature/2`],
      dependent: `${BASE}/feature/3`,
      predictedVariables: [at.predicted, at.confidence].sort(),
      endpoints: ['http://www.opentox.org/echaEndpoints.owl#AcuteToxicity'],
      adMetric: at.domain.metric,
      adMembership: at.domain.membership,
      hasDomain: [`${BASE}/model/2`, at.uri].sort(),
      parameters: { k: '3' },
      related: [],
    },
  );
});

/** What the SHACL shapes say of the properties of the resources targeted by `type`. */
async function propertyShapesOf(type: RDF.NamedNode): Promise<{ path: string; minCount?: number; maxCount?: number; nodeKind?: string }[]> {
  const dir = join(import.meta.dirname, '../../shapes');
  const quads: RDF.Quad[] = [];
  for (const file of await readdir(dir)) if (file.endsWith('.ttl')) quads.push(...(new Parser().parse(await readFile(join(dir, file), 'utf8')) as unknown as RDF.Quad[]));
  const SH = 'http://www.w3.org/ns/shacl#';
  const objects = (s: RDF.Term, p: string) => quads.filter((q) => q.subject.equals(s) && q.predicate.value === SH + p).map((q) => q.object);
  // node shapes aimed at the type itself (not at one of its subclasses only)
  const shapes = quads.filter((q) => q.predicate.value === `${SH}targetClass` && q.object.equals(type)).map((q) => q.subject);
  return shapes.flatMap((shape) =>
    objects(shape, 'property')
      .filter((p) => objects(p, 'path')[0]?.termType === 'NamedNode')
      .map((p) => ({
        path: objects(p, 'path')[0].value,
        minCount: objects(p, 'minCount').map((t) => Number(t.value))[0],
        maxCount: objects(p, 'maxCount').map((t) => Number(t.value))[0],
        nodeKind: objects(p, 'nodeKind')[0]?.value.slice(SH.length),
      })),
  );
}

/** Where a description and its type's shape disagree: a property the shape constrains that the description does not hold, or holds otherwise. */
async function disagreements(description: ResourceDescription): Promise<string[]> {
  const fields = Object.entries(description.fields);
  const problems: string[] = [];
  const constraints = await propertyShapesOf(description.types[0]);
  assert.ok(constraints.length, `no shape targets ${description.types[0].value}`);
  for (const c of constraints) {
    const found = fields.find(([, f]) => f.path.value === c.path);
    if (!found) {
      problems.push(`${c.path}: constrained by the shape, not in the description`);
      continue;
    }
    const [name, field] = found;
    if (c.maxCount === 1 && field.cardinality === 'many') problems.push(`${name}: the shape allows one value, the description many`);
    // (a list says nothing of its least length: a shape's minimum is checked on what comes in)
    if ((c.minCount ?? 0) >= 1 && field.cardinality === 'optional') problems.push(`${name}: the shape requires it, the description does not`);
    if (c.nodeKind === 'IRI' && field.kind !== 'iri') problems.push(`${name}: the shape wants an IRI, the description a ${field.kind}`);
    if (c.nodeKind === 'Literal' && field.kind === 'iri') problems.push(`${name}: the shape wants a literal, the description an IRI`);
  }
  return problems;
}

test('every resource description agrees with the SHACL shape of its type', async () => {
  for (const description of [featureDescription, validationDescription, datasetDescription, modelDescriptionOf]) assert.deepEqual(await disagreements(description), [], description.types[0].value);
  assert.deepEqual(
    await disagreements(crossvalidationDescription).catch((e: Error) => [e.message]),
    [`no shape targets ${ot('Crossvalidation').value}`],
    'cross-validations have no shape: they are only ever written by this server',
  );
});

test('the agreement check finds a description that drifted from its shape', async () => {
  const drifted = describeResource([ot('Feature')], {
    title: many('text', df.namedNode('http://purl.org/dc/elements/1.1/title')),
    source: optional('text', ot('hasSource')),
    sameAs: many('iri', owl('sameAs')),
  });
  const problems = await disagreements(drifted);
  assert.ok(problems.some((p) => p.startsWith('title: the shape allows one value')));
  assert.ok(problems.some((p) => p.startsWith('source: the shape wants an IRI')));
  assert.ok(problems.some((p) => p.includes('units') && p.includes('not in the description')));
});
