import { find, type QmrfNode } from './qmrf-xml.ts';

/**
 * The OECD (Q)SAR Assessment Framework's model checklist (QAF, 2023; 2nd edition 2024), filled
 * from what a QMRF states: one element per assessment question, grouped by the five OECD
 * principles, each "met", "not met" or "not known" with the evidence it rests on (the QMRF
 * elements, and the resources they name). Computed from the document, so it follows every
 * edit of the QMRF.
 */

export type Verdict = 'met' | 'not met' | 'not known';

export interface ChecklistElement {
  principle: string;
  question: string;
  verdict: Verdict;
  evidence: string;
}

const text = (tree: QmrfNode, name: string) => find(tree, name)?.text?.trim() ?? '';
const refs = (tree: QmrfNode, name: string) => (find(tree, name)?.children ?? []).filter((c) => c.attributes.idref).length;
const answer = (tree: QmrfNode, name: string) => find(tree, name)?.attributes.answer;
const uris = (s: string) => [...new Set(s.match(/https?:\/\/[^\s,;)]+[^\s,;).]/g) ?? [])];

function element(principle: string, question: string, verdict: Verdict, evidence: string): ChecklistElement {
  return { principle, question, verdict, evidence: evidence || 'nothing stated in the QMRF' };
}

/** Stated (met), or left empty (not known). */
function stated(principle: string, question: string, tree: QmrfNode, name: string, label: string): ChecklistElement {
  const value = text(tree, name);
  return element(principle, question, value ? 'met' : 'not known', value ? `${label}: ${value.slice(0, 300)}` : `${label} is empty`);
}

/** 3.7: described (met), unless it names conflicting duplicates, which are not resolved (not met); empty: not known. */
function dataQuality(principle: string, tree: QmrfNode): ChecklistElement {
  const question = 'Are the quality and variability of the endpoint data described?';
  const value = text(tree, 'endpoint_data_quality');
  if (/conflicting duplicate/i.test(value)) return element(principle, question, 'not met', `3.7: ${value.slice(0, 600)}`);
  return stated(principle, question, tree, 'endpoint_data_quality', '3.7');
}

export function qafModelChecklist(tree: QmrfNode): ChecklistElement[] {
  const P1 = 'Principle 1: a defined endpoint';
  const P2 = 'Principle 2: an unambiguous algorithm';
  const P3 = 'Principle 3: a defined domain of applicability';
  const P4 = 'Principle 4: goodness of fit, robustness and predictivity';
  const P5 = 'Principle 5: a mechanistic interpretation, if possible';
  const domains = (find(tree, 'QMRF_chapters')?.children ?? []).filter((c) => c.name === 'QSAR_Applicability_domain');
  const definedDomains = domains.filter((d) => find(d, 'app_domain_method')?.text?.trim());
  const limits = definedDomains.map((d) => find(d, 'applicability_limits')?.text?.trim()).filter((t) => t);
  const fit = text(tree, 'goodness_of_fit');
  const internal = ['loo', 'lmo', 'bootstrap'].map((n) => text(tree, n)).filter((t) => t);
  const scrambling = text(tree, 'yscrambling');
  const external = text(tree, 'validation_predictivity');
  const endpointRefs = refs(tree, 'model_endpoint');
  return [
    element(
      P1,
      'Is the endpoint identified (a term of an endpoint catalogue)?',
      endpointRefs ? 'met' : 'not met',
      endpointRefs ? `3.2 names ${endpointRefs} endpoint(s) of the catalogue` : '3.2 names no endpoint',
    ),
    stated(P1, 'Are the units of the endpoint given?', tree, 'endpoint_units', '3.4'),
    stated(P1, 'Is the experimental protocol of the training data described?', tree, 'endpoint_protocol', '3.6'),
    dataQuality(P1, tree),
    element(P2, 'Is the algorithm identified?', refs(tree, 'algorithm_explicit') ? 'met' : 'not met', text(tree, 'algorithm_type') ? `4.1: ${text(tree, 'algorithm_type')}` : '4.2 names no algorithm'),
    element(
      P2,
      'Is the model reproducible from what is reported (equation or the trained model available)?',
      text(tree, 'equation') || /available at https?:/.test(text(tree, 'info_availability')) ? 'met' : 'not known',
      text(tree, 'equation') ? `4.2 equation: ${text(tree, 'equation').slice(0, 300)}` : text(tree, 'info_availability') ? `2.8: ${text(tree, 'info_availability')}` : '',
    ),
    element(P2, 'Are the descriptors defined?', refs(tree, 'algorithms_descriptors') ? 'met' : 'not met', `4.3 names ${refs(tree, 'algorithms_descriptors')} descriptor(s)`),
    stated(P2, 'Is the descriptor generation (software and version) given?', tree, 'descriptors_generation', '4.5'),
    element(
      P3,
      'Is the applicability domain defined?',
      definedDomains.length ? 'met' : 'not met',
      definedDomains.map((d) => find(d, 'app_domain_description')?.text?.trim()).join(' ') || '5.1: no applicability domain',
    ),
    element(P3, 'Are the limits of the applicability domain stated?', limits.length ? 'met' : definedDomains.length ? 'not known' : 'not met', limits.join(' ')),
    element(P4, 'Is the goodness of fit reported?', fit ? 'met' : 'not known', fit ? `6.7: ${fit}` : '6.7 is empty'),
    element(P4, 'Is the model’s robustness shown by internal validation (cross-validation, bootstrap)?', internal.length ? 'met' : 'not known', internal.join(' ').slice(0, 600)),
    element(P4, 'Is chance correlation excluded (y-scrambling)?', scrambling ? 'met' : 'not known', scrambling ? `6.10: ${scrambling.slice(0, 300)}` : '6.10 is empty'),
    element(
      P4,
      'Is the predictivity shown on an external validation set?',
      external ? 'met' : answer(tree, 'validation_set_availability') === 'Yes' ? 'not known' : 'not met',
      external ? `7.7: ${external.slice(0, 300)}` : '7.7 is empty',
    ),
    element(
      P4,
      'Is the training set available?',
      answer(tree, 'training_set_availability') === 'Yes' ? 'met' : 'not met',
      `6.1 answer ${answer(tree, 'training_set_availability') ?? '–'}: ${text(tree, 'training_set_availability')}`,
    ),
    stated(P5, 'Is a mechanistic interpretation given?', tree, 'mechanistic_basis', '8.1'),
  ];
}

/** The resources a checklist element's evidence names (validations, models, datasets). */
export function evidenceUris(e: ChecklistElement): string[] {
  return uris(e.evidence);
}
