import type { StandardisationOptions } from '../chemistry/standardisation.ts';
import { STRUCTURE_STANDARDISATION, standardisationText } from '../algorithm/structure-standardisation.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import type { ParameterSpec, ParamValue } from '../learning/learner.ts';
import { dc, ot } from '../rdf/namespaces.ts';
import type { StoredModel } from './model-codec.ts';

/**
 * A model's structure standardisation: how the structures it learnt from were made QSAR-ready
 * parents, so that it predicts every structure from its parent made the same way (prediction.ts).
 * A supermodel with a `structure_standardisation` step records it (superalgorithm.ts); any model
 * whose training set descends from a `standardise-structures` dataset records it the same way, as
 * the parameters `structure_standardisation` (the algorithm) and `standardise-structures.{option}`.
 */

const option = (name: string) => `${STRUCTURE_STANDARDISATION.id}.${name}`;
const defaultOf = (name: string) => String(STRUCTURE_STANDARDISATION.parameters.find((p) => p.name === name)?.default);

/** The standardisation a model records, when it has one (none: it predicts structures as given). */
export function standardisationOf(model: Pick<StoredModel, 'parameters'>): StandardisationOptions | undefined {
  if (!model.parameters.structure_standardisation) return undefined;
  const value = (name: string) => String(model.parameters[option(name)] ?? '') || defaultOf(name);
  return { stereo: value('stereo'), isotopes: value('isotopes'), hydrogens: value('hydrogens') } as StandardisationOptions;
}

/** A standardised dataset's options: its `ot:algorithmParams`, else (made before they were recorded) its description's words, else the defaults. */
function optionsOfDataset(meta: DatasetMeta): StandardisationOptions {
  const annotation = (p: ReturnType<typeof ot>) => meta.annotations.find(([q]) => q.equals(p))?.[1].value ?? '';
  const params = annotation(ot('algorithmParams'));
  const described = annotation(dc('description'));
  const choose = (name: string, choices: string[]) => {
    const given = new RegExp(`(?:^|;)${name}=(\\w+)`).exec(params)?.[1] ?? new RegExp(`\\b${name} (\\w+)`).exec(described)?.[1];
    return given && choices.includes(given) ? given : defaultOf(name);
  };
  return Object.fromEntries(STRUCTURE_STANDARDISATION.parameters.map((p) => [p.name, choose(p.name, p.choices ?? [])])) as StandardisationOptions;
}

/** How far back a training set's provenance is followed. */
const MAX_STEPS = 32;

/**
 * The standardisation a dataset descends from: following its `dc:source`, `ot:hasSource` (when a
 * dataset: subsets, validation splits) and `ot:rowsOf` links through this service's datasets back
 * to one made by `standardise-structures` (descriptors calculated on it, subsets of it, …).
 */
export async function standardisationLineage(
  services: Pick<Services, 'uris'>,
  datasets: Pick<DatasetStore, 'readMeta'>,
  start: DatasetMeta,
): Promise<{ dataset: string; options: StandardisationOptions } | undefined> {
  const algorithm = services.uris.item('algorithm', STRUCTURE_STANDARDISATION.id);
  const seen = new Set<string>();
  let frontier: DatasetMeta[] = [start];
  for (let step = 0; step < MAX_STEPS && frontier.length; step++) {
    const next: DatasetMeta[] = [];
    for (const meta of frontier) {
      if (seen.has(meta.uri)) continue;
      seen.add(meta.uri);
      const links = meta.annotations.filter(([p]) => p.equals(dc('source')) || p.equals(ot('hasSource'))).map(([, o]) => o.value);
      if (links.includes(algorithm)) return { dataset: meta.uri, options: optionsOfDataset(meta) };
      for (const uri of [...links, ...(meta.rowsOf ? [meta.rowsOf] : [])]) {
        if (seen.has(uri) || !services.uris.isIn('dataset', uri)) continue;
        const source = await datasets.readMeta(uri);
        if (source) next.push(source);
      }
    }
    frontier = next;
  }
  return undefined;
}

/** What a model records of a standardisation its training set descends from (added to its parameters). */
export function recordedStandardisation(algorithmUri: string, options: StandardisationOptions): { specs: ParameterSpec[]; values: Record<string, ParamValue> } {
  const specs: ParameterSpec[] = [
    { name: 'structure_standardisation', description: 'The structure standardisation its training structures went through (it predicts every structure from its parent made the same way)' },
    ...STRUCTURE_STANDARDISATION.parameters.map((p) => ({ name: option(p.name), description: `Its structure standardisation: ${p.description} (empty: no standardisation)` })),
  ].map((p): ParameterSpec => ({ ...p, type: 'string', default: '' }));
  const values: Record<string, ParamValue> = {
    structure_standardisation: algorithmUri,
    ...Object.fromEntries(STRUCTURE_STANDARDISATION.parameters.map((p) => [option(p.name), String(options[p.name as keyof StandardisationOptions] ?? p.default)])),
  };
  return { specs, values };
}

/** What a prediction says of its structure: standardised first, and the parent the model read. */
export function standardisedInputText(options: StandardisationOptions, parent: string): string {
  return `standardised first, as the model's training structures were (${STRUCTURE_STANDARDISATION.id}: ${standardisationText(options)}): predicted from the QSAR-ready parent ${parent}`;
}

/** What a model's documentation says of its standardisation (QMRF 6.6, pre-processing). */
export function standardisationPreprocessingText(options: StandardisationOptions): string {
  return `Structures were standardised to QSAR-ready parents (${STRUCTURE_STANDARDISATION.title}; ${standardisationText(options)}) before the descriptors were calculated: salts stripped, charges neutralised, one tautomer. Every structure the model predicts is standardised the same way first, and predicted from its parent.`;
}
