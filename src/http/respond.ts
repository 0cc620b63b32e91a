import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { negotiate, negotiateOrFail } from './negotiate.ts';
import { RDF_OUTPUT_TYPES, serializeRdf, type RdfWriteOptions } from '../rdf/serialize.ts';
import { renderPage, renderPageInSlices, escapeHtml, iriHtml, linkOf, type PageOptions } from '../rdf/html.ts';
import YAML from 'yaml';
import { resourceTree, type Tree } from '../rdf/resource-tree.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { readGraphs } from '../store/query-helpers.ts';

export type Renderer = () => Promise<string | Buffer | Readable> | string | Buffer | Readable;

/** The Accept header, unless a `media` query parameter overrides it (handy in browsers). */
export function acceptOf(ctx: Context): string | undefined {
  const media = ctx.querystring ? new URLSearchParams(ctx.querystring).get('media') : null;
  return media ?? (ctx.get('accept') || undefined);
}

/** Answer with the representation the client prefers among `renderers` (in server preference order). */
export async function sendNegotiated(ctx: Context, renderers: Record<string, Renderer>, status = 200, fallback?: string): Promise<void> {
  renderers = withPlainNTriples(renderers);
  renderers = withRubyYaml(renderers);
  const offered = Object.keys(renderers);
  const mediaType = fallback ? (negotiate(acceptOf(ctx), offered) ?? fallback) : negotiateOrFail(acceptOf(ctx), offered);
  const rendered = await renderers[mediaType]();
  // a stream's first piece is made before the status is committed: what fails at once is an error report
  const body = rendered instanceof Readable ? await startedStream(ctx, rendered) : rendered;
  ctx.status = status;
  ctx.type = mediaType;
  // the media type served (text types get their charset in text-charset.ts)
  ctx.set('Content-Type', mediaType);
  ctx.set('Vary', 'Accept');
  ctx.body = body;
}

/**
 * `text/plain` is N-Triples where a resource has no plain text of its own (a compound's is its
 * names, a created resource's its URI): N-Triples' registered type before RDF 1.1, what OpenTox
 * 1.x clients ask for and send. Last in the server's order, so an Accept of any type, or of any text
 * type, still gets RDF/XML or Turtle.
 */
function withPlainNTriples(renderers: Record<string, Renderer>): Record<string, Renderer> {
  const nTriples = renderers['application/n-triples'];
  if (!nTriples || renderers['text/plain']) return renderers;
  return { ...renderers, 'text/plain': nTriples };
}

/**
 * `application/x-yaml` is the YAML of a resource that has one (`text/x-yaml`, the interface's
 * type): what the OpenTox Ruby services served and their clients ask for. Last in the server's
 * order, like every alias.
 */
function withRubyYaml(renderers: Record<string, Renderer>): Record<string, Renderer> {
  const yaml = renderers['text/x-yaml'];
  if (!yaml || renderers['application/x-yaml']) return renderers;
  return { ...renderers, 'application/x-yaml': yaml };
}

/**
 * A body stream whose first piece is already made (an error before it throws here, while the
 * status can still say so), then the rest as it comes. An error after the status and headers
 * went out aborts the connection: the client sees a transfer that broke off, never a complete
 * answer that lacks its end.
 */
async function startedStream(ctx: Context, stream: Readable): Promise<Readable> {
  const pieces = stream[Symbol.asyncIterator]();
  let first: IteratorResult<unknown>;
  try {
    first = await pieces.next();
  } catch (e) {
    stream.destroy();
    throw e;
  }
  const res = ctx.res;
  return Readable.from(
    (async function* () {
      try {
        if (first.done) return;
        yield first.value;
        for (let next = await pieces.next(); !next.done; next = await pieces.next()) yield next.value;
      } catch (e) {
        // the status line is gone: only the connection can say that this answer is not whole
        res.destroy(e as Error);
        throw e;
      } finally {
        // a client gone: the rest is not made
        await pieces.return?.();
      }
    })(),
    { objectMode: stream.readableObjectMode },
  );
}

export function alternateLinks(ctx: Context, types: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of types) {
    const q = new URLSearchParams(ctx.querystring);
    q.set('media', t);
    out[t] = `${ctx.path}?${q}`;
  }
  return out;
}

export function rdfRenderers(
  ctx: Context,
  quads: () => Promise<RDF.Quad[]> | RDF.Quad[],
  title: string,
  intro?: string,
  page: Pick<PageOptions, 'refresh'> = {},
  writing: RdfWriteOptions = {},
): Record<string, Renderer> {
  const renderers: Record<string, Renderer> = {};
  for (const t of RDF_OUTPUT_TYPES) renderers[t] = async () => serializeRdf(await quads(), t, undefined, writing);
  renderers['text/html'] = async () => {
    const all = await quads();
    return renderPageInSlices({ title, intro, quads: all, alternates: alternateLinks(ctx, RDF_OUTPUT_TYPES), jsonld: await serializeRdf(all, 'application/ld+json'), ...page });
  };
  return renderers;
}

/** A resource as plain JSON (`application/json`, `text/x-json`) and YAML (`text/x-yaml`). */
export function treeRenderers(tree: Tree): Record<string, Renderer> {
  const json = () => JSON.stringify(tree, null, 2);
  return { 'application/json': json, 'text/x-json': json, 'text/x-yaml': () => YAML.stringify(tree) };
}

/**
 * One resource's representations: RDF in every type, an HTML page, JSON and YAML of its tree,
 * and its own URI as text/uri-list.
 */
export function resourceRenderers(ctx: Context, uri: string, quads: RDF.Quad[], title: string, options: { intro?: string; tree?: Tree } = {}): Record<string, Renderer> {
  return { ...rdfRenderers(ctx, () => quads, title, options.intro), ...treeRenderers(options.tree ?? resourceTree(quads, uri)), 'text/uri-list': () => uriList([uri]) };
}

/** Send RDF in any RDF type or as an HTML page. */
export async function sendRdf(ctx: Context, quads: RDF.Quad[], title: string, status = 200, intro?: string): Promise<void> {
  await sendNegotiated(
    ctx,
    rdfRenderers(ctx, () => quads, title, intro),
    status,
  );
}

/**
 * Send a list: text/uri-list, or RDF of the members, or HTML links. With access control on,
 * `ctx.state.canRead` leaves out what the caller may not read; `rdfOf` is given the members left.
 */
export async function sendList(
  ctx: Context,
  all: string[],
  rdfOf: (uris: string[]) => Promise<RDF.Quad[]> | RDF.Quad[],
  title: string,
  intro = '',
  options: { introLists?: boolean } = {},
): Promise<void> {
  const canRead: ((uri: string) => boolean) | undefined = ctx.state.canRead;
  const uris = canRead ? all.filter(canRead) : all;
  const rdf = canRead ? async () => (await rdfOf(uris)).filter((q) => canRead(q.subject.value)) : () => rdfOf(uris);
  // one member RDF/XML cannot express (a property with no QName form) does not take the list from everyone
  const renderers: Record<string, Renderer> = {
    'text/uri-list': () => uriList(uris),
    ...rdfRenderers(ctx, rdf, title, undefined, {}, { omitUnrepresentable: true }),
  };
  renderers['text/html'] = async () => {
    // members by their titles (a page shows the first 500)
    const shown = uris.slice(0, 500);
    const quads = await rdfOf(shown);
    const titles = new Map(quads.filter((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title').map((q) => [q.subject.value, q.object.value]));
    const list = shown.map((u) => `<li>${iriHtml(u, titles.get(u) ?? u)}${titles.has(u) ? ` <small>${escapeHtml(u)}</small>` : ''}</li>`).join('\n');
    const more = uris.length > shown.length ? `<p>The first ${shown.length} are shown; <a href="${escapeHtml(`${ctx.path}?media=text/uri-list`)}">all as a URI list</a>.</p>` : '';
    // an intro that lists the members itself (grouped, with forms) is the page
    if (options.introLists) return renderPage({ title, intro, alternates: alternateLinks(ctx, ['text/uri-list', ...RDF_OUTPUT_TYPES]) });
    return renderPage({ title, intro: `${intro}<p>${uris.length} item(s)</p><ul class="members">${list}</ul>${more}`, alternates: alternateLinks(ctx, ['text/uri-list', ...RDF_OUTPUT_TYPES]) });
  };
  await sendNegotiated(ctx, renderers);
}

/** Send a list of resources whose RDF is their own graphs in the store. */
export function sendGraphList(ctx: Context, store: TripleStore, uris: string[], title: string, intro = ''): Promise<void> {
  return sendList(ctx, uris, (members) => readGraphs(store, members), title, intro);
}

/** A `text/uri-list` body: one URI per line, CRLF-terminated. */
export function uriList(uris: string[]): string {
  // one URI ends in a plain line end, as the servers of OpenTox scripts did: `x=$(curl …)` keeps
  // a CR, and `curl $x` then fails; a list keeps RFC 2483's CR LF after every URI
  if (uris.length === 1) return `${uris[0]}\n`;
  return uris.map((u) => `${u}\r\n`).join('');
}

/**
 * Answer URIs (creation and update results): text/uri-list by default, or text/plain / HTML,
 * with `Location` when there is exactly one. A client that accepts none of these still gets the
 * URI list rather than an error after its resource was made.
 */
export async function sendUris(ctx: Context, uris: string[], status = 200): Promise<void> {
  // a browser's form (it asks for HTML first) goes on to what it made, or to the task making it
  if (uris.length === 1 && ctx.method !== 'GET' && asksForPage(ctx)) {
    ctx.status = 303;
    ctx.set('Location', linkOf(uris[0]).href);
    ctx.body = '';
    return;
  }
  const links = uris.map((u) => `<li><a href="${escapeHtml(u)}">${escapeHtml(u)}</a></li>`).join('');
  await sendNegotiated(
    ctx,
    {
      'text/uri-list': () => uriList(uris),
      'text/plain': () => uris.map((u) => `${u}\n`).join(''),
      'text/html': () => renderPage({ title: uris.length === 1 ? 'Created' : 'Resources', intro: `<ul>${links}</ul>` }),
    },
    status,
    'text/uri-list',
  );
  if (uris.length === 1) ctx.set('Location', uris[0]);
}

/** Does the request come from a browser (it prefers HTML to a URI list)? Its forms are answered 303 to what they made. */
export function asksForPage(ctx: Context): boolean {
  return negotiate(acceptOf(ctx), ['text/uri-list', 'text/plain', 'text/html']) === 'text/html';
}

/** 303 to a page of this server (a form's answer that is not a resource: a preview). */
export function sendSeeOther(ctx: Context, path: string): void {
  ctx.status = 303;
  ctx.set('Location', path);
  ctx.body = '';
}

/** A job accepted as a task: 202 with the task's URI (the client polls it). */
export function sendTask(ctx: Context, taskUri: string): Promise<void> {
  return sendUris(ctx, [taskUri], 202);
}

/** Answer one URI (see sendUris). */
export function sendUri(ctx: Context, uri: string, status = 200): Promise<void> {
  return sendUris(ctx, [uri], status);
}

/** A plain-text answer (`text/plain`: the auth service's `token.id=…` and `boolean=…`). */
export function sendText(ctx: Context, body: string, status = 200): void {
  ctx.status = status;
  ctx.set('Content-Type', 'text/plain');
  ctx.body = body;
}

/**
 * What a write was accepted with but warns of (a feature typed only as ot:Feature), one HTTP
 * `Warning` header each (299: a persistent warning; quotes escaped, what a header cannot carry
 * as "?"). The warnings are kept with the resource as well.
 */
export function sendWarnings(ctx: Context, warnings: string[]): void {
  for (const w of warnings) ctx.append('Warning', `299 - "${w.replace(/["\\]/g, '\\$&').replace(/[^\x20-\x7e]/g, '?')}"`);
}

/** The empty 200 of a write that answers nothing (DELETE, PUT of values). */
export function sendDone(ctx: Context): void {
  ctx.status = 200;
  ctx.body = '';
}
