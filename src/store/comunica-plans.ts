import { Parser } from '@traqula/parser-sparql-1-2';
import { toAlgebra } from '@traqula/algebra-sparql-1-2';
import { AstFactory } from '@traqula/rules-sparql-1-2';
import { df } from '../rdf/namespaces.ts';

/** Queries whose algebra is kept (the /sparql clients and templates that ask the same again). */
const KEPT = 256;
/** Longer texts seldom repeat and would hold much memory. */
const KEPT_TEXT_LENGTH = 4096;
const kept = new Map<string, object | null>();
/** Made when first needed: building its grammar costs about 150 ms, and most processes never ask Comunica. */
let parser: Parser | undefined;
/** Tests freeze what is kept, so that an engine that changed a kept algebra would fail them. */
const FREEZE = process.env.TOXGRAPH_CHECK_TEMPLATES === '1';

/**
 * The SPARQL algebra Comunica would make of a query text, parsed once and kept (a plan cache: a
 * query asked again goes to the engine as algebra, which skips its parse, about 40 % of a small
 * query's time). Made as Comunica's own parser makes it (Traqula, quads, blank nodes as
 * variables). Undefined when the text is better left to the engine: too long to keep, a `BASE`
 * the engine must see, or a text only the engine's default prefixes make parse.
 */
export function comunicaAlgebra(text: string, baseIri?: string): object | undefined {
  if (text.length > KEPT_TEXT_LENGTH || /\bBASE\b/i.test(text)) return undefined;
  const key = `${baseIri ?? ''}\n${text}`;
  let algebra = kept.get(key);
  if (algebra !== undefined) {
    kept.delete(key);
  } else {
    try {
      parser ??= new Parser();
      const syntax = parser.parse(text, { baseIRI: baseIri, astFactory: new AstFactory() });
      algebra = toAlgebra(syntax as never, { quads: true, blankToVariable: true, baseIRI: baseIri, dataFactory: df as never }) as object;
      if (FREEZE) deepFreeze(algebra);
    } catch {
      algebra = null;
    }
  }
  kept.set(key, algebra);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  return algebra ?? undefined;
}

function deepFreeze(node: unknown, seen = new Set<unknown>()): void {
  // terms are shared with everything else (and some cache fields in themselves): left as they are
  if (node === null || typeof node !== 'object' || 'termType' in node || seen.has(node)) return;
  seen.add(node);
  for (const v of Object.values(node)) deepFreeze(v, seen);
  Object.freeze(node);
}
