import { spawn } from 'node:child_process';
import { DEBIAN_OPSIN_JAR, OpsinNameParser } from '../src/chemistry/opsin-name-parser.ts';
import { benchServer, fmt, median, now, postAndFollow, ratio, type Row } from './util.ts';

/**
 * Chemical names as structures (issue 54). A systematic name parsed through the long-lived OPSIN
 * process that the server keeps (OpsinNameParser, warmed), against the same parse in a JVM
 * started for it (`java -jar opsin.jar` per name: what a helper without a process of its own
 * would cost); both in this process. Then an upload of 1,000 rows given only by name, against the
 * same rows given as SMILES (the baseline), each on a fresh server.
 */
export async function benchNames(): Promise<Row[]> {
  const bench = 'names: systematic names through OPSIN';
  const log = { info: () => undefined, warn: (m: string) => console.log(`# ${m}`), error: (m: string) => console.log(`# ${m}`) };
  const opsin = new OpsinNameParser({ jar: process.env.TOXGRAPH_OPSIN_JAR ?? DEBIAN_OPSIN_JAR, log });
  if (opsin.unavailable) return [{ bench, measure: 'skipped', value: opsin.unavailable }];
  const names = generatedNames(1000);
  const rows: Row[] = [];
  try {
    // warm: the JVM started and OPSIN's grammar loaded, then the JIT given some names
    let t = now();
    await opsin.parse(['methane']);
    const startMs = now() - t;
    await opsin.parse(names.slice(0, 200));
    // one name at a time, as a POST of one name waits for it
    const one: number[] = [];
    for (const name of names.slice(200, 300)) {
      t = now();
      await opsin.parse([name]);
      one.push(now() - t);
    }
    const helperMs = median(one);
    // the same names at once, and all of them, as an upload sends them
    t = now();
    await opsin.parse(names.slice(200, 300));
    const hundredMs = now() - t;
    t = now();
    const parsed = await opsin.parse(names);
    const allMs = now() - t;
    const unparsed = parsed.filter((p) => 'error' in p).length;
    // a JVM for each name (fewer of them: each takes seconds on a busy machine)
    const jvm: number[] = [];
    for (const name of names.slice(200, 205)) {
      t = now();
      await jvmPerName(opsin, name);
      jvm.push(now() - t);
    }
    const jvmMs = median(jvm);
    rows.push(
      { bench, measure: 'the long-lived process: start and first name', value: `${fmt(startMs, 0)} ms` },
      { bench, measure: 'a name through the long-lived process (median of 100, one at a time; baseline)', value: `${fmt(helperMs, 2)} ms`, ratio: '1.00x' },
      { bench, measure: 'the same parse in a JVM started for it (median of 5)', value: `${fmt(jvmMs, 0)} ms`, ratio: ratio(jvmMs / helperMs) },
      { bench, measure: 'the same 100 names at once through the long-lived process, per name', value: `${fmt(hundredMs / 100, 2)} ms`, ratio: ratio(hundredMs / 100 / helperMs) },
      { bench, measure: `all ${names.length} names at once (6 to 20 carbons), per name`, value: `${fmt(allMs / names.length, 2)} ms (${unparsed} not parsed)` },
    );
  } finally {
    opsin.close();
  }
  rows.push(...(await uploadByName(names)));
  return rows;
}

/** OPSIN's command line in a JVM of its own for one name, as the server's process runs it. */
function jvmPerName(opsin: OpsinNameParser, name: string): Promise<string> {
  const java = opsin.java ?? 'java';
  return new Promise((resolve, reject) => {
    const child = spawn(java, ['-Dfile.encoding=UTF-8', '-XX:+UseSerialGC', '-jar', process.env.TOXGRAPH_OPSIN_JAR ?? DEBIAN_OPSIN_JAR, '-osmi'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => (out += text));
    child.on('error', reject);
    child.on('exit', () => (out.trim() ? resolve(out.trim()) : reject(new Error(`OPSIN gave nothing for ${name}`))));
    child.stdin.end(`${name}\n`);
  });
}

/** The same 1,000 rows uploaded as SMILES (baseline) and by name only, each to a fresh server; OPSIN warmed by one name first. */
async function uploadByName(names: string[]): Promise<Row[]> {
  const bench = `names: an upload of ${names.length} rows given only by name`;
  const opsin = new OpsinNameParser({ jar: process.env.TOXGRAPH_OPSIN_JAR ?? DEBIAN_OPSIN_JAR, log: { info: () => undefined, warn: () => undefined, error: () => undefined } });
  const smiles = await opsin.parse(names).finally(() => opsin.close());
  const rowsOf = (first: string, cell: (i: number) => string) => `${first},LC50\n${names.map((_, i) => `"${cell(i)}",${(i % 37) / 10}`).join('\n')}\n`;
  const bySmiles = rowsOf('SMILES', (i) => {
    const s = smiles[i];
    return 'smiles' in s ? s.smiles : '';
  });
  const byName = rowsOf('Name', (i) => names[i]);
  const timed = async (csv: string, warm?: string) => {
    const server = await benchServer('toxgraph-bench-names-');
    try {
      if (warm) await postAndFollow(`${server.base}/compound`, {}, warm, 'text/plain');
      const t = now();
      const dataset = await postAndFollow(`${server.base}/dataset`, {}, csv, 'text/csv');
      const ms = now() - t;
      const stored = (await (await fetch(dataset, { headers: { Accept: 'text/csv' } })).text()).trim().split(/\r?\n/).length - 1;
      return { ms, stored };
    } finally {
      await server.stop();
    }
  };
  const base = await timed(bySmiles);
  const named = await timed(byName, 'methane');
  return [
    { bench, measure: 'the rows as SMILES (baseline)', value: `${fmt(base.ms, 0)} ms, ${base.stored} rows`, ratio: '1.00x' },
    { bench, measure: 'the rows by name (OPSIN warmed by one name)', value: `${fmt(named.ms, 0)} ms, ${named.stored} rows`, ratio: ratio(named.ms / base.ms) },
  ];
}

/** Distinct systematic names: substituted alkanes and alkanols of 6 to 20 carbons. */
function generatedNames(n: number): string[] {
  const parents = [
    'hexane',
    'heptane',
    'octane',
    'nonane',
    'decane',
    'undecane',
    'dodecane',
    'tridecane',
    'tetradecane',
    'pentadecane',
    'hexadecane',
    'heptadecane',
    'octadecane',
    'nonadecane',
    'icosane',
  ];
  const substituents = ['methyl', 'ethyl', 'chloro', 'bromo', 'fluoro', 'iodo', 'nitro', 'amino', 'hydroxy', 'methoxy'];
  const names: string[] = [];
  for (const suffix of ['', '-1-ol']) {
    for (const [k, parent] of parents.entries()) {
      const carbons = k + 6;
      for (const sub of substituents) {
        for (let at = 2; at <= Math.ceil(carbons / 2); at++) {
          names.push(suffix ? `${at}-${sub}${parent.replace(/e$/, '')}${suffix}` : `${at}-${sub}${parent}`);
          if (names.length === n) return names;
        }
      }
    }
  }
  return names;
}
