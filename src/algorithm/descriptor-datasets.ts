import type * as RDF from '@rdfjs/types';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import type { ParamValue } from '../learning/learner.ts';
import type { DescriptorAlgorithm, DescriptorCalculation } from './descriptor-calculation.ts';

export interface DescribeRequest {
  def: DescriptorAlgorithm;
  values: Record<string, ParamValue>;
  source: DatasetMeta;
  /** Features of the source to keep (all when empty). */
  selected: string[];
  /** Add the new columns to this dataset instead of making a new one. */
  into?: DatasetMeta;
}

/**
 * A descriptor calculation applied to a dataset (spec 2.4 DescriptorCalculation): a new dataset
 * with the source's columns and the calculated ones (their features those of the algorithm
 * instance for these values), or the new columns added to `into`. Answers the dataset's URI.
 */
export async function describeDataset(
  descriptors: DescriptorCalculation,
  datasets: DatasetStore,
  request: DescribeRequest,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {},
): Promise<string> {
  const { def, values, source, selected } = request;
  const instance = await descriptors.instance(def, values);
  const rows = await datasets.allRows(source.uri);
  const empty = new Map<string, { reason: string; rows: number[] }>();
  const columns = await descriptors.calculate(
    def,
    values,
    instance,
    rows.map((r) => r.compound),
    {
      ...job,
      leftEmpty: (j, i, reason) => {
        const key = `${instance.columns[j].title}\u0000${reason}`;
        if (!empty.has(key)) empty.set(key, { reason, rows: [] });
        empty.get(key)!.rows.push(i + 1);
      },
    },
  );
  const calculated = rows.map((_, i) => instance.features.flatMap((f, j): [string, RDF.Literal][] => (columns[j][i] ? [[f, columns[j][i]!]] : [])));
  if (request.into) {
    await datasets.addColumns(request.into, instance.features, new Map(rows.map((r, i) => [r.compound, calculated[i]])), emptyValueWarnings(empty));
    return request.into.uri;
  }
  const kept = selected.length ? source.features.filter((f) => selected.includes(f)) : source.features;
  const features = [...kept, ...instance.features.filter((f) => !kept.includes(f))];
  const out = rows.map((r, i) => {
    const values = new Map([...kept.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!] as [string, RDF.Literal]), ...calculated[i]]);
    return { compound: r.compound, values: features.filter((f) => values.has(f)).map((f) => [f, values.get(f)!] as [string, RDF.Literal]) };
  });
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [dc('title'), literal(`${source.title ?? source.uri} with ${def.title}`)],
    [ot('hasSource'), df.namedNode(instance.uri)],
    [dc('source'), df.namedNode(source.uri)],
  ];
  return datasets.createFromRows(annotations, features, out, {}, emptyValueWarnings(empty));
}

/** One warning per descriptor and reason: `kappa3 left empty for 3 structure(s) (rows 2, 7, 9): Kier's κ3 is defined only …`. */
function emptyValueWarnings(empty: Map<string, { reason: string; rows: number[] }>): string[] {
  return [...empty].map(([key, { reason, rows }]) => {
    const title = key.slice(0, key.indexOf('\u0000'));
    const shown = rows.slice(0, 10).join(', ') + (rows.length > 10 ? ` and ${rows.length - 10} more` : '');
    return `${title} left empty for ${rows.length} structure(s) (row${rows.length === 1 ? '' : 's'} ${shown}): ${reason}`;
  });
}
