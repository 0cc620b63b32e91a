import type Router from '@koa/router';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { notFound } from '../core/errors.js';

/** Files the pages load, by name: this server's own script (in `static/`). */
const STATIC_DIR = fileURLToPath(new URL('../../static/', import.meta.url));
const FILES: Record<string, { path: string; type: string }> = {
  'workbench.js': { path: `${STATIC_DIR}workbench.js`, type: 'text/javascript' },
};

/** `GET /static/{name}`: the few files the pages use, cached by browsers for an hour. */
export function staticRoutes(router: Router): void {
  const cache = new Map<string, Buffer>();
  router.get('/static/:name', async (ctx) => {
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
}
