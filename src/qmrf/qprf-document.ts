import { confidenceMeaning } from './prediction-explanation.ts';
import { formatNumber } from '../rdf/html.ts';
import type { Block, ReportDocument, Text } from '../report/report-document.ts';
import type { ChecklistElement } from './qaf-checklist.ts';
import type { PredictionFacts } from './qprf-facts.ts';
import { neighbourSourceText, predictionReading } from './prediction-reading.ts';
import { guaranteeText, percent } from '../learning/conformal.ts';
import { standardisedInputText } from '../model/standardisation-record.ts';

/**
 * A QPRF ((Q)SAR Prediction Reporting Format) for one prediction, and the OECD QAF prediction
 * checklist judged from it: the substance with its identifiers and depiction, the model (and its
 * QMRF), the prediction and its confidence, the applicability-domain verdict with its metric, and
 * the most similar training compounds with their measured and predicted values.
 */

/** A value as shown: numbers with four significant digits, class labels as they are. */
const shown = (v: string | undefined) => (v === undefined ? '–' : v.trim() !== '' && Number.isFinite(Number(v)) ? formatNumber(Number(v)) : v);

/** Similarity from which the nearest training compound counts as a close analogue. */
const CLOSE_ANALOGUE = 0.5;

/** A conformal model's interval per level, or its class p-values and sets, as rows of the prediction section. */
function conformalRows(f: PredictionFacts): { label: string; value: string }[] {
  const c = f.prediction.conformal;
  const levels = f.model.conformal?.state.levels ?? [];
  if (!c) return [];
  if (c.intervals) return c.intervals.map(([lower, upper], i) => ({ label: `${percent(levels[i])} prediction interval`, value: `[${bound(lower)}, ${bound(upper)}]` }));
  const p = [...(c.pValues ?? [])];
  return [
    { label: 'Class p-values', value: p.map(([label, v]) => `${label} ${formatNumber(v)}`).join(', ') },
    ...levels.map((level) => ({
      label: `${percent(level)} prediction set`,
      value: `{${p
        .filter(([, v]) => v > 1 - level + 1e-12)
        .map(([label]) => label)
        .join(', ')}}`,
    })),
  ];
}

const bound = (v: number) => (Number.isFinite(v) ? formatNumber(v) : v > 0 ? '∞' : '−∞');

/** What a conformal model's intervals or sets guarantee. */
function guarantee(f: PredictionFacts): string {
  const c = f.model.conformal!.state;
  return `conformal prediction (${c.method}, ${c.calibrationRows} calibration rows): ${guaranteeText(c)}`;
}

export function qafPredictionChecklist(f: PredictionFacts, qmrfs: string[]): ChecklistElement[] {
  const conformal = conformalRows(f);
  const area = { input: 'Correct input', domain: 'Applicability domain', reliability: 'Reliability of the prediction', purpose: 'Fitness for the regulatory purpose' };
  const domains = f.prediction.domains.filter((d) => d.inside !== undefined);
  const outside = domains.filter((d) => !d.inside);
  const nearest = f.neighbours[0];
  const predicted = f.prediction.value !== undefined;
  const errors = f.neighbours.flatMap((n) => (n.measured !== undefined && n.predicted !== undefined && f.model.task === 'regression' ? [Math.abs(Number(n.predicted) - Number(n.measured))] : []));
  const compared = f.neighbours.filter((n) => n.measured !== undefined && n.predicted !== undefined);
  const agree = compared.filter((n) => f.model.task === 'classification' && n.measured!.trim() === n.predicted!.trim()).length;
  // the neighbours' predicted values are out of fold; without them there is no evidence of how the model predicts its analogues
  const source = f.neighbourPredictions;
  const outOfFold = source.kind !== 'none' && compared.length > 0;
  const where = source.kind === 'crossvalidation' ? `cross-validation ${source.crossvalidation}` : 'the learner trained again without them';
  const analogues = !outOfFold
    ? `how the model predicts them is not known (${neighbourSourceText(f)})`
    : f.model.task === 'regression'
      ? errors.length
        ? `mean absolute error of out-of-fold predictions on them ${formatNumber(errors.reduce((a, b) => a + b, 0) / errors.length)} (${where})`
        : ''
      : `${agree} of ${compared.length} predicted correctly out of fold (${where})`;
  const reading = predictionReading(f);
  return [
    {
      principle: area.input,
      question: 'Is the substance’s structure correct and unambiguous?',
      verdict: f.compound.inchiKey ? 'met' : 'not met',
      evidence: `Read and standardised by RDKit: SMILES ${f.compound.smiles}, InChIKey ${f.compound.inchiKey} (${f.compound.uri})${f.standardisation ? `; ${standardisedInputText(f.standardisation.options, f.standardisation.parent)}` : ''}`,
    },
    {
      principle: area.domain,
      question: 'Is the substance inside the model’s applicability domain?',
      verdict: !domains.length ? 'not known' : outside.length ? 'not met' : 'met',
      evidence: domains.length
        ? domains.map((d) => `${d.inside ? 'inside' : 'outside'} the domain of ${d.model} (metric ${formatNumber(d.metric)}${d.limit ? `, ${d.limit.text}` : ''})`).join('; ')
        : 'the model has no applicability domain',
    },
    {
      principle: area.reliability,
      question: 'Is the prediction supported by close training analogues that the model predicts well?',
      verdict: !predicted || reading.disagreesWithNeighbours ? 'not met' : nearest && nearest.similarity >= CLOSE_ANALOGUE && !outside.length && outOfFold ? 'met' : 'not known',
      evidence: nearest
        ? `nearest training compound ${nearest.compound.uri}, Tanimoto ${formatNumber(nearest.similarity)}; of the ${f.neighbours.length} nearest, ${analogues}${reading.disagreesWithNeighbours ? `; ${reading.disagreesWithNeighbours.text}` : ''}`
        : 'no training compound could be compared',
    },
    {
      principle: area.reliability,
      question: 'Is the confidence of the prediction stated?',
      verdict: f.prediction.confidence || conformal.length ? 'met' : 'not known',
      evidence:
        [
          ...conformal.map((c) => `${c.label} ${c.value}`),
          ...(f.prediction.confidence ? [`confidence ${formatNumber(Number(f.prediction.confidence.value))}`] : []),
          ...(reading.certainty ? [reading.certainty.text] : []),
          ...(conformal.length ? [guarantee(f)] : []),
        ].join('; ') || 'no confidence given',
    },
    {
      principle: area.purpose,
      question: 'Is the model documented for assessment (a QMRF)?',
      verdict: qmrfs.length ? 'met' : 'not known',
      evidence: qmrfs.length ? `QMRF ${qmrfs.join(', ')}` : `no QMRF of ${f.model.uri} here`,
    },
    {
      principle: area.purpose,
      question: 'Is the prediction adequate for the regulatory purpose?',
      verdict: 'not known',
      evidence: 'for the assessor: the purpose, and how the result is used, are not known to the service',
    },
  ];
}

export function qprfDocument(
  f: PredictionFacts,
  extra: { uri: string; date: string; qmrfs: string[]; depiction: (structure: { molfile?: string; smiles: string }) => string; checklist: ChecklistElement[] },
): ReportDocument {
  const c = f.compound;
  const link = (uri: string, text = uri): Text => ({ text, href: uri });
  const reading = predictionReading(f);
  // a barely favoured class (or a tie) is not given as a firm class
  const value = f.prediction.value && `${shown(f.prediction.value.value)}${reading.certainty?.uncertain ? ' (uncertain)' : ''}`;
  const substance: Block[] = [
    {
      kind: 'facts',
      rows: [
        { label: 'Substance', value: [link(c.uri)] },
        ...(c.names.length ? [{ label: 'Names', value: [c.names.join('; ')] }] : []),
        { label: 'SMILES', value: [c.smiles] },
        { label: 'InChI', value: [c.inchi] },
        { label: 'InChIKey', value: [c.inchiKey] },
        ...(c.sameAs.length ? [{ label: 'Same as', value: c.sameAs.flatMap((s, i): Text[] => [...(i ? ['; '] : []), link(s)]) }] : []),
        ...(f.standardisation ? [{ label: 'Structure predicted', value: [standardisedInputText(f.standardisation.options, f.standardisation.parent)] }] : []),
      ],
    },
    { kind: 'figure', title: `Structure of ${c.smiles}`, svg: extra.depiction(c) },
  ];
  const model: Block[] = [
    {
      kind: 'facts',
      rows: [
        { label: 'Model', value: [link(f.model.uri, `${f.model.title} (${f.model.uri})`)] },
        { label: 'Algorithm', value: [link(f.model.algorithm)] },
        { label: 'Training set', value: f.model.trainingDataset ? [link(f.model.trainingDataset), `, ${f.trainingRows} rows`] : ['none stored here (an imported model)'] },
        ...(f.endpoint
          ? [
              { label: 'Endpoint', value: [`${f.endpoint.title ?? f.endpoint.uri}${f.endpoint.units ? ` (${f.endpoint.units})` : ''}`, ...f.endpoint.sameAs.flatMap((t): Text[] => ['; ', link(t)])] },
              ...(f.endpoint.species ? [{ label: 'Species', value: [f.endpoint.species] }] : []),
              ...(f.endpoint.protocol ? [{ label: 'Test guideline', value: [f.endpoint.protocol] }] : []),
            ]
          : []),
        { label: 'QMRF', value: extra.qmrfs.length ? extra.qmrfs.flatMap((q, i): Text[] => [...(i ? ['; '] : []), link(q)]) : ['none here'] },
      ],
    },
  ];
  const prediction: Block[] = [
    {
      kind: 'facts',
      rows: [
        { label: 'Predicted value', value: [value ?? 'not predicted (the substance lacks what the model needs)'] },
        ...(reading.certainty ? [{ label: 'Reading', value: [reading.certainty.text] }] : []),
        ...(reading.disagreesWithNeighbours ? [{ label: 'Disagrees with its neighbours', value: [reading.disagreesWithNeighbours.text] }] : []),
        {
          label: 'Confidence',
          value: [
            f.prediction.confidence
              ? `${formatNumber(Number(f.prediction.confidence.value))} (${confidenceMeaning(f.model.learnerId, f.model.task === 'classification' ? 'classification' : 'regression')})`
              : '–',
          ],
        },
        ...conformalRows(f).map((c) => ({ label: c.label, value: [c.value] })),
        ...(f.model.conformal ? [{ label: 'Guarantee', value: [guarantee(f)] }] : []),
        { label: 'Prediction', value: [f.source.kind === 'made' ? 'made by the service for this report' : link(f.source.uri, `from the prediction dataset ${f.source.uri}`)] },
        ...f.prediction.domains.map((d) => ({
          label: 'Applicability domain',
          value: [
            d.inside === undefined ? 'not estimated' : d.inside ? 'inside' : 'OUTSIDE',
            ` (metric ${formatNumber(d.metric)}${d.limit ? `, ${d.limit.text}` : ''}, `,
            link(d.model, `model ${d.model}`),
            ')',
          ],
        })),
      ],
    },
  ];
  const neighbours: Block[] = f.neighbours.length
    ? [
        {
          kind: 'table',
          title: `The ${f.neighbours.length} most similar training compounds (Tanimoto on Morgan fingerprints, radius 2)`,
          head: ['rank', 'compound', 'SMILES', 'similarity', 'measured', 'predicted out of fold'],
          rows: f.neighbours.map((n, i) => [String(i + 1), link(n.compound.uri), n.compound.smiles, formatNumber(n.similarity), shown(n.measured), shown(n.predicted)]),
        },
        { kind: 'para', text: [neighbourSourceText(f)] },
        ...f.neighbours
          .slice(0, 3)
          .map((n, i): Block => ({ kind: 'figure', title: `Training compound ${i + 1}: ${n.compound.smiles} (similarity ${formatNumber(n.similarity)})`, svg: extra.depiction(n.compound) })),
      ]
    : [{ kind: 'para', text: ['No training compound could be compared.'] }];
  return {
    title: `QPRF: ${value ?? 'no prediction'} for ${c.smiles}`,
    subtitle: `(Q)SAR Prediction Reporting Format · ${f.model.title} · ${extra.uri}`,
    date: extra.date,
    sections: [
      { title: '1 Substance', blocks: substance },
      { title: '2 Model', blocks: model },
      { title: '3 Prediction', blocks: prediction },
      { title: '4 Nearest training compounds', blocks: neighbours },
      {
        title: '5 OECD QSAR Assessment Framework: prediction checklist',
        blocks: [
          {
            kind: 'table',
            title: 'Prediction checklist',
            head: ['assessment area', 'assessment element', 'verdict', 'evidence'],
            rows: extra.checklist.map((e) => [e.principle, e.question, e.verdict, e.evidence]),
          },
        ],
      },
    ],
  };
}
