import type * as RDF from '@rdfjs/types';
import { dcterms, df, literal, owl, rdf, rdfs } from '../rdf/namespaces.ts';
import { type Profiler, type ProfilerCategory, type ProfilerRule, tgp } from './profiler-rules.ts';

/** What one profiler found in a compound. */
export interface ProfilerResult {
  profiler: Profiler;
  /** The rules that match, in rule order (a first-match profiler's too: every rule is tried). */
  matched: ProfilerRule[];
  /** A first-match profiler's decision: the category and the rule that assigned it. */
  category?: ProfilerCategory;
  decidedBy?: ProfilerRule;
}

/** A compound's profile: one result per profiler, and the structure it was computed from. */
export interface Profile {
  compound: string;
  smiles: string;
  created: Date;
  results: ProfilerResult[];
}

/** The graph that holds a compound's profile. */
export function profileGraphOf(compound: string): string {
  return `${compound}/profile`;
}

/**
 * A profiler's result from whether each of its rules matches (`matches`, in its rule order):
 * every rule that matches; for a first-match profiler the first rule that matches, in rule
 * order, decides, and its "otherwise" rule when none before it does.
 */
export function decide(profiler: Profiler, matches: boolean[]): ProfilerResult {
  const matched = profiler.rules.filter((r, i) => matches[i] && !r.otherwise);
  if (profiler.decision !== 'first') return { profiler, matched };
  const decidedBy = profiler.rules.find((r, i) => matches[i] || r.otherwise);
  return { profiler, matched, category: decidedBy?.category, decidedBy };
}

function resultNode(compound: string, profiler: Profiler): RDF.NamedNode {
  const local = profiler.iri.slice(Math.max(profiler.iri.lastIndexOf('#'), profiler.iri.lastIndexOf('/')) + 1);
  return df.namedNode(`${profileGraphOf(compound)}#${encodeURIComponent(local)}`);
}

/**
 * A profile as RDF, for its graph `{compound}/profile`: the profile node (the graph's IRI), one
 * tgp:ProfilerResult per profiler, and on the compound itself every rule that matches
 * (tgp:matchedRule) and every category decided (tgp:assignedCategory), so that a query finds the
 * compounds that carry an alert in one triple pattern.
 */
export function profileQuads(p: Profile): RDF.Quad[] {
  const graph = profileGraphOf(p.compound);
  const node = df.namedNode(graph);
  const compound = df.namedNode(p.compound);
  const quads: RDF.Quad[] = [];
  const add = (s: RDF.Quad_Subject, pr: RDF.NamedNode, o: RDF.Quad_Object) => quads.push(df.quad(s, pr, o));
  add(node, rdf('type'), tgp('Profile'));
  add(node, tgp('ofCompound'), compound);
  add(node, tgp('profiledStructure'), literal(p.smiles));
  add(node, dcterms('created'), literal(p.created));
  add(node, rdfs('label'), literal(`Profile of ${p.compound}`));
  for (const r of p.results) {
    const result = resultNode(p.compound, r.profiler);
    add(node, tgp('result'), result);
    add(result, rdf('type'), tgp('ProfilerResult'));
    add(result, tgp('profiler'), df.namedNode(r.profiler.iri));
    add(result, rdfs('label'), literal(r.profiler.label));
    add(result, tgp('profilerVersion'), literal(r.profiler.version));
    for (const rule of r.matched) {
      add(result, tgp('matchedRule'), df.namedNode(rule.iri));
      add(compound, tgp('matchedRule'), df.namedNode(rule.iri));
    }
    if (r.category) {
      add(result, tgp('assignedCategory'), df.namedNode(r.category.iri));
      add(compound, tgp('assignedCategory'), df.namedNode(r.category.iri));
    }
    if (r.decidedBy) add(result, tgp('decidedBy'), df.namedNode(r.decidedBy.iri));
  }
  return quads;
}

/** What the rules a profile names say of themselves (label, code, SMARTS, category, source), so that a profile reads on its own. */
export function ruleQuads(p: Profile): RDF.Quad[] {
  const quads: RDF.Quad[] = [];
  const seen = new Set<string>();
  for (const r of p.results) {
    for (const rule of [...r.matched, ...(r.decidedBy ? [r.decidedBy] : [])]) {
      if (seen.has(rule.iri)) continue;
      seen.add(rule.iri);
      const s = df.namedNode(rule.iri);
      quads.push(df.quad(s, rdf('type'), tgp('Rule')), df.quad(s, rdfs('label'), literal(rule.label)), df.quad(s, tgp('profiler'), df.namedNode(r.profiler.iri)));
      if (rule.identifier) quads.push(df.quad(s, dcterms('identifier'), literal(rule.identifier)));
      for (const smarts of rule.smarts) quads.push(df.quad(s, tgp('smarts'), literal(smarts)));
      for (const smarts of rule.unless) quads.push(df.quad(s, tgp('unlessSmarts'), literal(smarts)));
      if (rule.category) quads.push(df.quad(s, tgp('category'), df.namedNode(rule.category.iri)));
      if (rule.source) {
        quads.push(df.quad(s, dcterms('source'), df.namedNode(rule.source.iri)));
        if (rule.source.citation) quads.push(df.quad(df.namedNode(rule.source.iri), dcterms('bibliographicCitation'), literal(rule.source.citation)));
      }
    }
    if (r.category?.label) quads.push(df.quad(df.namedNode(r.category.iri), rdfs('label'), literal(r.category.label)));
    quads.push(df.quad(df.namedNode(r.profiler.iri), owl('versionInfo'), literal(r.profiler.version)));
  }
  return quads;
}

/**
 * A stored profile read back against the current profilers; undefined when it is stale: made
 * from another structure, or by another version of any profiler (or with a profiler missing).
 */
export function profileFrom(quads: RDF.Quad[], compound: string, smiles: string, profilers: Profiler[]): Profile | undefined {
  const node = profileGraphOf(compound);
  const values = (s: string, p: RDF.NamedNode) => quads.filter((q) => q.subject.value === s && q.predicate.equals(p)).map((q) => q.object.value);
  if (values(node, tgp('profiledStructure'))[0] !== smiles) return undefined;
  const created = new Date(values(node, dcterms('created'))[0] ?? '');
  const stored = new Map(values(node, tgp('result')).map((r) => [values(r, tgp('profiler'))[0], r]));
  const results: ProfilerResult[] = [];
  for (const profiler of profilers) {
    const r = stored.get(profiler.iri);
    if (!r || values(r, tgp('profilerVersion'))[0] !== profiler.version) return undefined;
    const matched = new Set(values(r, tgp('matchedRule')));
    const decided = values(r, tgp('decidedBy'))[0];
    const decidedBy = profiler.rules.find((rule) => rule.iri === decided);
    results.push({ profiler, matched: profiler.rules.filter((rule) => matched.has(rule.iri)), decidedBy, category: decidedBy?.category });
  }
  return { compound, smiles, created: Number.isNaN(created.getTime()) ? new Date() : created, results };
}
