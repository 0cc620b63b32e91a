import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import { featureGraph, featureTitles } from '../feature/feature-record.ts';
import type { ParamValue } from '../learning/learner.ts';
import type { StandardisationOptions } from '../chemistry/standardisation.ts';
import { standardiseOn, type StandardisedStructure } from '../chemistry/structure-standardiser.ts';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import { CURATION_TERMS } from '../dataset/curation-report.ts';
import { CURATION_COLUMNS, curate, standardisationParams, standardisationText, type CurationFeatures, type RowOutcome } from './structure-standardisation.ts';

export interface StandardiseRequest {
  algorithmUri: string;
  source: DatasetMeta;
  /** Features of the source to keep (all when empty). */
  selected: string[];
  values: Record<string, ParamValue>;
}

/** What the work reads and writes besides the datasets: compounds' SMILES, and the registry for the parents. */
export interface StandardiseDeps {
  services: Pick<Services, 'uris' | 'ids' | 'store' | 'workers'>;
  datasets: DatasetStore;
  compounds: Pick<CompoundRegistry, 'register'>;
  smilesOf: (compounds: string[]) => Promise<(string | undefined)[]>;
}

/**
 * Standardise a dataset's structures into a new dataset (see structure-standardisation.ts): the
 * chemistry on the worker pool, the parents registered as compounds, the rows written with their
 * curation columns and the warnings. Answers the new dataset's URI.
 */
export async function standardiseDataset(deps: StandardiseDeps, request: StandardiseRequest, job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {}): Promise<string> {
  const { services, datasets } = deps;
  const { source, selected, values } = request;
  const options: StandardisationOptions = { stereo: values.stereo, isotopes: values.isotopes, hydrogens: values.hydrogens } as StandardisationOptions;
  const rows = await datasets.allRows(source.uri);
  const compounds = [...new Set(rows.map((r) => r.compound))];
  const smiles = await deps.smilesOf(compounds);
  const unique = [...new Set(smiles.filter((s): s is string => !!s))];
  const results = await standardiseOn(services.workers, unique, options, { signal: job.signal, progress: (f) => job.progress?.(f * 0.8) });
  const bySmiles = new Map(unique.map((s, i) => [s, results[i]]));
  const parents = await registerParents(deps.compounds, results);
  job.signal?.throwIfAborted();
  job.progress?.(0.9);

  const outcomeOf = new Map(
    compounds.map((c, i): [string, RowOutcome] => {
      const s = smiles[i];
      const r = s === undefined ? undefined : bySmiles.get(s)!;
      if (!r) return [c, { ok: false, error: 'the compound has no structure here' }];
      if (!r.ok) return [c, { ok: false, original: s, error: r.error }];
      return [c, { ok: true, compound: r.structure ? parents.get(r.structure.inchiKey)! : c, parent: r.parent, original: r.original, rules: r.rules, flags: r.flags }];
    }),
  );
  const graphs: Record<string, RDF.Quad[]> = {};
  const features = {} as CurationFeatures;
  for (const [key, column] of Object.entries(CURATION_COLUMNS) as [keyof CurationFeatures, (typeof CURATION_COLUMNS)[keyof CurationFeatures]][]) {
    features[key] = await services.ids.next(services.uris.collection('feature'));
    graphs[features[key]] = featureGraph({ uri: features[key], title: column.title, description: column.description, kind: 'string', source: request.algorithmUri, sameAs: [CURATION_TERMS[key]] });
  }
  const kept = selected.length ? source.features.filter((f) => selected.includes(f)) : source.features;
  const curated = curate({ rows, outcomes: rows.map((r) => outcomeOf.get(r.compound)!), kept, features, titles: await featureTitles(services.store, kept) });
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [dc('title'), literal(`${source.title ?? source.uri}, standardised structures`)],
    [dc('description'), literal(`Structures standardised (${standardisationText(options)}) from ${source.uri}. ${curated.summary}`)],
    // the options, for a model trained on its descendants (model/standardisation-record.ts)
    [ot('algorithmParams'), literal(standardisationParams(options))],
    [ot('hasSource'), df.namedNode(request.algorithmUri)],
    [dc('source'), df.namedNode(source.uri)],
  ];
  const columns = [...kept, features.original, features.parent, features.rules, features.flags];
  return datasets.createFromRows(annotations, columns, curated.rows, graphs, curated.warnings);
}

/** The parents that are other structures than their inputs, registered as compounds: compound URI by InChIKey. */
async function registerParents(compounds: StandardiseDeps['compounds'], results: StandardisedStructure[]): Promise<Map<string, string>> {
  const byKey = new Map(results.flatMap((r) => (r.ok && r.structure ? [[r.structure.inchiKey, r.structure] as const] : [])));
  const structures = [...byKey.values()];
  const uris = await compounds.register(structures.map((structure) => ({ structure, names: [], sameAs: [], fields: {} })));
  return new Map(structures.map((s, i) => [s.inchiKey, uris[i]]));
}
