import type { Context, Next } from 'koa';
import { PAGE_STYLE_HASH } from '../rdf/html.ts';
import { isLoopbackHost } from '../core/address-rules.ts';
import { HttpError } from '../core/errors.ts';
import { Params } from './params.ts';
import { requestMediaType } from './body.ts';

/**
 * The one stylesheet YASGUI (the SPARQL page's editor, @triply/yasgui as pinned) writes into the
 * page itself, by its hash: the browser test fails on any other style the policy blocks, so an
 * upgrade that changes it is noticed.
 */
const YASGUI_STYLE_HASH = "'sha256-zCK2EVMoPc04mRF/g5CotUvxbJPWS+8V0b+s9ptqQIk='";
/** Pages: their own inline stylesheet (by hash), scripts of this server only (no inline script), images of their own or data: URIs, requests and forms to this server. */
const PAGE_POLICY = `default-src 'none'; script-src 'self'; style-src 'self' ${PAGE_STYLE_HASH} ${YASGUI_STYLE_HASH}; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;
/** Everything else (RDF, CSV, SVG opened on its own, ...): nothing runs; an SVG may style itself. */
const DOCUMENT_POLICY = `default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox`;

/**
 * Headers of every response, errors included: a Content-Security-Policy with no inline script,
 * no sniffing of content types, no Referer to other sites (URLs may carry a `subjectid`), no framing.
 */
export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      const html = String(ctx.response.get('Content-Type') || ctx.type || '').startsWith('text/html');
      ctx.set('Content-Security-Policy', html ? PAGE_POLICY : DOCUMENT_POLICY);
      ctx.set('X-Content-Type-Options', 'nosniff');
      // same-origin: this server's own forms post with their Origin (no-referrer made it "null");
      // other sites never see our URLs (which may carry a subjectid)
      ctx.set('Referrer-Policy', 'same-origin');
      ctx.set('X-Frame-Options', 'DENY');
    }
  };
}

/**
 * With access control off on a loopback address, answer only requests addressed to this
 * machine's own names: a web page whose host name is re-pointed to 127.0.0.1 (DNS rebinding)
 * would otherwise read and write the server as if it were its own origin.
 */
export function hostCheck(listenHost: string, baseUrl: string, authOn: boolean) {
  const guarded = !authOn && isLoopbackHost(listenHost);
  const own = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  // Host headers already found to name this machine (a few: its names and addresses with the port)
  const accepted = new Set<string>();
  return async (ctx: Context, next: Next) => {
    const header = ctx.req.headers.host ?? '';
    if (guarded && !accepted.has(header)) {
      const name = header.startsWith('[') ? header.slice(1, header.indexOf(']')) : header.split(':')[0];
      if (name && name !== own && !isLoopbackHost(name)) {
        throw new HttpError(403, 'Forbidden', `this server answers requests for localhost and ${own}, not for ${name} (set --base-url to the name clients use)`);
      }
      if (accepted.size < 64) accepted.add(header);
    }
    await next();
  };
}

const SPARQL_ENDPOINTS = ['/sparql', '/ontology'];
const ALLOW_HEADERS = 'Accept, Content-Type, subjectid, Authorization';
const EXPOSE_HEADERS = 'Location, Content-Type, Content-Disposition, Retry-After, Warning';

/**
 * Cross-origin policy. Reads are open to every origin: `GET`/`HEAD` of any resource and SPARQL
 * queries (`GET` or `POST` to `/sparql` and `/ontology`) answer `Access-Control-Allow-Origin: *`
 * (tokens travel in headers, never in cookies, so a foreign page reads only what its own token
 * allows). Writes are for this server's own pages and for clients that are not browsers: a
 * write that a browser sends from another origin is refused with 403 before it does anything,
 * and a preflight for one gets no CORS headers.
 */
export function crossOrigin(baseUrl: string, bodyLimit: number) {
  const ownOrigin = new URL(baseUrl).origin;
  return async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    const sparqlEndpoint = SPARQL_ENDPOINTS.includes(ctx.path);
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      const wanted = ctx.get('Access-Control-Request-Method').toUpperCase();
      if (['GET', 'HEAD'].includes(wanted) || (wanted === 'POST' && sparqlEndpoint)) {
        ctx.set('Access-Control-Allow-Origin', '*');
        ctx.set('Access-Control-Allow-Methods', sparqlEndpoint ? 'GET, HEAD, POST' : 'GET, HEAD');
        ctx.set('Access-Control-Allow-Headers', ALLOW_HEADERS);
        ctx.set('Access-Control-Max-Age', '600');
      }
      ctx.status = 204;
      return;
    }
    const read = ['GET', 'HEAD'].includes(ctx.method) || (ctx.method === 'POST' && sparqlEndpoint && !(await isWrite(ctx, bodyLimit)));
    if (read) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    } else if (origin && origin !== ownOrigin && origin !== `${ctx.protocol}://${ctx.host}` && ctx.get('Sec-Fetch-Site') !== 'same-origin') {
      throw new HttpError(403, 'Forbidden', `${ctx.method} ${ctx.path} from a page of another origin (${origin.slice(0, 100)}) is refused: writes are not cross-origin`);
    }
    await next();
  };
}

/** A POST to a SPARQL endpoint that writes: a registration (`/ontology` with `uri[]`) or an update (`update=`, `application/sparql-update`). */
async function isWrite(ctx: Context, bodyLimit: number): Promise<boolean> {
  const type = requestMediaType(ctx);
  if (type === 'application/sparql-update') return true;
  if (type !== 'application/x-www-form-urlencoded') return false;
  const params = await Params.fromRequest(ctx, bodyLimit);
  return params.has('update') || (ctx.path === '/ontology' && params.has('uri'));
}
