import { answers, MEDIA, type DescribedRoutes } from '../http/route-description.ts';
import { df, dc, rdf, rdfs, ot } from '../rdf/namespaces.ts';
import { alternateLinks, rdfRenderers, sendNegotiated } from '../http/respond.ts';
import { renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES } from '../rdf/serialize.ts';
import type { ServiceDeps } from './service-component.ts';
import { COMPONENTS, homeHtml } from './home-page.ts';

/** `GET /`: a service description linking every component (HTML for browsers, RDF otherwise). */
export function serviceRoutes(routes: DescribedRoutes, services: ServiceDeps): void {
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
    // for people: the path and the counts; the service's own triples are in its RDF formats
    const renderers = rdfRenderers(ctx, () => quads, 'ToxGraph');
    renderers['text/html'] = async () =>
      renderPage({ title: 'ToxGraph', intro: await homeHtml(services, ctx, await services.latest(ctx.state.canRead ?? (() => true))), alternates: alternateLinks(ctx, RDF_OUTPUT_TYPES) });
    await sendNegotiated(ctx, renderers);
  });
}
