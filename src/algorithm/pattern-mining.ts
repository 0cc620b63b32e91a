import type * as RDF from '@rdfjs/types';
import { badRequest, HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import { featureGraph } from '../feature/feature-record.ts';
import type { ParameterSpec, ParamValue } from '../learning/learner.ts';
import type { MinedFragments, MiningTarget } from '../chemistry/fragments.ts';
import { df, dc, ot, literal, xsd } from '../rdf/namespaces.ts';
import type { DescriptorCalculation } from './descriptor-calculation.ts';

const FRAGMENTS_MODULE = new URL('../chemistry/fragments.ts', import.meta.url).href;

/** The pattern-mining algorithm of the catalogue (spec 2.4 `PatternMining`). */
export const FREQUENT_SUBSTRUCTURES = {
  id: 'frequent-substructures',
  title: 'Frequent substructures (linear fragments)',
  description:
    'Mines the linear fragments (chains of up to maxBonds bonds, single atoms included, as SMARTS of element, aromaticity and bond order) held by at least minSup of the structures of a dataset. Answers a new dataset with the input columns and one ot:Substructure feature per fragment (with ot:smarts), valued 1 where the structure holds the fragment and 0 where it does not; at most maxFragments, the most frequent first. Supervised when prediction_feature names a class feature of the dataset: only the fragments whose occurrence depends on the class (Pearson chi-square test of independence, p-value below pValue) are kept, the most significant first, each described with its p-value and the class it is enriched in. Models trained on these features calculate them for new structures by substructure search.',
  types: ['PatternMining'],
  parameters: [
    { name: 'minSup', description: 'Smallest fraction of the structures a fragment must occur in', type: 'number', default: 0.1, greaterThan: 0, max: 1 },
    { name: 'maxBonds', description: 'Longest fragment, in bonds', type: 'integer', default: 4, min: 0, max: 7 },
    { name: 'maxFragments', description: 'Most fragments kept (the most frequent; supervised: the most significant)', type: 'integer', default: 100, min: 1, max: 1000 },
    { name: 'prediction_feature', description: 'Supervised mining: URI of a class feature of the dataset (at most 50 classes); empty: unsupervised', type: 'string', default: '' },
    { name: 'pValue', description: 'Supervised mining: the largest p-value of a kept fragment', type: 'number', default: 0.05, greaterThan: 0, max: 1 },
  ] as ParameterSpec[],
};

/** Mine a dataset's structures into a new dataset of fragment features; answers its URI. */
export async function mineDataset(
  services: Pick<Services, 'uris' | 'ids' | 'workers'>,
  datasets: DatasetStore,
  descriptors: DescriptorCalculation,
  request: { algorithmUri: string; source: DatasetMeta; selected: string[]; values: Record<string, ParamValue> },
  signal?: AbortSignal,
): Promise<string> {
  const { source, selected, values } = request;
  const rows = await datasets.allRows(source.uri);
  const compounds = [...new Set(rows.map((r) => r.compound))];
  const smiles = await descriptors.smilesOf(compounds);
  const target = values.prediction_feature ? miningTarget(source, String(values.prediction_feature), rows, compounds, Number(values.pValue)) : undefined;
  let mined: MinedFragments;
  try {
    mined = await services.workers.run<MinedFragments>(
      FRAGMENTS_MODULE,
      'mineFragments',
      [smiles.map((s) => s ?? ''), Number(values.minSup), Number(values.maxBonds), Number(values.maxFragments), target],
      signal,
    );
  } catch (e) {
    if (e instanceof HttpError || signal?.aborted) throw e;
    throw badRequest(`${FREQUENT_SUBSTRUCTURES.title}: ${(e as Error)?.message ?? String(e)}`);
  }
  const graphs: Record<string, RDF.Quad[]> = {};
  const fragmentFeatures: string[] = [];
  for (const f of mined.fragments) {
    const uri = await services.ids.next(services.uris.collection('feature'));
    graphs[uri] = featureGraph({
      uri,
      title: f.smarts,
      description:
        `linear fragment held by ${(f.support * 100).toFixed(1)}% of the structures of ${source.uri}` +
        (f.pValue === undefined ? '' : `; associated with ${values.prediction_feature} (chi-square p = ${f.pValue.toPrecision(3)}), most often in class ${target!.labels[f.enrichedIn ?? 0]}`),
      kind: 'substructure',
      source: request.algorithmUri,
      smarts: f.smarts,
    });
    fragmentFeatures.push(uri);
  }
  const byCompound = new Map(compounds.map((c, i) => [c, mined.occurrences[i]]));
  const kept = selected.length ? source.features.filter((f) => selected.includes(f)) : source.features;
  const features = [...kept, ...fragmentFeatures];
  const one = literal('1', xsd('int'));
  const zero = literal('0', xsd('int'));
  const out = rows.map((r) => {
    const held = byCompound.get(r.compound);
    const present = new Set(held ?? []);
    const own = kept.filter((f) => r.values.has(f)).map((f): [string, RDF.Literal] => [f, r.values.get(f)!]);
    return { compound: r.compound, values: [...own, ...(held ? fragmentFeatures.map((f, k): [string, RDF.Literal] => [f, present.has(k) ? one : zero]) : [])] };
  });
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [dc('title'), literal(`${source.title ?? source.uri} with ${target ? 'class-associated' : 'frequent'} substructures (minSup ${values.minSup}${target ? `, p < ${values.pValue}` : ''})`)],
    [ot('hasSource'), df.namedNode(request.algorithmUri)],
    [dc('source'), df.namedNode(source.uri)],
  ];
  return datasets.createFromRows(annotations, features, out, graphs);
}

/** At most this many classes: more means the feature is not a class label. */
const MAX_CLASSES = 50;

/** The class of each structure (its first row's value of the class feature) for supervised mining. */
function miningTarget(source: DatasetMeta, feature: string, rows: { compound: string; values: Map<string, RDF.Literal> }[], compounds: string[], pValue: number): MiningTarget & { labels: string[] } {
  if (!source.features.includes(feature)) throw badRequest(`prediction_feature ${feature} is not a feature of dataset ${source.uri}`);
  const byCompound = new Map<string, string>();
  for (const r of rows) {
    const v = r.values.get(feature)?.value.trim();
    if (v && !byCompound.has(r.compound)) byCompound.set(r.compound, v);
  }
  const labels = [...new Set(byCompound.values())].sort();
  if (labels.length < 2) throw badRequest(`prediction_feature ${feature} has ${labels.length ? 'a single class' : 'no values'} in dataset ${source.uri}; supervised mining needs at least 2 classes`);
  if (labels.length > MAX_CLASSES) throw badRequest(`prediction_feature ${feature} has ${labels.length} distinct values; supervised mining takes a class feature of at most ${MAX_CLASSES} classes`);
  const index = new Map(labels.map((l, i) => [l, i]));
  return { classes: compounds.map((c) => (byCompound.has(c) ? index.get(byCompound.get(c)!)! : null)), classCount: labels.length, pValue, labels };
}
