import { answers, type DescribedRoutes } from '../http/route-description.ts';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { notFound } from '../core/errors.ts';

/** Files the pages load, by name: this server's own scripts (in `static/`), YASGUI's build (the SPARQL editor), Swagger UI's (the API page) and OpenChemLib (the structure editor). */
const STATIC_DIR = fileURLToPath(new URL('../../static/', import.meta.url));
const require = createRequire(import.meta.url);
const YASGUI_DIR = dirname(require.resolve('@triply/yasgui/build/yasgui.min.js'));
const SWAGGER_DIR = dirname(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'));
const OPENCHEMLIB = require.resolve('openchemlib');
const FILES: Record<string, { path: string; type: string }> = {
  'workbench.js': { path: `${STATIC_DIR}workbench.js`, type: 'text/javascript' },
  'sparql.js': { path: `${STATIC_DIR}sparql.js`, type: 'text/javascript' },
  'sparql.css': { path: `${STATIC_DIR}sparql.css`, type: 'text/css' },
  'yasgui.min.js': { path: join(YASGUI_DIR, 'yasgui.min.js'), type: 'text/javascript' },
  'yasgui.min.css': { path: join(YASGUI_DIR, 'yasgui.min.css'), type: 'text/css' },
  'api.js': { path: `${STATIC_DIR}api.js`, type: 'text/javascript' },
  'swagger-ui-bundle.js': { path: join(SWAGGER_DIR, 'swagger-ui-bundle.js'), type: 'text/javascript' },
  'swagger-ui.css': { path: join(SWAGGER_DIR, 'swagger-ui.css'), type: 'text/css' },
  'structure-editor.js': { path: `${STATIC_DIR}structure-editor.js`, type: 'text/javascript' },
  'openchemlib.js': { path: OPENCHEMLIB, type: 'text/javascript' },
  'favicon.svg': { path: `${STATIC_DIR}favicon.svg`, type: 'image/svg+xml' },
};

/** `GET /static/{name}`: the few files the pages use, cached by browsers for an hour. */
export function staticRoutes(routes: DescribedRoutes): void {
  const cache = new Map<string, Buffer>();
  const types = [...new Set(Object.values(FILES).map((f) => f.type))];
  routes.add({ method: 'GET', path: '/static/:name', summary: 'A script, stylesheet or picture of the web pages', tag: 'service', responses: answers(types, 404) }, async (ctx) => {
    const file = FILES[ctx.params.name];
    if (!file) throw notFound(`no static file ${ctx.params.name}`);
    let body = cache.get(file.path);
    if (!body) {
      body = await readFile(file.path);
      cache.set(file.path, body);
    }
    ctx.set('Content-Type', file.type);
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = body;
  });
  // browsers ask for /favicon.ico whatever the page links: the icon is an SVG
  routes.add({ method: 'GET', path: '/favicon.ico', summary: 'The icon, where browsers look for it', tag: 'service', responses: { 301: [] } }, (ctx) => {
    ctx.status = 301;
    ctx.set('Location', '/static/favicon.svg');
    ctx.set('Cache-Control', 'public, max-age=86400');
  });
}
