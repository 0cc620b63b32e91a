import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { AnalogueSearch } from './analogue-search.ts';
import { descriptorValues } from './descriptor-values.ts';
import { readAcrossRoutes } from './read-across-routes.ts';
import { Categories } from './categories.ts';
import { categoryRoutes, gapFillingRoute } from './category-routes.ts';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import type { ModelStore } from '../model/model-store.ts';
import type { Predictor } from '../model/prediction.ts';
import type { Profiles } from '../profiler/profiles.ts';

export interface ReadAcrossDeps extends Pick<Services, 'store' | 'uris' | 'workers' | 'ids' | 'config'> {
  compounds: CompoundRegistry;
  datasets: DatasetStore;
  /** The model component's: compounds' SMILES, and the descriptors of a data matrix… */
  descriptors: DescriptorCalculation;
  /** …and the QSAR models of an endpoint, applied to a target when its gap is filled. */
  models: ModelStore;
  predictor: Predictor;
  /** The profiler component's: compounds' profiles, for profile filters. */
  profiles: Pick<Profiles, 'profileOf'>;
  /** What a category's page offers next (the assessment component's form: it is made after this one). */
  categoryNextStep?: (category: string) => string;
}

/** Read-across (issue 56): analogues of a target with measured data for an endpoint, from every dataset the caller may read; categories and their data matrices. */
export function createReadAcrossComponent(deps: ReadAcrossDeps) {
  const analogues = new AnalogueSearch(
    deps,
    deps.compounds,
    deps.datasets,
    (c) => deps.descriptors.smilesOf(c),
    descriptorValues(deps.descriptors),
    (c) => deps.profiles.profileOf(c, undefined, { keep: false }),
  );
  const categories = new Categories(deps, analogues, deps.descriptors, { store: deps.models, predictor: deps.predictor });
  return {
    operations: { analogues, categories },
    jobs: {},
    routes: (routes: DescribedRoutes) => {
      readAcrossRoutes(routes, deps, analogues);
      categoryRoutes(routes, deps, categories, deps.categoryNextStep);
      gapFillingRoute(routes, deps, categories);
    },
  };
}
