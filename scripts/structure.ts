// The shape of src/: folder cycles, the layer rules, route handlers' length, lines.
//
//   node scripts/structure.ts           prints the figures
//   node scripts/structure.ts --check   also exits 1 when a rule is broken (npm test runs this)
//   --src DIR                           another source tree (the rules' own test)
//
// Dependencies are the value imports (static, re-exports, import()) left once Node strips the
// TypeScript types: `import type` carries no dependency at run time and makes no cycle.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { stripTypeScriptTypes } from 'node:module';
import { parse } from 'acorn';
import { simple } from 'acorn-walk';

const ROOT = resolve(import.meta.dirname, '..');
const srcAt = process.argv.indexOf('--src');
const SRC = srcAt > 0 ? resolve(process.argv[srcAt + 1]) : join(ROOT, 'src');
/** The shared machinery: it serves the components and imports none of them. */
const SHARED = new Set(['core', 'http', 'rdf', 'store']);
/** What a route may call: an operation, never the store. */
const ROUTE_FILE = /-routes\.ts$/;
const HTTP_METHODS = new Set(['get', 'post', 'put', 'delete', 'patch', 'head', 'all']);
/** The longest route handler the rule allows (lines of its registration call). */
const MAX_ROUTE_LINES = 60;

interface SourceFile {
  path: string; // relative to src/
  folder: string; // src/'s top folder, or '(root)'
  lines: number;
  imports: string[]; // relative to src/, value imports of other src files
  routes: { method: string; path: string; line: number; lines: number; described?: true }[];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
}

function folderOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '(root)' : path.slice(0, slash);
}

function read(file: string): SourceFile {
  const text = readFileSync(file, 'utf8');
  const path = relative(SRC, file);
  const js = stripTypeScriptTypes(text, { mode: 'strip' });
  const ast = parse(js, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  const imports: string[] = [];
  const routes: SourceFile['routes'] = [];
  const dependOn = (specifier: unknown) => {
    if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
    const target = relative(SRC, resolve(dirname(file), specifier));
    if (!target.startsWith('..')) imports.push(target);
  };
  simple(ast, {
    ImportDeclaration: (n: any) => dependOn(n.source.value),
    ExportNamedDeclaration: (n: any) => dependOn(n.source?.value),
    ExportAllDeclaration: (n: any) => dependOn(n.source.value),
    ImportExpression: (n: any) => dependOn(n.source.type === 'Literal' ? n.source.value : undefined),
    CallExpression: (n: any) => {
      const callee = n.callee;
      // routes.add({ method, path, … }, handler): a described route (http/route-description.ts); its handler's lines
      const [description, handler] = n.arguments;
      if (callee.type === 'MemberExpression' && callee.property.name === 'add' && description?.type === 'ObjectExpression' && handler) {
        const field = (name: string) => description.properties.find((p: any) => p.key?.name === name)?.value;
        const method = field('method');
        const path = field('path');
        const pathText = path?.type === 'Literal' ? String(path.value) : path?.type === 'TemplateLiteral' ? path.quasis.map((q: any) => q.value.cooked).join('…') : `(${path?.name ?? 'computed'})`;
        if (method?.type === 'Literal') routes.push({ method: String(method.value), path: pathText, line: handler.loc.start.line, lines: handler.loc.end.line - handler.loc.start.line + 1, described: true });
        return;
      }
      // router.get('/path', handler): a route registration
      if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || !HTTP_METHODS.has(callee.property.name)) return;
      const first = n.arguments[0];
      const path = first?.type === 'Literal' && typeof first.value === 'string' ? first.value : first?.type === 'ArrayExpression' ? first.elements.map((e: any) => e.value).join(' | ') : undefined;
      if (!path?.startsWith('/') || !n.arguments.some((a: any) => a.type === 'ArrowFunctionExpression' || a.type === 'FunctionExpression')) return;
      routes.push({ method: callee.property.name.toUpperCase(), path, line: n.loc.start.line, lines: n.loc.end.line - n.loc.start.line + 1 });
    },
  });
  return { path, folder: folderOf(path), lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), imports, routes };
}

/** Strongly connected groups of folders (Tarjan), those of more than one folder. */
function folderCycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return groups;
}

const files = filesUnder(SRC).map(read);
const byPath = new Map(files.map((f) => [f.path, f]));
const folderEdges = new Map<string, Set<string>>();
/** For each folder pair, the file imports that make it. */
const edgeFiles = new Map<string, string[]>();
for (const f of files) {
  for (const target of f.imports) {
    const to = folderOf(target);
    if (!byPath.has(target) || to === f.folder) continue;
    if (!folderEdges.has(f.folder)) folderEdges.set(f.folder, new Set());
    folderEdges.get(f.folder)!.add(to);
    const key = `${f.folder} → ${to}`;
    edgeFiles.set(key, [...(edgeFiles.get(key) ?? []), `${f.path} → ${target}`]);
  }
}

const broken: string[] = [];
const groups = folderCycles(folderEdges);
const pairs = [...folderEdges].flatMap(([from, tos]) => [...tos].filter((to) => from < to && folderEdges.get(to)?.has(from)).map((to) => [from, to]));
console.log(`folder cycles: ${groups.length} group(s) of folders that import each other; ${pairs.length} pair(s) importing both ways`);
for (const group of groups) console.log(`  ${group.join(', ')}`);
for (const [a, b] of pairs) {
  const ab = edgeFiles.get(`${a} → ${b}`)!;
  const ba = edgeFiles.get(`${b} → ${a}`)!;
  console.log(`  ${a} ↔ ${b}: ${ab.length} + ${ba.length} imports, e.g. ${ab[0]}; ${ba[0]}`);
}
if (groups.length) broken.push(`${groups.length} folder cycle(s)`);

const sharedImportingComponents = files.flatMap((f) => (SHARED.has(f.folder) ? f.imports.filter((t) => byPath.has(t) && !SHARED.has(folderOf(t))).map((t) => `${f.path} → ${t}`) : []));
console.log(`shared machinery (${[...SHARED].join(', ')}) importing anything else: ${sharedImportingComponents.length}`);
for (const e of sharedImportingComponents) console.log(`  ${e}`);
if (sharedImportingComponents.length) broken.push('shared machinery imports a component');

const routesOnStore = files.filter((f) => ROUTE_FILE.test(f.path) && f.imports.some((t) => folderOf(t) === 'store'));
console.log(`route files importing store/: ${routesOnStore.length}`);
for (const f of routesOnStore) console.log(`  ${f.path}`);
if (routesOnStore.length) broken.push(`route files import store/: ${routesOnStore.map((f) => f.path).join(', ')}`);

const routes = files.flatMap((f) => f.routes.map((r) => ({ ...r, file: f.path }))).sort((a, b) => b.lines - a.lines);
const long = routes.filter((r) => r.lines > MAX_ROUTE_LINES);
console.log(`route handlers: ${routes.length}, ${routes.filter((r) => r.described).length} described with their parameters (http/route-description.ts); the longest ${routes[0]?.lines ?? 0} lines; over ${MAX_ROUTE_LINES} lines: ${long.length}`);
for (const r of routes.slice(0, Math.max(5, long.length))) console.log(`  ${r.lines} lines: ${r.method} ${r.path} (src/${r.file}:${r.line})`);
if (long.length) broken.push(`${long.length} route handler(s) over ${MAX_ROUTE_LINES} lines`);

console.log(`src/: ${files.length} files, ${files.reduce((n, f) => n + f.lines, 0)} lines`);

if (process.argv.includes('--check') && broken.length) {
  console.error(`structure rules broken: ${broken.join('; ')}`);
  process.exit(1);
}
if (process.argv.includes('--edges')) for (const [k, v] of [...edgeFiles].sort()) console.log(`${k}\n    ${v.join('\n    ')}`);
