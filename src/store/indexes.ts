/**
 * quadstore answers a pattern only from an index whose leading terms are exactly the bound
 * terms, and a bound *literal* must come last among them (it is matched as a range). With the
 * six default indexes, `GRAPH <g> { ?s ?p "x" }` (object + graph bound) has no index and the
 * error escapes Comunica as an uncaught exception that kills the process.
 *
 * Each index has one position for the object, so it serves exactly one bound-set that contains
 * a literal object; there are eight such sets ({o}, {s,o}, {p,o}, {g,o}, {s,p,o}, {s,g,o},
 * {p,g,o}, {s,p,g,o}), hence eight indexes is the minimum that answers every pattern. The set
 * below also covers every pattern without an object. test/unit/store.test.ts checks all 16 patterns.
 */
export type TermName = 'subject' | 'predicate' | 'object' | 'graph';

const S = 'subject',
  P = 'predicate',
  O = 'object',
  G = 'graph';

export const INDEXES: TermName[][] = [
  [O, S, P, G], // {o}
  [S, O, P, G], // {s,o}
  [P, O, G, S], // {p,o}, {p}
  [G, O, S, P], // {g,o}, {g}
  [S, P, O, G], // {s,p,o}, {s}, {s,p}
  [S, G, O, P], // {s,g,o}, {s,g}
  [P, G, O, S], // {p,g,o}, {p,g}
  [G, S, P, O], // {s,p,g,o}, {g,s}, {g,s,p}
];
