/**
 * The named SPARQL templates of the resource components (compound, dataset, feature, model, the
 * service description, the SPARQL endpoints, the structure index, the ontology service and the
 * QMRF term labels), run without HTTP on a real embedded store holding a small store's worth of
 * graphs written by the components' own encoders, with decoys: harvested remote resources, a
 * graph a user wrote through SPARQL Update, statements in the unnamed default graph. Every answer
 * is compared as an exact set, and every SELECT, ASK and CONSTRUCT is also run through Comunica
 * (query-template-support.ts): the store's own evaluators (one pattern, a basic graph pattern in
 * one GRAPH) must answer the same. Read-only tests run first (graphNames and the counts see every
 * graph), updates last. The templates of work records (validation, report, QMRF reports, task,
 * auth, ids) are in query-templates-work.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type * as RDF from '@rdfjs/types';
import { Parser } from 'n3';
import type { GraphScope, QueryOptions } from '../../src/store/triple-store.ts';
import { dc, df, literal, ot, otee, owl, rdf, rdfs } from '../../src/rdf/namespaces.ts';
import { featureGraph } from '../../src/feature/feature-record.ts';
import { entryQuads, metadataQuads } from '../../src/dataset/dataset-codec.ts';
import { compoundQuads, keyQuads } from '../../src/compound/compound-codec.ts';
import { modelGraphs, type NewModel } from '../../src/model/model-codec.ts';
import { algorithmById, algorithmQuads } from '../../src/algorithm/catalogue.ts';
import { POLICIES_GRAPH, policyQuads } from '../../src/auth/auth-codec.ts';
import { featureQueries } from '../../src/feature/feature-queries.ts';
import { datasetQueries } from '../../src/dataset/dataset-queries.ts';
import { compoundQueries } from '../../src/compound/compound-queries.ts';
import { modelQueries } from '../../src/model/model-queries.ts';
import { serviceQueries } from '../../src/service/service-queries.ts';
import { sparqlQueries } from '../../src/sparql/sparql-queries.ts';
import { indexQueries } from '../../src/structure-index/index-queries.ts';
import { ontologyQueries } from '../../src/ontology/ontology-queries.ts';
import { qmrfQueries } from '../../src/qmrf/qmrf-queries.ts';
import { sparql, type SparqlText } from '../../src/store/sparql-template.ts';
import { select } from '../../src/store/query-helpers.ts';
import { parsedQuery } from '../../src/store/parsed-query.ts';
import { storePlan } from '../../src/store/query-plan.ts';
import { BASE, EVIL, fmt, n, openStore, refusesBadIris, rowKey, sorted, tripleKey, uris } from './query-template-support.ts';

let db: Awaited<ReturnType<typeof openStore>>;
const rows: typeof db.rows = (...args) => db.rows(...args);
const col: typeof db.col = (...args) => db.col(...args);
const yes: typeof db.yes = (...args) => db.yes(...args);
const triples: typeof db.triples = (...args) => db.triples(...args);

// --- the fixture: URIs as the URI scheme makes them, graphs as the components' encoders write them

const C = (id: number) => uris.item('compound', id);
const F = (id: number) => uris.item('feature', id);
const D = (id: number) => uris.item('dataset', id);
const M = (id: number) => uris.item('model', id);
const entries = (d: string) => uris.subgraph(d, 'entries');
const K1 = uris.conformer(C(1), 1);
const K2 = uris.conformer(C(1), 2);
const K3 = uris.conformer(C(2), 1);
const MUT = otee('Mutagenicity').value;
const KOW = otee('Octanol-water_partition_coefficient_Kow').value;
const KNN = uris.item('algorithm', 'knn-classification');
const MLR = uris.item('algorithm', 'mlr');
const RDKIT = `${uris.item('algorithm', 'rdkit-descriptors')}/0123456789ab`;
const MACCS = `${uris.item('algorithm', 'maccs-keys')}/ba9876543210`;
const MINING = `${uris.item('algorithm', 'frequent-substructures')}/aaaaaaaaaaaa`;
/** Remote resources registered with the ontology service: harvested into a graph named by their URI. */
const REMOTE_MODEL = 'http://remote.example/model/5';
const REMOTE_FEATURE = 'http://remote.example/feature/8';
const REMOTE_DATASET = 'http://remote.example/dataset/1';
/** A graph a user wrote through SPARQL Update: in the store, not published. */
const USER_GRAPH = 'http://user.example/my-terms';
const OT_GRAPH = 'http://www.opentox.org/api/1.1';
const OTEE_GRAPH = 'http://www.opentox.org/echaEndpoints.owl';
const REGISTRATIONS = uris.endpoint('ontology');

const BENZENE = { smiles: 'c1ccccc1', inchi: 'InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H', inchiKey: 'UHOVQNZJYSORNB-UHFFFAOYSA-N' };
const ETHANOL = { smiles: 'CCO', inchi: 'InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3', inchiKey: 'LFQSCWFLJHTTHZ-UHFFFAOYSA-N' };
const PHENOL = { smiles: 'Oc1ccccc1', inchi: 'InChI=1S/C6H6O/c7-6-4-2-1-3-5-6/h1-5,7H', inchiKey: 'ISWSIDIOOBJBQZ-UHFFFAOYSA-N' };
const WATER_KEY = 'XLYOFNOQVPJJNP-UHFFFAOYSA-N';
const MOLFILE = '\n  conformer\n\n  6  6  0  0  0  0  0  0  0  0999 V2000\nM  END\n';

/** The node of a feature value set on a structure itself (as FeatureValues names it). */
const valueNode = (structure: string, feature: string) => n(`${structure}#value-${createHash('sha1').update(feature).digest('hex').slice(0, 16)}`);
const valueQuads = (structure: string, feature: string, value: RDF.Literal) => {
  const node = valueNode(structure, feature);
  return [df.quad(node, rdf('type'), ot('FeatureValue')), df.quad(node, ot('feature'), n(feature)), df.quad(node, ot('value'), value)];
};

const OT_TTL = `@prefix ot: <http://www.opentox.org/api/1.1#> . @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<${OT_GRAPH}> a owl:Ontology .
ot:Feature a owl:Class ; rdfs:label "Feature" .
ot:NumericFeature a owl:Class ; rdfs:subClassOf ot:Feature ; rdfs:label "Numeric feature" .
ot:NominalFeature a owl:Class ; rdfs:subClassOf ot:Feature .
ot:hasSource a owl:ObjectProperty ; rdfs:domain ot:Feature ; rdfs:label "has source" .
ot:feature a owl:ObjectProperty ; rdfs:range ot:Feature ; rdfs:label "feature" .
ot:Model a owl:Class ; rdfs:label "Model" ; rdfs:seeAlso ot:Feature .`;
const OTEE_TTL = `@prefix otee: <http://www.opentox.org/echaEndpoints.owl#> . @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
<${OTEE_GRAPH}> a owl:Ontology .
otee:Endpoints a owl:Class ; rdfs:label "Endpoints" .
otee:HumanHealthEffects a owl:Class ; rdfs:subClassOf otee:Endpoints ; rdfs:label "Human health effects" .
otee:Mutagenicity a owl:Class ; rdfs:subClassOf otee:HumanHealthEffects ; rdfs:label "Mutagenicity" ; skos:notation "4.10" .
otee:PhysicoChemicalEffects a owl:Class ; rdfs:subClassOf otee:Endpoints ; rdfs:label "Physicochemical effects" .
otee:Octanol-water_partition_coefficient_Kow a owl:Class ; rdfs:subClassOf otee:PhysicoChemicalEffects ; rdfs:label "Octanol-water partition coefficient (Kow)" .
otee:echaNo a owl:AnnotationProperty ; rdfs:label "EC test method number" .`;
const USER_TTL = `@prefix ot: <http://www.opentox.org/api/1.1#> . @prefix otee: <http://www.opentox.org/echaEndpoints.owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<http://user.example/MyEndpoint> rdfs:subClassOf otee:Endpoints ; rdfs:label "my endpoint" .
<http://user.example/MyFeature> rdfs:subClassOf ot:Feature ; rdfs:label "my feature" .
<http://user.example/my-conformer> ot:parentCompound <${C(1)}> .
<http://user.example/my-rows> ot:dataEntry <${D(1)}#entry-00000002> .
<${M(3)}> <http://www.w3.org/2002/07/owl#sameAs> <${MUT}> .`;
const turtle = (text: string) => new Parser({ factory: df as any }).parse(text) as unknown as RDF.Quad[];

function model(algorithmId: string, parts: Pick<NewModel, 'task' | 'trainingDataset' | 'independent' | 'dependent' | 'classes' | 'targetTitle' | 'endpoints'>): NewModel {
  const def = algorithmById(algorithmId)!;
  return {
    ...parts,
    algorithm: uris.item('algorithm', algorithmId),
    learnerId: algorithmId,
    parameters: Object.fromEntries(def.parameters.map((p) => [p.name, p.default])),
    parameterSpecs: def.parameters,
    encodings: parts.independent.map((feature) => ({ feature, kind: 'numeric', mean: 0.5, binary: false })),
    state: { weights: [0.25, -1] },
    warnings: [],
  };
}

/** Every graph of the fixture, by name. */
const graphs: Record<string, RDF.Quad[]> = {};
before(async () => {
  // compounds, conformers, the key of a deleted compound, values set on a compound itself
  Object.assign(graphs, {
    [C(1)]: compoundQuads(C(1), BENZENE, ['benzene', 'Benzol'], ['http://pubchem.example/cid/241']),
    [C(2)]: compoundQuads(C(2), ETHANOL, ['ethanol'], ['http://pubchem.example/cid/702']),
    [C(3)]: compoundQuads(C(3), PHENOL, [], ['http://pubchem.example/cid/996']),
    [K1]: compoundQuads(K1, { ...BENZENE, molfile: MOLFILE }, [], ['http://pubchem.example/cid/241'], C(1)),
    [K2]: compoundQuads(K2, { ...BENZENE, molfile: MOLFILE }, ['benzene, second conformer'], [], C(1)),
    [K3]: compoundQuads(K3, ETHANOL, [], [], C(2)),
    [uris.subgraph(C(9), 'key')]: keyQuads(C(9), WATER_KEY),
    [uris.subgraph(C(10), 'key')]: keyQuads(C(10), EVIL),
    [uris.subgraph(C(11), 'key')]: keyQuads(C(11), 'x'),
    [uris.subgraph(C(1), 'values')]: valueQuads(C(1), F(1), literal(9.99)),
  });
  // features: dataset columns, descriptors, a substructure
  const feature = (id: number, f: Omit<Parameters<typeof featureGraph>[0], 'uri'>) => (graphs[F(id)] = featureGraph({ uri: F(id), ...f }));
  feature(1, { title: 'log P', kind: 'numeric', source: D(1), sameAs: [KOW] });
  feature(2, { title: 'Ames', kind: 'nominal', source: D(1), sameAs: [MUT], accepted: ['active', 'inactive'] });
  feature(9, { title: 'MolWt', kind: 'numeric', source: RDKIT, units: 'g/mol' });
  feature(10, { title: 'TPSA', kind: 'numeric', source: RDKIT });
  feature(11, { title: 'MACCS keys', kind: 'fingerprint', bits: 166, source: MACCS });
  feature(12, { title: 'benzene ring', kind: 'substructure', smarts: 'c1ccccc1', source: MINING });
  feature(13, { title: 'CAS', kind: 'string', source: D(1) });
  // a feature a client posted without a title
  graphs[F(14)] = [df.quad(n(F(14)), rdf('type'), ot('Feature')), df.quad(n(F(14)), ot('hasSource'), n(D(1)))];
  // models with their predicted features (3-8) and content graphs
  const predictive = (m: number, predicted: number, confidence: number, def: NewModel) =>
    Object.assign(graphs, modelGraphs({ uri: M(m), predicted: F(predicted), confidence: F(confidence), content: uris.subgraph(M(m), 'content') }, def));
  predictive(
    1,
    3,
    4,
    model('knn-classification', { task: 'classification', trainingDataset: D(1), independent: [F(1)], dependent: F(2), classes: ['active', 'inactive'], targetTitle: 'Ames', endpoints: [MUT] }),
  );
  predictive(2, 5, 6, model('mlr', { task: 'regression', trainingDataset: D(1), independent: [F(9), F(10)], dependent: F(1), classes: [], targetTitle: 'log P', endpoints: [KOW] }));
  predictive(3, 7, 8, model('ad-leverage', { task: 'domain', trainingDataset: D(1), independent: [F(9), F(10)], dependent: '', classes: [], targetTitle: 'MolWt, TPSA', endpoints: [] }));
  // datasets: two with rows (a structure twice, a conformer), one empty, the rows of an upload that never finished
  const dataset = (id: number, title: string | undefined, features: string[], rowsOf: [string, [string, RDF.Literal][]][]) => {
    graphs[D(id)] = metadataQuads(D(id), { annotations: title ? [[dc('title'), literal(title)]] : [], features, warnings: [] });
    if (rowsOf.length) graphs[entries(D(id))] = rowsOf.flatMap(([c, values], i) => entryQuads(D(id), entries(D(id)), i + 1, c, values));
  };
  dataset(
    1,
    'Ames training set',
    [F(1), F(2), F(13)],
    [
      [
        C(1),
        [
          [F(1), literal(2.13)],
          [F(2), literal('active')],
          [F(13), literal('71-43-2')],
        ],
      ],
      [
        C(2),
        [
          [F(1), literal(-0.31)],
          [F(2), literal('inactive')],
        ],
      ],
      [C(1), [[F(1), literal(2.2)]]],
    ],
  );
  dataset(
    2,
    undefined,
    [F(1)],
    [
      [C(2), [[F(1), literal(-0.3)]]],
      [K1, [[F(1), literal(2.1)]]],
    ],
  );
  dataset(3, 'Empty', [], []);
  graphs[entries(D(4))] = entryQuads(D(4), entries(D(4)), 1, C(3), [[F(1), literal(1.5)]]);
  // algorithms as the catalogue describes them
  graphs[KNN] = algorithmQuads(algorithmById('knn-classification')!, KNN);
  graphs[MLR] = algorithmQuads(algorithmById('mlr')!, MLR);
  // harvested remote resources; the remote model's graph also speaks of a remote feature (not its own graph)
  const harvested = (uri: string, type: RDF.NamedNode, more: RDF.Quad[]) =>
    (graphs[uri] = [df.quad(n(uri), rdf('type'), type), df.quad(n(uri), ot('harvestedAt'), literal(new Date('2026-01-01T00:00:00Z'))), ...more]);
  harvested(REMOTE_MODEL, ot('Model'), [
    df.quad(n(REMOTE_MODEL), dc('title'), literal('remote Ames model')),
    df.quad(n(REMOTE_MODEL), owl('sameAs'), n(MUT)),
    df.quad(n('http://remote.example/feature/7'), rdf('type'), ot('Feature')),
    df.quad(n('http://remote.example/feature/7'), ot('hasSource'), n(REMOTE_MODEL)),
    df.quad(n('http://remote.example/feature/7'), owl('sameAs'), n(MUT)),
    df.quad(n('http://remote.example/feature/7'), ot('confidenceOf'), n('http://remote.example/feature/6')),
    df.quad(n('http://remote.example/dataset/2'), rdf('type'), ot('Dataset')),
  ]);
  harvested(REMOTE_FEATURE, ot('Feature'), [df.quad(n(REMOTE_FEATURE), dc('title'), literal('remote feature'))]);
  harvested(REMOTE_DATASET, ot('Dataset'), [df.quad(n(REMOTE_DATASET), dc('title'), literal('remote dataset'))]);
  // the vocabularies, the registrations of the ontology service, a user's graph, a policy
  graphs[OT_GRAPH] = turtle(OT_TTL);
  graphs[OTEE_GRAPH] = turtle(OTEE_TTL);
  graphs[USER_GRAPH] = turtle(USER_TTL);
  graphs[REGISTRATIONS] = [M(1), REMOTE_MODEL, KNN].map((u) => df.quad(n(u), ot('registered'), literal(true)));
  graphs[POLICIES_GRAPH] = policyQuads({ resource: M(1), owner: 'alice', publicRead: true, readers: [] });

  db = await openStore('templates');
  await db.store.replaceGraphs(graphs);
  // SPARQL Update may write the unnamed default graph: no resource's graph, so no template's answer
  await db.store.update(
    sparql`INSERT DATA { ${n(M(4))} a ${ot('Model')} ; ${owl('sameAs')} ${n(MUT)} . ${n(F(15))} a ${ot('Feature')} ; ${ot('hasSource')} ${n(D(1))} ; ${dc('title')} "in the default graph" ; ${ot('confidenceOf')} ${n(F(3))} . ${n(C(4))} a ${ot('Compound')} ; ${ot('smiles')} "C" ; ${ot('inchiKey')} ${literal(BENZENE.inchiKey)} ; ${ot('parentCompound')} ${n(C(1))} . ${n(D(5))} ${ot('dataEntry')} ${n(`${D(5)}#entry-00000001`)} . ${n(`${D(5)}#entry-00000001`)} ${ot('compound')} ${n(C(3))} }`,
    { unionDefaultGraph: false },
  );
  assert.equal((await db.store.quadstore.get({ graph: df.defaultGraph() } as any)).items.length, 12);
});
after(() => db?.close());

// --- read-only templates first (the generic ones see every graph of the fixture)

test('sparql graphNames: every named graph of both partitions, nothing else', async () => {
  assert.deepEqual(await col(sparqlQueries.graphNames(), 'g'), sorted(Object.keys(graphs).map((g) => fmt(n(g)))));
});

test('service count: the resources of a type, each in its own graph (harvested remote copies counted too)', async () => {
  const count = async (type: RDF.NamedNode) => (await rows(serviceQueries.count(type), ['n']))[0];
  assert.equal(await count(ot('Compound')), 'n="3"^^integer', 'not the conformers, not the keys of deleted compounds');
  assert.equal(await count(ot('Conformer')), 'n="3"^^integer');
  assert.equal(await count(ot('Feature')), 'n="15"^^integer', '14 here and the harvested remote feature; not the one the remote model graph mentions');
  assert.equal(await count(ot('Dataset')), 'n="4"^^integer', 'not dataset 4, whose rows have no metadata graph');
  assert.equal(await count(ot('Model')), 'n="4"^^integer');
  assert.equal(await count(ot('Algorithm')), 'n="2"^^integer');
  assert.equal(await count(ot('Task')), 'n="0"^^integer');
});

test('feature all and sameAs: features in their own graphs only', async () => {
  const local = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14].map((i) => fmt(n(F(i))));
  // the harvested copy of a registered remote feature is a graph named by its URI, so it is listed too (see the report);
  // the feature a harvested model's graph mentions is not in a graph of its own
  assert.deepEqual(await col(featureQueries.all(), 'f'), sorted([...local, REMOTE_FEATURE]));
  assert.deepEqual(await col(featureQueries.sameAs(MUT), 'f'), ['/feature/2', '/feature/3'], 'not model 1 nor the remote model (models), not remote feature 7 (not its graph)');
  assert.deepEqual(await col(featureQueries.sameAs(KOW), 'f'), ['/feature/1', '/feature/5']);
  assert.deepEqual(await col(featureQueries.sameAs(otee('Carcinogenicity').value), 'f'), []);
  refusesBadIris((iri) => featureQueries.sameAs(iri));
});

test('feature confidenceOf and madeBy', async () => {
  assert.deepEqual(await col(featureQueries.confidenceOf(F(3)), 'f'), ['/feature/4']);
  assert.deepEqual(await col(featureQueries.confidenceOf(F(5)), 'f'), ['/feature/6']);
  assert.deepEqual(await col(featureQueries.confidenceOf(F(4)), 'f'), [], 'a confidence has no confidence');
  assert.deepEqual(await col(featureQueries.confidenceOf(F(7)), 'f'), [], 'an applicability domain metric has none either');
  assert.deepEqual(await col(featureQueries.confidenceOf('http://remote.example/feature/6'), 'f'), [], "remote feature 7 is in the remote model's graph, not its own");
  const madeBy = async (source: string) => sorted(await rows(featureQueries.madeBy(source), ['f', 't']));
  assert.deepEqual(await madeBy(RDKIT), ['f=/feature/10 t="TPSA"', 'f=/feature/9 t="MolWt"']);
  assert.deepEqual(await madeBy(MACCS), ['f=/feature/11 t="MACCS keys"']);
  assert.deepEqual(await madeBy(M(1)), ['f=/feature/3 t="Ames (predicted by model 1)"', 'f=/feature/4 t="Ames confidence (model 1)"']);
  assert.deepEqual(await madeBy(M(3)), ['f=/feature/7 t="MolWt, TPSA (applicability domain model 3)"', 'f=/feature/8 t="inside the applicability domain of model 3"']);
  assert.deepEqual(await madeBy(D(1)), ['f=/feature/1 t="log P"', 'f=/feature/13 t="CAS"', 'f=/feature/2 t="Ames"'], 'not feature 14, which has no title');
  assert.deepEqual(await madeBy(REMOTE_MODEL), [], "remote feature 7 is in the remote model's graph, not its own");
  assert.deepEqual(await madeBy(`${RDKIT}0`), []);
  refusesBadIris((iri) => featureQueries.confidenceOf(iri));
  refusesBadIris((iri) => featureQueries.madeBy(iri));
});

test('feature exists and numeric', async () => {
  assert.equal(await yes(featureQueries.exists(F(1))), true);
  assert.equal(await yes(featureQueries.exists(F(8))), true);
  assert.equal(await yes(featureQueries.exists(F(99))), false);
  assert.equal(await yes(featureQueries.exists('http://remote.example/feature/7')), false, 'mentioned in another graph only');
  assert.equal(await yes(featureQueries.exists(entries(D(4)))), false, 'a graph that says nothing of its own name');
  // as documented: "its graph says anything of it", whatever it is
  assert.equal(await yes(featureQueries.exists(D(1))), true);
  const numeric = { 1: true, 2: false, 14: false, 3: false, 4: true, 5: true, 6: true, 7: true, 8: false, 9: true, 11: false, 12: true, 13: false, 99: false };
  for (const [id, expected] of Object.entries(numeric)) assert.equal(await yes(featureQueries.numeric(F(Number(id)))), expected, `feature ${id}`);
  refusesBadIris((iri) => featureQueries.exists(iri));
  refusesBadIris((iri) => featureQueries.numeric(iri));
});

test('dataset all and titled: datasets in their own graphs, titled or not', async () => {
  assert.deepEqual(await col(datasetQueries.all(), 'r'), sorted(['/dataset/1', '/dataset/2', '/dataset/3', REMOTE_DATASET]), 'not the rows of dataset 4, not remote dataset 2 (in another graph)');
  assert.deepEqual(sorted(await rows(datasetQueries.titled(), ['r', 't'])), [
    'r=/dataset/1 t="Ames training set"',
    'r=/dataset/2 t=-',
    'r=/dataset/3 t="Empty"',
    `r=${REMOTE_DATASET} t="remote dataset"`,
  ]);
});

test('dataset rowCount and entryGraphs (the bulk partition)', async () => {
  const count = async (d: string, g: string) => (await rows(datasetQueries.rowCount(d, g), ['n']))[0];
  assert.equal(await count(D(1), entries(D(1))), 'n="3"^^integer');
  assert.equal(await count(D(2), entries(D(2))), 'n="2"^^integer');
  assert.equal(await count(D(3), entries(D(3))), 'n="0"^^integer', 'no rows');
  assert.equal(await count(D(4), entries(D(4))), 'n="1"^^integer');
  assert.equal(await count(D(1), entries(D(2))), 'n="0"^^integer', "another dataset's rows");
  assert.deepEqual(sorted(await rows(datasetQueries.entryGraphs(), ['g', 'd'])), [
    'g=/dataset/1/entries d=/dataset/1',
    'g=/dataset/2/entries d=/dataset/2',
    'g=/dataset/4/entries d=/dataset/4',
    // any graph with ot:dataEntry: removeOrphans keeps only `{d}/entries` rows of a dataset `d`
    'g=http://user.example/my-terms d=http://user.example/my-rows',
  ]);
  refusesBadIris((iri) => datasetQueries.rowCount(iri, entries(D(1))));
  refusesBadIris((iri) => datasetQueries.rowCount(D(1), iri));
});

test('compound all, sameAs and conformers: compounds are not conformers', async () => {
  assert.deepEqual(await col(compoundQueries.all(), 'c'), ['/compound/1', '/compound/2', '/compound/3']);
  assert.deepEqual(await col(compoundQueries.sameAs('http://pubchem.example/cid/241'), 'c'), ['/compound/1'], 'not conformer 1 of it, which is the same as it too');
  assert.deepEqual(await col(compoundQueries.sameAs('http://pubchem.example/cid/996'), 'c'), ['/compound/3']);
  assert.deepEqual(await col(compoundQueries.sameAs('http://pubchem.example/cid/1'), 'c'), []);
  assert.deepEqual(await col(compoundQueries.conformers(C(1)), 'k'), ['/compound/1/conformer/1', '/compound/1/conformer/2'], "not what a user's graph says has it as parent");
  assert.deepEqual(await col(compoundQueries.conformers(C(2)), 'k'), ['/compound/2/conformer/1']);
  assert.deepEqual(await col(compoundQueries.conformers(C(3)), 'k'), []);
  refusesBadIris((iri) => compoundQueries.sameAs(iri));
  refusesBadIris((iri) => compoundQueries.conformers(iri));
});

test('compound byInchiKeys: the structures and deleted-compound keys of InChIKeys, exactly, each with its key; the store’s own evaluator answers it', async () => {
  const key = (k: string) => compoundQueries.byInchiKeys([k]);
  // conformers hold their compound's InChIKey too (the registry keeps compound URIs only)
  assert.deepEqual(await col(key(BENZENE.inchiKey), 'c'), ['/compound/1', '/compound/1/conformer/1', '/compound/1/conformer/2']);
  assert.deepEqual(await col(key(ETHANOL.inchiKey), 'c'), ['/compound/2', '/compound/2/conformer/1']);
  assert.deepEqual(await col(key(WATER_KEY), 'c'), ['/compound/9'], 'the key a deleted compound left');
  assert.deepEqual(await col(key(BENZENE.inchiKey.toLowerCase()), 'c'), []);
  assert.deepEqual(await col(key('UHOVQNZJYSORNB'), 'c'), [], 'no prefix match');
  // a hostile key is one literal: it finds the record that holds exactly it, not the one holding its first character
  assert.deepEqual(await col(key(EVIL), 'c'), ['/compound/10']);
  assert.deepEqual(await col(key('x'), 'c'), ['/compound/11']);
  assert.deepEqual(await col(key(`${BENZENE.inchiKey}" } UNION { ?c ?p ?o`), 'c'), []);
  const many = compoundQueries.byInchiKeys([BENZENE.inchiKey, WATER_KEY, 'UHOVQNZJYSORNB', EVIL]);
  assert.ok(storePlan(parsedQuery(String(many))), 'a lookup per key on the index, not a join in the query engine');
  const pair = (k: string, c: string) => `k=${JSON.stringify(k)} c=${c}`;
  assert.deepEqual(
    sorted(await db.rows(many, ['k', 'c'])),
    sorted([
      pair(BENZENE.inchiKey, '/compound/1'),
      pair(BENZENE.inchiKey, '/compound/1/conformer/1'),
      pair(BENZENE.inchiKey, '/compound/1/conformer/2'),
      pair(EVIL, '/compound/10'),
      pair(WATER_KEY, '/compound/9'),
    ]),
  );
  assert.deepEqual(await col(compoundQueries.byInchiKeys([]), 'c'), [], 'no keys, no compounds');
  await db.untouched();
});

test('compound datasetsHolding and valuesInDatasets: rows of a structure, in dataset and row order', async () => {
  assert.deepEqual(await col(compoundQueries.datasetsHolding(C(1)), 'd'), ['/dataset/1'], 'not dataset 2, whose row is a conformer of it');
  assert.deepEqual(await col(compoundQueries.datasetsHolding(C(2)), 'd'), ['/dataset/1', '/dataset/2'], "not a user's graph that links to a row of dataset 1");
  assert.deepEqual(await col(compoundQueries.datasetsHolding(K1), 'd'), ['/dataset/2']);
  assert.deepEqual(await col(compoundQueries.datasetsHolding(C(3)), 'd'), ['/dataset/4'], "rows without a metadata graph count (callers filter what they may read); not the default graph's");
  assert.deepEqual(await col(compoundQueries.datasetsHolding(C(9)), 'd'), []);
  const values = (s: string, features: string[]) => rows(compoundQueries.valuesInDatasets(s, features), ['g', 'f', 'v'], { ordered: false });
  // ORDER BY ?g ?e: row 1 (two values, in either order) before row 3 of dataset 1; never the value set on the compound itself
  const benzene = await values(C(1), [F(1), F(2)]);
  assert.deepEqual(sorted(benzene.slice(0, 2)), ['g=/dataset/1/entries f=/feature/1 v="2.13"^^double', 'g=/dataset/1/entries f=/feature/2 v="active"']);
  assert.deepEqual(benzene.slice(2), ['g=/dataset/1/entries f=/feature/1 v="2.2"^^double']);
  assert.deepEqual(await values(C(1), [F(13)]), ['g=/dataset/1/entries f=/feature/13 v="71-43-2"']);
  assert.deepEqual(await values(C(2), [F(1)]), ['g=/dataset/1/entries f=/feature/1 v="-0.31"^^double', 'g=/dataset/2/entries f=/feature/1 v="-0.3"^^double']);
  assert.deepEqual(await values(K1, [F(1), F(2)]), ['g=/dataset/2/entries f=/feature/1 v="2.1"^^double']);
  assert.deepEqual(await values(C(1), [F(9)]), []);
  refusesBadIris((iri) => compoundQueries.datasetsHolding(iri));
  refusesBadIris((iri) => compoundQueries.valuesInDatasets(iri, [F(1)]));
  refusesBadIris((iri) => compoundQueries.valuesInDatasets(C(1), [F(1), iri]));
});

test('model all: models in their own graphs, optionally of an endpoint', async () => {
  // a harvested remote model is listed too (see the report)
  assert.deepEqual(await col(modelQueries.all(), 'r'), sorted(['/model/1', '/model/2', '/model/3', REMOTE_MODEL]));
  assert.deepEqual(await col(modelQueries.all(MUT), 'r'), sorted(['/model/1', REMOTE_MODEL]), "not feature 2 or 3, which are the same as it too, nor model 3, which a user's graph says is");
  assert.deepEqual(await col(modelQueries.all(KOW), 'r'), ['/model/2']);
  assert.deepEqual(await col(modelQueries.all(otee('Carcinogenicity').value), 'r'), []);
  assert.deepEqual(await col(modelQueries.all(''), 'r'), await col(modelQueries.all(), 'r'), 'an empty filter is no filter');
  refusesBadIris((iri) => modelQueries.all(iri));
});

test('structure index: compounds with SMILES and InChIKey, and their names (not the conformers)', async () => {
  assert.deepEqual(sorted(await rows(indexQueries.indexable(), ['c', 's', 'k'])), [
    `c=/compound/1 s="c1ccccc1" k="${BENZENE.inchiKey}"`,
    `c=/compound/2 s="CCO" k="${ETHANOL.inchiKey}"`,
    `c=/compound/3 s="Oc1ccccc1" k="${PHENOL.inchiKey}"`,
  ]);
  assert.deepEqual(sorted(await rows(indexQueries.names(), ['c', 'n'])), ['c=/compound/1 n="Benzol"', 'c=/compound/1 n="benzene"', 'c=/compound/2 n="ethanol"']);
});

/** The published scope: the vocabularies and the registered resources (PublishedScope, without access control). */
const published: GraphScope = {
  includesDefaultGraph: false,
  allows: (g) => [OT_GRAPH, OTEE_GRAPH, M(1), REMOTE_MODEL, KNN].includes(g),
  restriction: () => ({ allow: [OT_GRAPH, OTEE_GRAPH, M(1), REMOTE_MODEL, KNN] }),
};
const vocabularies: GraphScope = { includesDefaultGraph: false, allows: (g) => [OT_GRAPH, OTEE_GRAPH].includes(g), restriction: () => ({ allow: [OT_GRAPH, OTEE_GRAPH] }) };
/** What a graph says of one subject, as triples. */
const about = (graph: string, subject: string) => graphs[graph].filter((q) => q.subject.value === subject).map(tripleKey);

test('ontology registered: the registrations in the given graph', async () => {
  assert.deepEqual(await col(ontologyQueries.registered(REGISTRATIONS), 'r'), sorted(['/model/1', '/algorithm/knn-classification', REMOTE_MODEL]));
  assert.deepEqual(await col(ontologyQueries.registered(`${BASE}/sparql`), 'r'), []);
  refusesBadIris((iri) => ontologyQueries.registered(iri));
});

test('ontology models and algorithms: what the published graphs say of their models and algorithms', async () => {
  assert.deepEqual(await triples(ontologyQueries.models(), { scope: published }), sorted([...about(M(1), M(1)), ...about(REMOTE_MODEL, REMOTE_MODEL)]));
  assert.deepEqual(await triples(ontologyQueries.algorithms(), { scope: published }), sorted(about(KNN, KNN)), 'not mlr (not registered), not the parameter nodes');
  // the template itself reads every graph: the scope is what keeps unpublished models and the access-control graphs out
  const everything = await triples(ontologyQueries.models(), { scope: { includesDefaultGraph: true, allows: () => true } });
  assert.ok(everything.includes('/model/2 http://www.w3.org/1999/02/22-rdf-syntax-ns#type http://www.opentox.org/api/1.1#Model'));
  assert.ok(everything.includes('/model/1 http://www.opentox.org/api/1.1#owner "alice"'));
  assert.ok(everything.includes('/model/4 http://www.w3.org/1999/02/22-rdf-syntax-ns#type http://www.opentox.org/api/1.1#Model'), 'the unnamed default graph is in the union');
});

test('ontology endpoints: every subclass of otee:Endpoints, with all it says, in published graphs', async () => {
  const classes = ['HumanHealthEffects', 'Mutagenicity', 'PhysicoChemicalEffects', 'Octanol-water_partition_coefficient_Kow'].map((c) => otee(c).value);
  assert.deepEqual(await triples(ontologyQueries.endpoints(), { scope: published }), sorted(classes.flatMap((c) => about(OTEE_GRAPH, c))), "not otee:Endpoints itself, not the user's subclass");
});

test('ontology term: its statements, and the terms below it or naming it as domain or range, with their labels', async () => {
  const t = (s: string, p: string, o: string) => `${s} ${p} ${o}`;
  const [OT, RDFS, RDF] = [ot.iri, 'http://www.w3.org/2000/01/rdf-schema#', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#'];
  assert.deepEqual(
    await triples(ontologyQueries.term(ot('Feature').value), { scope: vocabularies }),
    sorted([
      t(`${OT}Feature`, `${RDF}type`, 'http://www.w3.org/2002/07/owl#Class'),
      t(`${OT}Feature`, `${RDFS}label`, '"Feature"'),
      t(`${OT}NumericFeature`, `${RDFS}subClassOf`, `${OT}Feature`),
      t(`${OT}NumericFeature`, `${RDFS}label`, '"Numeric feature"'),
      t(`${OT}NominalFeature`, `${RDFS}subClassOf`, `${OT}Feature`),
      t(`${OT}hasSource`, `${RDFS}domain`, `${OT}Feature`),
      t(`${OT}hasSource`, `${RDFS}label`, '"has source"'),
      t(`${OT}feature`, `${RDFS}range`, `${OT}Feature`),
      t(`${OT}feature`, `${RDFS}label`, '"feature"'),
    ]),
    "not ot:Model's rdfs:seeAlso, not the user's subclass, not the features typed by it",
  );
  assert.deepEqual(await triples(ontologyQueries.term(`${OT}Nothing`), { scope: vocabularies }), []);
  refusesBadIris((iri) => ontologyQueries.term(iri));
});

test('qmrf termLabel: the label of a term and of its parent class', async () => {
  const label = (term: string) => rows(qmrfQueries.termLabel(term), ['label', 'group']);
  assert.deepEqual(await label(MUT), ['label="Mutagenicity" group="Human health effects"']);
  assert.deepEqual(await label(otee('HumanHealthEffects').value), ['label="Human health effects" group="Endpoints"']);
  assert.deepEqual(await label(otee('Endpoints').value), ['label="Endpoints" group=-']);
  assert.deepEqual(await label(otee('Carcinogenicity').value), []);
  refusesBadIris((iri) => qmrfQueries.termLabel(iri));
});

// SPARQL 1.1: GRAPH ?g ranges over named graphs only. Comunica over this store binds it to the
// unnamed default graph too (a known difference, issue 55); the store's own evaluators, which now
// answer the templates with VALUES and OPTIONAL as well (issue 58), do not.
test('templates do not see the unnamed default graph through GRAPH ?g', async () => {
  // what a SPARQL Update without GRAPH may write: a row and a label in no named graph
  const decoys = sparql`${n(`${D(1)}#entry-default`)} ${ot('compound')} ${n(C(2))} ; ${n(F(1))} ${literal(7.77)} . ${otee('Carcinogenicity')} ${rdfs('label')} "Carcinogenicity"`;
  await db.store.update(sparql`INSERT DATA { ${decoys} }`, { unionDefaultGraph: false });
  try {
    const show = async (query: SparqlText, vars: string[], options?: QueryOptions) => sorted((await select(db.store, query, options)).map((r) => rowKey(r, vars)));
    // templates with VALUES and OPTIONAL, as the components run them
    assert.deepEqual(await show(compoundQueries.valuesInDatasets(C(2), [F(1)]), ['g', 'f', 'v']), [
      'g=/dataset/1/entries f=/feature/1 v="-0.31"^^double',
      'g=/dataset/2/entries f=/feature/1 v="-0.3"^^double',
    ]);
    assert.deepEqual(await show(qmrfQueries.termLabel(otee('Carcinogenicity').value), ['label', 'group']), []);
    // the graphs a query can name: the named ones only
    const named = await show(sparqlQueries.graphNames(), ['g']);
    assert.ok(named.length > 40 && !named.some((row) => row.includes('DefaultGraph')), named.join('\n'));
    // where Comunica, given the same graphs, differs: the one graph more is the unnamed one
    const comunica = await show(sparqlQueries.graphNames(), ['g'], { engine: 'comunica', scope: { includesDefaultGraph: true, allows: () => true } });
    assert.deepEqual(
      comunica.filter((row) => !named.includes(row)),
      ['g=DefaultGraph:'],
    );
  } finally {
    await db.store.update(sparql`DELETE DATA { ${decoys} }`, { unionDefaultGraph: false });
  }
});

// --- updates (each on graphs of its own; the read-only tests above have run)

test('compound setValue and removeValues: one value node replaced or removed, nothing else touched', async () => {
  const graph = uris.subgraph(C(3), 'values');
  const other = uris.subgraph(C(1), 'values');
  const read = db.read;
  const before = await read(other);
  const node1 = valueNode(C(3), F(1));
  const node13 = valueNode(C(3), F(13));
  await db.store.update(compoundQueries.setValue(graph, node1, F(1), literal(1.5)));
  assert.deepEqual(await read(graph), sorted(valueQuads(C(3), F(1), literal(1.5)).map(tripleKey)));
  await db.store.update(compoundQueries.setValue(graph, node1, F(1), literal(1.7)));
  await db.store.update(compoundQueries.setValue(graph, node13, F(13), literal(EVIL)));
  const both = sorted([...valueQuads(C(3), F(1), literal(1.7)), ...valueQuads(C(3), F(13), literal(EVIL))].map(tripleKey));
  assert.deepEqual(await read(graph), both, 'the old value replaced; the hostile literal stored as it is');
  assert.equal((await db.store.readGraph(graph)).find((q) => q.subject.equals(node13) && q.predicate.equals(ot('value')))?.object.value, EVIL);
  await db.store.update(compoundQueries.removeValues(graph, []));
  assert.deepEqual(await read(graph), both, 'no nodes: nothing removed');
  await db.store.update(compoundQueries.removeValues(graph, [node1, valueNode(C(3), F(2))]));
  assert.deepEqual(await read(graph), sorted(valueQuads(C(3), F(13), literal(EVIL)).map(tripleKey)));
  await db.store.update(compoundQueries.removeValues(other, [node13]));
  assert.deepEqual(await read(other), before, 'a node of another structure is not in this graph');
  refusesBadIris((iri) => compoundQueries.setValue(iri, node1, F(1), literal(1)));
  refusesBadIris((iri) => compoundQueries.setValue(graph, node1, iri, literal(1)));
  refusesBadIris((iri) => compoundQueries.setValue(graph, n(iri), F(1), literal(1)));
  refusesBadIris((iri) => compoundQueries.removeValues(iri, [node1]));
  refusesBadIris((iri) => compoundQueries.removeValues(graph, [node1, n(iri)]));
  assert.deepEqual(await col(sparqlQueries.graphNames(), 'g'), sorted([...Object.keys(graphs), graph].map((g) => fmt(n(g)))), 'no graph but the values graph was made');
  await db.untouched();
});
