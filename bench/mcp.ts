import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchServer, describedSharedSet, fmt, median, now, postAndFollow, ratio, type Row } from './util.ts';

/** Structures predicted each way (each a new prediction dataset), after a warm-up. */
const ROUNDS = 40;
const SMILES = ['CCCCCCO', 'c1ccccc1Cl', 'CC(=O)Oc1ccccc1C(=O)O', 'CCN(CC)CC', 'Oc1ccc(Cl)cc1Cl', 'CCCCCCCCCC', 'c1ccc2ccccc2c1', 'ClC(Cl)(Cl)Cl'];

/**
 * The MCP endpoint (issue 42): `predict` through MCP (the SDK's client over HTTP, a stateless
 * exchange per call) against the same prediction through REST (`POST /model/{id}` with a SMILES),
 * in one run, alternating, on a random forest of EPAFHM.
 */
export async function benchMcp(): Promise<Row[]> {
  const bench = 'MCP: predict through /mcp vs POST /model/{id} (EPAFHM forest, one SMILES per call)';
  const server = await benchServer('toxgraph-bench-mcp-');
  const { base } = server;
  const client = new Client({ name: 'toxgraph-bench', version: '1.0.0' });
  try {
    const { target, dataset } = await describedSharedSet(base, 'EPAFHM_log10.csv', 'rdkit-descriptors');
    const model = await postAndFollow(`${base}/algorithm/random-forest-regression`, { dataset_uri: dataset, prediction_feature: target });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const rest = async (smiles: string) => {
      const r = await fetch(model, { method: 'POST', body: new URLSearchParams({ smiles }), headers: { Accept: 'text/turtle' } });
      if (r.status !== 200) throw new Error(`REST predict: ${r.status}`);
      await r.text();
    };
    const mcp = (neighbours: boolean) => async (smiles: string) => {
      const r = await client.callTool({ name: 'predict', arguments: { model, smiles, neighbours } });
      if (r.isError) throw new Error(`MCP predict: ${JSON.stringify(r.content)}`);
    };
    const ways = { rest, bare: mcp(false), explained: mcp(true) };
    for (const call of Object.values(ways)) await call(SMILES[0]);
    const times = { rest: [] as number[], bare: [] as number[], explained: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const smiles = SMILES[i % SMILES.length];
      const order = (['rest', 'bare', 'explained'] as const).map((_, k, all) => all[(k + i) % all.length]);
      for (const way of order) {
        const t = now();
        await ways[way](smiles);
        times[way].push(now() - t);
      }
    }
    const [r, b, e] = [median(times.rest), median(times.bare), median(times.explained)];
    return [
      { bench, measure: 'POST /model/{id} with a SMILES (baseline, median)', value: `${fmt(r)} ms`, ratio: '1.00x' },
      { bench, measure: 'predict through MCP, neighbours: false (the value, confidence, domains)', value: `${fmt(b)} ms`, ratio: ratio(b / r) },
      { bench, measure: 'predict through MCP with the 5 nearest training compounds (the default)', value: `${fmt(e)} ms`, ratio: ratio(e / r) },
    ];
  } finally {
    await client.close();
    await server.stop();
  }
}
