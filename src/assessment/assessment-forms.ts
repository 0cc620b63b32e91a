import { escapeHtml, linkOf } from '../rdf/html.ts';
import { GAP_FILL_METHODS, UNCERTAINTY_GRADES, type Assessment } from './assessment-codec.ts';
import { RAAF_SCENARIOS, SCORE_WORDS, scenarioById } from './raaf.ts';

/** A category page's next step: an assessment of it under a RAAF scenario. */
export function assessmentStartHtml(category: string): string {
  const options = RAAF_SCENARIOS.map((s) => `<option value="${s.id}"${s.id === 6 ? ' selected' : ''}>${s.id}: ${escapeHtml(s.title)}</option>`).join('');
  return `<h2>Assess a read-across with this category</h2><form class="run" method="post" action="/assessment">
<input type="hidden" name="category" value="${escapeHtml(category)}">
<p><label>RAAF scenario <select name="scenario">${options}</select></label></p>
<p><label>Title <input name="title" size="60"></label> <label>Purpose <input name="purpose" size="40"></label> <button type="submit">Start the assessment</button></p></form>`;
}

const select = (name: string, values: readonly string[], current: string | undefined, blank = '') =>
  `<select name="${escapeHtml(name)}">${blank ? `<option value="">${escapeHtml(blank)}</option>` : ''}${values.map((v) => `<option${v === current ? ' selected' : ''}>${escapeHtml(v)}</option>`).join('')}</select>`;
const area = (name: string, label: string, value: string) => `<p><label>${escapeHtml(label)}<br><textarea name="${escapeHtml(name)}" rows="2" cols="90">${escapeHtml(value)}</textarea></label></p>`;

/**
 * A draft's form (the report's page appends it): every field the assessor writes, the method per
 * endpoint, a score and comment per element, a value to take out, the grades and the conclusion;
 * then making it final or a new version.
 */
export function assessmentEditHtml(a: Assessment): string {
  const action = linkOf(a.uri).href;
  if (a.status === 'final')
    return `<section><h2>This assessment is final</h2><form method="post" action="${escapeHtml(`${action}/version`)}"><p><button type="submit">Make a new version to change it</button></p></form></section>`;
  const scenario = scenarioById(a.scenario)!;
  const methods = a.gapFills
    .map(
      (g) =>
        `<p>${escapeHtml(g.endpoint)}: <label>method ${select(`method:${g.endpoint}`, GAP_FILL_METHODS, g.method)}</label> <label>model (for qsar) <input name="${escapeHtml(`model:${g.endpoint}`)}" value="${escapeHtml(g.model ?? '')}" size="40"></label><br><label>rationale <input name="${escapeHtml(`rationale:${g.endpoint}`)}" value="${escapeHtml(g.rationale)}" size="90"></label></p>`,
    )
    .join('');
  const scores = scenario.elements
    .map((e) => {
      const s = a.scores.find((x) => x.element === e.id);
      const options = [1, 2, 3, 4, 5].map((n) => `<option value="${n}"${s?.score === n ? ' selected' : ''}>${n} (${SCORE_WORDS[n]})</option>`).join('');
      return `<p><label>${escapeHtml(e.id)}: ${escapeHtml(e.title)} <select name="${escapeHtml(`score:${e.id}`)}"><option value="">not scored</option>${options}</select></label><br><label>comment <input name="${escapeHtml(`comment:${e.id}`)}" value="${escapeHtml(s?.comment ?? '')}" size="90"></label></p>`;
    })
    .join('');
  return `<section><h2>Write this assessment</h2><form method="post" action="${escapeHtml(action)}">
<p><label>Title <input name="title" value="${escapeHtml(a.title)}" size="60"></label></p>
${area('purpose', 'Purpose', a.purpose)}${area('regulatory_context', 'Regulatory context', a.regulatoryContext)}${area('problem_formulation', 'Problem formulation', a.problemFormulation)}
<p><label>Tolerable uncertainty ${select('tolerable_uncertainty', UNCERTAINTY_GRADES, a.tolerableUncertainty, 'not stated')}</label></p>
${area('structural_hypothesis', 'Structural hypothesis', a.hypothesis.structural)}${area('mechanistic_hypothesis', 'Mechanistic hypothesis', a.hypothesis.mechanistic)}${area('metabolic_hypothesis', 'Metabolic hypothesis', a.hypothesis.metabolic)}
<h3>Filling the gap</h3>${methods}
<h3>Assessment elements</h3>${scores}
<h3>Take a value out of the matrix</h3><p><label>compound and dataset (two URIs) <input name="remove" size="90"></label><br><label>remark <input name="remark" size="90"></label></p>
<p><label>Overall uncertainty ${select('overall_uncertainty', UNCERTAINTY_GRADES, a.overallUncertainty, 'not graded')}</label></p>
${area('conclusion', 'Conclusion', a.conclusion)}
<p><button type="submit">Save</button></p></form>
<form method="post" action="${escapeHtml(`${action}/final`)}"><p><button type="submit">Make it final</button> (every element scored, the overall uncertainty and the conclusion given)</p></form></section>`;
}
