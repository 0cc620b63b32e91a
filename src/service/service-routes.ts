import type Router from '@koa/router';
import { df, dc, rdf, rdfs, ot } from '../rdf/namespaces.js';
import { escapeHtml } from '../rdf/html.js';
import { sendRdf } from '../http/respond.js';
import type { Services } from '../core/services.js';

/** Every component and what it is for; `working` says whether this server implements it yet. */
const COMPONENTS: { path: string; title: string; working: boolean }[] = [
  { path: '/compound', title: 'Compounds and conformers', working: true },
  { path: '/feature', title: 'Features', working: true },
  { path: '/dataset', title: 'Datasets', working: true },
  { path: '/algorithm', title: 'Algorithms', working: true },
  { path: '/model', title: 'Models', working: true },
  { path: '/validation', title: 'Validations', working: true },
  { path: '/crossvalidation', title: 'Cross-validations', working: true },
  { path: '/report', title: 'Validation reports', working: true },
  { path: '/reach_report/qmrf', title: 'REACH (QMRF) reports', working: true },
  { path: '/task', title: 'Tasks', working: true },
  { path: '/ontology', title: 'Ontology service (SPARQL over the published scope)', working: true },
  { path: '/sparql', title: 'SPARQL endpoint (the whole store)', working: true },
];

/** `GET /`: a service description linking every component (HTML for browsers, RDF otherwise). */
export function serviceRoutes(router: Router, services: Services): void {
  const { uris } = services;
  const base = services.config.baseUrl;
  router.get('/', async (ctx) => {
    const self = df.namedNode(uris.service());
    const quads = [
      df.quad(self, rdf('type'), df.namedNode('http://www.w3.org/ns/sparql-service-description#Service')),
      df.quad(self, dc('title'), df.literal('ToxGraph: an OpenTox service for chemical modelling and validation')),
      df.quad(self, df.namedNode('http://www.w3.org/ns/sparql-service-description#endpoint'), df.namedNode(uris.endpoint('sparql'))),
      ...COMPONENTS.flatMap((c) => [df.quad(self, rdfs('seeAlso'), df.namedNode(base + c.path)), df.quad(df.namedNode(base + c.path), dc('title'), df.literal(c.title))]),
      df.quad(self, ot('ontology'), df.namedNode(uris.endpoint('ontology'))),
    ];
    const intro = `<p>An OpenTox web service on an embedded triplestore. Components:</p><ul>${COMPONENTS.map((c) => `<li><a href="${escapeHtml(base + c.path)}">${escapeHtml(c.path)}</a> — ${escapeHtml(c.title)}${c.working ? '' : ' <em>(not yet available)</em>'}</li>`).join('')}</ul>`;
    await sendRdf(ctx, quads, 'ToxGraph', 200, intro);
  });
}
