import type * as RDF from '@rdfjs/types';
import { df, ot, literal } from '../rdf/namespaces.js';
import { skolemize, intoGraph } from '../rdf/graph.js';
import { isRdfMediaType, parseRdf } from '../rdf/parse.js';
import { badGateway, badRequest } from '../http/errors.js';
import type { Config } from '../config.js';

const MAX_REDIRECTS = 5;

/** May the server fetch this URL (registration, remote dataset services)? http(s), on the allow-list when one is set. */
export function checkFetchable(url: string, config: Config): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badRequest(`only http and https URLs can be fetched, not ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw badRequest('URLs with credentials cannot be fetched');
  if (config.harvestAllow.length && !config.harvestAllow.some((p) => url.startsWith(p))) {
    throw badRequest(`${url} is not on this server's allow-list of fetchable URLs (--harvest-allow)`);
  }
  return parsed;
}

/**
 * Fetch the RDF representation of a remote resource (spec 4.5): Accept RDF/XML or Turtle,
 * the caller's token forwarded as the `subjectid` header, a size and time limit, redirects
 * followed only to allowed URLs. Any failure is a 502.
 */
export async function harvest(url: string, config: Config, subjectid?: string): Promise<RDF.Quad[]> {
  let current = checkFetchable(url, config).href;
  const signal = AbortSignal.timeout(config.harvestTimeoutMs);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Response;
    try {
      response = await fetch(current, {
        headers: { Accept: 'application/rdf+xml, text/turtle;q=0.9, application/n-triples;q=0.8, application/ld+json;q=0.7', ...(subjectid ? { subjectid } : {}) },
        redirect: 'manual',
        signal,
      });
    } catch (e) {
      throw badGateway(`could not retrieve ${url}: ${(e as Error).name === 'TimeoutError' ? `no answer within ${config.harvestTimeoutMs} ms` : (e as Error).message}`);
    }
    if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
      current = checkFetchable(new URL(response.headers.get('location')!, current).href, config).href;
      continue;
    }
    if (!response.ok) throw badGateway(`retrieving ${url} answered HTTP ${response.status}`);
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!isRdfMediaType(type)) throw badGateway(`${url} did not answer RDF (Content-Type ${type || 'none'})`);
    const text = await readLimited(response, config.harvestMaxBytes, url);
    let quads: RDF.Quad[];
    try {
      quads = await parseRdf(text, type, current);
    } catch (e) {
      throw badGateway(`${url} answered RDF that does not parse: ${(e as Error).message}`);
    }
    const stamped = [...skolemize(quads, url), df.quad(df.namedNode(url), ot('harvestedAt'), literal(new Date()))];
    return intoGraph(stamped, df.defaultGraph());
  }
  throw badGateway(`too many redirects retrieving ${url}`);
}

async function readLimited(response: Response, limit: number, url: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw badGateway(`${url} is larger than the harvest limit of ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
