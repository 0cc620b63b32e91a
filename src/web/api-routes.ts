import type { Services } from '../core/services.ts';
import type { Route } from '../server/app.ts';
import { renderPage } from '../rdf/html.ts';
import { openapiDocument } from './openapi.ts';
import type { DescribedRoutes } from '../http/route-description.ts';

/** `GET /openapi.json` (the interface described) and `GET /api` (Swagger UI over it). */
export function apiRoutes(described: DescribedRoutes, services: Pick<Services, 'config'>, routes: () => Route[]): void {
  let document: string | undefined;
  described.add({ method: 'GET', path: '/openapi.json', summary: 'This OpenAPI document', tag: 'service', responses: { 200: ['application/json'] } }, (ctx) => {
    document ??= JSON.stringify(openapiDocument(routes(), services.config.baseUrl, described.descriptions), null, 2);
    ctx.set('Content-Type', 'application/json');
    ctx.body = document;
  });
  described.add({ method: 'GET', path: '/api', summary: 'The API documentation page (Swagger UI over this document)', tag: 'service', responses: { 200: ['text/html'] } }, (ctx) => {
    ctx.set('Content-Type', 'text/html');
    ctx.body = renderPage({
      title: 'The API',
      head: '<link rel="stylesheet" href="/static/swagger-ui.css"><script src="/static/swagger-ui-bundle.js" defer></script><script src="/static/api.js" defer></script>',
      intro: '<p>Every path, parameter, media type and status code of the interface, from <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p><div id="swagger-ui"></div>',
    });
  });
}
