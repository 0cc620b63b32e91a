import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { badRequest, notFound } from '../core/errors.ts';
import { ot } from '../rdf/namespaces.ts';
import { select } from '../store/query-helpers.ts';
import { featureQueries } from '../feature/feature-queries.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { readAcrossQueries } from './read-across-queries.ts';
import { popcount } from '../learning/scaling.ts';
import { withinRanges, type DescriptorRange, type DescriptorValues } from './descriptor-values.ts';
import { carrying, type ProfileOf } from './profile-filter.ts';

const FRAGMENTS_MODULE = new URL('../chemistry/fragments.ts', import.meta.url).href;

/** The most analogues one search answers. */
export const MAX_ANALOGUES = 1000;

export interface AnalogueRequest {
  /** The target compound's URI. */
  target: string;
  /** A feature URI, or an ontology term: every measured feature `owl:sameAs` it, pooled. */
  endpoint: string;
  k: number;
  /** The least Tanimoto similarity (Morgan, radius 2, 2048 bits: the structure index's). */
  threshold: number;
  /** Only analogues holding this substructure. */
  smarts?: string;
  /** Only analogues whose descriptors are within these ranges of the target's. */
  ranges?: DescriptorRange[];
  /** Only analogues whose profiles carry these profilers' rules or classes (IRIs). */
  profile?: string[];
  canRead: (uri: string) => boolean;
}

/** A measured value and where it comes from. */
export interface SourcedValue {
  value: RDF.Literal;
  feature: string;
  dataset: string;
}

export interface Analogue {
  compound: string;
  smiles?: string;
  similarity: number;
  values: SourcedValue[];
}

export interface Analogues {
  target: string;
  targetSmiles?: string;
  endpoint: string;
  /** The measured features pooled. */
  features: string[];
  /** The target's own measured values (none: a data gap). */
  targetValues: SourcedValue[];
  /** Compounds with readable values of the endpoint (the target aside), before the threshold and filters. */
  candidates: number;
  analogues: Analogue[];
}

const byId = new Intl.Collator('en', { numeric: true }).compare;

/**
 * Analogue search for read-across (issue 56): the compounds most similar to a target that have
 * measured values of an endpoint, in every dataset the caller may read, each value with its
 * source dataset. Similarity is the Tanimoto (Jaccard) similarity of the Morgan fingerprints the
 * structure index holds (radius 2, 2048 bits); ties go by compound id. Only primary data count:
 * a dataset an algorithm or a model made (descriptors added, predictions, a leave-one-out) holds
 * copies or predictions, not measurements.
 */
export class AnalogueSearch {
  private readonly services: Pick<Services, 'store' | 'uris' | 'workers'>;
  private readonly compounds: CompoundRegistry;
  private readonly datasets: DatasetStore;
  private readonly smilesOf: (compounds: string[]) => Promise<(string | undefined)[]>;
  readonly describe: DescriptorValues;
  readonly profileOf: ProfileOf;
  constructor(
    services: AnalogueSearch['services'],
    compounds: CompoundRegistry,
    datasets: DatasetStore,
    smilesOf: (compounds: string[]) => Promise<(string | undefined)[]>,
    describe: DescriptorValues,
    profileOf: ProfileOf,
  ) {
    this.profileOf = profileOf;
    this.services = services;
    this.compounds = compounds;
    this.datasets = datasets;
    this.smilesOf = smilesOf;
    this.describe = describe;
  }

  async find(request: AnalogueRequest): Promise<Analogues> {
    const ranked = await this.ranked(request.target, request.endpoint, request.canRead);
    let kept = ranked.candidates.filter((a) => a.similarity >= request.threshold);
    if (request.smarts !== undefined) kept = await this.holding(kept, request.smarts);
    if (request.ranges?.length) kept = (await withinRanges(this.describe, request.target, kept, request.ranges)).kept;
    // profiles last: each may be computed now; only the k nearest that pass are needed
    if (request.profile?.length) kept = await this.carryingFirst(kept, request.profile, request.k);
    if (!kept.length) {
      const ranges = [...(request.ranges?.map((r) => `${r.name} within ±${r.delta}`) ?? []), ...(request.profile?.length ? [`a profile carrying ${request.profile.join(', ')}`] : [])];
      throw notFound(
        `no analogue: none of the ${ranked.candidates.length} compounds with measured values has similarity ≥ ${request.threshold}${request.smarts === undefined ? '' : ` and the substructure ${request.smarts}`}${ranges.length ? ` and ${ranges.join(', ')} of the target` : ''}`,
      );
    }
    const chosen = kept.slice(0, request.k);
    const smiles = await this.smilesOf([request.target, ...chosen.map((a) => a.compound)]);
    return {
      target: request.target,
      targetSmiles: smiles[0],
      endpoint: request.endpoint,
      features: ranked.features,
      targetValues: ranked.targetValues,
      candidates: ranked.candidates.length,
      analogues: chosen.map((a, i) => ({ ...a, smiles: smiles[i + 1] })),
    };
  }

  /**
   * Every compound with readable measured values of the endpoint (the target aside), by
   * similarity to the target (then compound id), with its values; and the target's own values.
   */
  async ranked(target: string, endpoint: string, canRead: (uri: string) => boolean): Promise<{ features: string[]; targetValues: SourcedValue[]; candidates: Omit<Analogue, 'smiles'>[] }> {
    const [probe] = this.compounds.morganOf([target]);
    if (!probe) {
      if (!(await this.services.store.readGraph(target)).length) throw notFound(`compound ${target} not found`);
      throw badRequest(`the target ${target} has no structure to compare: read-across needs one`);
    }
    const features = await this.measuredFeatures(endpoint);
    const byCompound = await this.readableValues(features, canRead);
    const targetValues = byCompound.get(target) ?? [];
    byCompound.delete(target);
    if (!byCompound.size) throw notFound(`endpoint: no dataset you may read holds measured values of ${endpoint} for a compound other than the target`);
    const others = [...byCompound.keys()];
    const fingerprints = this.compounds.morganOf(others);
    // a compound without a structure in the index is no analogue
    const candidates = others
      .flatMap((compound, i) => (fingerprints[i] ? [{ compound, similarity: tanimoto(probe, fingerprints[i]), values: byCompound.get(compound)! }] : []))
      .sort((a, b) => b.similarity - a.similarity || byId(a.compound, b.compound));
    return { features, targetValues, candidates };
  }

  /** The first `k` of the ranked whose profiles carry the terms (profiles made in that order, no more than needed). */
  private async carryingFirst<T extends { compound: string }>(ranked: T[], terms: string[], k: number): Promise<T[]> {
    const kept: T[] = [];
    for (let i = 0; i < ranked.length && kept.length < k; i += k) kept.push(...(await carrying(this.profileOf, ranked.slice(i, i + k), terms)).kept);
    return kept.slice(0, k);
  }

  /** Tanimoto similarity of compounds to a target (undefined for a compound without a structure in the index). */
  similarities(target: string, compounds: string[]): (number | undefined)[] {
    const [probe, ...others] = this.compounds.morganOf([target, ...compounds]);
    return others.map((fp) => (probe && fp ? tanimoto(probe, fp) : undefined));
  }

  /** The endpoint's measured features: the feature named, or every feature `owl:sameAs` the term (predictions of models left out). */
  private async measuredFeatures(endpoint: string): Promise<string[]> {
    const { uris, store } = this.services;
    const isFeature = uris.isIn('feature', endpoint);
    const named = isFeature ? ((await this.exists(endpoint)) ? [endpoint] : []) : (await select(store, featureQueries.sameAs(endpoint))).map((r) => r.f.value);
    if (!named.length) throw notFound(`endpoint: ${endpoint} is neither a feature here nor an ontology term a feature is owl:sameAs`);
    const records = await readFeatureRecords(store, named);
    const measured = named.filter((f) => {
      const source = records.get(f)?.source;
      return !(source && uris.isIn('model', source));
    });
    if (!measured.length) throw badRequest(`endpoint: ${endpoint} names only models' predictions; read-across reads measured values`);
    return measured;
  }

  private async exists(feature: string): Promise<boolean> {
    return (await this.services.store.readGraph(feature)).some((q) => q.subject.value === feature && q.object.equals(ot('Feature')));
  }

  /** Per compound, the values of the features in the primary datasets the caller may read. */
  private async readableValues(features: string[], canRead: (uri: string) => boolean): Promise<Map<string, SourcedValue[]>> {
    const primary = new Map<string, boolean>();
    const isPrimary = async (dataset: string) => {
      let known = primary.get(dataset);
      if (known === undefined) {
        const meta = this.services.uris.isIn('dataset', dataset) && canRead(dataset) ? await this.datasets.readMeta(dataset) : undefined;
        // an algorithm or a model made it when its source is one (an upload's source is its file's name)
        known = !!meta && !meta.annotations.some(([p, o]) => p.equals(ot('hasSource')) && o.termType === 'NamedNode');
        primary.set(dataset, known);
      }
      return known;
    };
    const out = new Map<string, SourcedValue[]>();
    for (const r of await select(this.services.store, readAcrossQueries.endpointValues(features))) {
      if (r.v.termType !== 'Literal' || r.v.value.trim() === '') continue;
      const dataset = r.g.value.replace(/\/entries$/, '');
      if (dataset === r.g.value || !(await isPrimary(dataset))) continue;
      const list = out.get(r.c.value) ?? [];
      list.push({ value: r.v as RDF.Literal, feature: r.f.value, dataset });
      out.set(r.c.value, list);
    }
    for (const list of out.values()) list.sort((a, b) => byId(a.dataset, b.dataset));
    return out;
  }

  /** The ranked analogues that hold a substructure (RDKit on the worker pool); 400 for a pattern RDKit cannot read. */
  async holding<T extends { compound: string }>(ranked: T[], smarts: string): Promise<T[]> {
    const smiles = await this.smilesOf(ranked.map((a) => a.compound));
    let found: (number[] | null)[];
    try {
      found = await this.services.workers.run<(number[] | null)[]>(FRAGMENTS_MODULE, 'substructureOccurrences', [smiles.map((s) => s ?? ''), [smarts]]);
    } catch (e) {
      throw badRequest(`smarts: ${(e as Error).message}`);
    }
    return ranked.filter((_, i) => found[i]?.includes(0));
  }
}

/** Tanimoto similarity of two bit vectors (0 when both are empty). */
export function tanimoto(a: Uint32Array, b: Uint32Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += popcount(a[i] & b[i]);
    either += popcount(a[i] | b[i]);
  }
  return either ? both / either : 0;
}
