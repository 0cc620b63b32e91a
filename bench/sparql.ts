import { QueryEngine } from '@comunica/query-sparql-rdfjs';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { QuadstoreTripleStore } from '../src/store/quadstore-triple-store.ts';
import { loadConfig } from '../src/core/config.ts';
import { fmt, median, now, pool, postFeature, ratio, SAME_AS, tempDir, type Row } from './util.ts';

const FEATURES = 3000;
const RUNS = 30;
const WARMUP = 3;

const PREFIXES = `PREFIX ot: <http://www.opentox.org/api/1.1#>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
`;

const QUERIES: { name: string; text: string }[] = [
  { name: 'selective (sameAs + title)', text: `${PREFIXES}SELECT ?f WHERE { ?f owl:sameAs <${SAME_AS}> ; dc:title "feature 42" }` },
  { name: 'scan (COUNT ?f a ot:Feature)', text: `${PREFIXES}SELECT (COUNT(*) AS ?n) WHERE { ?f a ot:Feature }` },
  { name: 'ORDER BY title LIMIT 10', text: `${PREFIXES}SELECT ?f ?title WHERE { ?f a ot:Feature ; dc:title ?title } ORDER BY ?title LIMIT 10` },
];

type Runner = (query: string) => Promise<number>;

/** SELECT latency through /sparql, through store.query, and on a bare Comunica engine over the raw quadstore. */
export async function benchSparql(): Promise<Row[]> {
  const dir = await tempDir('toxgraph-bench-sparql-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', dir.dir, '--quiet'], {}));
  const rows: Row[] = [];
  try {
    const t = now();
    await pool(FEATURES, 8, async (i) => void (await postFeature(server.url, i)));
    const fillSeconds = (now() - t) / 1000;
    rows.push(...(await measure(server, `sparql (${FEATURES} features, filled in ${fmt(fillSeconds)} s; median of ${RUNS})`)));
  } finally {
    await server.close();
    await dir.remove();
  }
  return rows;
}

async function measure(server: RunningServer, bench: string): Promise<Row[]> {
  const engine = new QueryEngine();
  const store = server.services.store;
  if (!(store instanceof QuadstoreTripleStore)) throw new Error('the bench needs the embedded QuadstoreTripleStore');
  const runners: Record<'raw' | 'store' | 'http', Runner> = {
    http: async (query) => {
      const res = await fetch(`${server.url}/sparql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json' },
        body: new URLSearchParams({ query }),
      });
      if (res.status !== 200) throw new Error(`/sparql answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      const json = (await res.json()) as { results: { bindings: unknown[] } };
      return json.results.bindings.length;
    },
    store: async (query) => {
      const result = await server.services.store.query(query);
      if (result.type !== 'bindings') throw new Error('expected bindings');
      let n = 0;
      for await (const _ of result.solutions) n++;
      return n;
    },
    raw: async (query) => {
      const stream = await engine.queryBindings(query, { sources: [store.quadstore], unionDefaultGraph: true } as any);
      return (await stream.toArray()).length;
    },
  };
  const modes = Object.keys(runners) as (keyof typeof runners)[];
  const rows: Row[] = [];
  for (const q of QUERIES) {
    const times: Record<string, number[]> = { http: [], store: [], raw: [] };
    const counts: Record<string, number> = {};
    for (const m of modes) for (let i = 0; i < WARMUP; i++) counts[m] = await runners[m](q.text);
    if (new Set(Object.values(counts)).size !== 1) throw new Error(`${q.name}: modes disagree on the number of rows: ${JSON.stringify(counts)}`);
    // Round-robin so that drift (GC, compaction) hits every mode alike.
    for (let i = 0; i < RUNS; i++) {
      for (const m of modes) {
        const t = now();
        await runners[m](q.text);
        times[m].push(now() - t);
      }
    }
    const raw = median(times.raw),
      store = median(times.store),
      http = median(times.http);
    const b = `${bench}`;
    const name = `${q.name} [${counts.raw} row(s)]`;
    rows.push(
      { bench: b, measure: `${name}: bare Comunica on quadstore [baseline]`, value: `${fmt(raw, 2)} ms`, ratio: ratio(1) },
      { bench: b, measure: `${name}: store.query (ScopedSource)`, value: `${fmt(store, 2)} ms`, ratio: ratio(store / raw) },
      { bench: b, measure: `${name}: POST /sparql (JSON parsed)`, value: `${fmt(http, 2)} ms`, ratio: ratio(http / raw) },
      { bench: b, measure: `${name}: POST /sparql vs store.query`, value: '', ratio: ratio(http / store) },
    );
  }
  return rows;
}
