import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseAllowedRanges, parseTrustedProxies, type Cidr } from './address-rules.ts';

/** A number of requests per period. */
export interface JobQuota {
  limit: number;
  periodMs: number;
}

const PERIODS: Record<string, number> = { s: 1000, min: 60_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `20/h`, `100/d`, `5/min`, `1/30s`: requests per period. */
export function parseQuota(text: string): JobQuota {
  const m = /^\s*(\d+)\s*\/\s*(\d*)\s*(s|min|m|h|d)\s*$/.exec(text);
  if (!m) throw new Error(`a quota is a number per period, such as 20/h, 100/d, 5/min or 1/30s, not ${text}`);
  return { limit: Number(m[1]), periodMs: Number(m[2] || 1) * PERIODS[m[3]] };
}

/** `curators=200/h,students=10/h`: quotas by group. */
function parseGroupQuotas(text: string): Map<string, JobQuota> {
  return new Map(
    list(text).map((entry) => {
      const [group, quota] = entry.split('=');
      if (!group || !quota) throw new Error(`a group quota is GROUP=N/PERIOD, not ${entry}`);
      return [group.trim(), parseQuota(quota)];
    }),
  );
}

export interface Config {
  port: number;
  /** Interface to listen on; empty: 127.0.0.1 with access control off, 0.0.0.0 with it on. */
  host: string;
  dataDir: string;
  /** Prefix of every URI the server mints, without a trailing slash. */
  baseUrl: string;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** SPARQL query time limit in milliseconds. */
  queryTimeoutMs: number;
  /** Hits a structure search answers at most per page (and by default). */
  searchResultLimit: number;
  /** Allow SPARQL SERVICE clauses (federated queries to other endpoints). */
  sparqlService: boolean;
  /** With access control off: may anyone run SPARQL updates (and write through the Graph Store Protocol)? */
  sparqlUpdate: boolean;
  /** Concurrent background jobs (tasks). */
  taskConcurrency: number;
  /** Worker threads for CPU-heavy task work. */
  workerThreads: number;
  /** Seconds between refreshes of registered remote resources (0: never). */
  harvestIntervalSeconds: number;
  harvestTimeoutMs: number;
  harvestMaxBytes: number;
  /** URL prefixes that registration may fetch; empty means any http(s) URL. */
  harvestAllow: string[];
  /** Internal address ranges that outbound requests may reach anyway (none by default). */
  allowPrivateTargets: Cidr[];
  /** Proxies whose X-Forwarded-For (and -Proto, -Host) is believed; none by default: the socket's peer is the caller. */
  trustProxy: Cidr[];
  /** Access control (spec 5): off by default. */
  auth: boolean;
  adminUser?: string;
  adminPassword?: string;
  tokenTtlSeconds: number;
  /** An OpenID Connect provider whose JWTs are accepted as tokens (its JWKS URL, issuer, audience). */
  oidcJwksUrl?: string;
  oidcIssuer?: string;
  oidcAudience?: string;
  /** What others may do with a new resource: nothing, or read it. */
  defaultAccess: 'private' | 'public-read';
  /** Dataset uploads larger than this (bytes) run as tasks (202 + task URI). */
  datasetTaskBytes: number;
  /** Imported model files (ONNX) larger than this (bytes) are refused with 413. */
  modelImportBytes: number;
  /** Requests that start jobs (uploads, descriptors, training, validation, predictions of datasets) each caller may send per period (none: no limit). */
  jobQuota?: JobQuota;
  /** The same for the members of a group (the largest of a caller's groups' applies). */
  groupJobQuotas: Map<string, JobQuota>;
  /** Uploads of more rows (structures) than this run as tasks, whatever their size in bytes. */
  datasetTaskRows: number;
  /** Where the desktop QMRF editor's Java Web Start files are (the code base of `/reach_report/qmrf/{id}/editor`). */
  qmrfEditorCodebase: string;
  quiet: boolean;
  /** Megabytes of representations kept to answer repeated GETs while the store is unchanged (0: none). */
  representationCacheMb: number;
  /** A remote SPARQL 1.1 store instead of the embedded one: its query endpoint (README, "Scaling out"). */
  storeUrl?: string;
  /** Its update endpoint (default: the query endpoint). */
  storeUpdateUrl?: string;
  /** HTTP Basic credentials for the remote store. */
  storeUser?: string;
  storePassword?: string;
  /** A bearer token for a store behind a gateway (sent instead of a user and password). */
  storeToken?: string;
  /** Seconds a start waits for a remote store that is not answering yet (a container started beside it). */
  storeWaitSeconds: number;
  /** Seconds a stop waits for the jobs it aborted to wind down before the store closes. */
  stopWaitSeconds: number;
  /** A Redis that several processes share: the task queue, id counters, messages (README, "Scaling out"). */
  redisUrl?: string;
  /** The prefix of every Redis key (several deployments may share one Redis). */
  redisPrefix: string;
  /** Seconds after which a job whose worker stopped renewing its lock is run again (or ended). */
  jobLockSeconds: number;
  /** OPSIN's command-line jar, which parses systematic chemical names (Debian's libopsin-java by default). */
  opsinJar: string;
}

/** `bare`: the value of the flag given without one (`--auth`). */
type Spec = { flag: string; env: string; parse: (v: string) => unknown; key: keyof Config; bare?: string };

const int = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${v}`);
  return n;
};
const bool = (v: string) => ['1', 'true', 'on', 'yes'].includes(v.toLowerCase());
const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const SPECS: Spec[] = [
  { flag: 'port', env: 'PORT', parse: int, key: 'port' },
  { flag: 'host', env: 'TOXGRAPH_HOST', parse: String, key: 'host' },
  { flag: 'data', env: 'TOXGRAPH_DATA_DIR', parse: (v) => resolve(v), key: 'dataDir' },
  { flag: 'base-url', env: 'TOXGRAPH_BASE_URL', parse: (v) => v.replace(/\/+$/, ''), key: 'baseUrl' },
  { flag: 'body-limit', env: 'TOXGRAPH_BODY_LIMIT', parse: int, key: 'bodyLimit' },
  { flag: 'query-timeout', env: 'TOXGRAPH_QUERY_TIMEOUT_MS', parse: int, key: 'queryTimeoutMs' },
  { flag: 'search-result-limit', env: 'TOXGRAPH_SEARCH_RESULT_LIMIT', parse: int, key: 'searchResultLimit' },
  { flag: 'sparql-service', env: 'TOXGRAPH_SPARQL_SERVICE', parse: bool, key: 'sparqlService' },
  { flag: 'sparql-update', env: 'TOXGRAPH_SPARQL_UPDATE', parse: bool, key: 'sparqlUpdate', bare: 'true' },
  { flag: 'task-concurrency', env: 'TOXGRAPH_TASK_CONCURRENCY', parse: int, key: 'taskConcurrency' },
  { flag: 'workers', env: 'TOXGRAPH_WORKERS', parse: int, key: 'workerThreads' },
  { flag: 'harvest-interval', env: 'TOXGRAPH_HARVEST_INTERVAL', parse: int, key: 'harvestIntervalSeconds' },
  { flag: 'harvest-timeout', env: 'TOXGRAPH_HARVEST_TIMEOUT_MS', parse: int, key: 'harvestTimeoutMs' },
  { flag: 'harvest-max-bytes', env: 'TOXGRAPH_HARVEST_MAX_BYTES', parse: int, key: 'harvestMaxBytes' },
  { flag: 'harvest-allow', env: 'TOXGRAPH_HARVEST_ALLOW', parse: list, key: 'harvestAllow' },
  { flag: 'allow-private-targets', env: 'TOXGRAPH_ALLOW_PRIVATE_TARGETS', parse: parseAllowedRanges, key: 'allowPrivateTargets', bare: 'all' },
  { flag: 'trust-proxy', env: 'TOXGRAPH_TRUST_PROXY', parse: parseTrustedProxies, key: 'trustProxy' },
  { flag: 'auth', env: 'TOXGRAPH_AUTH', parse: bool, key: 'auth' },
  { flag: 'admin-user', env: 'TOXGRAPH_ADMIN_USER', parse: String, key: 'adminUser' },
  { flag: 'admin-password', env: 'TOXGRAPH_ADMIN_PASSWORD', parse: String, key: 'adminPassword' },
  { flag: 'admin-password-file', env: 'TOXGRAPH_ADMIN_PASSWORD_FILE', parse: secretFile, key: 'adminPassword' },
  { flag: 'oidc-jwks-url', env: 'TOXGRAPH_OIDC_JWKS_URL', parse: String, key: 'oidcJwksUrl' },
  { flag: 'oidc-issuer', env: 'TOXGRAPH_OIDC_ISSUER', parse: String, key: 'oidcIssuer' },
  { flag: 'oidc-audience', env: 'TOXGRAPH_OIDC_AUDIENCE', parse: String, key: 'oidcAudience' },
  { flag: 'token-ttl', env: 'TOXGRAPH_TOKEN_TTL', parse: int, key: 'tokenTtlSeconds' },
  {
    flag: 'default-access',
    env: 'TOXGRAPH_DEFAULT_ACCESS',
    parse: (v) => {
      if (v !== 'private' && v !== 'public-read') throw new Error(`--default-access is private or public-read, not ${v}`);
      return v;
    },
    key: 'defaultAccess',
  },
  { flag: 'dataset-task-bytes', env: 'TOXGRAPH_DATASET_TASK_BYTES', parse: int, key: 'datasetTaskBytes' },
  { flag: 'dataset-task-rows', env: 'TOXGRAPH_DATASET_TASK_ROWS', parse: int, key: 'datasetTaskRows' },
  { flag: 'model-import-bytes', env: 'TOXGRAPH_MODEL_IMPORT_BYTES', parse: int, key: 'modelImportBytes' },
  { flag: 'job-quota', env: 'TOXGRAPH_JOB_QUOTA', parse: parseQuota, key: 'jobQuota' },
  { flag: 'group-job-quotas', env: 'TOXGRAPH_GROUP_JOB_QUOTAS', parse: parseGroupQuotas, key: 'groupJobQuotas' },
  { flag: 'quiet', env: 'TOXGRAPH_QUIET', parse: bool, key: 'quiet' },
  { flag: 'representation-cache-mb', env: 'TOXGRAPH_REPRESENTATION_CACHE_MB', parse: int, key: 'representationCacheMb' },
  { flag: 'store-url', env: 'TOXGRAPH_STORE_URL', parse: String, key: 'storeUrl' },
  { flag: 'store-update-url', env: 'TOXGRAPH_STORE_UPDATE_URL', parse: String, key: 'storeUpdateUrl' },
  { flag: 'store-user', env: 'TOXGRAPH_STORE_USER', parse: String, key: 'storeUser' },
  { flag: 'store-password', env: 'TOXGRAPH_STORE_PASSWORD', parse: String, key: 'storePassword' },
  // as container secrets are mounted: the file's content, without its final newline
  { flag: 'store-password-file', env: 'TOXGRAPH_STORE_PASSWORD_FILE', parse: secretFile, key: 'storePassword' },
  { flag: 'store-wait', env: 'TOXGRAPH_STORE_WAIT', parse: int, key: 'storeWaitSeconds' },
  { flag: 'stop-wait', env: 'TOXGRAPH_STOP_WAIT', parse: int, key: 'stopWaitSeconds' },
  { flag: 'store-token', env: 'TOXGRAPH_STORE_TOKEN', parse: String, key: 'storeToken' },
  { flag: 'store-token-file', env: 'TOXGRAPH_STORE_TOKEN_FILE', parse: secretFile, key: 'storeToken' },
  { flag: 'redis-url', env: 'TOXGRAPH_REDIS_URL', parse: String, key: 'redisUrl' },
  { flag: 'redis-prefix', env: 'TOXGRAPH_REDIS_PREFIX', parse: String, key: 'redisPrefix' },
  { flag: 'job-lock-seconds', env: 'TOXGRAPH_JOB_LOCK_SECONDS', parse: int, key: 'jobLockSeconds' },
  { flag: 'opsin-jar', env: 'TOXGRAPH_OPSIN_JAR', parse: String, key: 'opsinJar' },
  { flag: 'qmrf-editor-codebase', env: 'TOXGRAPH_QMRF_EDITOR_CODEBASE', parse: (v) => v.replace(/\/+$/, ''), key: 'qmrfEditorCodebase' },
];

export function defaultConfig(): Config {
  const cores = availableParallelism();
  return {
    port: 8080,
    host: '',
    dataDir: resolve('data'),
    baseUrl: '',
    bodyLimit: 50 * 1024 * 1024,
    queryTimeoutMs: 30_000,
    searchResultLimit: 10_000,
    sparqlService: false,
    sparqlUpdate: false,
    taskConcurrency: cores,
    workerThreads: Math.max(1, cores),
    harvestIntervalSeconds: 3600,
    harvestTimeoutMs: 10_000,
    harvestMaxBytes: 10 * 1024 * 1024,
    harvestAllow: [],
    allowPrivateTargets: [],
    trustProxy: [],
    auth: false,
    tokenTtlSeconds: 24 * 3600,
    defaultAccess: 'private',
    datasetTaskBytes: 1024 * 1024,
    datasetTaskRows: 2000,
    modelImportBytes: 64 * 1024 * 1024,
    groupJobQuotas: new Map(),
    quiet: false,
    representationCacheMb: 8,
    redisPrefix: 'toxgraph',
    storeWaitSeconds: 0,
    stopWaitSeconds: 10,
    jobLockSeconds: 30,
    qmrfEditorCodebase: 'https://qmrf.sourceforge.net/editor',
    opsinJar: '/usr/share/java/opsin.jar',
  };
}

/** A secret kept in a file (a mounted container secret): its text without the final line break. */
function secretFile(path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as Error).message}`);
  }
}

/** Flags (`--port 9000`, `--port=9000`) win over environment variables, which win over defaults. */
export function loadConfig(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Config {
  const config = defaultConfig() as unknown as Record<string, unknown>;
  for (const spec of SPECS) {
    const v = env[spec.env];
    if (v !== undefined && v !== '') config[spec.key] = spec.parse(v);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const spec = SPECS.find((s) => s.flag === name);
    if (!spec) throw new Error(`unknown flag --${name}`);
    const bare = spec.bare ?? (spec.parse === bool ? 'true' : undefined);
    const value = inline ?? (bare !== undefined && (argv[i + 1] === undefined || argv[i + 1].startsWith('--')) ? bare : argv[++i]);
    if (value === undefined) throw new Error(`--${name} needs a value`);
    config[spec.key] = spec.parse(value);
  }
  if (!config.host) config.host = config.auth ? '0.0.0.0' : '127.0.0.1';
  // An empty baseUrl is filled in by startServer once the port is known (`--port 0` picks one).
  return config as unknown as Config;
}
