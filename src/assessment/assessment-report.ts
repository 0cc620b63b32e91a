import type { Block, ReportDocument, Section, Text } from '../report/report-document.ts';
import type { PlotRequest } from '../report/plots.ts';
import type { Category } from '../read-across/category-codec.ts';
import type { EndpointFilling, GapFilling } from '../read-across/gap-filling.ts';
import type { Assessment } from './assessment-codec.ts';
import { evidenceFor } from './assessment-evidence.ts';
import { SCORE_WORDS, scenarioById } from './raaf.ts';

/** What a report has to work from besides the assessment: the category and gap filling the reader may see (undefined: the category is not shared with them), and the versions. */
export interface AssessmentContext {
  evidence?: { category: Category; filling: GapFilling; profiles: string[] };
  versions: string[];
}

const written = (v: string) => v || '(not written yet)';
const n3 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : Number(v.toPrecision(3)).toString());
const link = (uri: string): Text => ({ text: uri, href: uri });
/** A value as a report shows it: a number to 4 significant digits (the full value is in the RDF), text as it is. */
const shown = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(Number(v).toPrecision(4)).toString() : v);

/** The plots of a report: per numeric endpoint, its sources' values against their similarity, and the value read across. */
export function assessmentPlots(context: AssessmentContext): PlotRequest[] {
  return (context.evidence?.filling.endpoints ?? [])
    .filter((e) => e.kind === 'numeric' && e.sources.length)
    .map((e) => ({
      kind: 'similarity' as const,
      title: `Sources and the target: ${e.endpoint.replace(/^.*[#/]/, '').replace(/_/g, ' ')}`,
      yTitle: 'measured (sources) / read across (target)',
      sources: e.sources.map((s) => ({ similarity: s.similarity, value: Number(s.value) })),
      target: typeof e.readAcross.value === 'number' ? e.readAcross.value : undefined,
    }));
}

/**
 * An assessment as a report document (DocBook, then HTML and PDF as the validation reports are):
 * the RAAF scenario's assessment elements as sections with the evidence the data give and the
 * assessor's score, EFSA's uncertainty table, the data matrix, the similarity plots, the gap
 * filling side by side and the method chosen, annexes of the values taken out and the versions.
 */
export function assessmentDocument(a: Assessment, context: AssessmentContext, plots: string[]): ReportDocument {
  const scenario = scenarioById(a.scenario)!;
  const { evidence } = context;
  const say = (kind: Parameters<typeof evidenceFor>[0]) =>
    evidence
      ? [...evidenceFor(kind, a, evidence.category, evidence.filling), ...(kind === 'similarity' ? evidence.profiles : [])]
      : ['(the category is not shared with you: its evidence is not shown)'];
  const unscored = a.scores.filter((e) => e.score === undefined).map((e) => e.element);
  const status = a.status === 'final' ? `Final, version ${a.version}.` : `Draft, version ${a.version}. ${unscored.length ? `Not scored yet: ${unscored.join(', ')}.` : 'Every element is scored.'}`;
  const sections: Section[] = [
    {
      title: '1. Identity',
      blocks: [
        { kind: 'para', text: [status] },
        {
          kind: 'facts',
          rows: [
            { label: 'Purpose', value: [written(a.purpose)] },
            { label: 'Regulatory context', value: [written(a.regulatoryContext)] },
            { label: 'Series', value: [link(a.series), ...(a.previous ? ['; revises ', link(a.previous)] : [])] },
          ],
        },
      ],
    },
    {
      title: '2. Problem formulation',
      blocks: [
        { kind: 'para', text: [written(a.problemFormulation)] },
        { kind: 'para', text: [`Tolerable uncertainty: ${a.tolerableUncertainty ?? 'not stated'}.`] },
      ],
    },
    { title: '3. Target and scenario', blocks: [{ kind: 'para', text: ['Target ', link(a.target), `. RAAF scenario ${scenario.id}: ${scenario.title}.`] }] },
    {
      title: '4. Hypothesis',
      blocks: [
        {
          kind: 'facts',
          rows: [
            { label: 'Structural', value: [written(a.hypothesis.structural)] },
            { label: 'Mechanistic', value: [written(a.hypothesis.mechanistic)] },
            { label: 'Metabolic', value: [written(a.hypothesis.metabolic)] },
          ],
        },
      ],
    },
    { title: '5. The category and its data', blocks: categoryBlocks(a, context, plots) },
    { title: '6. Filling the gap', blocks: gapBlocks(a, evidence?.filling) },
    ...scenario.elements.map((e): Section => {
      const s = a.scores.find((x) => x.element === e.id);
      const lines = e.evidence.flatMap((k) => say(k));
      return {
        title: `${e.id}: ${e.title}`,
        blocks: [
          { kind: 'para', text: [e.question] },
          ...(lines.length
            ? lines.map((l): Block => ({ kind: 'para', text: [`What the data say: ${l}`] }))
            : [{ kind: 'para' as const, text: ['The data say nothing of this element: it rests on the assessor’s knowledge.'] }]),
          { kind: 'para', text: [s?.score === undefined ? 'Score: not scored.' : `Score: ${s.score} (${SCORE_WORDS[s.score]}).${s.comment ? ` ${s.comment}` : ''}`] },
        ],
      };
    }),
    {
      title: '7. Uncertainty',
      blocks: [
        {
          kind: 'table',
          title: 'Sources of uncertainty (EFSA 2025, Appendix C)',
          head: ['source of uncertainty', 'what the data say'],
          rows: [
            ['Similarity of the sources to the target', say('similarity').join(' ')],
            ['Amount, origin and reliability of the data', say('data').join(' ')],
            ['Consistency of the sources', say('consistency').join(' ')],
            ['The method and its domain', say('domain').join(' ')],
            ['Overall (the assessor’s grade)', `${a.overallUncertainty ?? 'not graded'}, against a tolerable ${a.tolerableUncertainty ?? 'uncertainty not stated'}`],
          ],
        },
      ],
    },
    { title: '8. Conclusion', blocks: [{ kind: 'para', text: [written(a.conclusion)] }] },
    {
      title: 'Annex A. Values taken out of the matrix',
      blocks: a.removed.length
        ? [{ kind: 'table', title: 'Kept, marked, not used', head: ['compound', 'dataset', 'remark'], rows: a.removed.map((r) => [link(r.compound), link(r.dataset), r.remark]) }]
        : [{ kind: 'para', text: ['None.'] }],
    },
    {
      title: 'Annex B. Versions',
      blocks: [{ kind: 'table', title: 'Versions, oldest first', head: ['version', 'this one'], rows: context.versions.map((v) => [link(v), v === a.uri ? 'this one' : '']) }],
    },
  ];
  return { title: a.title, subtitle: `Read-across assessment, RAAF scenario ${scenario.id}`, date: a.date.toISOString(), sections };
}

function categoryBlocks(a: Assessment, context: AssessmentContext, plots: string[]): Block[] {
  const evidence = context.evidence;
  if (!evidence) return [{ kind: 'para', text: ['The category ', link(a.category), ' is not shared with you.'] }];
  const c = evidence.category;
  const members = c.members.filter((m) => m.included);
  const removed = (compound: string, dataset: string) => a.removed.some((r) => r.compound === compound && r.dataset === dataset);
  return [
    {
      kind: 'para',
      text: ['Category ', link(c.uri), `: Tanimoto similarity to the target ≥ ${c.similarityThreshold}, at most ${c.maxSources} sources per endpoint${c.smarts ? `, holding ${c.smarts}` : ''}.`],
    },
    {
      kind: 'table',
      title: 'Members',
      head: ['compound', 'role', 'similarity', 'reason'],
      rows: members.map((m) => [link(m.compound), m.role, n3(m.similarity), m.reason]),
    },
    ...evidence.filling.endpoints.map(
      (e): Block => ({
        kind: 'table',
        title: `Data matrix: ${e.endpoint}`,
        head: ['source', 'similarity', 'value (mean)', 'measured (dataset)', 'log P'],
        rows: e.sources.map((s) => [
          link(s.compound),
          n3(s.similarity),
          typeof s.value === 'number' ? n3(s.value) : String(s.value),
          s.measured.map((v) => `${shown(v.value.value)} (${v.dataset})${removed(s.compound, v.dataset) ? ' [taken out]' : ''}`).join('; '),
          n3(s.descriptor),
        ]),
      }),
    ),
    ...plots.map((svg, i): Block => ({ kind: 'figure', title: assessmentPlots(context)[i]?.title ?? 'Similarity plot', svg })),
  ];
}

function gapBlocks(a: Assessment, filling: GapFilling | undefined): Block[] {
  const side = (e: EndpointFilling): Text[] => [
    e.endpoint,
    e.readAcross.value === undefined
      ? (e.readAcross.reason ?? '')
      : `${typeof e.readAcross.value === 'number' ? n3(e.readAcross.value) : e.readAcross.value}${e.readAcross.weightedSd === undefined ? '' : ` ± ${n3(e.readAcross.weightedSd)}`}`,
    e.trend.value === undefined ? (e.trend.reason ?? '') : `${n3(e.trend.value)} [${n3(e.trend.interval?.[0])}, ${n3(e.trend.interval?.[1])}]${e.trend.interpolated ? '' : ' (extrapolated)'}`,
    e.worstCase.reason ?? (e.worstCase.positive ? e.worstCase.positive.value : `${n3(Number(e.worstCase.lowest?.value))} to ${n3(Number(e.worstCase.highest?.value))}`),
    e.qsar.length ? e.qsar.map((q) => `${q.title}: ${q.value ?? q.reason ?? ''}${q.inside === false ? ' (outside its domain)' : ''}`).join('; ') : 'no model',
  ];
  return [
    ...(filling
      ? [
          {
            kind: 'table' as const,
            title: 'Side by side',
            head: ['endpoint', 'read-across (GenRA)', 'trend (95 % prediction interval)', 'worst case (lowest to highest)', 'QSAR'],
            rows: filling.endpoints.map(side),
          },
        ]
      : []),
    {
      kind: 'table',
      title: 'The method chosen',
      head: ['endpoint', 'method', 'value', 'derived from', 'rationale'],
      rows: a.gapFills.map((g) => [
        g.endpoint,
        `${g.method}${g.model ? ` (${g.model})` : ''}`,
        g.value === undefined ? (g.reason ?? '') : `${shown(g.value)}${g.low === undefined ? '' : ` [${n3(g.low)}, ${n3(g.high)}]`}`,
        `${g.sources.length} value(s) from ${new Set(g.sources.map((v) => v.dataset)).size} dataset(s)`,
        written(g.rationale),
      ]),
    },
  ];
}
