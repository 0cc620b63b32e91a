import { propertyValue } from '../rdf/graph-values.js';
import type Router from '@koa/router';
import { ot, dcterms } from '../rdf/namespaces.js';
import { sparql } from '../store/sparql-template.js';
import { select } from '../store/query-helpers.js';
import { notFound } from '../core/errors.js';
import { sendGraphList, sendNegotiated, rdfRenderers, sendDone } from '../http/respond.js';
import { readErrorReport } from '../rdf/error-report.js';
import type { Services } from '../core/services.js';

/** Task resources (spec 2.9, DESIGN.md): GET list, GET one (status code follows the state), DELETE cancels. */
export function taskRoutes(router: Router, services: Services): void {
  const { store, tasks } = services;

  router.get('/task', async (ctx) => {
    const rows = await select(store, sparql`SELECT ?t ?created WHERE { GRAPH ?t { ?t a ${ot('Task')} ; ${dcterms('created')} ?created } } ORDER BY ?created`);
    const uris = rows.map((r) => r.t.value);
    await sendGraphList(ctx, store, uris, 'Tasks');
  });

  router.get('/task/:id', async (ctx) => {
    const uri = services.uris.item('task', ctx.params.id);
    const quads = await store.readGraph(uri);
    if (!quads.length) throw notFound(`task ${uri} not found`);
    const value = (p: string) => propertyValue(quads, uri, ot(p));
    const status = value('hasStatus');
    const result = value('resultURI');
    let code = 200;
    if (status === 'Queued' || status === 'Running') code = 202;
    else if (status === 'Cancelled') code = 503;
    else if (status === 'Error') code = readErrorReport(quads, quads.find((q) => q.predicate.equals(ot('error')))!.object)?.status ?? 500;
    if (result) ctx.set('Location', result);
    await sendNegotiated(
      ctx,
      {
        ...rdfRenderers(ctx, () => quads, `Task ${status}${result ? ': done' : ''}`),
        'text/uri-list': () => `${status === 'Completed' && result ? result : uri}\r\n`,
      },
      code,
    );
  });

  router.delete('/task/:id', async (ctx) => {
    const uri = services.uris.item('task', ctx.params.id);
    if (!(await store.hasGraph(uri))) throw notFound(`task ${uri} not found`);
    // Cancel a live task; a finished one is removed.
    if (!(await tasks.cancel(uri))) await store.deleteGraphs([uri]);
    sendDone(ctx);
  });
}
