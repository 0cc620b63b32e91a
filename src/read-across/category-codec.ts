import type * as RDF from '@rdfjs/types';
import { dc, df, literal, ot, rdf, xsd } from '../rdf/namespaces.ts';
import { doubleLiteral } from '../rdf/terms.ts';

/** A member's part in a category (AMBIT's roles): the target, a source with measured data, or a member added without data. */
export type CategoryRole = 'target' | 'source' | 'member';

/** A compound considered for a category: in (with its role) or out, and why. */
export interface CategoryMember {
  compound: string;
  role: CategoryRole;
  included: boolean;
  /** Tanimoto similarity to the target (Morgan, radius 2, 2048 bits). */
  similarity?: number;
  /** The endpoints it has measured values of (a source's). */
  sourceFor: string[];
  reason: string;
}

/** A category for read-across (issue 56): its definition, its members with roles, and the compounds left out with the reason. */
export interface Category {
  uri: string;
  title: string;
  date: Date;
  target: string;
  /** Feature URIs or ontology terms. */
  endpoints: string[];
  /** The definition: least similarity to the target, at most this many sources per endpoint, a substructure every member holds. */
  similarityThreshold: number;
  maxSources: number;
  smarts?: string;
  /** The category this one subdivides (its members are drawn from the parent's). */
  parent?: string;
  members: CategoryMember[];
}

/** A category as RDF (its graph): the definition on the category node, one node per compound considered (`{uri}#member-{n}`). */
export function categoryQuads(c: Category): RDF.Quad[] {
  const s = df.namedNode(c.uri);
  const quads: RDF.Quad[] = [
    df.quad(s, rdf('type'), ot('Category')),
    df.quad(s, dc('title'), literal(c.title)),
    df.quad(s, dc('date'), literal(c.date.toISOString(), xsd('dateTime'))),
    df.quad(s, ot('target'), df.namedNode(c.target)),
    ...c.endpoints.map((e) => df.quad(s, ot('endpoint'), df.namedNode(e))),
    df.quad(s, ot('similarityThreshold'), doubleLiteral(c.similarityThreshold)),
    df.quad(s, ot('maxSources'), literal(String(c.maxSources), xsd('int'))),
  ];
  if (c.smarts !== undefined) quads.push(df.quad(s, ot('smarts'), literal(c.smarts)));
  if (c.parent) quads.push(df.quad(s, ot('parentCategory'), df.namedNode(c.parent)));
  c.members.forEach((m, i) => {
    const node = df.namedNode(`${c.uri}#member-${i + 1}`);
    quads.push(
      df.quad(s, ot(m.included ? 'member' : 'excluded'), node),
      df.quad(node, ot('compound'), df.namedNode(m.compound)),
      df.quad(node, ot('role'), literal(m.role)),
      df.quad(node, ot('reason'), literal(m.reason)),
      ...m.sourceFor.map((e) => df.quad(node, ot('sourceFor'), df.namedNode(e))),
    );
    if (m.similarity !== undefined) quads.push(df.quad(node, ot('similarity'), doubleLiteral(m.similarity)));
  });
  return quads;
}

/** A category read back from its graph (undefined when the graph holds none). */
export function categoryOf(quads: RDF.Quad[], uri: string): Category | undefined {
  const of = (subject: string, p: RDF.NamedNode) => quads.filter((q) => q.subject.value === subject && q.predicate.equals(p)).map((q) => q.object);
  const one = (subject: string, p: RDF.NamedNode) => of(subject, p)[0]?.value;
  if (!of(uri, rdf('type')).some((t) => t.equals(ot('Category')))) return undefined;
  const member = (node: RDF.Term, included: boolean): CategoryMember & { n: number } => {
    const similarity = one(node.value, ot('similarity'));
    return {
      n: Number(/#member-(\d+)$/.exec(node.value)?.[1] ?? 0),
      compound: one(node.value, ot('compound')) ?? '',
      role: (one(node.value, ot('role')) ?? 'member') as CategoryRole,
      included,
      similarity: similarity === undefined ? undefined : Number(similarity),
      sourceFor: of(node.value, ot('sourceFor')).map((t) => t.value),
      reason: one(node.value, ot('reason')) ?? '',
    };
  };
  const smarts = one(uri, ot('smarts'));
  return {
    uri,
    title: one(uri, dc('title')) ?? uri,
    date: new Date(one(uri, dc('date')) ?? 0),
    target: one(uri, ot('target')) ?? '',
    endpoints: of(uri, ot('endpoint')).map((t) => t.value),
    similarityThreshold: Number(one(uri, ot('similarityThreshold'))),
    maxSources: Number(one(uri, ot('maxSources'))),
    ...(smarts === undefined ? {} : { smarts }),
    ...(one(uri, ot('parentCategory')) ? { parent: one(uri, ot('parentCategory')) } : {}),
    members: [...of(uri, ot('member')).map((n) => member(n, true)), ...of(uri, ot('excluded')).map((n) => member(n, false))].sort((a, b) => a.n - b.n).map(({ n: _, ...m }) => m),
  };
}
