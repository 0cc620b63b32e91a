import type * as RDF from '@rdfjs/types';
import { createHash } from 'node:crypto';
import type { ParamValue } from '../learning/learner.ts';
import { literal, xsd } from '../rdf/namespaces.ts';
import { featureGraph } from '../feature/feature-record.ts';
import { featureQueries } from '../feature/feature-queries.ts';
import { select } from '../store/query-helpers.ts';
import { structureFrom } from '../compound/compound-codec.ts';
import { currentUser } from '../core/request-context.ts';
import type { Services } from '../core/services.ts';
import { algorithmQuads, type AlgorithmDefinition } from './catalogue.ts';
import type { DescriptorColumn } from './descriptor-sets.ts';
import { runInChunks } from '../task/worker-pool.ts';

export type DescriptorAlgorithm = Extract<AlgorithmDefinition, { kind: 'descriptors' }>;

/** An algorithm instance (spec 2.4): the algorithm with the parameter values used, and its features. */
export interface DescriptorInstance {
  uri: string;
  columns: DescriptorColumn[];
  /** Feature URI per column, in column order. */
  features: string[];
}

const CALCULATION_MODULE = new URL('../chemistry/descriptor-calculation.ts', import.meta.url).href;
const CHUNK = 250;

/**
 * Runs descriptor algorithms. Invoking one with parameter values makes (once) an algorithm
 * instance `/algorithm/{id}/{hash of the values}` and one feature per output column with
 * `ot:hasSource` the instance; the same values always give the same instance and features, so
 * descriptors calculated for different datasets are the same features (a model trained on
 * one dataset can predict another). The chemistry runs in the worker pool.
 */
export class DescriptorCalculation {
  private readonly creating = new Map<string, Promise<DescriptorInstance>>();

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids' | 'workers'>;
  constructor(services: DescriptorCalculation['services']) {
    this.services = services;
  }

  instanceUri(def: DescriptorAlgorithm, values: Record<string, ParamValue>): string {
    const canonical = JSON.stringify(
      Object.keys(values)
        .sort()
        .map((k) => [k, values[k]]),
    );
    const hash = createHash('sha256').update(canonical).digest('hex').slice(0, 12);
    return `${this.services.uris.item('algorithm', def.id)}/${hash}`;
  }

  /** The instance for these values, created with its features on first use (one batch). */
  instance(def: DescriptorAlgorithm, values: Record<string, ParamValue>): Promise<DescriptorInstance> {
    const uri = this.instanceUri(def, values);
    let pending = this.creating.get(uri);
    if (!pending) {
      pending = this.findOrCreate(def, values, uri).finally(() => this.creating.delete(uri));
      this.creating.set(uri, pending);
    }
    return pending;
  }

  private async findOrCreate(def: DescriptorAlgorithm, values: Record<string, ParamValue>, uri: string): Promise<DescriptorInstance> {
    const { store, ids } = this.services;
    const columns = def.descriptors.columns(values);
    const existing = await this.featuresOf(uri);
    if (columns.every((c) => existing.has(c.title))) return { uri, columns, features: columns.map((c) => existing.get(c.title)!) };
    const graphs: Record<string, RDF.Quad[]> = {};
    const features: string[] = [];
    for (const c of columns) {
      const known = existing.get(c.title);
      if (known) {
        features.push(known);
        continue;
      }
      // descriptor features are shared by every user, like the algorithm instance: nobody owns them
      const f = await currentUser.run(undefined, () => ids.next(this.services.uris.collection('feature')));
      graphs[f] = descriptorFeatureQuads(f, c, uri);
      features.push(f);
    }
    graphs[uri] = algorithmQuads(def, uri, { of: this.services.uris.item('algorithm', def.id), values, date: new Date().toISOString() });
    await store.replaceGraphs(graphs);
    return { uri, columns, features };
  }

  /** Features of an instance, by title. */
  private async featuresOf(instanceUri: string): Promise<Map<string, string>> {
    const rows = await select(this.services.store, featureQueries.madeBy(instanceUri));
    return new Map(rows.map((r) => [r.t.value, r.f.value]));
  }

  /**
   * Calculate the instance's features for compounds: one value list per feature, aligned with
   * `compounds` (undefined where the structure cannot be read or a value is missing). `smiles`
   * gives other structures to calculate from, one per compound (a supermodel's parents).
   */
  async calculate(
    def: DescriptorAlgorithm,
    values: Record<string, ParamValue>,
    instance: DescriptorInstance,
    compounds: string[],
    options: {
      signal?: AbortSignal;
      progress?: (fraction: number) => void;
      smiles?: (string | undefined)[];
      /** Told of each value left empty because it is not meaningful for its structure (chemistry/descriptor-validity.ts). */
      leftEmpty?: (column: number, row: number, reason: string) => void;
    } = {},
  ): Promise<(RDF.Literal | undefined)[][]> {
    const smiles = options.smiles ?? (await this.smilesOf(compounds));
    const call = def.descriptors.call(values, instance.columns);
    const unique = [...new Set(smiles.filter((s): s is string => !!s))];
    const results = await runInChunks<string, (number | string)[] | null>(this.services.workers, { module: CALCULATION_MODULE, fn: call.exportName, chunk: CHUNK, args: call.args }, unique, options);
    const bySmiles = new Map(unique.map((s, i) => [s, results[i]]));
    const fingerprint = instance.columns.length === 1 && instance.columns[0].bits !== undefined;
    return instance.columns.map((_, j) =>
      smiles.map((s, i) => {
        const row = s ? bySmiles.get(s) : null;
        if (!row) return undefined;
        if (fingerprint) return literal(row.join(' '));
        const v = row[j];
        if (typeof v === 'string') {
          options.leftEmpty?.(j, i, v);
          return undefined;
        }
        return Number.isFinite(v) ? literal(String(v), xsd('double')) : undefined;
      }),
    );
  }

  /** The canonical SMILES of compounds (undefined for a compound without a readable structure). */
  async smilesOf(compounds: string[]): Promise<(string | undefined)[]> {
    const graphs = await this.services.store.readEachGraph(compounds);
    return compounds.map((c, i) => structureFrom(graphs[i], c)?.smiles);
  }
}

export function descriptorFeatureQuads(uri: string, column: DescriptorColumn, source: string): RDF.Quad[] {
  const { title, description, units, bits, sameAs } = column;
  return featureGraph({ uri, title, description, units, kind: bits === undefined ? 'numeric' : 'fingerprint', bits, source, sameAs: sameAs ? [sameAs] : [] });
}
