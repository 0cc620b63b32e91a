// The mutation check of the query-template tests (issue 53): the named SPARQL templates are broken
// on purpose, one at a time, and the query-template tests must notice.
//
//   node scripts/mutate-templates.ts                    runs the baseline's mutants and a sample of the others (MAX_MUTANTS in all),
//                                                       writes test-output/mutations.txt and .json,
//                                                       exits 1 when a mutant of the baseline is no longer caught
//   node scripts/mutate-templates.ts --update-baseline  also writes the mutants caught in this run as the baseline
//                                                       (from a run without --all: every baseline mutant runs every time)
//   node scripts/mutate-templates.ts --all              runs every mutant, not a sample of MAX_MUTANTS (about 20 minutes)
//   node scripts/mutate-templates.ts --list             prints the mutants (as they would run) and runs nothing
//   node scripts/mutate-templates.ts --output           prints the tests' output of each mutant
//   node scripts/mutate-templates.ts --only TEXT        runs only the mutants whose id holds TEXT (sampled or not)
//
// The query-template tests are the unit test files that import test/unit/query-template-support.ts.
// The templates are the `sparql` tagged templates of src/**/*-queries.ts and of the other src
// modules those test files import directly (query-helpers.ts). A mutant changes the SPARQL text of
// one template (never the JavaScript in a `${…}` slot), in a copy of src/ and test/ in a temporary
// directory (others may be running tests from the working tree), and runs the test files that
// import the module. Tests fail: caught. Tests pass: survived (a test is missing). The text no
// longer parses as SPARQL, or the module no longer loads: invalid, counted apart.
// A mutant's id is its module, template name, kind and index among the template's mutants of that kind.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { parse } from 'acorn';
import { ancestor } from 'acorn-walk';
import { Parser } from 'sparqljs';

const ROOT = resolve(import.meta.dirname, '..');
const TEST_DIR = 'test/unit';
const SUPPORT = 'test/unit/query-template-support.ts';
const BASELINE = 'test/mutations-caught.json';
const REPORT = 'test-output/mutations.txt';
const REPORT_JSON = 'test-output/mutations.json';
/** At most this many mutants run (3 to 10 s each), unless --all: a sample chosen by a hash of the ids, the baseline's always in it. */
const MAX_MUTANTS = 150;
const SEED = 'toxgraph-mutants-1';
/** A mutant's tests that run longer than this are stopped (counted as caught: the mutant hangs them). */
const TIMEOUT_MS = 180_000;
/** What the tests print when a template's text does not parse, or a module does not load. */
const INVALID_OUTPUT = /Parse error on line|Lexical error on line|Detected illegal|Unknown prefix|SyntaxError|ERR_MODULE_NOT_FOUND|does not provide an export/;

type Outcome = 'caught' | 'survived' | 'invalid';
interface Edit {
  start: number;
  end: number;
  text: string;
}
interface Token {
  kind: 'slot' | 'iri' | 'string' | 'var' | 'number' | 'punct' | 'op' | 'word';
  text: string;
  start: number;
  end: number;
}
interface Template {
  module: string;
  name: string;
  line: number;
  start: number;
  end: number;
  tokens: Token[];
}
interface Mutant {
  id: string;
  module: string;
  template: string;
  line: number;
  kind: string;
  what: string;
  edits: Edit[];
}
interface Result {
  id: string;
  module: string;
  template: string;
  line: number;
  kind: string;
  what: string;
  /** The template as the mutant writes it (whitespace collapsed). */
  mutated: string;
  outcome: Outcome;
  note: string;
  seconds: number;
}

// --- the test files, and the modules of templates each covers

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const filesUnder = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** The relative imports of a file, as paths from the repository's root. */
function importsOf(path: string): string[] {
  const specifiers = [...read(path).matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]);
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(path), s)));
}

const testFiles = readdirSync(join(ROOT, TEST_DIR))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join(TEST_DIR, f))
  .filter((f) => importsOf(f).includes(SUPPORT))
  .sort();
const holdsTemplates = (path: string) => /\bsparql`/.test(read(path));
const modules = [
  ...new Set([...filesUnder('src').filter((f) => f.endsWith('-queries.ts')), ...[...testFiles, SUPPORT].flatMap(importsOf).filter((f) => f.startsWith('src/') && holdsTemplates(f))]),
].sort();

/** The test files that import a module, directly or through the support file and the other modules. */
function testsOf(module: string): string[] {
  const reaches = (file: string, seen = new Set<string>()): boolean => {
    if (file === module) return true;
    if (seen.has(file)) return false;
    seen.add(file);
    return importsOf(file).some((f) => (f === SUPPORT || modules.includes(f)) && reaches(f, seen));
  };
  return testFiles.filter((t) => reaches(t));
}

// --- the templates: acorn on the module with its types stripped (offsets unchanged)

function parseModule(text: string) {
  return parse(stripTypeScriptTypes(text, { mode: 'strip' }), { ecmaVersion: 'latest', sourceType: 'module', locations: true });
}

function templatesOf(module: string, text: string): Template[] {
  const found: Template[] = [];
  const seen = new Map<string, number>();
  ancestor(parseModule(text), {
    TaggedTemplateExpression(node: any, _state: unknown, path: any[]) {
      if (node.tag.type !== 'Identifier' || node.tag.name !== 'sparql') return;
      const names = path.flatMap((a) => {
        if (a.type === 'Property' || a.type === 'MethodDefinition') return [a.key.name ?? a.key.value];
        if (a.type === 'FunctionDeclaration' || a.type === 'VariableDeclarator') return [a.id.name];
        return [];
      });
      const base = names.join('.') || 'template';
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      const quasi = node.quasi;
      found.push({
        module,
        name: count > 1 ? `${base}#${count}` : base,
        line: node.loc.start.line,
        start: quasi.start,
        end: quasi.end,
        tokens: tokensOf(text, quasi),
      });
    },
  });
  return found;
}

/** The SPARQL tokens of a template: each `${…}` slot is one opaque token. */
function tokensOf(text: string, quasi: any): Token[] {
  const tokens: Token[] = [];
  quasi.quasis.forEach((q: any, i: number) => {
    const pattern = /\s+|(<[^<>"{}|^`\\\s]*>)|("(?:[^"\\]|\\.)*")|([?$][A-Za-z0-9_]+)|(\d+)|([{}().;,])|(<=|>=|!=|&&|\|\||[<>=!+*/^|?])|([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_-]*)?)|(.)/gy;
    for (const m of text.slice(q.start, q.end).matchAll(pattern)) {
      if (!m[0].trim()) continue;
      const kinds = ['iri', 'string', 'var', 'number', 'punct', 'op', 'word', 'op'] as const;
      const kind = kinds[m.slice(1).findIndex((g) => g !== undefined)];
      tokens.push({ kind, text: m[0], start: q.start + m.index, end: q.start + m.index + m[0].length });
    }
    if (i < quasi.expressions.length) {
      const next = quasi.quasis[i + 1];
      tokens.push({ kind: 'slot', text: text.slice(q.end, next.start), start: q.end, end: next.start });
    }
  });
  return tokens;
}

// --- the mutants of a template

const word = (t: Token | undefined, ...words: string[]) => t?.kind === 'word' && words.includes(t.text.toUpperCase());
const punct = (t: Token | undefined, p: string) => t?.kind === 'punct' && t.text === p;
const isTerm = (t: Token | undefined) => t?.kind === 'slot' || t?.kind === 'iri' || t?.kind === 'var';
const isObject = (t: Token | undefined) => isTerm(t) || t?.kind === 'string' || t?.kind === 'number';
/** An object that cannot be a subject: swapping it with the subject would only make invalid SPARQL. */
const isLiteral = (t: Token) => t.kind === 'string' || t.kind === 'number' || /^\$\{\s*literal\(/.test(t.text);
const COMPARISON: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>', '=': '!=', '!=': '=' };
const PATH_MODIFIER: Record<string, string[]> = { '+': ['*', ''], '*': ['+', ''], '?': ['+', ''] };

function mutantsOf(tpl: Template, source: string): Mutant[] {
  const t = tpl.tokens;
  const pair = matchingBrackets(t);
  const span = (i: number, j: number) => source.slice(t[i].start, t[j].end);
  const remove = (i: number, j: number): Edit => ({ start: t[i].start, end: t[j].end, text: '' });
  const replace = (i: number, j: number, text: string): Edit => ({ start: t[i].start, end: t[j].end, text });
  const made: Mutant[] = [];
  const counts = new Map<string, number>();
  const add = (kind: string, what: string, ...edits: Edit[]) => {
    const index = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, index);
    made.push({ id: `${tpl.module} ${tpl.name} ${kind} ${index}`, module: tpl.module, template: tpl.name, line: tpl.line, kind, what, edits });
  };
  // the blocks where SPARQL takes no variables (INSERT DATA, DELETE DATA)
  const dataBlocks = t.flatMap((tok, i) => (word(tok, 'DATA') && punct(t[i + 1], '{') ? [[i + 1, pair.get(i + 1)!]] : []));
  const inData = (i: number) => dataBlocks.some(([a, b]) => a < i && i < b);

  t.forEach((tok, i) => {
    if (word(tok, 'GRAPH') && punct(t[i + 2], '{')) {
      const close = pair.get(i + 2)!;
      // a variable used nowhere else would only be renamed
      const renamedOnly = t[i + 1].kind === 'var' && t.filter((o) => o.text === t[i + 1].text).length === 1;
      if (!inData(i) && !renamedOnly) add('graph-variable', `GRAPH ${t[i + 1].text} → GRAPH ?mutantGraph`, replace(i + 1, i + 1, '?mutantGraph'));
      add('graph-unwrap', `GRAPH ${t[i + 1].text} { … } → its pattern alone`, remove(i, i + 2), remove(close, close));
    }
    if (word(tok, 'OPTIONAL') && punct(t[i + 1], '{')) {
      add('optional-required', `OPTIONAL { ${span(i + 2, pair.get(i + 1)! - 1)} } made required`, remove(i, i));
      add('optional-drop', `OPTIONAL { ${span(i + 2, pair.get(i + 1)! - 1)} } dropped`, remove(i, pair.get(i + 1)!));
    }
    if (word(tok, 'FILTER')) filterMutants(i);
    if (word(tok, 'DISTINCT')) add('distinct-drop', 'DISTINCT dropped', remove(i, i));
    if (word(tok, 'ORDER') && word(t[i + 1], 'BY')) orderMutants(i);
    if (word(tok, 'LIMIT', 'OFFSET') && t[i + 1]) {
      const name = tok.text.toLowerCase();
      if (t[i + 1].kind === 'number') add(`${name}-change`, `${span(i, i + 1)} → ${tok.text} ${Number(t[i + 1].text) + 1}`, replace(i + 1, i + 1, String(Number(t[i + 1].text) + 1)));
      add(`${name}-drop`, `${span(i, i + 1)} dropped`, remove(i, i + 1));
    }
    if (word(tok, 'UNION') && punct(t[i - 1], '}') && punct(t[i + 1], '{')) {
      const open = pair.get(i - 1)!;
      const close = pair.get(i + 1)!;
      add('union-branch', `UNION: only { ${span(open + 1, i - 2)} }`, remove(i, close));
      add('union-branch', `UNION: only { ${span(i + 2, close - 1)} }`, remove(open, i));
    }
    if (word(tok, 'VALUES') && punct(t[i + 2], '{')) add('values-drop', `VALUES ${t[i + 1].text} { … } dropped`, remove(i, pair.get(i + 2)!));
    if (punct(tok, '{') && !word(t[i - 2], 'VALUES')) tripleMutants(i + 1, pair.get(i)!);
  });
  // a template that is a part of another (`?r ${p} ${v} .`) has triples outside any group
  if (!word(t[0], 'SELECT', 'ASK', 'CONSTRUCT', 'DESCRIBE', 'DELETE', 'INSERT', 'PREFIX', 'BASE', 'WITH')) tripleMutants(0, t.length);
  updateMutants();
  return made;

  function filterMutants(i: number) {
    let end: number;
    if (word(t[i + 1], 'NOT') && word(t[i + 2], 'EXISTS')) {
      end = pair.get(i + 3)!;
      add('filter-exists', 'FILTER NOT EXISTS → FILTER EXISTS', remove(i + 1, i + 1));
    } else if (word(t[i + 1], 'EXISTS')) {
      end = pair.get(i + 2)!;
      add('filter-exists', 'FILTER EXISTS → FILTER NOT EXISTS', replace(i + 1, i + 1, 'NOT EXISTS'));
    } else {
      const open = punct(t[i + 1], '(') ? i + 1 : i + 2; // FILTER(…) or FILTER fn(…)
      end = pair.get(open)!;
      const negated = open === i + 1 ? '(!(' : `(!${t[i + 1].text}`;
      add('filter-negate', `${span(i, end)} negated`, replace(i + 1, i + 1, negated), replace(end, end, '))'));
      for (let k = open + 1; k < end; k++) {
        if (t[k].kind === 'op' && COMPARISON[t[k].text]) add('comparison', `${t[k].text} → ${COMPARISON[t[k].text]} in ${span(i, end)}`, replace(k, k, COMPARISON[t[k].text]));
        if (t[k].kind === 'op' && (t[k].text === '&&' || t[k].text === '||'))
          add('logic', `${t[k].text} → ${t[k].text === '&&' ? '||' : '&&'} in ${span(i, end)}`, replace(k, k, t[k].text === '&&' ? '||' : '&&'));
        if (word(t[k], 'IN') && !word(t[k - 1], 'NOT')) add('in-negate', `IN → NOT IN in ${span(i, end)}`, replace(k, k, 'NOT IN'));
      }
    }
    add('filter-drop', `${span(i, end)} dropped`, remove(i, end));
  }

  function orderMutants(i: number) {
    let k = i + 2;
    while (k < t.length) {
      if (t[k].kind === 'var') {
        add('order-flip', `ORDER BY ${t[k].text} → DESC(${t[k].text})`, replace(k, k, `DESC(${t[k].text})`));
        k++;
      } else if (word(t[k], 'ASC', 'DESC') && punct(t[k + 1], '(')) {
        const flipped = t[k].text.toUpperCase() === 'ASC' ? 'DESC' : 'ASC';
        add('order-flip', `ORDER BY ${t[k].text}(…) → ${flipped}(…)`, replace(k, k, flipped));
        k = pair.get(k + 1)! + 1;
      } else break;
    }
    add('order-drop', `${span(i, k - 1)} dropped`, remove(i, k - 1));
  }

  /** The triples of a group's own content (nested groups are visited on their own). */
  function tripleMutants(from: number, to: number) {
    let k = from;
    while (k < to) {
      if (punct(t[k], '{') || punct(t[k], '(')) k = pair.get(k)! + 1;
      else if (word(t[k], 'GRAPH')) k += 2;
      else if (word(t[k], 'FILTER', 'BIND') && punct(t[k + 1], '(')) k = pair.get(k + 1)! + 1;
      else if (word(t[k], 'VALUES')) k = punct(t[k + 2], '{') ? pair.get(k + 2)! + 1 : k + 1;
      else if (isTerm(t[k])) k = triple(k, to) ?? k + 1;
      else k++;
    }
  }

  /** The mutants of the triple at `k` (a subject, then verbs and objects); the index after it, or undefined when there is none. */
  function triple(k: number, to: number): number | undefined {
    const subject = k;
    const patterns: { verb: [number, number]; object: number }[] = [];
    let i = k + 1;
    for (;;) {
      if (!(isTerm(t[i]) || t[i]?.text === 'a')) break;
      const verb: [number, number] = [i, i];
      if (t[i + 1]?.kind === 'op' && PATH_MODIFIER[t[i + 1].text] && t[i + 1].start === t[i].end) verb[1] = i + 1;
      i = verb[1] + 1;
      if (!isObject(t[i])) break;
      patterns.push({ verb, object: i++ });
      while (punct(t[i], ',') && isObject(t[i + 1])) {
        patterns.push({ verb, object: i + 1 });
        i += 2;
      }
      if (!punct(t[i], ';')) break;
      i++;
    }
    if (!patterns.length || i > to) return undefined;
    const last = patterns.at(-1)!.object;
    const end = punct(t[last + 1], '.') ? last + 1 : last;
    const text = (p: { verb: [number, number]; object: number }) => `${span(p.verb[0], p.verb[1])} ${t[p.object].text}`;
    const written = (ps: typeof patterns) => (ps.length ? `${t[subject].text} ${ps.map(text).join(' ; ')} .` : '');
    patterns.forEach((p, n) => {
      const others = patterns.filter((_, m) => m !== n);
      const pattern = `${t[subject].text} ${text(p)}`;
      add('triple-drop', `${pattern} dropped`, replace(subject, end, written(others)));
      if (!isLiteral(t[p.object]))
        add(
          'triple-swap',
          `${pattern} → ${t[p.object].text} ${span(p.verb[0], p.verb[1])} ${t[subject].text}`,
          replace(subject, end, `${written(others)} ${t[p.object].text} ${span(p.verb[0], p.verb[1])} ${t[subject].text} .`),
        );
      if (p.verb[1] > p.verb[0]) {
        for (const other of PATH_MODIFIER[t[p.verb[1]].text]) add('path', `${span(p.verb[0], p.verb[1])} → …${other || ' (no modifier)'}`, replace(p.verb[1], p.verb[1], other));
      }
    });
    return end + 1;
  }

  /** The operations of an update (`;` outside any group) and the DELETE and INSERT parts of one. */
  function updateMutants() {
    const operations: [number, number][] = [];
    let first = 0;
    for (let i = 0; i <= t.length; i++) {
      if (i < t.length && (punct(t[i], '{') || punct(t[i], '('))) i = pair.get(i)!;
      else if (i === t.length || punct(t[i], ';')) {
        if (i > first) operations.push([first, i - 1]);
        first = i + 1;
      }
    }
    if (operations.length > 1) {
      operations.forEach(([a, b], n) => {
        const [from, to] = n === 0 ? [a, b + 1] : [a - 1, b]; // with the `;` between it and its neighbour
        add('update-drop', `operation ${n + 1} (${t[a].text} ${t[a + 1]?.text ?? ''} …) dropped`, remove(from, to));
      });
    }
    for (const [a, b] of operations) {
      const clause = (keyword: string) => {
        const i = t.findIndex((tok, k) => k >= a && k <= b && word(tok, keyword) && punct(t[k + 1], '{'));
        return i < 0 ? undefined : ([i, pair.get(i + 1)!] as const);
      };
      const del = clause('DELETE');
      const ins = clause('INSERT');
      if (del && ins) {
        add('update-part-drop', `DELETE { ${span(del[0] + 2, del[1] - 1)} } dropped`, remove(del[0], del[1]));
        add('update-part-drop', `INSERT { ${span(ins[0] + 2, ins[1] - 1)} } dropped`, remove(ins[0], ins[1]));
      }
    }
  }
}

/** The index of each bracket's partner (`{}` and `()`), both ways. */
function matchingBrackets(tokens: Token[]): Map<number, number> {
  const pair = new Map<number, number>();
  const open: number[] = [];
  tokens.forEach((tok, i) => {
    if (punct(tok, '{') || punct(tok, '(')) open.push(i);
    if (punct(tok, '}') || punct(tok, ')')) {
      const o = open.pop();
      if (o === undefined) return;
      pair.set(o, i);
      pair.set(i, o);
    }
  });
  for (const o of open) pair.set(o, tokens.length - 1);
  return pair;
}

// --- applying a mutant, and the check of its SPARQL before any test runs

function applyEdits(text: string, edits: Edit[]): string {
  return [...edits].sort((a, b) => b.start - a.start).reduce((out, e) => out.slice(0, e.start) + e.text + out.slice(e.end), text);
}

/** The mutated template's source, on one line. */
function mutatedTemplate(original: string, mutated: string, tpl: Template): string {
  return mutated
    .slice(tpl.start, tpl.end + mutated.length - original.length)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The SPARQL text of the template at `start`, its slots written the first way that makes the
 * unmutated template parse (a variable, an IRI, nothing: as a list, a sub-template or data
 * triples); undefined when the text cannot be checked without running it.
 */
const SLOT_FORMS = [(i: number) => ` ?toxgraphSlot${i} `, () => ' <urn:toxgraph:slot> ', () => ' '];
function sparqlText(text: string, start: number, form: (i: number) => string): string | undefined {
  let found: any;
  ancestor(parseModule(text), {
    TemplateLiteral(node: any) {
      if (node.start === start) found = node;
    },
  });
  return found?.quasis.map((q: any, i: number) => q.value.cooked + (i < found.expressions.length ? form(i) : '')).join('');
}
const parses = (query: string | undefined) => {
  if (query === undefined) return false;
  try {
    new Parser().parse(query);
    return true;
  } catch {
    return false;
  }
};

/** Why a mutant is invalid without running it (its module no longer parses, its SPARQL never parses), or undefined. */
function invalidBeforeRunning(original: string, mutated: string, tpl: Template): string | undefined {
  try {
    parseModule(mutated);
  } catch (e) {
    return `the module no longer parses: ${(e as Error).message}`;
  }
  const form = SLOT_FORMS.find((f) => parses(sparqlText(original, tpl.start, f)));
  if (form && !parses(sparqlText(mutated, tpl.start, form))) return 'the SPARQL does not parse';
  return undefined;
}

// --- running the tests in a private copy of the tree

function privateCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-mutants-'));
  for (const entry of readdirSync(ROOT)) {
    if (entry === '.git' || entry === 'test-output') continue;
    if (entry === 'src' || entry === 'test') cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
    else symlinkSync(join(ROOT, entry), join(dir, entry));
  }
  return dir;
}

/**
 * Runs test files in the copy; with `stopAtFailure` the run ends at the first failing test (its
 * error printed), which is all a mutant needs to be caught.
 */
function runTests(dir: string, files: string[], stopAtFailure: boolean): Promise<{ passed: boolean; output: string; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', './test/untracked-promises.ts', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files], {
      cwd: dir,
      env: { ...process.env, TOXGRAPH_CHECK_TEMPLATES: '1', NODE_DISABLE_COLORS: '1' },
      detached: true,
    });
    let output = '';
    let timedOut = false;
    let stopping: NodeJS.Timeout | undefined;
    const stop = () => process.kill(-child.pid!, 'SIGKILL');
    const take = (data: Buffer) => {
      output += data;
      if (stopAtFailure && !stopping && /^✖ (?!failing tests:)/m.test(output)) stopping = setTimeout(stop, 500);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, TIMEOUT_MS);
    child.on('close', (status) => {
      clearTimeout(timer);
      clearTimeout(stopping);
      done({ passed: status === 0 && !stopping, output, timedOut });
    });
  });
}

// --- the run

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const sources = new Map(modules.map((m) => [m, read(m)]));
const templates = modules.flatMap((m) => templatesOf(m, sources.get(m)!));
const templateOf = new Map(templates.flatMap((tpl) => mutantsOf(tpl, sources.get(tpl.module)!).map((m) => [m, tpl] as const)));
const everyMutant = [...templateOf.keys()];
const baseline: string[] = existsSync(join(ROOT, BASELINE)) ? JSON.parse(read(BASELINE)).caught : [];

/** The mutants that run: all of them, or the baseline's and a sample of the rest (by a hash of the id, so one mutant more elsewhere changes little). */
const rank = (id: string) => createHash('sha256').update(`${SEED} ${id}`).digest('hex');
const inBaseline = everyMutant.filter((m) => baseline.includes(m.id));
const rest = everyMutant.filter((m) => !baseline.includes(m.id)).sort((a, b) => rank(a.id).localeCompare(rank(b.id)));
const limit = args.includes('--all') ? Infinity : MAX_MUTANTS;
const sampled = new Set([...inBaseline, ...rest.slice(0, Math.max(0, limit - inBaseline.length))]);
const chosen = everyMutant.filter((m) => (only ? m.id.includes(only) : sampled.has(m)));

console.log(`query-template tests: ${testFiles.join(', ')}`);
console.log(`${templates.length} templates in ${modules.length} modules, ${everyMutant.length} mutants, ${chosen.length} to run`);
if (args.includes('--list')) {
  for (const m of chosen) {
    const original = sources.get(m.module)!;
    console.log(`${m.id}  (line ${m.line}): ${m.what}\n    ${mutatedTemplate(original, applyEdits(original, m.edits), templateOf.get(m)!)}`);
  }
  process.exit(0);
}

const started = Date.now();
const dir = privateCopy();
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
process.on('SIGINT', () => process.exit(130));
const control = await runTests(dir, testFiles, false);
if (!control.passed) {
  console.log(control.output);
  console.error('the query-template tests fail without any mutant: nothing to measure');
  process.exit(2);
}

const results: Result[] = [];
for (const [n, mutant] of chosen.entries()) {
  const tpl = templateOf.get(mutant)!;
  const original = sources.get(mutant.module)!;
  const mutated = applyEdits(original, mutant.edits);
  const t0 = Date.now();
  let outcome: Outcome;
  let note = invalidBeforeRunning(original, mutated, tpl) ?? '';
  if (note) outcome = 'invalid';
  else {
    writeFileSync(join(dir, mutant.module), mutated);
    const run = await runTests(dir, testsOf(mutant.module), true);
    writeFileSync(join(dir, mutant.module), original);
    if (args.includes('--output')) console.log(run.output);
    const failed = run.output.match(/^✖ (?!failing tests).*$/m)?.[0] ?? '';
    const invalid = !run.passed && run.output.match(INVALID_OUTPUT)?.[0];
    outcome = run.passed ? 'survived' : invalid ? 'invalid' : 'caught';
    note = run.timedOut ? 'timed out' : invalid ? `the tests say: ${invalid}` : failed.slice(2, 160);
  }
  const seconds = (Date.now() - t0) / 1000;
  const { id, module, template, line, kind, what } = mutant;
  results.push({ id, module, template, line, kind, what, mutated: mutatedTemplate(original, mutated, tpl), outcome, note, seconds });
  console.log(`[${n + 1}/${chosen.length}] ${outcome.padEnd(8)} ${mutant.id} (${seconds.toFixed(1)} s)`);
}
const wall = (Date.now() - started) / 1000;

// --- the report, and the baseline

const count = (rs: Result[], o: Outcome) => rs.filter((r) => r.outcome === o).length;
const lost = results.filter((r) => baseline.includes(r.id) && r.outcome !== 'caught');
const gone = only ? [] : baseline.filter((id) => !everyMutant.some((m) => m.id === id));
const lines = [
  `Mutation check of the query templates (scripts/mutate-templates.ts), ${new Date().toISOString()}`,
  `test files: ${testFiles.join(', ')}`,
  `${everyMutant.length} mutants of ${templates.length} templates; ${results.length} run in ${wall.toFixed(0)} s: ${count(results, 'caught')} caught, ${count(results, 'survived')} survived, ${count(results, 'invalid')} invalid`,
  '',
  'module                                    caught survived invalid',
  ...modules
    .filter((m) => everyMutant.some((mutant) => mutant.module === m))
    .map((m) => {
      const rs = results.filter((r) => r.module === m);
      return `${m.padEnd(42)}${String(count(rs, 'caught')).padStart(6)}${String(count(rs, 'survived')).padStart(9)}${String(count(rs, 'invalid')).padStart(8)}`;
    }),
  '',
  'Survivors (no test notices the change: a test to add, or a change that makes no difference):',
  ...results.filter((r) => r.outcome === 'survived').map((r) => `  ${r.module}:${r.line} ${r.template} [${r.kind}] ${r.what}\n    now: ${r.mutated}\n    id: ${r.id}`),
  '',
  `Baseline ${BASELINE}: ${baseline.length} mutants caught before; ${lost.length} no longer caught${gone.length ? `; ${gone.length} no longer made (their template changed)` : ''}`,
  ...lost.map((r) => `  NO LONGER CAUGHT (${r.outcome}): ${r.module}:${r.line} ${r.template} [${r.kind}] ${r.what}\n    id: ${r.id}`),
  ...gone.map((id) => `  no longer made: ${id}`),
];
mkdirSync(join(ROOT, 'test-output'), { recursive: true });
writeFileSync(join(ROOT, REPORT), `${lines.join('\n')}\n`);
writeFileSync(join(ROOT, REPORT_JSON), `${JSON.stringify({ seconds: wall, testFiles, mutants: everyMutant.length, results }, null, 2)}\n`);
console.log(`\n${lines.slice(2).join('\n')}\n(written to ${REPORT} and ${REPORT_JSON})`);

if (args.includes('--update-baseline') && !only) {
  const caught = results.filter((r) => r.outcome === 'caught').map((r) => r.id);
  const note = 'The mutants of the query templates the tests caught (scripts/mutate-templates.ts --update-baseline); the check fails when one of them is no longer caught.';
  writeFileSync(join(ROOT, BASELINE), `${JSON.stringify({ note, caught: caught.sort() }, null, 2)}\n`);
  console.log(`baseline written: ${caught.length} mutants caught (${BASELINE})`);
} else if (lost.length) {
  console.error(`${lost.length} mutant(s) of the baseline no longer caught: see ${REPORT}`);
  process.exit(1);
}
