import { formatNumber } from '../rdf/html.ts';
import { guaranteeText, percent } from '../learning/conformal.ts';
import type { Tree } from '../rdf/resource-tree.ts';
import { learnerById } from '../learning/learners.ts';
import type { DomainState } from '../learning/applicability-domain.ts';
import { keyStatistics } from '../validation/statistic-labels.ts';
import { baselineBeside, type Baseline } from '../validation/baseline.ts';
import { entry, QmrfBuilder } from './qmrf-builder.ts';
import type { DomainFacts, ModelFacts, ValidationSummary } from './qmrf-facts.ts';
import type { QmrfNode } from './qmrf-xml.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';
import type { OnnxState } from '../model/onnx-runtime.ts';
import { standardisationOf, standardisationPreprocessingText } from '../model/standardisation-record.ts';

/** The validation a read-across makes of itself when it trains: its leave-one-out, internal validation (QMRF 6.9), never external. */
const READ_ACROSS_LOO = 'leave_one_out_read_across';
/** Who and what made the report: written into chapters 1, 2 and 9 and the catalogues. */
export interface QmrfContext {
  author: string;
  date: Date;
  service: { uri: string; version: string };
  rdkitVersion: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Statistics as one line, each beside what its baseline makes of it (the majority class, or the
 * mean predictor, on the same rows): "R² = 0.81 (mean predictor: 0), RMSE = 0.52 (mean
 * predictor: 1.37) … (n = 580)".
 */
function statisticsLine(task: 'regression' | 'classification', statistics: Tree | undefined, baseline?: Baseline): string {
  if (!statistics) return '';
  const values = keyStatistics(task)
    .filter(([k]) => typeof statistics[k] === 'number')
    .map(([k, name]) => {
      const against = baseline ? baselineBeside(baseline, k) : '';
      return `${name} = ${formatNumber(statistics[k] as number)}${against ? ` (${against})` : ''}`;
    });
  const n = typeof statistics.numInstances === 'number' ? ` (n = ${statistics.numInstances}${statistics.numUnpredicted ? `, ${statistics.numUnpredicted} not predicted` : ''})` : '';
  return `${values.join(', ')}${n}`;
}

/** One validation as a line of chapter 6 or 7: what it was, its URI and its statistics. */
export function validationLine(v: ValidationSummary): string {
  const t = v.tree;
  const what =
    t.numFolds !== undefined
      ? `${t.leaveOneOut ? 'leave-one-out' : `${t.numFolds}-fold`} cross-validation${t.yScramble ? ' with the target permuted (y-scrambling)' : ''} (seed ${t.randomSeed}, stratified ${t.stratified})`
      : `${t.validationType ?? 'validation'}${t.testDataset ? ` on ${t.testDataset}` : ''}`;
  return `${what}, ${v.uri}: ${statisticsLine(v.task, v.statistics, v.baseline)}${conformalLine(v.conformal)}`;
}

/** A validation's conformal coverage and efficiency at each level ('' for a model without calibration). */
function conformalLine(levels: Tree[] | undefined): string {
  if (!levels?.length) return '';
  const sorted = [...levels].sort((a, b) => Number(a.confidenceLevel) - Number(b.confidenceLevel));
  const one = (l: Tree) =>
    `${percent(Number(l.confidenceLevel))}: coverage ${formatNumber(Number(l.coverage))}${
      l.meanIntervalWidth !== undefined
        ? `, mean interval width ${formatNumber(Number(l.meanIntervalWidth))}`
        : `, single-label sets ${formatNumber(Number(l.singletonRate))}, empty sets ${formatNumber(Number(l.emptySetRate))}`
    }`;
  return `; conformal prediction, ${sorted.map(one).join('; ')}`;
}

/** QMRF 6.12: how a conformal model states the uncertainty of each prediction, and what its validations measured of it. */
export function uncertaintyText(f: ModelFacts): string {
  const c = f.model.conformal?.state;
  if (!c) return '';
  const how = {
    split: `calibrated on ${c.calibrationRows} training rows held out of the model's training (split conformal prediction)`,
    'cv+': `calibrated by ${c.parts.length}-fold cross-validation over all ${c.calibrationRows} training rows (${c.task === 'regression' ? 'CV+, Barber et al. 2021' : 'cross-conformal prediction, Vovk 2015'})`,
    'jackknife+': `calibrated by the leave-one-out residuals of all ${c.calibrationRows} training rows, each new compound's interval built from the ${c.calibrationRows} leave-one-out read-across predictions of it (jackknife+, Barber et al. 2021)`,
    aggregated: `calibrated on ${c.parts.length} random calibration sets (aggregated conformal prediction, Carlsson et al. 2014: p-values averaged, interval bounds the medians)`,
  }[c.method];
  const what =
    c.task === 'regression'
      ? `a prediction interval at ${c.levels.map(percent).join(', ')} confidence${c.normalisation === 'none' ? '' : `, its width scaled to each compound's difficulty (${c.normalisation === 'spread' ? "the spread of the forest's trees" : 'the mean distance to the nearest training compounds'})`}`
      : `a p-value per class and the prediction set at ${c.levels.map(percent).join(', ')} confidence (Mondrian: the guarantee holds within each class)`;
  const measured = [...f.validations, ...f.crossvalidations].filter((v) => v.conformal?.length).map((v) => `${v.uri}${conformalLine(v.conformal)}`);
  const guarantee = guaranteeText(c);
  return `Every prediction comes with ${what}, ${how}. ${guarantee.charAt(0).toUpperCase()}${guarantee.slice(1)}.${measured.length ? ` Measured: ${measured.join('. ')}.` : ''}`;
}

function domainLimits(d: DomainFacts): string {
  const s = d.state;
  if (!s) return '';
  switch (s.kind) {
    case 'ad-leverage':
      return `Inside when the leverage h = xᵀ(XᵀX)⁻¹x (standardised descriptors) is at most the warning leverage h* = 3p′/n = ${formatNumber(s.threshold)} (n = ${s.n}).`;
    case 'ad-euclidean-knn':
      return `Inside when the mean Euclidean distance to the ${s.k} nearest training compounds (standardised descriptors) is at most ${formatNumber(s.threshold)}, the training set's own mean plus Z standard deviations.`;
    case 'ad-tanimoto':
      return `Inside when the Tanimoto similarity to the most similar training compound is at least ${formatNumber(s.threshold)}.`;
    case 'ad-ranges':
      return `Inside when every descriptor lies within its training range: ${(s as Extract<DomainState, { kind: 'ad-ranges' }>).min
        .map((low, i) => `[${formatNumber(low)}, ${formatNumber(s.max[i])}]`)
        .slice(0, 30)
        .join(', ')}${s.min.length > 30 ? ' …' : ''}.`;
  }
}

/** The equation of a linear model, from its coefficients. */
function equation(f: ModelFacts): string {
  const linear = learnerById(f.model.learnerId)?.linearForm?.(f.model.state);
  if (!linear) return '';
  const names = f.independent.map((x) => x.title ?? x.uri);
  const terms = linear.coefficients.map((c, i) => `${c < 0 ? '−' : '+'} ${formatNumber(Math.abs(c))}·${names[i] ?? `x${i + 1}`}`);
  return `${f.dependent.title ?? 'y'} = ${formatNumber(linear.intercept)} ${terms.join(' ')}`;
}

const yesNo = (b: boolean) => (b ? 'Yes' : 'No');

/** A QMRF of a model filled with what the service knows; what it cannot know stays empty for the modeller. */
export function fillQmrf(f: ModelFacts, c: QmrfContext): QmrfNode {
  const b = new QmrfBuilder();
  const task = f.model.task === 'classification' ? 'classification' : 'regression';
  const learnerTitles = f.learners.map((l) => l.title).join(', ');
  const algorithmTitle = f.algorithm.def?.kind === 'super' && learnerTitles ? `${learnerTitles} (in a supermodel)` : (f.algorithm.def?.title ?? f.algorithm.uri);
  const imported = f.model.learnerId === ONNX_IMPORT_ID ? (f.model.state as OnnxState) : undefined;
  const usesRdkit = f.descriptorSources.some((s) => /rdkit|morgan|maccs|fingerprint|substructure|fragment/i.test(s));

  // catalogues
  const software = [
    entry('software', {
      id: 'software_toxgraph',
      name: 'ToxGraph',
      number: '1',
      version: c.service.version,
      url: c.service.uri,
      description: 'OpenTox linked-data server for chemical modelling and validation',
    }),
    ...(usesRdkit
      ? [entry('software', { id: 'software_rdkit', name: 'RDKit (RDKit.js)', number: '2', version: c.rdkitVersion, url: 'https://www.rdkit.org', description: 'Cheminformatics toolkit' })]
      : []),
    // an imported model: the software that made its file (ONNX producer_name and producer_version)
    ...(imported
      ? [
          entry('software', {
            id: 'software_producer',
            name: imported.producer.name || 'unnamed (the ONNX file names no producer)',
            number: usesRdkit ? '3' : '2',
            version: imported.producer.version,
            url: '',
            description: 'The software that made the model’s ONNX file; ToxGraph runs it with onnxruntime',
          }),
        ]
      : []),
  ];
  const algorithm = entry('algorithm', {
    id: 'algorithm_1',
    definition: algorithmTitle,
    // an imported model: how it was made as its importer said, and the software that wrote the file (the catalogue entry only says how to import)
    description:
      [
        f.tree.description,
        imported
          ? `Trained elsewhere and imported as an ONNX file written by ${[imported.producer.name, imported.producer.version].filter(Boolean).join(' ') || 'an unnamed producer'}; ToxGraph runs it with onnxruntime.`
          : (f.learners.length ? f.learners : f.algorithm.def ? [f.algorithm.def] : []).map((d) => d.description).join(' '),
      ]
        .filter((t) => typeof t === 'string' && t)
        .join(' ') || algorithmTitle,
    ontology_term: f.learners[0]?.sameAs ?? f.algorithm.uri,
  });
  const descriptors = f.independent.map((x, i) =>
    entry('descriptor', { id: `descriptor_${i + 1}`, name: x.title ?? x.uri, units: x.units ?? '', description: x.description ?? `feature ${x.uri}`, ontology_term: x.uri }),
  );
  const endpoints = f.endpoint
    ? [entry('endpoint', { id: 'endpoint_1', name: f.endpoint.label ?? f.endpoint.term, ...(f.endpoint.group ? { group: f.endpoint.group } : {}), ontology_term: f.endpoint.term })]
    : [];
  const authors = [entry('author', { id: 'author_1', name: c.author, number: '1', url: c.service.uri })];
  b.children('Catalogs', [
    { name: 'software_catalog', attributes: {}, children: software },
    { name: 'algorithms_catalog', attributes: {}, children: [algorithm] },
    { name: 'descriptors_catalog', attributes: {}, children: descriptors },
    { name: 'endpoints_catalog', attributes: {}, children: endpoints },
    { name: 'publications_catalog', attributes: {}, children: [] },
    { name: 'authors_catalog', attributes: {}, children: authors },
  ]);
  const ref = (name: string, idref: string) => entry(name, { idref });

  // 1. identifier
  b.text('QSAR_title', f.model.title);
  b.text(
    'QSAR_models',
    f.domains
      .filter((d) => d.model !== f.model.uri)
      .map((d) => `applicability-domain model ${d.model}`)
      .join('; '),
  );
  b.children('QSAR_software', [ref('software_ref', 'software_toxgraph'), ...(imported ? [ref('software_ref', 'software_producer')] : [])]);
  // 2. general information
  b.text('qmrf_date', day(c.date));
  b.children('qmrf_authors', [ref('author_ref', 'author_1')]);
  b.children('model_authors', [ref('author_ref', 'author_1')]);
  b.text('model_date', typeof f.tree.date === 'string' ? f.tree.date.slice(0, 10) : '');
  b.text('info_availability', `The model is available at ${f.model.uri} (OpenTox interface): its description, training dataset and features; it predicts datasets and single compounds (POST).`);
  // 3. endpoint (species and protocol as the uploader gave them with the measured values)
  if (f.dependent.species) b.text('model_species', f.dependent.species);
  if (f.dependent.protocol) b.text('endpoint_protocol', f.dependent.protocol);
  if (endpoints.length) b.children('model_endpoint', [ref('endpoint_ref', 'endpoint_1')]);
  b.text(
    'endpoint_comments',
    `The dependent variable is the feature ${f.dependent.title ?? f.dependent.uri} (${f.dependent.uri})${f.endpoint ? `, the endpoint ${f.endpoint.label ?? ''} (${f.endpoint.term})` : ''}${f.training.uri ? ` of the training dataset ${f.training.title ?? f.training.uri}` : ''}.`,
  );
  b.text('endpoint_units', f.dependent.units ?? '');
  b.text('endpoint_variable', f.dependent.title ?? f.dependent.uri);
  b.text('endpoint_data_quality', endpointDataQuality(f.training));
  // 4. algorithm
  const types = [...new Set(f.learners.flatMap((l) => l.types))];
  b.text('algorithm_type', `${task === 'regression' ? 'Regression' : 'Classification'} (${algorithmTitle})${types.length ? `; algorithm types ${types.join(', ')}` : ''}`);
  b.children('algorithm_explicit', [ref('algorithm_ref', 'algorithm_1'), { name: 'equation', attributes: {}, text: equation(f), children: [] }]);
  b.children(
    'algorithms_descriptors',
    descriptors.map((d) => ref('descriptor_ref', d.attributes.id)),
  );
  // the learner's own: a standardisation the model records is the pre-processing of 6.6
  const parameters = Object.entries(f.model.parameters)
    .filter(([k, v]) => v !== '' && k !== 'structure_standardisation' && !k.startsWith('standardise-structures.'))
    .map(([k, v]) => `${k} = ${v}`);
  b.text(
    'descriptors_selection',
    f.model.parameters.feature_selection
      ? `Selected by ${f.model.parameters.feature_selection} (supermodel step); ${f.independent.length} features kept.`
      : `The ${kindsOf(f.independent)} of the training dataset chosen for the model.`,
  );
  b.text(
    'descriptors_generation',
    `${f.descriptorSources.length ? `Calculated by ${f.descriptorSources.join('; ')}.` : 'Taken from the training dataset.'} Learner parameters: ${parameters.join(', ') || 'defaults'}.`,
  );
  b.children('descriptors_generation_software', [ref('software_ref', usesRdkit ? 'software_rdkit' : 'software_toxgraph')]);
  b.text(
    'descriptors_chemicals_ratio',
    f.independent.length ? `${f.training.compounds} chemicals / ${f.independent.length} descriptors = ${formatNumber(f.training.compounds / f.independent.length)}` : '',
  );
  // 5. applicability domain (one chapter per domain)
  const domains = f.domains.length ? f.domains : [undefined];
  // (chapter 5 is built after the rest: one element per domain)
  // 6. internal validation
  const available = f.training.rows > 0;
  b.attributes('training_set_availability', { answer: yesNo(available) });
  b.text(
    'training_set_availability',
    available
      ? `The training set is the dataset ${f.training.uri} of this service.`
      : f.training.uri
        ? `The training dataset ${f.training.uri} is no longer stored.`
        : 'The model was imported (ONNX) without a training dataset of this service.',
  );
  const structures = { chemname: 'No', cas: 'No', smiles: yesNo(available), inchi: yesNo(available), mol: yesNo(available), formula: 'No', nanomaterial: 'No' };
  b.attributes('training_set_data', structures);
  b.text('training_set_data', available ? 'Every training compound is a compound of this service: SMILES, InChI, InChIKey and molfile are available.' : '');
  b.attributes('training_set_descriptors', { answer: available ? 'All' : 'Unknown' });
  b.text('training_set_descriptors', available ? `The descriptor values are columns of ${f.training.uri}.` : '');
  b.attributes('dependent_var_availability', { answer: !available ? 'Unknown' : f.training.withTarget === f.training.rows ? 'All' : f.training.withTarget ? 'Some' : 'No' });
  // 6.6: a standardisation the training structures went through (and every predicted structure goes through), then the model's warnings
  const standardisation = standardisationOf(f.model);
  b.text('preprocessing', [...(standardisation ? [standardisationPreprocessingText(standardisation)] : []), ...((f.tree.warning as string[] | undefined) ?? [])].join(' '));
  b.text('goodness_of_fit', f.fit ? `Predictions of the training set by the model: ${statisticsLine(task, f.fit.statistics, f.fit.baseline)}.` : '');
  b.text('other_statistics', uncertaintyText(f));
  const cvs = f.crossvalidations;
  b.text(
    'loo',
    // a read-across's leave-one-out (computed when it trained) is one too
    [...cvs.filter((v) => v.tree.leaveOneOut && !v.tree.yScramble), ...f.validations.filter((v) => v.tree.validationType === READ_ACROSS_LOO)].map(validationLine).join('\n'),
  );
  b.text(
    'lmo',
    cvs
      .filter((v) => !v.tree.leaveOneOut && !v.tree.yScramble)
      .map(validationLine)
      .join('\n'),
  );
  b.text(
    'yscrambling',
    cvs
      .filter((v) => v.tree.yScramble)
      .map(validationLine)
      .join('\n'),
  );
  b.text(
    'bootstrap',
    f.validations
      .filter((v) => v.tree.validationType === 'bootstrapping')
      .map(validationLine)
      .join('\n'),
  );
  // 7. external validation
  const external = f.validations.filter((v) => v.tree.validationType !== 'bootstrapping' && v.tree.validationType !== READ_ACROSS_LOO);
  b.attributes('validation_set_availability', { answer: yesNo(external.length > 0) });
  b.text('validation_set_availability', external.map((v) => String(v.tree.testDataset ?? '')).join(' '));
  b.attributes('validation_set_data', external.length ? structures : { ...structures, smiles: 'No', inchi: 'No', mol: 'No' });
  b.attributes('validation_set_descriptors', { answer: external.length ? 'All' : 'Unknown' });
  b.attributes('validation_dependent_var_availability', { answer: external.length ? 'All' : 'Unknown' });
  b.text('experimental_design', external.map((v) => `${v.tree.validationType}${v.tree.randomSeed !== undefined ? ` (seed ${v.tree.randomSeed})` : ''}`).join('; '));
  b.text('validation_predictivity', external.map(validationLine).join('\n'));
  // 9. miscellaneous
  b.text(
    'comments',
    `Filled by ToxGraph ${c.service.version} from ${f.model.uri} on ${day(c.date)}. Elements left empty (mechanistic interpretation, references, and species and protocol unless the upload named them) are for the modeller to complete.`,
  );
  b.children('attachments', [
    { name: 'attachment_training_data', attributes: {}, children: available ? [entry('molecules', { url: f.training.uri, filetype: 'text/csv', embedded: 'No', description: 'training set' })] : [] },
    {
      name: 'attachment_validation_data',
      attributes: {},
      children: [...new Set(external.map((v) => String(v.tree.testDataset ?? '')).filter((u) => u))].map((u) =>
        entry('molecules', { url: u, filetype: 'text/csv', embedded: 'No', description: 'external validation set' }),
      ),
    },
    { name: 'attachment_documents', attributes: {}, children: [] },
  ]);
  b.text('keywords', [f.endpoint?.label, f.dependent.title, algorithmTitle, 'QSAR', 'ToxGraph'].filter((k) => k).join(', '));
  const tree = b.build();
  // chapter 5: one QSAR_Applicability_domain per domain
  const chapters = tree.children.find((n) => n.name === 'QMRF_chapters')!;
  const at = chapters.children.findIndex((n) => n.name === 'QSAR_Applicability_domain');
  chapters.children.splice(
    at,
    1,
    ...domains.map((d) => {
      const one = new QmrfBuilder()
        .text('app_domain_description', d ? `${d.title} on ${d.features.length} features (model ${d.model}).` : 'No applicability domain was defined for this model.')
        .text('app_domain_method', d?.description ?? '')
        .children('app_domain_software', d ? [ref('software_ref', 'software_toxgraph')] : [])
        .text('applicability_limits', d ? domainLimits(d) : '');
      return one.build('QSAR_Applicability_domain');
    }),
  );
  return tree;
}

/** "43 numeric features", "1 fingerprint feature", "43 numeric features and 1 fingerprint feature". */
function kindsOf(features: { bits?: number }[]): string {
  const fingerprints = features.filter((x) => x.bits !== undefined).length;
  const numeric = features.length - fingerprints;
  const count = (n: number, what: string) => `${n} ${what} feature${n === 1 ? '' : 's'}`;
  return [numeric ? count(numeric, 'numeric') : '', fingerprints ? count(fingerprints, 'fingerprint') : ''].filter(Boolean).join(' and ') || 'no features';
}

/**
 * QMRF 3.7: how many rows have a value, and the structures whose rows disagree on it, named:
 * classes that disagree are conflicting duplicates, and the QAF's data-quality question is not
 * met while they stand; numbers that differ are replicates, their variability described.
 */
export function endpointDataQuality(t: ModelFacts['training']): string {
  const counts = `${t.withTarget} of the ${t.rows} training rows (${t.compounds} distinct structures) have a value of the dependent variable.`;
  if (!t.conflicts.length) return counts;
  const named = t.conflicts.slice(0, 10).map((c) => `${c.compound} (${c.values.map((v) => JSON.stringify(v)).join(' and ')})`);
  const more = t.conflicts.length > 10 ? ` and ${t.conflicts.length - 10} more` : '';
  if (t.numericTarget) return `${counts} ${t.conflicts.length} structure(s) have replicate measurements that differ: ${named.join(', ')}${more}.`;
  return `${counts} ${t.conflicts.length} structure(s) are conflicting duplicates, with rows whose values of the dependent variable disagree: ${named.join(', ')}${more}.`;
}
