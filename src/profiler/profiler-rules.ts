import type * as RDF from '@rdfjs/types';
import { dcterms, namespace, owl, rdf, rdfs } from '../rdf/namespaces.ts';

/** The profiler vocabulary (ontology/profilers-vocabulary.ttl). */
export const tgp = namespace('http://www.opentox.org/profilers.owl#');

/** A publication a rule set or rule comes from: its IRI and its citation as text. */
export interface Publication {
  iri: string;
  citation?: string;
}

export interface ProfilerCategory {
  iri: string;
  label?: string;
}

/** One rule of a profiler (tgp:Rule). */
export interface ProfilerRule {
  iri: string;
  label: string;
  /** The published code (SA_27), where the rule set has one. */
  identifier?: string;
  order: number;
  smarts: string[];
  unless: string[];
  /** A first-match profiler's last resort: matches when no rule before it did. */
  otherwise: boolean;
  category?: ProfilerCategory;
  source?: Publication;
}

/** A rule set (tgp:Profiler): every rule that matches is reported (`all`), or the first in rule order decides (`first`). */
export interface Profiler {
  iri: string;
  label: string;
  version: string;
  decision: 'all' | 'first';
  source?: Publication;
  /** In rule order. */
  rules: ProfilerRule[];
}

/** The profilers described by the quads of the rule-set graphs (ontology/profilers-*.ttl), by label. */
export function profilersFrom(quads: RDF.Quad[]): Profiler[] {
  const bySubject = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    if (!bySubject.has(q.subject.value)) bySubject.set(q.subject.value, []);
    bySubject.get(q.subject.value)!.push(q);
  }
  const all = (s: string, p: RDF.NamedNode) => (bySubject.get(s) ?? []).filter((q) => q.predicate.equals(p)).map((q) => q.object.value);
  const one = (s: string, p: RDF.NamedNode) => all(s, p)[0];
  const publication = (iri: string | undefined): Publication | undefined => (iri ? { iri, citation: one(iri, dcterms('bibliographicCitation')) } : undefined);
  const profilers = [...bySubject.keys()].filter((s) => all(s, rdf('type')).includes(tgp('Profiler').value));
  return profilers
    .map((p) => ({
      iri: p,
      label: one(p, rdfs('label')) ?? p,
      version: one(p, owl('versionInfo')) ?? '',
      decision: one(p, tgp('decision')) === tgp('FirstMatch').value ? ('first' as const) : ('all' as const),
      source: publication(one(p, dcterms('source'))),
      rules: all(p, tgp('hasRule'))
        .map((r): ProfilerRule => {
          const category = one(r, tgp('category'));
          return {
            iri: r,
            label: one(r, rdfs('label')) ?? r,
            identifier: one(r, dcterms('identifier')),
            order: Number(one(r, tgp('ruleOrder')) ?? Number.MAX_SAFE_INTEGER),
            smarts: all(r, tgp('smarts')).sort(),
            unless: all(r, tgp('unlessSmarts')).sort(),
            otherwise: one(r, tgp('otherwise')) === 'true',
            category: category ? { iri: category, label: one(category, rdfs('label')) } : undefined,
            source: publication(one(r, dcterms('source'))),
          };
        })
        .sort((a, b) => a.order - b.order || (a.iri < b.iri ? -1 : 1)),
    }))
    .sort((a, b) => a.label.localeCompare(b.label));
}
