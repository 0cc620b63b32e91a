import type * as RDF from '@rdfjs/types';
import type { ParamValue, Prediction } from '../learning/learner.ts';
import { badRequest } from '../core/errors.ts';
import { df, ot, dc, literal, xsd } from '../rdf/namespaces.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { Services } from '../core/services.ts';
import { algorithmById, instanceFrom } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import type { DescriptorCalculation, DescriptorInstance } from '../algorithm/descriptor-calculation.ts';
import { encodeRows } from '../learning/feature-matrix.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { outputFeatures, type StoredModel } from './model-codec.ts';
import { doubleLiteral } from '../rdf/terms.ts';
import { setLabel, type ConformalAnswer } from '../learning/conformal.ts';
import type { DomainEstimate } from '../learning/applicability-domain.ts';
import { DOMAIN_MODULE } from './domain-training.ts';
import type { StandardisationOptions } from '../chemistry/standardisation.ts';
import { standardiseOn } from '../chemistry/structure-standardiser.ts';
import { standardisationOf } from './standardisation-record.ts';
import { timePhase } from '../core/phase-times.ts';
import { PREDICT_MODULE } from './predict-in-worker.ts';
import { ONNX_RUNTIME_MODULE } from './onnx-forms.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';

const FRAGMENTS_MODULE = new URL('../chemistry/fragments.ts', import.meta.url).href;

type DescriptorAlgorithm = Extract<NonNullable<ReturnType<typeof algorithmById>>, { kind: 'descriptors' }>;

/** Descriptor calculations to run before predicting, for variables a dataset lacks. */
export interface InputPlan {
  calculations: { def: DescriptorAlgorithm; values: Record<string, ParamValue>; instance: DescriptorInstance }[];
  /** Fragment features (`ot:Substructure` with `ot:smarts`): 1 where RDKit finds the pattern in a structure, else 0. */
  substructures: { feature: string; smarts: string }[];
  /** A supermodel that learnt from standardised structures: both of the above are calculated from each compound's parent. */
  standardisation?: StandardisationOptions;
}

export interface PredictionRow {
  compound: string;
  values: Map<string, RDF.Literal>;
}

/** The prediction of one row as literals of the model's two predicted features (none: not predicted). */
export type PredictedValues = [string, RDF.Literal][];

/**
 * Applies models to rows (spec 4.11). Independent variables a dataset lacks are calculated
 * first when they came from one of our descriptor algorithms (the model's features point to
 * the algorithm instance that made them); otherwise the request is refused naming them.
 */
export class Predictor {
  private readonly services: Pick<Services, 'uris' | 'store' | 'workers'>;
  private readonly descriptors: DescriptorCalculation;
  /** Loads a model linked by ot:hasDomain (a separate AD model). */
  private readonly load: (uri: string) => Promise<StoredModel | undefined>;
  constructor(services: Predictor['services'], descriptors: DescriptorCalculation, load: (uri: string) => Promise<StoredModel | undefined>) {
    this.load = load;
    this.services = services;
    this.descriptors = descriptors;
  }

  async planInputs(model: StoredModel, available: string[]): Promise<InputPlan> {
    const standardisation = standardisationOf(model);
    const have = new Set(available);
    let missing = model.independent.filter((f) => !have.has(f));
    if (standardisation) {
      // what can be calculated is calculated from the parents, whatever values the dataset holds
      const all = await readFeatureRecords(this.services.store, model.independent);
      missing = model.independent.filter((f) => !have.has(f) || all.get(f)!.smarts || this.services.uris.isIn('algorithm', all.get(f)!.source ?? ''));
    }
    if (!missing.length) return { calculations: [], substructures: [] };
    const described = await readFeatureRecords(this.services.store, missing);
    const bySource = new Map<string, string[]>();
    const impossible: string[] = [];
    const substructures: InputPlan['substructures'] = [];
    for (const f of missing) {
      const { source, smarts } = described.get(f)!;
      if (smarts) substructures.push({ feature: f, smarts });
      else if (source && this.services.uris.isIn('algorithm', source)) bySource.set(source, [...(bySource.get(source) ?? []), f]);
      else impossible.push(f);
    }
    const calculations: InputPlan['calculations'] = [];
    for (const [source, features] of bySource) {
      const calc = await this.calculationFor(source);
      if (!calc || features.some((f) => !calc.instance.features.includes(f))) impossible.push(...features);
      else calculations.push(calc);
    }
    if (impossible.length) {
      const titles = impossible.map((f) => `${described.get(f)?.title ?? f} <${f}>`);
      throw badRequest(`the dataset lacks independent variables of model ${model.uri} that cannot be calculated here: ${titles.join(', ')}`);
    }
    return { calculations, substructures, standardisation };
  }

  /** The descriptor calculation an algorithm instance stands for (its algorithm and parameter values). */
  private async calculationFor(instanceUri: string): Promise<InputPlan['calculations'][number] | undefined> {
    const { of, values: given } = instanceFrom(await this.services.store.readGraph(instanceUri), instanceUri);
    const def = of ? algorithmById(of.slice(of.lastIndexOf('/') + 1)) : undefined;
    if (def?.kind !== 'descriptors') return undefined;
    const values = checkParameters(def.parameters, given);
    if (this.descriptors.instanceUri(def, values) !== instanceUri) return undefined;
    return { def, values, instance: await this.descriptors.instance(def, values) };
  }

  /** Predict rows; one list of (feature, literal) pairs per row, empty when a row cannot be predicted. */
  async predict(model: StoredModel, rows: PredictionRow[], plan: InputPlan, job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {}): Promise<PredictedValues[]> {
    const own = await this.predictWith(model, rows, plan, job);
    // spec 2.5: a model linked to separate AD models answers their estimates beside its predictions
    for (const { model: uri } of model.linkedDomains) {
      const linked = await this.load(uri);
      if (!linked) continue;
      const available = [...new Set(rows.flatMap((r) => [...r.values.keys()]))];
      const estimates = await this.predictWith(linked, rows, await this.planInputs(linked, available), job);
      own.forEach((values, i) => values.length && values.push(...estimates[i]));
    }
    return own;
  }

  private async predictWith(model: StoredModel, rows: PredictionRow[], plan: InputPlan, job: { signal?: AbortSignal; progress?: (fraction: number) => void }): Promise<PredictedValues[]> {
    const compounds = rows.map((r) => r.compound);
    const calculating = plan.calculations.length || plan.substructures.length;
    const smiles = calculating ? await this.structuresOf(compounds, plan.standardisation, job.signal) : [];
    for (const [k, calc] of plan.calculations.entries()) {
      const columns = await this.descriptors.calculate(calc.def, calc.values, calc.instance, compounds, {
        smiles,
        signal: job.signal,
        progress: (f) => job.progress?.((0.8 * (k + f)) / plan.calculations.length),
      });
      calc.instance.features.forEach((f, j) => rows.forEach((r, i) => columns[j][i] && r.values.set(f, columns[j][i]!)));
    }
    if (plan.substructures.length) await this.findSubstructures(rows, smiles, plan.substructures, job.signal);
    const { x } = await timePhase('encoding', () =>
      encodeRows(
        model.encodings,
        rows.map((r) => r.values),
      ),
    );
    if (model.task === 'domain') {
      // an applicability-domain model: its metric and whether the row is inside (xsd:boolean)
      const estimates = await this.services.workers.run<DomainEstimate[]>(DOMAIN_MODULE, 'estimateDomain', [model.state, x], job.signal);
      return estimates.map((e, i): PredictedValues => {
        if (!model.independent.some((f) => rows[i].values.has(f)) || !Number.isFinite(e.metric)) return [];
        return [
          [model.predicted, literal(String(e.metric), xsd('double'))],
          [model.confidence, literal(String(e.inside), xsd('boolean'))],
        ];
      });
    }
    const { conformal } = model;
    const { predictions, answers } = await timePhase('learner prediction', async () =>
      conformal
        ? this.services.workers.run<{ predictions: Prediction[]; answers: ConformalAnswer[] }>(
            PREDICT_MODULE,
            'predictConformal',
            [model.learnerId, model.state, conformal.state, x, model.classes.length],
            job.signal,
          )
        : model.learnerId === ONNX_IMPORT_ID
          ? // an imported model: its file run by onnxruntime (loaded by the worker that first runs one)
            { predictions: await this.services.workers.run<Prediction[]>(ONNX_RUNTIME_MODULE, 'predictOnnx', [model.state, x], job.signal), answers: [] }
          : { predictions: await this.services.workers.run<Prediction[]>(PREDICT_MODULE, 'predictWith', [model.learnerId, model.state, x], job.signal), answers: [] },
    );
    const { domain } = model;
    const estimates = domain
      ? await timePhase('applicability domain estimated', () => this.services.workers.run<DomainEstimate[]>(DOMAIN_MODULE, 'estimateDomain', [domain.state, x], job.signal))
      : [];
    const { explanations } = model;
    return predictions.map((p, i): PredictedValues => {
      const known = model.independent.some((f) => rows[i].values.has(f));
      // a read-across that finds no source says why, never a number
      if (known && explanations && p.reason) return [[explanations.reason, literal(p.reason)]];
      if (!known || !Number.isFinite(p.value)) return [];
      const value = model.task === 'regression' ? literal(String(p.value), xsd('double')) : literal(model.classes[p.value]);
      const out: PredictedValues = [[model.predicted, value]];
      // an imported regression states no confidence
      if (Number.isFinite(p.confidence)) out.push([model.confidence, literal(String(Math.min(1, Math.max(0, p.confidence))), xsd('double'))]);
      if (conformal && answers[i]) out.push(...conformalValues(conformal, answers[i], model.classes));
      if (explanations && p.neighbours?.length) out.push([explanations.neighbours, literal(neighboursText(p.neighbours, model))]);
      if (explanations?.neighbourhood && p.neighbourhood) out.push([explanations.neighbourhood, literal(`${p.neighbourhood}; sources from ${model.trainingDataset ?? 'the training set'}`)]);
      // the embedded domain's estimate of the same row
      if (domain && Number.isFinite(estimates[i]?.metric))
        out.push([domain.metric, literal(String(estimates[i].metric), xsd('double'))], [domain.membership, literal(String(estimates[i].inside), xsd('boolean'))]);
      return out;
    });
  }

  /**
   * The structures descriptors are calculated from, one per compound: its own, or with a
   * standardisation its parent as the training set's was made (standardise-dataset.ts): the
   * parent when it is another compound, else the compound's own structure (the same compound
   * by its InChI, or one that cannot be standardised). So a salt is predicted as its parent is.
   */
  private async structuresOf(compounds: string[], standardisation: StandardisationOptions | undefined, signal?: AbortSignal): Promise<(string | undefined)[]> {
    const own = await this.descriptors.smilesOf(compounds);
    if (!standardisation) return own;
    const unique = [...new Set(own.filter((s): s is string => !!s))];
    const results = await standardiseOn(this.services.workers, unique, standardisation, { signal });
    const parents = new Map(
      unique.map((s, i) => {
        const r = results[i];
        return [s, r.ok && r.structure ? r.structure.smiles : s];
      }),
    );
    return own.map((s) => (s ? parents.get(s) : undefined));
  }

  /** The structure the model reads of each compound: its parent when the model records a standardisation, else its own (undefined: none). */
  structuresFor(model: StoredModel, compounds: string[], signal?: AbortSignal): Promise<(string | undefined)[]> {
    return this.structuresOf(compounds, standardisationOf(model), signal);
  }

  private async findSubstructures(rows: PredictionRow[], smiles: (string | undefined)[], patterns: InputPlan['substructures'], signal?: AbortSignal): Promise<void> {
    const found = await this.services.workers.run<(number[] | null)[]>(FRAGMENTS_MODULE, 'substructureOccurrences', [smiles.map((s) => s ?? ''), patterns.map((p) => p.smarts)], signal);
    rows.forEach((r, i) => {
      const held = found[i] && new Set(found[i]);
      if (held) patterns.forEach((p, k) => r.values.set(p.feature, held.has(k) ? ONE : ZERO));
    });
  }
}

/** A row's conformal answer as the literals of the model's conformal features. */
function conformalValues(conformal: NonNullable<StoredModel['conformal']>, answer: ConformalAnswer, classes: string[]): PredictedValues {
  return conformal.outputs.flatMap((o): PredictedValues => {
    const l = conformal.state.levels.indexOf(o.level!);
    if (o.kind === 'prediction-set') return answer.sets ? [[o.feature, literal(setLabel(answer.sets[l], classes))]] : [];
    const value = o.kind === 'p-value' ? answer.pValues?.[o.classIndex!] : answer.intervals?.[l][o.kind === 'interval-lower' ? 0 : 1];
    // a part that could not predict the row gives no bound rather than a wrong one
    return value === undefined || Number.isNaN(value) ? [] : [[o.feature, doubleLiteral(value)]];
  });
}

/** A prediction's sources as text: `{compound} (similarity 0.82, measured 1.95)`, most similar first, separated by `; `. */
function neighboursText(neighbours: NonNullable<Prediction['neighbours']>, model: StoredModel): string {
  return neighbours
    .map((n) => `${n.compound ?? '(a training compound)'} (similarity ${n.similarity.toFixed(3)}, measured ${model.task === 'classification' ? model.classes[n.measured] : n.measured})`)
    .join('; ');
}

const ONE = literal('1', xsd('int'));
const ZERO = literal('0', xsd('int'));

/**
 * A new dataset of a model's predictions (and their confidences) for the rows of `source`, with
 * the source's columns `kept` (its identifiers and names: which row is which) before them.
 */
export function createPredictionDataset(
  datasets: DatasetStore,
  model: StoredModel,
  rows: PredictionRow[],
  predictions: PredictedValues[],
  source: { uri: string; title?: string },
  kept: string[] = [],
): Promise<string> {
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [dc('title'), literal(`${model.task === 'domain' ? 'Applicability-domain estimates' : 'Predictions'} of ${model.title} for ${source.title ?? source.uri}`)],
    [ot('hasSource'), df.namedNode(model.uri)],
    [dc('source'), df.namedNode(source.uri)],
  ];
  const identifying = (r: PredictionRow) => kept.flatMap((f): PredictedValues => (r.values.has(f) ? [[f, r.values.get(f)!]] : []));
  return datasets.createFromRows(
    annotations,
    [...kept, ...outputFeatures(model)],
    rows.map((r, i) => ({ compound: r.compound, values: [...identifying(r), ...predictions[i]] })),
  );
}
