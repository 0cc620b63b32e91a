import type Router from '@koa/router';
import type { Services } from '../core/services.ts';
import { answerSparql } from './sparql-endpoint.ts';
import { currentUser } from '../core/request-context.ts';

/** `/sparql`: the whole store, SPARQL 1.1 protocol: queries, and updates for those allowed (see sparql-update.ts). */
export function sparqlRoutes(router: Router, services: Services): void {
  // the caller's scope: never the access-control graphs; with access control on, readable resources only
  const scope = () => services.access.scopeFor(currentUser.getStore());
  router.get('/sparql', (ctx) => answerSparql(ctx, services, scope(), 'SPARQL endpoint', { updates: true }));
  router.post('/sparql', (ctx) => answerSparql(ctx, services, scope(), 'SPARQL endpoint', { updates: true }));
}
