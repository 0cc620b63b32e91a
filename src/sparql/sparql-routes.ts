import type Router from '@koa/router';
import type { Services } from '../server/services.js';
import { answerSparql } from './sparql-endpoint.js';

/** `/sparql`: the whole store, SPARQL 1.1 protocol (query only). */
export function sparqlRoutes(router: Router, services: Services): void {
  router.get('/sparql', (ctx) => answerSparql(ctx, services, undefined, 'SPARQL endpoint'));
  router.post('/sparql', (ctx) => answerSparql(ctx, services, undefined, 'SPARQL endpoint'));
}
