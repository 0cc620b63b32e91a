import type { Config } from './config.ts';
import type { UriScheme } from './uri-scheme.ts';
import type { Logger } from './log.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { IdMinter } from '../store/id-minter.ts';
import type { TaskRunner } from '../task/task-runner.ts';
import type { WorkerPool } from '../task/worker-pool.ts';
import type { ShapeValidator } from '../shacl/shape-validator.ts';
import type { PublishedScope } from '../ontology/published-scope.ts';
import type { Chemistry } from '../chemistry/chemistry.ts';
import type { OpsinNameParser } from '../chemistry/opsin-name-parser.ts';
import type { AccessControl } from '../auth/access-control.ts';
import type { ServiceMetrics } from '../operations/metrics.ts';
import type { Coordination } from './coordination.ts';

/** The shared machinery: one of each, never copied per component; a component's deps pick the members it uses. */
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
  /**
   * Threads for structure searches (structure-index/): kept for minutes when idle, where the
   * task pool's end after seconds (a search thread holds little, and a new one takes a third
   * of a second to load RDKit, which a search would wait for).
   */
  searchWorkers: WorkerPool;
  shapes: ShapeValidator;
  published: PublishedScope;
  chemistry: Chemistry;
  /** OPSIN, parsing systematic chemical names (one long-lived Java process, started with the first name). */
  opsin: OpsinNameParser;
  access: AccessControl;
  metrics: ServiceMetrics;
}
