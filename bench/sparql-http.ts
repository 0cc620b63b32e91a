import { cannon, startBareKoa, withServer, mixTargets } from './load.ts';
import { fmt, type Row } from './util.ts';

const CONNECTIONS = 50;
const OT = 'http://www.opentox.org/api/1.1#';
const DC = 'http://purl.org/dc/elements/1.1/';

/**
 * Issue 33's HTTP figures: 50 keep-alive clients for TOXGRAPH_HTTP_SECONDS (15) each, against a
 * bare Koa handler answering a constant (the baseline, in its own process like the server):
 * `GET /compound/{id}` as Turtle on a server without the representation cache (every GET is
 * routed, read and written), and `/sparql` with a 10-row SELECT (one pattern over `GRAPH ?g`,
 * and two patterns per graph) on that server.
 */
export async function benchSparqlHttp(): Promise<Row[]> {
  const seconds = Number(process.env.TOXGRAPH_HTTP_SECONDS ?? 15);
  const bench = `sparql http: ${CONNECTIONS} keep-alive clients, ${seconds} s each, representation cache off`;
  const rows: Row[] = [];
  const koa = await startBareKoa();
  try {
    const bare = await cannon({ url: `http://127.0.0.1:${koa.port}/`, connections: CONNECTIONS, duration: seconds });
    const line = (r: typeof bare) => `${fmt(r.requests.average, 0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${r.non2xx || r.errors ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`;
    rows.push({ bench, measure: 'bare Koa handler, GET (baseline)', value: line(bare), ratio: '1.00x' });
    await withServer(['--representation-cache-mb', '0'], async (base) => {
      const { compound } = await mixTargets(base);
      // ten more features and compounds, for ten rows
      for (let i = 1; i <= 10; i++) {
        const feature = `@prefix ot: <${OT}> . @prefix dc: <${DC}> . [] a ot:NumericFeature ; dc:title "http ${i}" .`;
        await fetch(`${base}/feature`, { method: 'POST', body: feature, headers: { 'Content-Type': 'text/turtle', Accept: 'text/uri-list' } }).then((r) => r.arrayBuffer());
        await fetch(`${base}/compound`, { method: 'POST', body: `${'C'.repeat(i)}N`, headers: { 'Content-Type': 'chemical/x-daylight-smiles', Accept: 'text/uri-list' } }).then((r) => r.arrayBuffer());
      }
      const run = async (measure: string, url: string, accept: string) => {
        const r = await cannon({ url, connections: CONNECTIONS, duration: seconds, headers: { Accept: accept } });
        rows.push({ bench, measure, value: line(r), ratio: `${fmt(r.requests.average / bare.requests.average, 3)}x` });
      };
      await run('GET /compound/{id} as text/turtle', `${base}${compound}`, 'text/turtle');
      const queries = {
        'one pattern over GRAPH ?g': `SELECT ?s WHERE { GRAPH ?g { ?s a <${OT}Compound> } } LIMIT 10`,
        'two patterns per graph': `SELECT ?f ?t WHERE { GRAPH ?f { ?f a <${OT}Feature> ; <${DC}title> ?t } } LIMIT 10`,
      };
      for (const [name, query] of Object.entries(queries)) {
        await run(`GET /sparql, 10-row SELECT (${name}), results as JSON`, `${base}/sparql?query=${encodeURIComponent(query)}`, 'application/sparql-results+json');
      }
    });
  } finally {
    await koa.stop();
  }
  return rows;
}
