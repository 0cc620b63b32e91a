import type { Config } from '../config.js';
import type { UriScheme } from './uri-scheme.js';
import type { Logger } from '../log.js';
import type { TripleStore } from '../store/triple-store.js';
import type { IdMinter } from '../store/id-minter.js';
import type { TaskRunner } from '../task/task-runner.js';
import type { WorkerPool } from '../task/worker-pool.js';
import type { ShapeValidator } from '../shacl/shape-validator.js';
import type { PublishedScope } from '../ontology/published-scope.js';
import type { Chemistry } from '../chemistry/chemistry.js';
import type { AccessControl } from '../auth/access-control.js';
import type { ServiceMetrics } from '../operations/metrics.js';
import type { Coordination } from '../coordination/coordination.js';

/** The shared machinery every component gets: one of each, never copied per component. */
export interface Services {
  config: Config;
  /** Every resource URI is built and taken apart by it. */
  uris: UriScheme;
  log: Logger;
  store: TripleStore;
  ids: IdMinter;
  tasks: TaskRunner;
  /** What processes sharing the store agree on (one process alone: in memory). */
  coordination: Coordination;
  workers: WorkerPool;
  shapes: ShapeValidator;
  published: PublishedScope;
  chemistry: Chemistry;
  access: AccessControl;
  metrics: ServiceMetrics;
}
