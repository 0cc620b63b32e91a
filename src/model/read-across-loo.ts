import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { dc, df, literal, ot, xsd } from '../rdf/namespaces.ts';
import { doubleLiteral } from '../rdf/terms.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { featureGraph, readFeatureRecords } from '../feature/feature-record.ts';
import { leaveOneOutIntervals, leaveOneOutOf, measuredOf, type ReadAcrossState } from '../learning/read-across.ts';
import { percent } from '../learning/conformal.ts';
import type { ConformalOutput } from './model-codec.ts';
import type { StoredModel } from './model-codec.ts';
import type { ModelStore } from './model-store.ts';

/**
 * The validation component's: the statistics of a read-across's leave-one-out predictions (a
 * dataset holding both the measured and the predicted feature) as a validation of the model.
 * Handed in, so that the model component does not depend on it. Answers the validation's URI.
 */
export type ValidateLeaveOneOut = (input: { model: StoredModel; dataset: string; predicted: string; conformal?: StoredModel['conformal'] }) => Promise<string>;

/**
 * What training a read-across computed, made resources: a dataset of every source's
 * leave-one-out read-across (measured, predicted, neighbours used; a source that has no
 * neighbour at or above s0 has no predicted value), its statistics as a validation of the model
 * (coverage: the share predicted), both linked from the model (`rdfs:seeAlso`; `GET
 * /model/{id}/loo` goes to the dataset).
 */
export async function recordLeaveOneOut(
  services: Pick<Services, 'ids' | 'uris' | 'store'>,
  datasets: DatasetStore,
  models: ModelStore,
  modelUri: string,
  validate: ValidateLeaveOneOut,
): Promise<{ dataset: string; validation: string }> {
  const model = await models.load(modelUri);
  const state = model?.state as ReadAcrossState | undefined;
  if (!model || !state?.ids) throw new Error(`model ${modelUri} holds no read-across sources`);
  const { ids, uris } = services;
  const id = modelUri.split('/').pop();
  const target = (await readFeatureRecords(services.store, [model.dependent])).get(model.dependent);
  const name = target?.title ?? model.dependent;
  const predicted = await ids.next(uris.collection('feature'));
  const used = await ids.next(uris.collection('feature'));
  const classification = model.task === 'classification';
  const graphs = {
    [predicted]: featureGraph({
      uri: predicted,
      title: `${name}: leave-one-out read-across (model ${id})`,
      kind: classification ? 'nominal' : 'numeric',
      source: modelUri,
      accepted: model.classes,
    }),
    [used]: featureGraph({ uri: used, title: `neighbours used in the leave-one-out read-across (model ${id})`, kind: 'numeric', source: modelUri }),
  };
  // a conformal regression: every source's interval, calibrated by the others' residuals
  const levels = model.task === 'regression' ? (model.conformal?.state.levels ?? []) : [];
  const bounds: ConformalOutput[] = [];
  for (const level of levels)
    for (const kind of ['interval-lower', 'interval-upper'] as const) {
      const feature = await ids.next(uris.collection('feature'));
      bounds.push({ feature, kind, level });
      graphs[feature] = featureGraph({
        uri: feature,
        title: `${name}: ${kind === 'interval-lower' ? 'lower' : 'upper'} bound of the ${percent(level)} leave-one-out interval (model ${id}, jackknife)`,
        kind,
        source: modelUri,
        conformalOf: predicted,
        confidenceLevel: level,
      });
    }
  const intervals = levels.length ? leaveOneOutIntervals(state, levels, model.conformal!.state.normalisation) : [];
  const loo = leaveOneOutOf(state);
  const measured = measuredOf(state);
  const value = (v: number) => (classification ? literal(model.classes[v]) : doubleLiteral(v));
  const rows = state.ids.map((compound, i) => ({
    compound,
    values: [
      [model.dependent, value(measured[i])],
      ...(Number.isNaN(loo.value[i]) ? [] : [[predicted, value(loo.value[i])]]),
      [used, literal(String(loo.used[i]), xsd('int'))],
      ...bounds.flatMap((b, j): [string, RDF.Literal][] => {
        const v = intervals[i]?.[j >> 1]?.[j & 1];
        return v === undefined || Number.isNaN(v) ? [] : [[b.feature, doubleLiteral(v)]];
      }),
    ] as [string, RDF.Literal][],
  }));
  const dataset = await datasets.createFromRows(
    [
      [dc('title'), literal(`Leave-one-out read-across of ${model.title}`)],
      [ot('hasSource'), df.namedNode(modelUri)],
      ...(model.trainingDataset ? [[dc('source'), df.namedNode(model.trainingDataset)] as [RDF.NamedNode, RDF.Term]] : []),
    ],
    [model.dependent, predicted, used, ...bounds.map((b) => b.feature)],
    rows,
    graphs,
  );
  const validation = await validate({ model, dataset, predicted, conformal: bounds.length ? { state: model.conformal!.state, outputs: bounds } : undefined });
  await models.addRelated(modelUri, [dataset, validation]);
  return { dataset, validation };
}
