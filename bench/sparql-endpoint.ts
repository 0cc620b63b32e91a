import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DataFactory, Parser, Writer } from 'n3';
import { freePort, spawnServer, type ServerProcess } from '../test/helpers.ts';
import { startOxigraph } from '../test/remote/oxigraph.ts';
import { hasVirtuoso, startVirtuoso } from '../test/remote/virtuoso.ts';
import { cannon, startBareKoa } from './load.ts';
import { fmt, now, tempDir, type Row } from './util.ts';

const CONNECTIONS = 50;
const OT = 'http://www.opentox.org/api/1.1#';
const PREFIXES = `PREFIX ot: <${OT}> PREFIX dc: <http://purl.org/dc/elements/1.1/> `;
const SELECT_RESULTS = 'application/sparql-results+json';
const N_TRIPLES = 'application/n-triples';

/** The resources the queries name: they differ per ToxGraph server (its base URL). */
interface Targets {
  compound: string;
  inchiKey: string;
  /** The dataset of descriptors and one descriptor of it. */
  dataset: string;
  feature: string;
}

interface Query {
  name: string;
  /** `results` for SELECT and ASK (SPARQL results JSON), `rdf` for CONSTRUCT and DESCRIBE (N-Triples). */
  form: 'results' | 'rdf';
  text(t: Targets): string;
}

/** The queries clients send, each once; the default-graph one is also asked by a scoped caller. */
const DEFAULT_GRAPH_SELECT: Query = { name: 'default-graph SELECT ?s { ?s ?p ?o } LIMIT 10', form: 'results', text: () => 'SELECT ?s WHERE { ?s ?p ?o } LIMIT 10' };
/** Not timed: shows that the scoped caller's queries see only their own datasets. */
const DATASETS: Query = { name: 'the datasets (SELECT ?d { ?d a ot:Dataset })', form: 'results', text: () => `${PREFIXES}SELECT ?d WHERE { ?d a ot:Dataset }` };
const QUERIES: Query[] = [
  DEFAULT_GRAPH_SELECT,
  {
    name: 'GRAPH ?g: every feature with its title',
    form: 'results',
    text: () => `${PREFIXES}SELECT ?f ?title WHERE { GRAPH ?f { ?f a ot:Feature ; dc:title ?title } }`,
  },
  {
    name: 'FILTER on a literal: compounds whose SMILES has "Cl"',
    form: 'results',
    text: () => `${PREFIXES}SELECT ?c ?smiles WHERE { ?c ot:smiles ?smiles FILTER(CONTAINS(?smiles, "Cl")) }`,
  },
  {
    name: 'OPTIONAL: features, their titles and units if any',
    form: 'results',
    text: () => `${PREFIXES}SELECT ?f ?title ?units WHERE { ?f a ot:Feature ; dc:title ?title OPTIONAL { ?f ot:units ?units } }`,
  },
  {
    name: 'COUNT with GROUP BY: rows per dataset',
    form: 'results',
    text: () => `${PREFIXES}SELECT ?d (COUNT(?row) AS ?rows) WHERE { ?d ot:dataEntry ?row } GROUP BY ?d`,
  },
  { name: 'DESCRIBE <compound>', form: 'rdf', text: (t) => `DESCRIBE <${t.compound}>` },
  {
    name: "CONSTRUCT of one resource (a dataset's graph)",
    form: 'rdf',
    text: (t) => `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${t.dataset}> { ?s ?p ?o } }`,
  },
  { name: 'ASK: a compound with this InChIKey?', form: 'results', text: (t) => `${PREFIXES}ASK { ?c ot:inchiKey "${t.inchiKey}" }` },
  {
    name: "a dataset's values of one feature, by row",
    form: 'results',
    text: (t) =>
      `${PREFIXES}SELECT ?index ?compound ?value WHERE { GRAPH <${t.dataset}/entries> { <${t.dataset}> ot:dataEntry ?row . ?row ot:compound ?compound ; ot:index ?index ; <${t.feature}> ?value } } ORDER BY ?index`,
  },
];

/** One SPARQL endpoint under test, or why it is not. */
interface Endpoint {
  name: string;
  /** The query URL, without parameters. */
  url?: string;
  targets?: Targets;
  headers?: Record<string, string>;
  unavailable?: string;
}

type Result = Awaited<ReturnType<typeof cannon>>;

/**
 * Issue 58: what clients send to `/sparql`, against two other SPARQL servers on this machine
 * holding exactly the same quads, and a bare Koa handler (its own process, answering a constant).
 *
 * - ToxGraph: its own process on a temporary store, the representation cache off, loaded through
 *   its REST API from the shared data sets (Kazius, blood-brain barrier, hamster carcinogenicity
 *   as uploaded tables; EPAFHM uploaded and described by `rdkit-descriptors`): about 75,000
 *   statements in about 4,900 graphs with the vocabularies. Its default graph is the union of
 *   the graphs (`sd:UnionDefaultGraph`). Access control off.
 * - The export: every quad of every named graph by one `SELECT ?g ?s ?p ?o { GRAPH ?g { ?s ?p ?o } }`
 *   (a CONSTRUCT would lose the graphs), written as N-Quads, with the unnamed default graph read
 *   through the Graph Store protocol (`GET /graph-store?default`; empty here).
 * - Virtuoso (Debian's `virtuoso-t`), started as `npm run test:remote` does
 *   (test/remote/virtuoso.ts: 10 HTTP threads, 10 client connections, 10,000 buffers), the
 *   N-Quads loaded by its bulk loader (`ld_dir`, `rdf_loader_run`, `checkpoint` through
 *   `isql-vt`), queried at its anonymous, read-only `/sparql`. With no FROM its default graph is
 *   the union of all its graphs: ours and its own system graphs (about 2,500 statements), which
 *   none of the queries but the unlimited default-graph scan could meet.
 * - Oxigraph (npm `oxigraph`, in memory) behind test/remote/oxigraph-server.mjs, as
 *   `npm run test:oxigraph` starts it, the N-Quads read at its start; that server has no option
 *   for a union default graph, so its process is started with a module preloaded
 *   (`NODE_OPTIONS=--import`) that gives every `Store.query` `use_default_graph_as_union: true`.
 *   It answers CONSTRUCT and DESCRIBE as N-Triples whatever is asked.
 * - DESCRIBE is the implementation's to define: Virtuoso's, with no FROM, answers only the
 *   statements that have the resource as object (a compound's row in a dataset), not the
 *   compound's own four (`define sql:describe-mode "CBD"` or `FROM <compound>` gives them). The
 *   query is sent as clients send it and the row marked as differing.
 * - Scoped: a second ToxGraph with access control on (`--auth`), the same data sets uploaded by
 *   two users (Kazius and hamster by one, the rest by the other); the default-graph SELECT asked
 *   by the first (a signed-in non-admin: only the graphs they may read) against the same query on
 *   the first ToxGraph (access control off) and asked by the administrator on this one, the three
 *   measured one after the other.
 *
 * Each query is asked once of every server first and the answers' sizes (rows, triples, the
 * boolean) compared; then 50 keep-alive clients ask it for TOXGRAPH_HTTP_SECONDS (10) seconds,
 * after two seconds of the same unmeasured, and the next measurement waits for the servers to be
 * idle. Other work on the machine slows every server: its load average is printed.
 */
export async function benchSparqlEndpoint(): Promise<Row[]> {
  const seconds = Number(process.env.TOXGRAPH_HTTP_SECONDS ?? 10);
  const timed = `sparql endpoint: ${CONNECTIONS} keep-alive clients, ${seconds} s per query and server; ToxGraph's representation cache off`;
  const setup = 'sparql endpoint: the servers and their data';
  const answers = 'sparql endpoint: the answers before timing (rows, triples or boolean), per server';
  const rows: Row[] = [];
  const loadStart = loadavg()[0];
  settling = 0;
  const tmp = await tempDir('toxgraph-bench-sparql-endpoint-');
  const stops: (() => Promise<void>)[] = [];
  try {
    const open = await toxgraph(join(tmp.dir, 'toxgraph'), []);
    stops.push(open.stop);
    let started = now();
    const targets = await loadSharedSets(open.base, {});
    const quads = await exportQuads(open.base);
    rows.push({ bench: setup, measure: 'ToxGraph loaded through REST and exported as N-Quads', value: `${quads.count} quads in ${quads.graphs} graphs, ${fmt((now() - started) / 1000)} s` });
    const toxgraphEndpoint: Endpoint = { name: 'ToxGraph', url: `${open.base}/sparql`, targets };

    started = now();
    const virtuoso = await peer('Virtuoso', async () => {
      if (!hasVirtuoso) throw new Error('Debian virtuoso-opensource-7-bin (virtuoso-t, isql-vt) is not installed');
      const dir = join(tmp.dir, 'virtuoso');
      const running = await startVirtuoso(dir);
      stops.push(running.stop);
      bulkLoad(dir, quads.text);
      return running.anonymousUrl ?? running.queryUrl;
    });
    rows.push({ bench: setup, measure: 'Virtuoso started and bulk-loaded', value: virtuoso.unavailable ?? `${fmt((now() - started) / 1000)} s` });
    started = now();
    const oxigraph = await peer('Oxigraph', async () => {
      const dir = join(tmp.dir, 'oxigraph');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'store.nq'), quads.text);
      const running = await withUnionDefaultGraph(tmp.dir, () => startOxigraph(dir));
      stops.push(running.stop);
      return running.queryUrl;
    });
    rows.push({ bench: setup, measure: 'Oxigraph started on the N-Quads', value: oxigraph.unavailable ?? `${fmt((now() - started) / 1000)} s` });
    for (const e of [virtuoso, oxigraph]) e.targets = targets;

    // the scoped caller's server
    const guarded = await toxgraph(join(tmp.dir, 'toxgraph-auth'), ['--auth', '--admin-user', 'admin', '--admin-password', ADMIN_PASSWORD]);
    stops.push(guarded.stop);
    const callers = await signIn(guarded.base);
    await loadSharedSets(guarded.base, callers.alice, callers.bob);
    const scoped: Endpoint = { name: 'ToxGraph, access control on, scoped caller (non-admin)', url: `${guarded.base}/sparql`, targets, headers: callers.alice };
    const admin: Endpoint = { name: 'ToxGraph, access control on, administrator', url: `${guarded.base}/sparql`, targets, headers: callers.admin };

    const endpoints = [toxgraphEndpoint, oxigraph, virtuoso];
    for (const query of QUERIES) {
      const sizes = await Promise.all(endpoints.map((e) => answerSize(e, query)));
      const differ = new Set(sizes.filter((s) => s !== undefined)).size > 1;
      rows.push({ bench: answers, measure: query.name, value: endpoints.map((e, i) => `${e.name} ${sizes[i] ?? '-'}`).join(', '), ratio: differ ? 'DIFFER' : 'same' });
    }
    for (const query of [DEFAULT_GRAPH_SELECT, DATASETS]) {
      const [asScoped, asAdmin] = await Promise.all([scoped, admin].map((e) => answerSize(e, query)));
      rows.push({ bench: answers, measure: `${query.name}, access control on`, value: `scoped caller ${asScoped ?? '-'}, administrator ${asAdmin ?? '-'}` });
    }

    // the baseline, measured as the servers are
    const koa = await startBareKoa();
    stops.push(koa.stop);
    const bare = (await load({ name: 'bare Koa', url: `http://127.0.0.1:${koa.port}/` }, undefined, seconds)) as Result;
    rows.push({ bench: timed, measure: 'bare Koa handler, GET (baseline)', value: line(bare), ratio: '1.00x' });
    for (const query of QUERIES) {
      const results = new Map<string, Result>();
      for (const e of endpoints) {
        const r = await load(e, query, seconds);
        if (r) results.set(e.name, r);
      }
      const ours = results.get('ToxGraph');
      for (const e of endpoints) {
        const r = results.get(e.name);
        const measure = `${query.name}: ${e.name}`;
        if (!r) {
          rows.push({ bench: timed, measure, value: `unavailable (${e.unavailable})` });
          continue;
        }
        const vsPeers = endpoints
          .filter((p) => p !== e && p.name !== 'ToxGraph' && results.has(p.name))
          .map((p) => `${fmt(r.requests.average / (results.get(p.name) as Result).requests.average, 2)}x ${p.name}`);
        rows.push({
          bench: timed,
          measure,
          value: line(r),
          ratio:
            e === toxgraphEndpoint ? [`${fmt(r.requests.average / bare.requests.average, 3)}x Koa`, ...vsPeers].join(', ') : `ToxGraph ${fmt((ours?.requests.average ?? 0) / r.requests.average, 2)}x`,
        });
      }
    }
    // scoped against unscoped, measured one after the other
    const against = (r: Result, base: Result, name: string) =>
      `vs ${name}: req/s ${fmt(r.requests.average / base.requests.average, 2)}x, mean time ${fmt(r.latency.mean / base.latency.mean, 2)}x, p99 ${fmt(r.latency.p99 / base.latency.p99, 2)}x`;
    const unscoped = (await load(toxgraphEndpoint, DEFAULT_GRAPH_SELECT, seconds)) as Result;
    const asAdmin = (await load(admin, DEFAULT_GRAPH_SELECT, seconds)) as Result;
    const asScoped = (await load(scoped, DEFAULT_GRAPH_SELECT, seconds)) as Result;
    const scopedBench = `${timed}: ${DEFAULT_GRAPH_SELECT.name}, access control off and on, one after the other`;
    rows.push({ bench: scopedBench, measure: 'ToxGraph, access control off (unscoped)', value: line(unscoped), ratio: '1.00x' });
    rows.push({ bench: scopedBench, measure: admin.name, value: line(asAdmin), ratio: against(asAdmin, unscoped, 'unscoped') });
    rows.push({ bench: scopedBench, measure: scoped.name, value: line(asScoped), ratio: `${against(asScoped, unscoped, 'unscoped')}; ${against(asScoped, asAdmin, 'administrator')}` });
    rows.push({ bench: scopedBench, measure: 'machine load average (1 min) at the start / at the end (other work on the machine counts)', value: `${fmt(loadStart)} / ${fmt(loadavg()[0])}` });
    rows.push({ bench: scopedBench, measure: 'waited after the measurements for the servers to be idle (still answering the last clients)', value: `${fmt(settling / 1000)} s` });
  } finally {
    for (const stop of stops.reverse()) await stop().catch((e) => console.error(`sparql-endpoint: stopping a server failed: ${e}`));
    await tmp.remove();
  }
  return rows;
}

const ADMIN_PASSWORD = 'bench-admin-secret-1';

function line(r: Result): string {
  const failures = r.non2xx || r.errors || r.timeouts ? `, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts` : '';
  return `${fmt(r.requests.average, 0)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${failures}`;
}

/** A ToxGraph server process of its own on `dir`, the representation cache off. */
async function toxgraph(dir: string, flags: string[]): Promise<{ base: string; stop(): Promise<void> }> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server: ServerProcess = await spawnServer(['--data', dir, '--host', '127.0.0.1', '--base-url', base, '--quiet', '--representation-cache-mb', '0', ...flags], { port });
  return {
    base,
    stop: async () => {
      server.kill('SIGTERM');
      await server.exited;
    },
  };
}

/** A peer started by `start` (answering its query URL), or unavailable with the reason it did not start. */
async function peer(name: string, start: () => Promise<string>): Promise<Endpoint> {
  try {
    return { name, url: await start() };
  } catch (e) {
    const why = (e as Error).message.split('\n')[0];
    console.error(`sparql-endpoint: ${name} is unavailable: ${why}`);
    return { name, unavailable: why };
  }
}

/** POST and follow the task, with the caller's headers; answers the result URI. */
async function post(url: string, headers: Record<string, string>, body: string | URLSearchParams, type: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, Accept: 'text/uri-list', 'Content-Type': type }, body });
  const text = (await res.text()).trim();
  if (res.status === 200) return text;
  if (res.status !== 202) throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 300)}`);
  for (;;) {
    const t = await fetch(text, { headers: { ...headers, Accept: 'text/uri-list' } });
    const answer = (await t.text()).trim();
    if (t.status === 200) return answer;
    if (t.status !== 202) throw new Error(`task ${text}: ${t.status} ${answer.slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The shared data sets through the REST API: Kazius and hamster carcinogenicity by `first`,
 * blood-brain barrier and EPAFHM (uploaded, then described by rdkit-descriptors) by `second`.
 */
async function loadSharedSets(base: string, first: Record<string, string>, second = first): Promise<Targets> {
  const table = (file: string) => readFileSync(new URL(`../../shared/data/${file}`, import.meta.url), 'utf8');
  const kazius = await post(`${base}/dataset`, first, table('kazius.csv'), 'text/csv');
  await post(`${base}/dataset`, first, table('hamster_carcinogenicity.csv'), 'text/csv');
  await post(`${base}/dataset`, second, table('blood-brain-barrier.csv'), 'text/csv');
  const epafhm = await post(`${base}/dataset`, second, table('EPAFHM_log10.csv'), 'text/csv');
  const dataset = await post(`${base}/algorithm/rdkit-descriptors`, second, new URLSearchParams({ dataset_uri: epafhm }), 'application/x-www-form-urlencoded');
  const features = (await (await fetch(`${dataset}/features`, { headers: { ...second, Accept: 'text/uri-list' } })).text()).trim().split(/\r?\n/);
  const compound = (await (await fetch(`${kazius}/compounds`, { headers: { ...first, Accept: 'text/uri-list' } })).text()).trim().split(/\r?\n/)[0];
  const key = `${PREFIXES}SELECT ?key WHERE { GRAPH <${compound}> { <${compound}> ot:inchiKey ?key } }`;
  const answer = await fetch(`${base}/sparql?query=${encodeURIComponent(key)}`, { headers: { ...first, Accept: SELECT_RESULTS } });
  const inchiKey = ((await answer.json()) as { results: { bindings: { key: { value: string } }[] } }).results.bindings[0].key.value;
  // a descriptor, not the endpoint the table came with
  return { compound, inchiKey, dataset, feature: features[features.length - 1] };
}

/** Every quad of the store: each named graph's by one SELECT, and the unnamed default graph's. */
async function exportQuads(base: string): Promise<{ text: string; count: number; graphs: number }> {
  const query = 'SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }';
  const res = await fetch(`${base}/sparql`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: SELECT_RESULTS }, body: query });
  if (!res.ok) throw new Error(`the export answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  type Term = { type: string; value: string; datatype?: string; 'xml:lang'?: string };
  const bindings = ((await res.json()) as { results: { bindings: Record<string, Term>[] } }).results.bindings;
  const { namedNode, blankNode, literal, quad } = DataFactory;
  const term = (t: Term) => (t.type === 'uri' ? namedNode(t.value) : t.type === 'bnode' ? blankNode(t.value) : literal(t.value, t['xml:lang'] ?? (t.datatype ? namedNode(t.datatype) : undefined)));
  const writer = new Writer({ format: 'N-Quads' });
  const graphs = new Set<string>();
  for (const b of bindings) {
    graphs.add(b.g.value);
    writer.addQuad(quad(term(b.s) as never, term(b.p) as never, term(b.o) as never, namedNode(b.g.value)));
  }
  const unnamed = await fetch(`${base}/graph-store?default`, { headers: { Accept: N_TRIPLES } });
  const defaultGraph = new Parser({ format: 'N-Triples' }).parse(await unnamed.text());
  for (const q of defaultGraph) writer.addQuad(q);
  const text = await new Promise<string>((resolve, reject) => writer.end((e, out) => (e ? reject(e) : resolve(out))));
  return { text, count: bindings.length + defaultGraph.length, graphs: graphs.size + (defaultGraph.length ? 1 : 0) };
}

/** Virtuoso's bulk loader on an N-Quads file in its database directory (where DirsAllowed lets it read). */
function bulkLoad(dir: string, nquads: string): void {
  writeFileSync(join(dir, 'bench.nq'), nquads);
  const ini = readFileSync(join(dir, 'virtuoso.ini'), 'utf8');
  const sqlPort = /\[Parameters\][^[]*?ServerPort = 127\.0\.0\.1:(\d+)/.exec(ini)?.[1];
  if (!sqlPort) throw new Error('no SQL port in virtuoso.ini');
  const sql = `ld_dir('${dir}', 'bench.nq', 'urn:toxgraph:bench:default'); rdf_loader_run(); checkpoint; SELECT ll_state, ll_error FROM DB.DBA.LOAD_LIST;`;
  const run = spawnSync('/usr/bin/isql-vt', [sqlPort, 'dba', 'dba', `exec=${sql}`], { encoding: 'utf8' });
  if (run.status !== 0 || /\*\*\* Error/.test(run.stdout + run.stderr) || !/^\s*2\s+NULL\s*$/m.test(run.stdout)) throw new Error(`the bulk load failed: ${run.stderr}${run.stdout}`.slice(0, 500));
}

/**
 * Start the Oxigraph protocol server with its default graph the union of its graphs: a module
 * preloaded into its process makes `use_default_graph_as_union: true` the default of `Store.query`.
 */
async function withUnionDefaultGraph<T>(dir: string, start: () => Promise<T>): Promise<T> {
  const preload = join(dir, 'oxigraph-union-default-graph.mjs');
  const server = fileURLToPath(new URL('../test/remote/oxigraph-server.mjs', import.meta.url));
  writeFileSync(
    preload,
    `import { createRequire } from 'node:module';
const { Store } = createRequire(${JSON.stringify(server)})('oxigraph');
const query = Store.prototype.query;
Store.prototype.query = function (q, options) { return query.call(this, q, { use_default_graph_as_union: true, ...options }); };
`,
  );
  const before = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${before ?? ''} --import=${pathToFileURL(preload).href}`.trim();
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = before;
  }
}

/** The administrator and two users (alice and bob) of a server with access control on: their headers. */
async function signIn(base: string): Promise<Record<'admin' | 'alice' | 'bob', Record<string, string>>> {
  const token = async (username: string, password: string) => {
    const r = await fetch(`${base}/auth/authenticate`, { method: 'POST', body: new URLSearchParams({ username, password }) });
    const text = await r.text();
    const id = /^token\.id=(\S+)$/m.exec(text)?.[1];
    if (!id) throw new Error(`signing in ${username}: ${r.status} ${text.slice(0, 200)}`);
    return { Authorization: `Bearer ${id}` };
  };
  const admin = await token('admin', ADMIN_PASSWORD);
  for (const username of ['alice', 'bob']) {
    const r = await fetch(`${base}/auth/user`, { method: 'POST', headers: admin, body: new URLSearchParams({ username, password: `${username}-bench-password` }) });
    if (!r.ok) throw new Error(`making user ${username}: ${r.status} ${(await r.text()).slice(0, 200)}`);
  }
  return { admin, alice: await token('alice', 'alice-bench-password'), bob: await token('bob', 'bob-bench-password') };
}

function queryUrl(e: Endpoint, query: Query): string {
  return `${e.url}?query=${encodeURIComponent(query.text(e.targets as Targets))}`;
}

const accept = (query: Query) => (query.form === 'rdf' ? N_TRIPLES : SELECT_RESULTS);

/** The size of an answer: its rows, its triples or its boolean (undefined when the server is unavailable or refuses). */
async function answerSize(e: Endpoint, query: Query): Promise<string | undefined> {
  if (!e.url) return undefined;
  const res = await fetch(queryUrl(e, query), { headers: { ...e.headers, Accept: accept(query) } });
  const text = await res.text();
  if (!res.ok) return `error ${res.status}`;
  if (query.form === 'rdf') return `${new Parser({ format: 'N-Triples' }).parse(text).length} triples`;
  const json = JSON.parse(text) as { boolean?: boolean; results?: { bindings: Record<string, { value: string }>[] } };
  if (typeof json.boolean === 'boolean') return String(json.boolean);
  const bindings = json.results?.bindings ?? [];
  // Virtuoso answers ASK in JSON as one row binding __ASK_RETVAL to 1 or 0
  if (bindings.length === 1 && bindings[0].__ASK_RETVAL) return String(bindings[0].__ASK_RETVAL.value === '1');
  return `${bindings.length} rows`;
}

/**
 * 50 keep-alive clients asking `query` of `e` (a plain GET of its URL without one; undefined when the server is unavailable), after
 * WARM_UP_SECONDS of the same unmeasured (a server's first seconds on a query are its compiler's).
 */
async function load(e: Endpoint, query: Query | undefined, seconds: number): Promise<Result | undefined> {
  if (!e.url) return undefined;
  const options = { url: query ? queryUrl(e, query) : e.url, connections: CONNECTIONS, headers: { ...e.headers, ...(query ? { Accept: accept(query) } : {}) } };
  await cannon({ ...options, duration: WARM_UP_SECONDS });
  settling += await settle();
  const result = await cannon({ ...options, duration: seconds });
  settling += await settle();
  return result;
}

const WARM_UP_SECONDS = 2;

/** Milliseconds spent waiting for the servers to be idle after a measurement, in this run. */
let settling = 0;

/**
 * Wait until the servers this process started are idle again (together under 5 % of one
 * processor over 250 ms, at most 60 s): the clients stop at the end of a measurement, but a
 * server may still be working through the queries they had sent, and would slow the next one
 * measured. Counted from /proc over this process's descendants (servers, their shells and
 * threads), so that other work on the machine does not count.
 */
async function settle(): Promise<number> {
  const started = now();
  let last = descendantsCpuTicks();
  const tick = 100; // USER_HZ on Linux
  while (last !== undefined && now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 250));
    const next = descendantsCpuTicks() as number;
    const busy = (next - last) / tick / 0.25;
    last = next;
    if (busy < 0.05) break;
  }
  return now() - started;
}

/** The processor time (clock ticks) of every process descended from this one, undefined where /proc cannot be read. */
function descendantsCpuTicks(): number | undefined {
  try {
    const processes = new Map<number, { parent: number; ticks: number }>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // after the command name in parentheses: state, ppid, ... utime (12th), stime (13th)
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        processes.set(Number(entry), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // it ended meanwhile
      }
    }
    let ticks = 0;
    for (const p of processes.values()) {
      for (let up = p.parent; up > 1; up = processes.get(up)?.parent ?? 0) {
        if (up === process.pid) {
          ticks += p.ticks;
          break;
        }
      }
    }
    return ticks;
  } catch {
    return undefined; // not Linux: no wait
  }
}
