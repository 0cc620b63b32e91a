import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import type { Categories } from '../read-across/categories.ts';
import { Assessments } from './assessments.ts';
import { assessmentRoutes } from './assessment-routes.ts';

export interface AssessmentDeps extends Pick<Services, 'store' | 'uris' | 'ids' | 'config' | 'workers'> {
  /** The read-across component's: an assessment is built on a category and its gap filling. */
  categories: Categories;
}

/** Read-across assessments (issue 57): the document around a read-across, structured by ECHA's RAAF and EFSA's uncertainty assessment. */
export function createAssessmentComponent(deps: AssessmentDeps) {
  const assessments = new Assessments(deps, deps.categories);
  return { operations: { assessments }, jobs: {}, routes: (routes: DescribedRoutes) => assessmentRoutes(routes, deps, assessments) };
}
