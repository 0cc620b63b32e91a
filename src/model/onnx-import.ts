import type { Context } from 'koa';
import { badRequest, HttpError, notFound, unsupportedType } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { requestMediaType } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { checkedText } from '../http/params.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import type * as RDF from '@rdfjs/types';
import { columnCount, encodeRows, fitEncodings, isLearnable, type ColumnEncoding } from '../learning/feature-matrix.ts';
import { DOMAIN_OPTION } from '../learning/applicability-domain.ts';
import { fittedDomain } from './training.ts';
import type { OnnxCheck, OnnxState } from './onnx-runtime.ts';
import { ONNX_RUNTIME_MODULE } from './onnx-forms.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';
import type { ModelStore } from './model-store.ts';

/** The parts of `POST /model` (multipart/form-data) that import an ONNX model. */
export const ONNX_IMPORT_FIELDS = {
  file: 'The ONNX model (application/onnx)',
  independent_features: "Feature URIs, repeated, in the order of the model's input columns",
  prediction_feature: "The endpoint's feature URI: the dependent variable (numeric: a regression; nominal: a classifier)",
  title: 'The model’s title (optional)',
  training_dataset: 'The dataset it was trained on (optional): its means fill missing values, as a model trained here does',
  algorithm_description: 'How it was made (optional): the algorithm and software, in words',
  applicability_domain: `With training_dataset: the applicability domain the model carries, fitted on the training set's independent variables (${DOMAIN_OPTION.choices!.join(', ')}; default auto)`,
};

export interface OnnxImportRequest {
  file: Uint8Array;
  independent: string[];
  predictionFeature: string;
  title?: string;
  trainingDataset?: string;
  algorithmDescription?: string;
  /** DOMAIN_OPTION's choice (id), or undefined: auto with a training dataset, none without. */
  domain?: string;
}

/** Read `POST /model`'s multipart body: the file (413 above `limit` bytes) and the fields, 400 naming what is missing. */
export async function readOnnxImport(ctx: Context, limit: number): Promise<OnnxImportRequest> {
  if (requestMediaType(ctx) !== 'multipart/form-data')
    throw unsupportedType(`POST /model imports an ONNX model: multipart/form-data with ${Object.keys(ONNX_IMPORT_FIELDS).join(', ')}; models trained here come from POST /algorithm/{id}`);
  const { files, fields } = await readMultipart(ctx, limit, 1);
  checkedText(new URLSearchParams(fields));
  const file = files.find((f) => f.name === 'file');
  if (!file?.body.length) throw badRequest('file: the ONNX model is missing (a part named file)');
  const all = (name: string) => fields.filter(([n]) => n === name || n === `${name}[]`).map(([, v]) => v.trim());
  const one = (name: string) => all(name).find((v) => v) || undefined;
  const independent = all('independent_features')
    .flatMap((v) => v.split(/\s+/))
    .filter(Boolean);
  if (!independent.length) throw badRequest('independent_features: none given (the feature URIs of the input columns, in order)');
  if (new Set(independent).size !== independent.length) throw badRequest('independent_features: a feature is given twice');
  const predictionFeature = one('prediction_feature');
  if (!predictionFeature) throw badRequest('prediction_feature: missing (the feature URI of the endpoint the model predicts)');
  const trainingDataset = one('training_dataset');
  const domain = one('applicability_domain')?.split('/').pop();
  if (domain !== undefined && !DOMAIN_OPTION.choices!.includes(domain)) throw badRequest(`applicability_domain: ${domain} is not one of ${DOMAIN_OPTION.choices!.join(', ')}`);
  if (domain && domain !== 'none' && !trainingDataset) throw badRequest('applicability_domain: a domain is fitted on the training set; give training_dataset');
  return { file: file.body, independent, predictionFeature, title: one('title'), trainingDataset, algorithmDescription: one('algorithm_description'), domain };
}

/**
 * With access control on: 403 unless the caller may read every resource the import names (the
 * training dataset's means and rows go into the model, its domain and its reports).
 */
export function checkImportReadable(request: OnnxImportRequest, canRead: (uri: string) => boolean): void {
  const named: [string, string][] = [
    ...request.independent.map((f): [string, string] => ['independent_features', f]),
    ['prediction_feature', request.predictionFeature],
    ...(request.trainingDataset ? [['training_dataset', request.trainingDataset] as [string, string]] : []),
  ];
  const hidden = named.find(([, uri]) => !canRead(uri));
  if (hidden) throw new HttpError(403, 'Forbidden', `the caller may not read ${hidden[1]} (parameter ${hidden[0]})`);
}

/**
 * Store an imported ONNX model as a model of this service (201): its independent and dependent
 * variables are features of this service, its file is checked (shapes, width, class labels) and
 * run once by onnxruntime on the worker pool before anything is stored. Answers its URI.
 */
export async function importOnnxModel(services: Pick<Services, 'uris' | 'store' | 'workers'>, datasets: DatasetStore, models: ModelStore, request: OnnxImportRequest): Promise<string> {
  const records = await readFeatureRecords(services.store, [...request.independent, request.predictionFeature]);
  const target = records.get(request.predictionFeature)!;
  if (!target.exists) throw notFound(`prediction_feature: feature ${request.predictionFeature} not found`);
  if (!target.numeric && !target.nominal) throw badRequest(`prediction_feature: feature ${request.predictionFeature} is neither numeric nor nominal`);
  const independent = request.independent.map((f) => records.get(f)!);
  const unknown = independent.filter((f) => !f.exists);
  if (unknown.length) throw notFound(`independent_features: feature ${unknown[0].uri} not found`);
  const unusable = independent.filter((f) => !isLearnable(f));
  if (unusable.length) throw badRequest(`independent_features: feature ${unusable[0].title ?? unusable[0].uri} <${unusable[0].uri}> is neither numeric nor a fingerprint`);
  if (independent.some((f) => f.uri === target.uri)) throw badRequest('independent_features: the prediction feature cannot be an input too');
  const task = target.nominal ? 'classification' : 'regression';
  const { encodings, training } = await encodingsOf(datasets, independent, request.trainingDataset);

  const checked = await services.workers.run<OnnxCheck>(ONNX_RUNTIME_MODULE, 'checkOnnxFile', [request.file, { columns: columnCount(encodings), task, accepted: target.accepted }]);
  if (!checked.ok) throw badRequest(checked.problem);
  const state: OnnxState = { ...checked.state, file: Buffer.from(request.file).toString('base64') };
  // the domain it carries: fitted on the training rows' matrix, as a model trained here
  const matrix = training && (await encodeRows(encodings, training));
  const domain = matrix ? await fittedDomain(services, request.domain ?? 'auto', matrix.x, matrix.binary) : undefined;
  const software = [state.producer.name, state.producer.version].filter(Boolean).join(' ') || 'an unnamed producer';
  return models.create({
    algorithm: services.uris.item('algorithm', ONNX_IMPORT_ID),
    learnerId: ONNX_IMPORT_ID,
    trainingDataset: request.trainingDataset,
    parameters: {},
    parameterSpecs: [],
    title: request.title ?? `${target.title ?? target.uri} (${task} model imported from ONNX, made by ${software})`,
    description: request.algorithmDescription,
    task,
    classes: state.labels ?? [],
    independent: request.independent,
    dependent: target.uri,
    encodings,
    state,
    targetTitle: target.title ?? target.uri,
    warnings: request.trainingDataset ? [] : ['no training dataset was given: rows that lack a value of an independent variable are not predicted'],
    endpoints: target.sameAs,
    domain,
  });
}

/**
 * The columns of the model's input: a numeric feature one, a fingerprint one per bit. With a
 * training dataset, its means fill missing values as for a model trained here; without one the
 * means are unknown (NaN): rows with a missing value are not predicted.
 */
async function encodingsOf(datasets: DatasetStore, independent: FeatureRecord[], trainingDataset: string | undefined): Promise<{ encodings: ColumnEncoding[]; training?: Map<string, RDF.Literal>[] }> {
  if (!trainingDataset)
    return { encodings: independent.map((f) => (f.bits !== undefined ? { feature: f.uri, kind: 'fingerprint', bits: f.bits } : { feature: f.uri, kind: 'numeric', mean: Number.NaN, binary: false })) };
  const meta = await datasets.requireMeta(trainingDataset, 'training_dataset');
  const lacking = independent.filter((f) => !meta.features.includes(f.uri));
  if (lacking.length) throw badRequest(`training_dataset: dataset ${meta.uri} has no column of independent feature ${lacking[0].title ?? lacking[0].uri} <${lacking[0].uri}>`);
  const training = (await datasets.allRows(meta.uri)).map((r) => r.values);
  return { encodings: await fitEncodings(independent, training), training };
}
