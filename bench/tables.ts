import ExcelJS from 'exceljs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { syntheticCsv } from '../test/fixtures.ts';
import { fmt, now, postAndFollow, ratio, residentMemory, tempDir, withPolling, type Row } from './util.ts';

/**
 * The tables users have: the same 6,500 rows uploaded as UTF-8 CSV (the baseline), as an Excel
 * workbook, and as Excel-on-Windows CSV (`;`, decimal commas, Windows-1252), each to the same
 * fresh server in turn; time (task accepted to completed), peak resident memory above idle, the
 * worst event-loop delay, and whether the three give the same CSV back. Measured in a second
 * round, after a first has warmed the server.
 */
export async function benchTables(): Promise<Row[]> {
  const count = Number(process.env.TOXGRAPH_TABLE_ROWS ?? 6500);
  const bench = `tables: ${count.toLocaleString('en')} rows as CSV, XLSX and Excel-on-Windows CSV`;
  const records = syntheticCsv(count)
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  // a header Windows-1252 writes differently from UTF-8
  records[0][3] = 'comment – µ';
  const csv = `${records.map((r) => r.join(',')).join('\n')}\n`;
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('rows');
  records.forEach((r, i) => sheet.addRow(i ? [r[0], Number(r[1]), r[2], r[3]] : r));
  const xlsx = new Uint8Array(await book.xlsx.writeBuffer());
  const excelCsv = new Uint8Array(windows1252(records.map((r, i) => (i ? [r[0], r[1].replace('.', ','), r[2], r[3]] : r).join(';')).join('\r\n')));
  const tmp = await tempDir('toxgraph-bench-tables-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const rss = () => residentMemory(server.pid)?.all ?? 0;
  const rows: Row[] = [];
  try {
    await (await fetch(`${base}/health`)).arrayBuffer();
    const upload = async (body: string | Uint8Array, type: string) => {
      const idle = rss();
      let peak = idle;
      const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
      const t = now();
      try {
        const run = await withPolling(base, () => postAndFollow(`${base}/dataset`, {}, body, type));
        const back = await (await fetch(run.result, { headers: { Accept: 'text/csv' } })).text();
        return { seconds: (now() - t) / 1000, peak: peak - idle, loop: run.loopMaxMs, back };
      } finally {
        clearInterval(sampler);
      }
    };
    // a first round warms the structure threads, the compounds and the caches for all three;
    // the second is measured (the same rows again: their compounds are known by then, for each)
    const round = async () => ({
      plain: await upload(csv, 'text/csv'),
      workbook: await upload(xlsx, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'),
      windows: await upload(excelCsv, 'text/csv'),
    });
    await round();
    const { plain, workbook, windows } = await round();
    const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
    rows.push({ bench, measure: 'sizes: CSV, XLSX, Excel CSV', value: `${fmt(csv.length / 1024, 0)} KiB, ${fmt(xlsx.length / 1024, 0)} KiB, ${fmt(excelCsv.length / 1024, 0)} KiB` });
    rows.push({ bench, measure: 'CSV upload (baseline)', value: `${fmt(plain.seconds, 2)} s, peak +${mib(plain.peak)}, worst loop delay ${fmt(plain.loop, 0)} ms` });
    rows.push({ bench, measure: 'XLSX upload', value: `${fmt(workbook.seconds, 2)} s, peak +${mib(workbook.peak)}, worst loop delay ${fmt(workbook.loop, 0)} ms` });
    rows.push({ bench, measure: 'Excel-on-Windows CSV upload', value: `${fmt(windows.seconds, 2)} s, peak +${mib(windows.peak)}, worst loop delay ${fmt(windows.loop, 0)} ms` });
    rows.push({ bench, measure: 'XLSX / CSV: time, peak memory', value: `${ratio(workbook.seconds / plain.seconds)}, ${ratio(workbook.peak / Math.max(1, plain.peak))}` });
    rows.push({ bench, measure: 'Excel CSV / CSV: time', value: ratio(windows.seconds / plain.seconds) });
    rows.push({ bench, measure: 'the same values back (as CSV) from all three', value: String(workbook.back === plain.back && windows.back === plain.back) });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}

/** Text as Windows-1252 bytes (the en dash is 0x96 there). */
function windows1252(text: string): Uint8Array {
  return Uint8Array.from([...text].map((c) => (c === '–' ? 0x96 : c.charCodeAt(0) < 0x100 ? c.charCodeAt(0) : 0x3f)));
}
