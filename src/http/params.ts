import type { Context } from 'koa';
import { readText, requestMediaType } from './body.ts';
import { badRequest } from '../core/errors.ts';
import { nonXmlCharProblem } from '../core/xml-chars.ts';

/** Shared by every request without a query string; Params never changes its parameters. */
const EMPTY_QUERY = new URLSearchParams();

/**
 * Request parameters from the query string and, for form posts, the body. Array parameters
 * are accepted both as `name[]` and `name` (DESIGN.md).
 */
export class Params {
  private readonly search: URLSearchParams;
  /** Every parameter of a request passes through here: one holding a character XML cannot carry is a 400 (see checkedText). */
  constructor(search: URLSearchParams) {
    this.search = search === EMPTY_QUERY ? search : trimmedUris(checkedText(search));
  }

  static fromQuery(ctx: Context): Params {
    return new Params(ctx.querystring ? new URLSearchParams(ctx.querystring) : EMPTY_QUERY);
  }

  /** Query string plus an urlencoded body (when there is one). */
  static async fromRequest(ctx: Context, bodyLimit: number): Promise<Params> {
    const search = new URLSearchParams(ctx.querystring);
    if (requestMediaType(ctx) === 'application/x-www-form-urlencoded' || requestMediaType(ctx) === 'application/www-form-urlencoded') {
      const form = new URLSearchParams(await readText(ctx, bodyLimit));
      for (const [k, v] of form) search.append(k, v);
    }
    return new Params(search);
  }

  get(name: string): string | undefined {
    const v = this.search.get(name) ?? this.search.get(`${name}[]`);
    return v === null ? undefined : v;
  }

  required(name: string): string {
    const v = this.get(name);
    if (v === undefined || v.trim() === '') throw badRequest(`missing required parameter ${name}`);
    return v;
  }

  all(name: string): string[] {
    return [...this.search.getAll(name), ...this.search.getAll(`${name}[]`)];
  }

  has(name: string): boolean {
    return this.search.has(name) || this.search.has(`${name}[]`);
  }

  entries(): [string, string][] {
    return [...this.search.entries()];
  }

  /** Parameters as JSON carries them (a queued job's input: checked when it was a request). */
  static fromEntries(entries: [string, string][]): Params {
    return new Params(new URLSearchParams(entries));
  }
}

/**
 * Parameters whose names and values XML 1.0 can carry: a title, a SMILES or a URI holding NUL
 * (or another C0 control, U+FFFE, U+FFFF, a lone surrogate) is a 400 naming the parameter,
 * before it can reach the store and break every RDF/XML answer that would include it.
 */
export function checkedText(search: URLSearchParams): URLSearchParams {
  for (const [name, value] of search) {
    const problem = nonXmlCharProblem(name, 'a parameter name') ?? nonXmlCharProblem(value, `parameter ${name.slice(0, 60)}`);
    if (problem) throw badRequest(problem);
  }
  return search;
}

/** A value that is one absolute URI with white space around it (`x=$(curl …)` of a `text/uri-list` answer keeps its CR). */
const PADDED_URI = /^\s*[a-z][a-z0-9+.-]*:\/\/\S+\s*$/i;

/**
 * Parameters with the white space around a URI value taken off: `dataset_uri=http://…/dataset/3\r`
 * names dataset 3, not a dataset "not found" whose name ends in an invisible character.
 */
export function trimmedUris(search: URLSearchParams): URLSearchParams {
  let padded = false;
  for (const [, value] of search) if (PADDED_URI.test(value) && value.trim() !== value) padded = true;
  if (!padded) return search;
  return new URLSearchParams([...search].map(([name, value]) => [name, PADDED_URI.test(value) ? value.trim() : value]));
}
