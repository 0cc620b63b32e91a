import { readFileSync } from 'node:fs';
import { benchServer, fmt, median, now, postAndFollow, withPolling, type Row } from './util.ts';

/** Runs of each measure (the median is printed). */
const RUNS = 3;

/**
 * A read-across assessment (issue 57) assembled and rendered through the service: a category of
 * 50 members around a target for 3 endpoints (EPAFHM's 580 compounds with three endpoint
 * columns), the assessment made from it (its gap filling worked out), and its report as HTML;
 * a client polling GET /health meanwhile says whether the server stayed free (the issue asks
 * for answers within 100 ms). Against the baseline of the category's analogue search alone.
 */
export async function benchAssessment(): Promise<Row[]> {
  const bench = 'read-across assessment: a category of 50 members and 3 endpoints, assembled and rendered (through the service)';
  const server = await benchServer('toxgraph-bench-assessment-');
  const { base } = server;
  const rows: Row[] = [];
  try {
    // three endpoints of the same compounds: the measured value and two made from it
    const lines = readFileSync(new URL('../../shared/data/EPAFHM_log10.csv', import.meta.url), 'utf8')
      .trim()
      .split(/\r?\n/)
      .slice(1);
    const csv = `SMILES,LC50,EC50,NOEC\n${lines
      .map((l, i) => {
        const [smiles, v] = l.split(',');
        const y = Number(v);
        return `${smiles},${y},${(0.8 * y + (i % 7) / 10).toFixed(3)},${(y - 1 + (i % 5) / 10).toFixed(3)}`;
      })
      .join('\n')}\n`;
    const dataset = await postAndFollow(`${base}/dataset`, {}, csv, 'text/csv');
    const endpoints = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n').slice(0, 3);
    const target = await postAndFollow(`${base}/compound`, {}, 'CCCCCCCCO', 'chemical/x-daylight-smiles');
    const post = async (path: string, params: Record<string, string | string[]>) => {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
      const r = await fetch(`${base}${path}`, { method: 'POST', body: form, headers: { Accept: 'text/uri-list' } });
      const text = (await r.text()).trim();
      if (r.status !== 201) throw new Error(`${path}: ${r.status} ${text.slice(0, 300)}`);
      return text;
    };
    const times = { analogues: [] as number[], category: [] as number[], assessment: [] as number[], report: [] as number[], worst: [] as number[], loop: [] as number[] };
    let members = 0;
    for (let i = 0; i < RUNS; i++) {
      let t = now();
      for (const endpoint of endpoints) await (await fetch(`${target}/analogues?${new URLSearchParams({ endpoint, k: '50' })}`, { headers: { Accept: 'application/json' } })).arrayBuffer();
      times.analogues.push(now() - t);
      const polled = await withPolling(base, async () => {
        t = now();
        const category = await post('/category', { target, endpoint: endpoints, similarity_threshold: '0', max_sources: '49' });
        times.category.push(now() - t);
        t = now();
        const assessment = await post('/assessment', { category, scenario: '6' });
        times.assessment.push(now() - t);
        t = now();
        const page = await (await fetch(assessment, { headers: { Accept: 'text/html' } })).text();
        times.report.push(now() - t);
        const triples = await (await fetch(category, { headers: { Accept: 'application/n-triples' } })).text();
        members = (triples.match(/<http:\/\/www\.opentox\.org\/api\/1\.1#member> /g) ?? []).length;
        if (!page.includes('7. Assessment elements')) throw new Error('the report lacks its elements');
      });
      times.worst.push(polled.worstMs);
      times.loop.push(polled.loopMaxMs);
    }
    const baseline = median(times.analogues);
    const row = (measure: string, ms: number) => rows.push({ bench, measure, value: `${fmt(ms, 0)} ms`, ratio: `${fmt(ms / baseline, 2)}x` });
    rows.push({ bench, measure: 'analogue search of the 3 endpoints, 50 each (baseline)', value: `${fmt(baseline, 0)} ms`, ratio: '1.00x' });
    row(`POST /category (${members} members)`, median(times.category));
    row('POST /assessment (gap filling of 3 endpoints, QSAR models looked for)', median(times.assessment));
    row('GET the assessment as HTML (evidence worked out again)', median(times.report));
    rows.push({ bench, measure: 'worst GET /health / event-loop delay meanwhile', value: `${fmt(Math.max(...times.worst), 0)} ms / ${fmt(Math.max(...times.loop), 0)} ms` });
  } finally {
    await server.stop();
  }
  return rows;
}
