import { canonicalPath, isCanonicalPath } from './canonical-path.ts';

/**
 * Every URI of this server's resources is built and taken apart here, and nowhere else:
 * collections (`{base}/dataset`), items (`{base}/dataset/7`), the named graphs that belong to a
 * resource (`{base}/dataset/7/entries`), "which resource is this URI", and dataset references
 * as clients write them (`{base}/dataset/7?feature_uris[]=…`).
 */

/** Components whose resources live at `{base}/{component}/{id}`. */
export const COMPONENTS = ['compound', 'feature', 'dataset', 'algorithm', 'model', 'validation', 'crossvalidation', 'task', 'category', 'assessment'] as const;
export type Component = (typeof COMPONENTS)[number];

/** Components whose resources live at `{base}/{component}/{type}/{id}` (reports). */
const TWO_LEVEL = ['report', 'reach_report'];

/** Paths under /validation and /crossvalidation that are services, not resources. */
const VALIDATION_SERVICES = ['test_set_validation', 'training_test_valdiation', 'training_test_validation', 'training_test_split', 'bootstrapping', 'validate_datasets', 'schema.xsd'];

/** Named graphs that belong to a resource besides its own (`{uri}{suffix}`). */
export const SUBGRAPH_SUFFIXES = {
  /** A dataset's rows (the store's bulk partition). */
  entries: '/entries',
  /** A model's trained content (the store's bulk partition). */
  content: '/content',
  /** A cross-validation's pooled statistics. */
  statistics: '/statistics',
  /** What a task created (removed when the task fails). */
  minted: '/minted',
  /** Feature values set on a compound or conformer itself. */
  values: '/values',
  /** A compound's InChIKey, kept after the compound is deleted (the same structure gets the same URI). */
  key: '/key',
  /** A compound's structural profile (its profilers' alerts and classes), kept until its structure or a profiler changes. */
  profile: '/profile',
} as const;

/**
 * A dataset as a request parameter names it: the dataset's URI, and the query that may follow it
 * (`feature_uris[]`, `compound_uris[]`, `page`, `pagesize`; spec 4.7).
 */
export interface DatasetRef {
  /** The dataset itself, without the query. */
  uri: string;
  /** The query's parameters as written. */
  query: URLSearchParams;
  /** `feature_uris` and `feature_uris[]` of the query. */
  features: string[];
  /** `compound_uris` and `compound_uris[]` of the query. */
  compounds: string[];
}

export function parseDatasetRef(value: string): DatasetRef {
  const at = value.indexOf('?');
  const query = new URLSearchParams(at < 0 ? '' : value.slice(at + 1));
  const all = (name: string) => [...query.getAll(name), ...query.getAll(`${name}[]`)];
  return { uri: at < 0 ? value : value.slice(0, at), query, features: all('feature_uris'), compounds: all('compound_uris') };
}

/** The other way: a resource URI selecting features (`{uri}?feature_uris[]=…`; the URI itself when none). */
export function featureRef(uri: string, features: string[]): string {
  return features.length ? `${uri}?${features.map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}` : uri;
}

/** The compound a structure URI belongs to: a conformer's parent, or the compound itself. */
export function compoundOf(structure: string): string {
  return structure.replace(/\/conformer\/[^/]+$/, '');
}

/** A conformer's URI (`{compound}/conformer/{id}`)? */
export function isConformer(structure: string): boolean {
  return /\/conformer\/[^/]+$/.test(structure);
}

export class UriScheme {
  /** `base` without a trailing slash, e.g. `http://localhost:8080`. */
  readonly base: string;
  /** The base's origin and path as WHATWG URL writes them (host in lower case, no default port). */
  private readonly origin: string;
  private readonly basePath: string;
  constructor(base: string) {
    this.base = base;
    let url: URL | undefined;
    try {
      url = new URL(base);
    } catch {
      url = undefined; // not a URL (a unit test's base): URIs are compared as written
    }
    this.origin = url?.origin ?? base;
    this.basePath = url ? url.pathname.replace(/\/+$/, '') : '';
  }

  /**
   * A URI of this server in its one spelling (core/canonical-path.ts): the base as configured
   * (`HTTP://LOCALHOST:80/` is `http://localhost`), then the canonical path, query and fragment
   * as written. Other URIs, and text that is no URI, come back as they are.
   */
  canonical(uri: string): string {
    const at = uri.search(/[?#]/);
    const [head, tail] = at < 0 ? [uri, ''] : [uri.slice(0, at), uri.slice(at)];
    if (head.startsWith(`${this.base}/`) && isCanonicalPath(head.slice(this.base.length))) return uri;
    let url: URL;
    try {
      url = new URL(head);
    } catch {
      return uri;
    }
    if (url.origin !== this.origin || url.username || url.password) return uri;
    // the path as written (URL resolves `.` and `..` but leaves `%2e%2e` and `//` as they are)
    const slash = head.indexOf('/', head.indexOf('//') + 2);
    const path = slash < 0 ? '/' : head.slice(slash);
    if (this.basePath && path !== this.basePath && !path.startsWith(`${this.basePath}/`)) return uri;
    try {
      return `${this.base}${canonicalPath(path.slice(this.basePath.length) || '/')}${tail}`;
    } catch {
      return uri; // not well-formed: no URI of ours
    }
  }

  /** `{base}/{component}`: where the component's resources are listed and created. */
  collection(component: Component): string {
    return `${this.base}/${component}`;
  }

  /** The service itself (`{base}/`) and its SPARQL endpoints. */
  service(): string {
    return `${this.base}/`;
  }

  endpoint(name: 'sparql' | 'ontology'): string {
    return `${this.base}/${name}`;
  }

  /** `{base}/{component}/{id}`, the id percent-encoded. */
  item(component: Component, id: string | number): string {
    return `${this.base}/${component}/${encodeURIComponent(String(id))}`;
  }

  /** `{base}/report`, and `{base}/report/{type}` where reports of a type are listed and created. */
  reports(type?: string): string {
    return type === undefined ? `${this.base}/report` : `${this.base}/report/${encodeURIComponent(type)}`;
  }

  /** A validation report: `{base}/report/{type}/{id}`. */
  report(type: string, id: string | number): string {
    return `${this.reports(type)}/${encodeURIComponent(String(id))}`;
  }

  /** `{base}/reach_report/{kind}` (qmrf, qprf) where REACH reports are listed and created, and one of them. */
  reachReports(kind: 'qmrf' | 'qprf'): string {
    return `${this.base}/reach_report/${kind}`;
  }

  reachReport(kind: 'qmrf' | 'qprf', id: string | number): string {
    return `${this.reachReports(kind)}/${encodeURIComponent(String(id))}`;
  }

  /** A URI of a validation or REACH report of this server (`{base}/report/{type}/{id}`, `{base}/reach_report/{kind}/{id}`)? */
  isReport(uri: string): boolean {
    for (const prefix of [`${this.base}/report/`, `${this.base}/reach_report/`]) if (uri.startsWith(prefix) && /^[^/?#]+\/[^/?#]+$/.test(uri.slice(prefix.length))) return true;
    return false;
  }

  /**
   * A resource that the task creating it owns until the task completes (a dataset, model,
   * validation, cross-validation or report): removed again when the task fails. Shared
   * resources (compounds, features) are never.
   */
  isOwnedByTask(uri: string): boolean {
    return (['dataset', 'model', 'validation', 'crossvalidation'] as const).some((c) => this.isIn(c, uri)) || this.isReport(uri);
  }

  /** A conformer of a compound: `{compound}/conformer/{id}`. */
  conformers(compound: string): string {
    return `${compound}/conformer`;
  }

  conformer(compound: string, id: string | number): string {
    return `${this.conformers(compound)}/${encodeURIComponent(String(id))}`;
  }

  /** A named graph that belongs to `resource` (its rows, its content, …). */
  subgraph(resource: string, kind: keyof typeof SUBGRAPH_SUFFIXES): string {
    return `${resource}${SUBGRAPH_SUFFIXES[kind]}`;
  }

  /** The graphs a resource may own: its own and every subgraph. */
  graphsOf(resource: string): string[] {
    return [resource, ...Object.values(SUBGRAPH_SUFFIXES).map((suffix) => `${resource}${suffix}`)];
  }

  /** The URI a request path names (`/dataset/7` → `{base}/dataset/7`). */
  ofPath(path: string): string {
    return `${this.base}${path}`;
  }

  /** The id of `{base}/{component}/{id}` (undefined for other URIs, and for URIs below an item). */
  idIn(component: Component, uri: string): string | undefined {
    if (!this.isIn(component, uri)) return undefined;
    const rest = uri.slice(this.base.length + component.length + 2);
    if (!rest || /[/?#]/.test(rest)) return undefined;
    try {
      return decodeURIComponent(rest);
    } catch {
      return undefined; // not a well-formed percent-encoding: no id of ours
    }
  }

  /** A URI of this server (not necessarily of an existing resource). */
  isLocal(uri: string): boolean {
    return uri.startsWith(`${this.base}/`);
  }

  /** A URI of this server within `component` (`{base}/model/…`). */
  isIn(component: Component, uri: string): boolean {
    return uri.startsWith(`${this.base}/${component}/`);
  }

  /**
   * The resource a URI or graph name belongs to (`{base}/dataset/7/entries` → `{base}/dataset/7`),
   * or undefined for URIs that name no resource of this server (collections, services, others).
   */
  resourceOf(written: string): string | undefined {
    // decided on the one spelling of the URI, as requests are routed (`/dataset//1/`, `/dataset/%31` are dataset 1)
    const iri = this.canonical(written);
    if (!this.isLocal(iri)) return undefined;
    let parts = iri.slice(this.base.length + 1).split(/[/#?]/);
    // the Ruby service layout /validation/crossvalidation/{id} is the cross-validation {id} (and /validation/report/… the report)
    if (parts[0] === 'validation' && (parts[1] === 'crossvalidation' || parts[1] === 'report' || parts[1] === 'reach_report')) parts = parts.slice(1);
    // the validation services (POST /validation/test_set_validation, /crossvalidation/loo) are not resources
    if ((parts[0] === 'validation' && VALIDATION_SERVICES.includes(parts[1])) || (parts[0] === 'crossvalidation' && parts[1] === 'loo')) return undefined;
    // nor is the upload preview (POST /dataset/preview, GET /dataset/preview/{pending}: the caller's own waiting file)
    if (parts[0] === 'dataset' && parts[1] === 'preview') return undefined;
    if ((COMPONENTS as readonly string[]).includes(parts[0]) && parts[1]) return `${this.base}/${parts[0]}/${parts[1]}`;
    if (TWO_LEVEL.includes(parts[0]) && parts[1] && parts[2]) return `${this.base}/${parts[0]}/${parts[1]}/${parts[2]}`;
    return undefined;
  }
}
