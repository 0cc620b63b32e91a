import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { df, dc, literal, ot, rdf } from '../../src/rdf/namespaces.ts';
import { datasetQueries } from '../../src/dataset/dataset-queries.ts';
import { modelQueries } from '../../src/model/model-queries.ts';
import { serviceQueries } from '../../src/service/service-queries.ts';
import { PART_OF } from '../../src/store/query-helpers.ts';
import { parsedQuery } from '../../src/store/parsed-query.ts';
import { storePlan } from '../../src/store/query-plan.ts';
import type { SparqlText } from '../../src/store/sparql-template.ts';
import { openStore, n, uris } from './query-template-support.ts';

/**
 * The lists that leave out intermediate work (what a task made on the way to its result is
 * `dcterms:isPartOf` that result): GET /dataset and /model, the dataset pickers, the service
 * description's counts. Each is a query the store's own evaluator answers, and its answer is
 * Comunica's (openStore's rows).
 */
const db = await openStore('intermediate-work');
after(() => db.close());

const D = (id: number) => uris.item('dataset', id);
const M = (id: number) => uris.item('model', id);
const CV = uris.item('crossvalidation', 1);
const ENDPOINT = 'http://www.opentox.org/echaEndpoints.owl#Mutagenicity';

/** A resource in its own graph: typed, perhaps titled, perhaps part of other work, perhaps owl:sameAs an endpoint. */
function resource(uri: string, type: 'Dataset' | 'Model', title?: string, partOf: string[] = [], sameAs?: string) {
  const g = n(uri);
  return {
    [uri]: [
      df.quad(g, rdf('type'), ot(type), g),
      ...(title ? [df.quad(g, dc('title'), literal(title), g)] : []),
      ...partOf.map((whole) => df.quad(g, PART_OF, n(whole), g)),
      ...(sameAs ? [df.quad(g, n('http://www.w3.org/2002/07/owl#sameAs'), n(sameAs), g)] : []),
    ],
  };
}

await db.store.replaceGraphs({
  ...resource(D(1), 'Dataset', 'uploaded'),
  ...resource(D(2), 'Dataset', 'a fold', [CV]),
  ...resource(D(3), 'Dataset', undefined, [CV, M(1)]),
  ...resource(D(4), 'Dataset'),
  ...resource(M(1), 'Model', 'the model', [], ENDPOINT),
  ...resource(M(2), 'Model', "a fold's model", [CV], ENDPOINT),
  // said of dataset 5 in another graph: not its own graph's word
  [uris.subgraph(D(5), 'entries')]: [df.quad(n(D(5)), PART_OF, n(CV), n(uris.subgraph(D(5), 'entries')))],
  ...resource(D(5), 'Dataset', 'rows elsewhere'),
});

function byTheStore(query: SparqlText): void {
  assert.ok(storePlan(parsedQuery(String(query))), `answered by the query engine, not the store's plan: ${query}`);
}

test('lists without intermediate work: the store evaluator answers them, as Comunica does; with intermediate=true everything is listed', async () => {
  const queries = [
    datasetQueries.all({ intermediate: false }),
    datasetQueries.titled(),
    modelQueries.all(undefined, { intermediate: false }),
    modelQueries.all(ENDPOINT, { intermediate: false }),
    serviceQueries.count(ot('Dataset')),
  ];
  for (const q of queries) byTheStore(q);
  assert.deepEqual(await db.col(datasetQueries.all({ intermediate: false }), 'r'), ['/dataset/1', '/dataset/4', '/dataset/5']);
  assert.deepEqual(await db.col(datasetQueries.all(), 'r'), ['/dataset/1', '/dataset/2', '/dataset/3', '/dataset/4', '/dataset/5']);
  assert.deepEqual((await db.rows(datasetQueries.titled(), ['r', 't'])).sort(), ['r=/dataset/1 t="uploaded"', 'r=/dataset/4 t=-', 'r=/dataset/5 t="rows elsewhere"']);
  assert.deepEqual(await db.col(modelQueries.all(undefined, { intermediate: false }), 'r'), ['/model/1']);
  assert.deepEqual(await db.col(modelQueries.all(ENDPOINT, { intermediate: false }), 'r'), ['/model/1']);
  assert.deepEqual(await db.col(modelQueries.all(ENDPOINT), 'r'), ['/model/1', '/model/2']);
  assert.deepEqual(await db.rows(serviceQueries.count(ot('Dataset')), ['n']), ['n="3"^^integer'], 'a dataset part of two things counted once, as none');
  assert.deepEqual(await db.rows(serviceQueries.count(ot('Model')), ['n']), ['n="1"^^integer']);
});
