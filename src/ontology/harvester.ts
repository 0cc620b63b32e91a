import type * as RDF from '@rdfjs/types';
import { df, ot, literal } from '../rdf/namespaces.ts';
import { skolemize, intoGraph } from '../rdf/graph.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import { badGateway } from '../core/errors.ts';
import { outboundFetch } from '../outbound/outbound-fetch.ts';
import type { Config } from '../core/config.ts';

/**
 * Fetch the RDF representation of a remote resource (spec 4.5): Accept RDF/XML or Turtle,
 * the caller's token forwarded as the `subjectid` header, under the outbound policy (limits,
 * allow-list, no internal addresses, checked redirects). A refused target is a 400; any other
 * failure is a 502.
 */
export async function harvest(url: string, config: Config, subjectid?: string): Promise<RDF.Quad[]> {
  const response = await outboundFetch(
    url,
    {
      headers: { Accept: 'application/rdf+xml, text/turtle;q=0.9, application/n-triples;q=0.8, application/ld+json;q=0.7', ...(subjectid ? { subjectid } : {}) },
      followRedirects: true,
    },
    config,
  );
  if (response.status < 200 || response.status >= 300) throw badGateway(`retrieving ${url} answered HTTP ${response.status}`);
  const type = response.mediaType;
  if (!isRdfMediaType(type)) throw badGateway(`${url} did not answer RDF (Content-Type ${type || 'none'})`);
  let quads: RDF.Quad[];
  try {
    quads = await parseRdf(response.text, type, response.url);
  } catch (e) {
    throw badGateway(`${url} answered RDF that does not parse: ${(e as Error).message}`);
  }
  const stamped = [...skolemize(quads, url), df.quad(df.namedNode(url), ot('harvestedAt'), literal(new Date()))];
  return intoGraph(stamped, df.defaultGraph());
}
