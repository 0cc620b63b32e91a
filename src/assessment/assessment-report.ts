import { escapeHtml, iriHtml } from '../rdf/html.ts';
import type { Category } from '../read-across/category-codec.ts';
import type { GapFilling } from '../read-across/gap-filling.ts';
import { categoryHtml, gapFillingHtml } from '../read-across/category-views.ts';
import type { Assessment } from './assessment-codec.ts';
import { evidenceFor } from './assessment-evidence.ts';
import { SCORE_WORDS, scenarioById } from './raaf.ts';

const text = (v: string) => (v ? escapeHtml(v) : '<em>not written yet</em>');

/**
 * An assessment as a report (HTML): identity and versions, the problem, target and scenario,
 * the hypothesis, the category, the gap filling side by side and the method chosen, each RAAF
 * assessment element with the evidence the data give and the assessor's score, EFSA's
 * uncertainty table, the conclusion; annexes of the values taken out and the versions.
 */
export function assessmentHtml(a: Assessment, evidence: { category: Category; filling: GapFilling } | undefined, versions: string[]): string {
  const scenario = scenarioById(a.scenario)!;
  const unscored = a.scores.filter((e) => e.score === undefined).map((e) => e.element);
  const banner =
    a.status === 'final'
      ? `<p><strong>Final</strong>, version ${a.version}.</p>`
      : `<p><strong>Draft</strong>, version ${a.version}.${unscored.length ? ` Not scored yet: ${unscored.map(escapeHtml).join(', ')}.` : ' Every element is scored.'}</p>`;
  const elements = scenario.elements
    .map((e) => {
      const s = a.scores.find((x) => x.element === e.id);
      const lines = evidence ? e.evidence.flatMap((k) => evidenceFor(k, a, evidence.category, evidence.filling)) : [];
      return `<section class="element"><h3>${escapeHtml(e.id)}: ${escapeHtml(e.title)}</h3><p>${escapeHtml(e.question)}</p>${
        lines.length
          ? `<p>What the data say:</p><ul>${lines.map((x) => `<li>${escapeHtml(x)}</li>`).join('')}</ul>`
          : `<p><em>${evidence ? 'The data say nothing of this element: it rests on the assessor’s knowledge.' : 'The category is not shared with you: its evidence is not shown.'}</em></p>`
      }<p>Score: ${s?.score === undefined ? '<strong>not scored</strong>' : `<strong>${s.score}</strong> (${SCORE_WORDS[s.score]})`}${s?.comment ? `. ${escapeHtml(s.comment)}` : ''}</p></section>`;
    })
    .join('');
  const chosen = a.gapFills
    .map(
      (g) =>
        `<tr><td>${iriHtml(g.endpoint)}</td><td>${escapeHtml(g.method)}${g.model ? ` (${iriHtml(g.model)})` : ''}</td><td>${g.value === undefined ? escapeHtml(g.reason ?? '') : `<strong>${escapeHtml(g.value)}</strong>${g.low === undefined ? '' : ` [${g.low.toPrecision(3)}, ${g.high!.toPrecision(3)}]`}`}</td><td>${g.sources.length} value(s) from ${new Set(g.sources.map((v) => v.dataset)).size} dataset(s)</td><td>${text(g.rationale)}</td></tr>`,
    )
    .join('');
  const say = (kind: Parameters<typeof evidenceFor>[0]) => (evidence ? evidenceFor(kind, a, evidence.category, evidence.filling) : ['(the category is not shared with you)']);
  const uncertaintyRows: [string, string[]][] = [
    ['Similarity of the sources to the target', say('similarity')],
    ['Amount, origin and reliability of the data', say('data')],
    ['Consistency of the sources', say('consistency')],
    ['The method and its domain', say('domain')],
  ];
  const removed = a.removed.length
    ? `<table><thead><tr><th>compound</th><th>dataset</th><th>remark</th></tr></thead><tbody>${a.removed.map((r) => `<tr><td>${iriHtml(r.compound)}</td><td>${iriHtml(r.dataset)}</td><td>${escapeHtml(r.remark)}</td></tr>`).join('')}</tbody></table>`
    : '<p>None.</p>';
  return `${banner}
<h2>1. Identity</h2><dl><dt>Purpose</dt><dd>${text(a.purpose)}</dd><dt>Regulatory context</dt><dd>${text(a.regulatoryContext)}</dd><dt>Series</dt><dd>${iriHtml(a.series)}${a.previous ? `; revises ${iriHtml(a.previous)}` : ''}</dd></dl>
<h2>2. Problem formulation</h2><p>${text(a.problemFormulation)}</p><p>Tolerable uncertainty: ${a.tolerableUncertainty ?? '<em>not stated</em>'}.</p>
<h2>3. Target and scenario</h2><p>Target ${iriHtml(a.target)}. RAAF scenario ${scenario.id}: ${escapeHtml(scenario.title)}.</p>
<h2>4. Hypothesis</h2><dl><dt>Structural</dt><dd>${text(a.hypothesis.structural)}</dd><dt>Mechanistic</dt><dd>${text(a.hypothesis.mechanistic)}</dd><dt>Metabolic</dt><dd>${text(a.hypothesis.metabolic)}</dd></dl>
<h2>5. The category</h2>${evidence ? categoryHtml(evidence.category, []) : `<p>${iriHtml(a.category)} is not shared with you.</p>`}
<h2>6. Filling the gap</h2>${evidence ? gapFillingHtml(evidence.filling) : ''}<h3>The method chosen</h3><table><thead><tr><th>endpoint</th><th>method</th><th>value</th><th>derived from</th><th>rationale</th></tr></thead><tbody>${chosen}</tbody></table>
<h2>7. Assessment elements</h2>${elements}
<h2>8. Uncertainty</h2><table><thead><tr><th>source of uncertainty</th><th>what the data say</th></tr></thead><tbody>${uncertaintyRows.map(([what, lines]) => `<tr><td>${escapeHtml(what)}</td><td>${lines.map(escapeHtml).join('<br>')}</td></tr>`).join('')}<tr><td>Overall (the assessor’s)</td><td><strong>${a.overallUncertainty ?? 'not graded'}</strong> against a tolerable ${a.tolerableUncertainty ?? 'uncertainty not stated'}</td></tr></tbody></table>
<h2>9. Conclusion</h2><p>${text(a.conclusion)}</p>
<h2>Annex A. Values taken out of the matrix</h2>${removed}
<h2>Annex B. Versions</h2><ol>${versions.map((v) => `<li>${iriHtml(v)}${v === a.uri ? ' (this one)' : ''}</li>`).join('')}</ol>`;
}
