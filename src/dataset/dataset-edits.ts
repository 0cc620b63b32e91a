import type * as RDF from '@rdfjs/types';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore, RowFilter } from './dataset-store.ts';
import { mergeAnnotations, metadataQuads } from './dataset-codec.ts';
import type { InputTable } from './table-input.ts';

type Annotations = [RDF.NamedNode, RDF.Term][];

/** Changes to datasets made from other datasets and from parameters (spec 4.12): subsets, merges, partial deletes, metadata. */
export class DatasetEdits {
  private readonly services: Pick<Services, 'store' | 'ids'>;
  private readonly datasets: DatasetStore;
  constructor(services: DatasetEdits['services'], datasets: DatasetStore) {
    this.services = services;
    this.datasets = datasets;
  }

  /** A new dataset holding the rows and features of `source` that `filter` selects. */
  async subset(source: DatasetMeta, filter: RowFilter, annotations: Annotations): Promise<string> {
    const features = selectedFeatures(source, filter);
    const rows: { compound: string; values: [string, RDF.Literal][] }[] = [];
    for await (const r of this.datasets.rows(source.uri, filter)) rows.push({ compound: r.compound, values: features.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]) });
    const uri = await this.services.ids.next(this.datasets.collection);
    const merged = mergeAnnotations(
      [
        [dc('title'), literal(`Subset of ${source.title ?? source.uri}`)],
        [ot('hasSource'), df.namedNode(source.uri)],
      ],
      annotations,
    );
    await this.datasets.rewrite(uri, { annotations: merged, features, warnings: [] }, rows);
    return uri;
  }

  /** Merge the rows and features of `source` that `filter` selects into `target` (same compound and feature: overwritten). */
  async mergeFrom(target: DatasetMeta, source: DatasetMeta, filter: RowFilter, annotations: Annotations): Promise<void> {
    const features = selectedFeatures(source, filter);
    const table: InputTable = { columns: features.map((f) => ({ title: f, featureUri: f })), rows: [], warnings: [], unit: 'entry' };
    let n = 0;
    for await (const r of this.datasets.rows(source.uri, filter)) table.rows.push({ line: ++n, structure: { uri: r.compound }, cells: features.map((f) => r.values.get(f)) });
    await this.datasets.merge(target.uri, target, table, annotations);
  }

  /** Remove compounds (their rows) and features (their columns); with neither, the whole dataset. */
  async remove(meta: DatasetMeta, compounds: string[], features: string[]): Promise<void> {
    if (!compounds.length && !features.length) return this.datasets.delete(meta.uri);
    const keepFeatures = meta.features.filter((f) => !features.includes(f));
    const rows: { compound: string; values: [string, RDF.Literal][] }[] = [];
    for await (const r of this.datasets.rows(meta.uri)) {
      if (compounds.includes(r.compound)) continue;
      rows.push({ compound: r.compound, values: keepFeatures.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]) });
    }
    await this.datasets.rewrite(meta.uri, { annotations: meta.annotations, features: keepFeatures, warnings: meta.warnings, created: meta.created }, rows);
  }

  /** Add or replace annotations of the dataset (its rows untouched). */
  async setMetadata(meta: DatasetMeta, fresh: Annotations): Promise<void> {
    if (!fresh.length) throw badRequest('no metadata to set: send Dublin Core parameters (title, license, ...) or RDF about the dataset');
    const annotations = mergeAnnotations(meta.annotations, fresh);
    // a selection stays one: its rows are untouched
    const graph = metadataQuads(meta.uri, {
      annotations,
      features: meta.features,
      warnings: meta.warnings,
      created: meta.created,
      modified: meta.modified,
      rowsOf: meta.rowsOf,
      selectedRows: meta.selectedRows,
    });
    await this.services.store.replaceGraphs({ [meta.uri]: graph });
  }
}

function selectedFeatures(source: DatasetMeta, filter: RowFilter): string[] {
  return filter.features?.length ? source.features.filter((f) => filter.features!.includes(f)) : source.features;
}
