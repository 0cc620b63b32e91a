import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { AnalogueSearch } from './analogue-search.ts';
import { readAcrossRoutes } from './read-across-routes.ts';

export interface ReadAcrossDeps extends Pick<Services, 'store' | 'uris' | 'workers'> {
  compounds: CompoundRegistry;
  datasets: DatasetStore;
  /** Compounds' canonical SMILES (the descriptor calculation's). */
  smilesOf: (compounds: string[]) => Promise<(string | undefined)[]>;
}

/** Read-across (issue 56): analogues of a target with measured data for an endpoint, from every dataset the caller may read. */
export function createReadAcrossComponent(deps: ReadAcrossDeps) {
  const analogues = new AnalogueSearch(deps, deps.compounds, deps.datasets, deps.smilesOf);
  return { operations: { analogues }, jobs: {}, routes: (routes: DescribedRoutes) => readAcrossRoutes(routes, deps, analogues) };
}
