import { answers, MEDIA, type DescribedRoutes } from '../http/route-description.ts';
import { df, dc, rdf, rdfs, ot } from '../rdf/namespaces.ts';
import { sendRdf } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { COMPONENTS, homeHtml } from './home-page.ts';

/** `GET /`: a service description linking every component (HTML for browsers, RDF otherwise). */
export function serviceRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'tasks'>): void {
  const { uris } = services;
  const base = services.config.baseUrl;
  routes.add({ method: 'GET', path: '/', summary: 'Service description: what the service holds, its components, how to use the API', tag: 'service', responses: answers(MEDIA.rdf) }, async (ctx) => {
    const self = df.namedNode(uris.service());
    const quads = [
      df.quad(self, rdf('type'), df.namedNode('http://www.w3.org/ns/sparql-service-description#Service')),
      df.quad(self, dc('title'), df.literal('ToxGraph: an OpenTox service for chemical modelling and validation')),
      df.quad(self, df.namedNode('http://www.w3.org/ns/sparql-service-description#endpoint'), df.namedNode(uris.endpoint('sparql'))),
      ...COMPONENTS.flatMap((c) => [df.quad(self, rdfs('seeAlso'), df.namedNode(base + c.path)), df.quad(df.namedNode(base + c.path), dc('title'), df.literal(c.title))]),
      df.quad(self, ot('ontology'), df.namedNode(uris.endpoint('ontology'))),
    ];
    await sendRdf(ctx, quads, 'ToxGraph', 200, await homeHtml(services, ctx));
  });
}
