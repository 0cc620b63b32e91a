import { escapeHtml, iriHtml } from '../rdf/html.ts';
import type { Profile, ProfilerResult } from './profile.ts';
import type { ProfilerRule } from './profiler-rules.ts';

/** The rule sets' own terms (rules, profilers, classes, their publications) have pages here, as the vocabularies' terms do. */
const RULE_SETS = 'http://www.opentox.org/profilers';

function termHtml(iri: string, text: string): string {
  if (!iri.startsWith(RULE_SETS)) return iriHtml(iri, text);
  return `<a href="/ontology/term?iri=${encodeURIComponent(iri)}">${escapeHtml(text)}</a>`;
}

/** A rule as JSON: what it is, its patterns and where it comes from. */
function ruleJson(rule: ProfilerRule) {
  return {
    rule: rule.iri,
    identifier: rule.identifier,
    label: rule.label,
    order: rule.order,
    smarts: rule.smarts,
    unlessSmarts: rule.unless.length ? rule.unless : undefined,
    category: rule.category?.iri,
    categoryLabel: rule.category?.label,
    source: rule.source?.iri,
    citation: rule.source?.citation,
  };
}

function resultJson(r: ProfilerResult) {
  return {
    profiler: r.profiler.iri,
    label: r.profiler.label,
    version: r.profiler.version,
    decision: r.profiler.decision === 'first' ? 'first match' : 'all matches',
    source: r.profiler.source?.iri,
    citation: r.profiler.source?.citation,
    matched: r.matched.map(ruleJson),
    ...(r.profiler.decision === 'first' ? { category: r.category?.iri, categoryLabel: r.category?.label, decidedBy: r.decidedBy && ruleJson(r.decidedBy) } : {}),
  };
}

/** A profile as JSON: per profiler the rules that matched (label, SMARTS, citation), and a first-match profiler's category with the rule that decided it. */
export function profileJson(p: Profile) {
  return { compound: p.compound, smiles: p.smiles, created: p.created.toISOString(), profilers: p.results.map(resultJson) };
}

const ruleRow = (rule: ProfilerRule) =>
  `<tr><td>${escapeHtml(rule.identifier ?? '')}</td><td>${termHtml(rule.iri, rule.label)}</td><td><code>${rule.smarts.map(escapeHtml).join('</code><br><code>')}</code></td><td>${escapeHtml(rule.category?.label ?? '')}</td><td>${rule.source ? termHtml(rule.source.iri, rule.source.citation ?? rule.source.iri) : ''}</td></tr>`;

/** The profile above the page's triples: one table per profiler. */
export function profileHtml(p: Profile): string {
  const sections = p.results.map((r) => {
    const decision = r.decidedBy ? `<p><strong>${escapeHtml(r.category?.label ?? r.category?.iri ?? '')}</strong>, decided by rule ${r.decidedBy.order}: ${escapeHtml(r.decidedBy.label)}.</p>` : '';
    const rows = r.matched.length ? r.matched.map(ruleRow).join('') : '<tr><td colspan="5">no rule matches</td></tr>';
    const source = r.profiler.source ? `Source: ${termHtml(r.profiler.source.iri, r.profiler.source.citation ?? r.profiler.source.iri)}` : '';
    return `<h2>${termHtml(r.profiler.iri, r.profiler.label)} <small>(version ${escapeHtml(r.profiler.version)})</small></h2>${decision}<p>${source}</p>
<table><thead><tr><th>code</th><th>rule</th><th>SMARTS</th><th>category</th><th>source</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  return `<p>Compound ${iriHtml(p.compound)}, structure <code>${escapeHtml(p.smiles)}</code>; profiled ${escapeHtml(p.created.toISOString())}.</p>\n${sections.join('\n')}`;
}
