import type * as RDF from '@rdfjs/types';

/** Properties that may occur several times: always arrays in JSON and YAML, repeated elements in XML. */
const REPEATED = new Set([
  'classValueStatistics',
  'confusionMatrixCell',
  'validation',
  'parameters',
  'independentVariables',
  'predictedVariables',
  'type',
  'sameAs',
  'warning',
  'acceptValue',
  'conformalStatistics',
  'conformalClassStatistics',
]);

const localName = (iri: string) => iri.slice(Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/')) + 1);

export type TreeValue = string | number | boolean | Tree | Tree[] | string[];
export interface Tree {
  [key: string]: TreeValue;
}

function literalValue(t: RDF.Literal): string | number | boolean {
  const type = t.datatype.value;
  if (/#(integer|int|long|double|float|decimal)$/.test(type)) {
    const n = Number(t.value);
    // INF, -INF and NaN (an unbounded interval's width) stay as XSD writes them: JSON has no Infinity
    return Number.isFinite(n) ? n : t.value.trim();
  }
  if (type.endsWith('#boolean')) return t.value === 'true';
  return t.value;
}

/**
 * A resource as a plain object for JSON, YAML and XML: one key per property (its local name:
 * `dc:title` → `title`), inner nodes under the resource URI (`{uri}#...`) as nested objects,
 * other IRIs as strings, typed literals as numbers and booleans. `rdf:type` is kept (as `type`)
 * unless `withTypes` is false.
 */
export function resourceTree(quads: RDF.Quad[], root: string, withTypes = true, resource = root): Tree {
  const out: Tree = { uri: root };
  for (const q of quads.filter((x) => x.subject.value === root)) {
    const key = localName(q.predicate.value);
    if (key === 'identifier' || (key === 'type' && !withTypes)) continue;
    let value: TreeValue;
    if (q.object.termType === 'Literal') value = literalValue(q.object);
    else if (q.object.value.startsWith(`${resource}#`) && quads.some((x) => x.subject.equals(q.object))) {
      value = resourceTree(quads, q.object.value, withTypes, resource);
      delete value.uri;
    } else value = q.object.value;
    if (REPEATED.has(key)) out[key] = [...((out[key] as Tree[] | undefined) ?? []), value as Tree];
    else out[key] = value;
  }
  return out;
}
