import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { ontologyRoutes } from './ontology-routes.ts';
import type { OntologyRegistry } from './registry.ts';

export interface OntologyDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'> {
  registry: OntologyRegistry;
}

/** The ontology service (spec 4.8): the registered services and vocabularies, and SPARQL over them. */
export function createOntologyComponent(deps: OntologyDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => ontologyRoutes(routes, deps, deps.registry) };
}
