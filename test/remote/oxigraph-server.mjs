// A SPARQL 1.1 protocol server (query and update over HTTP POST/GET) around Oxigraph's engine
// (npm `oxigraph`: the Rust store compiled to WebAssembly, in memory), for running ToxGraph's
// suites on a second remote store (`TOXGRAPH_TEST_STORE=oxigraph`). Oxigraph's own server
// binary is not packaged for npm or Debian; its query and update evaluation is what is tested.
// Usage: node oxigraph-server.mjs PORT [FILE]  (prints "ready" when it listens; OXIGRAPH_LOG=1
// prints every query it is sent). With FILE the
// store is read from it at start and written to it (N-Quads) when the process is told to stop,
// so that a store stopped and started again on the same directory holds the same data.
import { createServer } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import oxigraph from 'oxigraph';
import sparqljs from 'sparqljs';

const store = new oxigraph.Store();
const port = Number(process.argv[2]);
const file = process.argv[3];
if (file && existsSync(file)) store.load(readFileSync(file, 'utf8'), { format: 'application/n-quads' });
process.once('SIGTERM', () => {
  if (file) writeFileSync(file, store.dump({ format: 'application/n-quads' }));
  process.exit(0);
});

function read(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function operation(req, url) {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim();
  const params = new URLSearchParams(url.search);
  if (req.method === 'POST') {
    const body = await read(req);
    if (type === 'application/x-www-form-urlencoded') for (const [k, v] of new URLSearchParams(body)) params.append(k, v);
    else if (type === 'application/sparql-query') params.set('query', body);
    else if (type === 'application/sparql-update') params.set('update', body);
  }
  return params;
}

createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const params = await operation(req, url);
    const update = params.get('update');
    if (update !== null) {
      store.update(update);
      res.writeHead(204).end();
      return;
    }
    const query = params.get('query');
    if (process.env.OXIGRAPH_LOG) process.stderr.write(`QUERY ${query}\n`);
    if (query === null) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('give query or update');
      return;
    }
    let graphResult = false;
    try {
      const form = new sparqljs.Parser().parse(query).queryType;
      graphResult = form === 'CONSTRUCT' || form === 'DESCRIBE';
    } catch {
      /* Oxigraph says what is wrong with it */
    }
    const format = graphResult ? 'application/n-triples' : 'application/sparql-results+json';
    const text = store.query(query, { results_format: format });
    res.writeHead(200, { 'Content-Type': format }).end(text);
  } catch (e) {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end(String(e?.message ?? e));
  }
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
