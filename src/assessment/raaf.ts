/**
 * ECHA's Read-Across Assessment Framework (RAAF, ECHA 2017, human health and environment):
 * six scenarios on three axes (an analogue or a category; (bio)transformation to common
 * compounds, or different compounds with the same type of effect; for categories, whether the
 * property varies across the group), each examined by its assessment elements, each element
 * scored by the assessor from 1 (not acceptable) to 5 (high confidence). The elements here are
 * the RAAF's, named in our words.
 */
export interface AssessmentElement {
  /** `AE 2.1`, `AE C.1`… */
  id: string;
  title: string;
  /** What the assessor weighs, and what the service prefills as evidence for it. */
  question: string;
  /** Which computed evidence bears on it. */
  evidence: EvidenceKind[];
}

export type EvidenceKind = 'identity' | 'similarity' | 'properties' | 'data' | 'consistency' | 'trend' | 'gap-filling' | 'domain';

export interface RaafScenario {
  id: number;
  title: string;
  approach: 'analogue' | 'category';
  hypothesis: 'transformation' | 'same-effect';
  /** Categories: the property varies across the group (a regular pattern) or not. */
  variation?: boolean;
  elements: AssessmentElement[];
}

const common = (prefix: string): AssessmentElement[] => [
  {
    id: `AE ${prefix}.1`,
    title: 'Identity and characterisation of the substances',
    question: 'Are the target and the sources identified (structure, purity, impurities) well enough that the read-across can rest on them?',
    evidence: ['identity'],
  },
  {
    id: `AE ${prefix}.2`,
    title: 'Structural similarity and differences',
    question: 'Do the structural similarities support the hypothesis, and are the differences shown not to change the property?',
    evidence: ['similarity', 'properties'],
  },
];

const transformation: AssessmentElement[] = [
  {
    id: 'AE T.1',
    title: 'Formation of common compounds',
    question: 'Do target and sources (bio)transform to the same compounds, by the same route and at a comparable rate?',
    evidence: ['properties'],
  },
  {
    id: 'AE T.2',
    title: 'The biological targets of the common compounds',
    question: 'Is the effect caused by the common compounds, and do the parents and other products contribute nothing different?',
    evidence: [],
  },
  {
    id: 'AE T.3',
    title: 'Exposure to other compounds than the common ones',
    question: 'Are the other compounds the organism is exposed to (parents, intermediates, impurities) without effect on the property?',
    evidence: [],
  },
];

const sameEffect: AssessmentElement[] = [
  {
    id: 'AE E.1',
    title: 'The compounds the test organism is exposed to',
    question: 'Are the compounds the organism meets (parents, metabolites) identified for target and sources?',
    evidence: ['properties'],
  },
  { id: 'AE E.2', title: 'Common underlying mechanism', question: 'Is there a common mechanism (mode of action) that makes the effect qualitatively the same?', evidence: ['consistency'] },
  { id: 'AE E.3', title: 'Reliability and adequacy of the source studies', question: 'Are the source data reliable (guideline, GLP, Klimisch) and adequate for the endpoint?', evidence: ['data'] },
  {
    id: 'AE E.4',
    title: 'Link between structure and the prediction',
    question: 'Do the structural similarities and differences explain the predicted value, its direction and size?',
    evidence: ['similarity', 'gap-filling', 'domain'],
  },
];

const categoryElements = (variation: boolean): AssessmentElement[] => [
  {
    id: 'AE G.1',
    title: 'Category membership and its boundaries',
    question: 'Is the membership rule clear (structure, properties, profiles), and are the members and the excluded compounds justified?',
    evidence: ['similarity'],
  },
  {
    id: 'AE G.2',
    title: 'Consistency of the data across the category',
    question: 'Do the members’ data agree with the hypothesis (same type of effect, no outliers left unexplained)?',
    evidence: ['consistency', 'data'],
  },
  variation
    ? {
        id: 'AE G.3',
        title: 'Regular pattern of the variation',
        question: 'Does the property vary regularly across the members (a trend on a descriptor), and does the target lie within the range?',
        evidence: ['trend'],
      }
    : { id: 'AE G.3', title: 'Absence of variation', question: 'Are the members’ values similar enough that no variation across the group needs to be explained?', evidence: ['consistency'] },
];

const uncertainty: AssessmentElement = {
  id: 'AE U.1',
  title: 'Bias and uncertainty of the prediction',
  question: 'Is the prediction free of bias from the choice of sources, and is its uncertainty stated and acceptable for the purpose?',
  evidence: ['gap-filling', 'domain', 'data'],
};

/** The six scenarios (RAAF 2017, Table 1). */
export const RAAF_SCENARIOS: RaafScenario[] = [
  { id: 1, title: 'Analogue approach: (bio)transformation to common compound(s)', approach: 'analogue', hypothesis: 'transformation', elements: [...common('A'), ...transformation, uncertainty] },
  {
    id: 2,
    title: 'Analogue approach: different compounds have qualitatively similar properties',
    approach: 'analogue',
    hypothesis: 'same-effect',
    elements: [...common('A'), ...sameEffect, uncertainty],
  },
  {
    id: 3,
    title: 'Category approach: (bio)transformation to common compound(s), no variation in the property',
    approach: 'category',
    hypothesis: 'transformation',
    variation: false,
    elements: [...common('C'), ...categoryElements(false), ...transformation, uncertainty],
  },
  {
    id: 4,
    title: 'Category approach: (bio)transformation to common compound(s), the property varies regularly',
    approach: 'category',
    hypothesis: 'transformation',
    variation: true,
    elements: [...common('C'), ...categoryElements(true), ...transformation, uncertainty],
  },
  {
    id: 5,
    title: 'Category approach: different compounds have qualitatively similar properties, no variation',
    approach: 'category',
    hypothesis: 'same-effect',
    variation: false,
    elements: [...common('C'), ...categoryElements(false), ...sameEffect, uncertainty],
  },
  {
    id: 6,
    title: 'Category approach: different compounds have qualitatively similar properties, the property varies regularly',
    approach: 'category',
    hypothesis: 'same-effect',
    variation: true,
    elements: [...common('C'), ...categoryElements(true), ...sameEffect, uncertainty],
  },
];

export function scenarioById(id: number): RaafScenario | undefined {
  return RAAF_SCENARIOS.find((s) => s.id === id);
}

/** RAAF scores: 1 not acceptable … 5 high confidence. */
export const SCORE_WORDS = ['', 'not acceptable', 'low confidence', 'medium confidence', 'acceptable with medium confidence', 'high confidence'] as const;
