import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { badRequest } from '../core/errors.ts';
import { Params } from './params.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * A route described once: the HTTP layer parses and checks its parameters from this description,
 * and the OpenAPI document (`/openapi.json`, web/openapi.ts) is made from the same description.
 */
export interface RouteDescription<S extends z.ZodObject = z.ZodObject, G = unknown> {
  method: HttpMethod;
  /** As the router writes it (`/model/:id`). */
  path: string;
  /** Other paths answered the same way (the Ruby service layout, the reference's spellings). */
  aliases?: string[];
  summary: string;
  /** The component, as the document groups its operations. */
  tag: string;
  /** The parameters: the query of GET; the query and a form body of the others (documented as the query of DELETE, the form of POST and PUT; see `paramsIn`). An array field takes every value of `name` and `name[]`. */
  params?: S;
  /** `query`: a POST, PUT or DELETE whose parameters are in its query string only (its body is something else: RDF); they are read and documented there. */
  paramsIn?: 'query';
  /**
   * The handler reads the request itself (a SPARQL protocol request, an upload that may be a
   * form, a raw body, a row selection read with a dataset reference's own): `params` documents
   * what it reads and is not read here; the handler gets no parameters.
   */
  ownInput?: boolean;
  /** Who may call, checked before the parameters are read (so 401 or 403 comes before 400); what it answers (the caller) is the handler's third argument. */
  guard?: (ctx: Context) => Promise<G> | G;
  /** It starts a job (an upload or its preview, a calculation, a training, a validation): counted by the caller's job quota before anything else is read. */
  startsJob?: true;
  /** Request body media types besides a form. */
  body?: string[];
  /** Status → the media types answered. */
  responses: Record<number, string[]>;
}

/** The parameters a handler gets: parsed and checked against the description. */
export type ParamsOf<S extends z.ZodObject> = z.infer<S>;

/** Builders of parameter schemas with the interface's messages ("missing required parameter …"). */
export const param = {
  /** A required text: absent or blank is 400. */
  required: (description: string) =>
    z
      .string()
      .refine((v) => v.trim() !== '', { message: 'blank' })
      .describe(description),
  optional: (description: string) => z.string().optional().describe(description),
  list: (description: string) => z.array(z.string()).optional().describe(description),
  /** A whole number from `min` to `max` (absent: undefined), or 400 naming it. */
  whole: (name: string, min: number, max: number, description: string) =>
    z
      .string()
      .optional()
      .refine((v) => v === undefined || (/^\d+$/.test(v.trim()) && Number(v) >= min && Number(v) <= max), { message: `${name} must be a whole number from ${min} to ${max}` })
      .transform((v) => (v === undefined ? undefined : Number(v)))
      .describe(description),
  /** A number in [0, 1] (absent: `fallback`), or 400 naming it. */
  fraction: (name: string, fallback: number, description: string) =>
    z
      .string()
      .optional()
      .refine((v) => v === undefined || (v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) >= 0 && Number(v) <= 1), { message: `${name} must be a number between 0 and 1` })
      .transform((v) => (v === undefined ? fallback : Number(v)))
      .describe(description),
};

function isArrayField(field: z.ZodType): boolean {
  const schema = field as z.ZodType & { unwrap?: () => z.ZodType };
  if (field instanceof z.ZodArray) return true;
  return typeof schema.unwrap === 'function' && isArrayField(schema.unwrap());
}

/** A request's parameters as its description names them; 400 naming the first parameter that does not fit. */
export async function readParams<S extends z.ZodObject>(ctx: Context, description: RouteDescription<S>, bodyLimit: number): Promise<z.infer<S>> {
  // a route without parameters reads nothing (a body is its handler's)
  if (!description.params) return {} as z.infer<S>;
  const schema = description.params;
  // a GET reads its query (and so does a route whose parameters are there only); the others their query and a form body, when they have one
  const given = description.method === 'GET' || description.paramsIn === 'query' ? Params.fromQuery(ctx) : await Params.fromRequest(ctx, bodyLimit);
  const raw: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const values = given.all(name);
    if (values.length) raw[name] = isArrayField(field as z.ZodType) ? values : values[0];
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0] ?? '');
  const value = raw[name];
  if (value === undefined || issue.message === 'blank') throw badRequest(`missing required parameter ${name}`);
  // a parameter read by its own rules says what it accepts itself
  if (issue.code === 'custom') throw badRequest(issue.message);
  throw badRequest(`${name}: ${issue.message} (got ${JSON.stringify(String(value).slice(0, 100))})`);
}

/** Routes registered from their descriptions; the descriptions are kept for the OpenAPI document. */
export class DescribedRoutes {
  readonly descriptions: RouteDescription[] = [];

  private readonly router: Router;
  private readonly bodyLimit: number;
  private readonly countJob: (ctx: Context) => Promise<void>;
  /** `countJob`: the job quota, asked before a route that starts a job does anything (it throws 429 over the quota). */
  constructor(router: Router, bodyLimit: number, countJob: (ctx: Context) => Promise<void> = async () => undefined) {
    this.router = router;
    this.bodyLimit = bodyLimit;
    this.countJob = countJob;
  }

  /** A route whose parameters are read here (from `params`); `guard` first, when it has one. */
  add<S extends z.ZodObject, G = undefined>(description: RouteDescription<S, G> & { ownInput?: false }, handler: (ctx: Context, params: z.infer<S>, caller: G) => Promise<unknown> | unknown): void;
  /** A route that reads its own input (`ownInput`): the handler gets no parameters. */
  add<S extends z.ZodObject, G = undefined>(description: RouteDescription<S, G> & { ownInput: true }, handler: (ctx: Context, params: undefined, caller: G) => Promise<unknown> | unknown): void;
  add(description: RouteDescription, handler: (ctx: Context, params: any, caller: any) => Promise<unknown> | unknown): void {
    this.descriptions.push(description);
    const method = description.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    for (const path of [description.path, ...(description.aliases ?? [])]) {
      this.router[method](path, async (ctx) => {
        const caller = await description.guard?.(ctx);
        if (description.startsJob) await this.countJob(ctx);
        await handler(ctx, description.ownInput ? undefined : await readParams(ctx, description, this.bodyLimit), caller);
      });
    }
  }
}

/** The media types answers come in, by kind (the OpenAPI document's responses). */
const RDF_ANSWERS = ['application/rdf+xml', 'text/turtle', 'application/ld+json', 'application/n-triples', 'text/n3', 'text/html', 'text/plain'];
export const MEDIA = {
  /** RDF in every syntax, and the page. */
  rdf: RDF_ANSWERS,
  /** One resource: RDF, JSON, YAML, its URI. */
  resource: [...RDF_ANSWERS, 'application/json', 'text/x-yaml', 'text/uri-list'],
  /** A list of resources: their URIs, or their RDF. */
  list: ['text/uri-list', ...RDF_ANSWERS],
  /** A URI (a created resource, a task). */
  uri: ['text/uri-list', 'text/plain', 'text/html'],
  /** An error (an ot:ErrorReport). */
  error: ['application/rdf+xml', 'text/turtle', 'application/json', 'text/html', 'text/plain'],
};

/** Responses: 200 with these types, and the errors (`answers(MEDIA.list, 404)`); `[]` for a 200 without a body. */
export function answers(types: string[], ...errors: number[]): Record<number, string[]> {
  return { 200: types, ...errorAnswers(...errors) };
}

/** The responses of a route that starts a task (202 and its URI), with the errors it may answer. */
export function taskResponses(...errors: number[]): Record<number, string[]> {
  return { 202: MEDIA.uri, ...errorAnswers(...errors) };
}

/** Error responses alone (an ot:ErrorReport each), beside answers of other statuses (`{ 204: [], ...errorAnswers(404) }`). */
export function errorAnswers(...errors: number[]): Record<number, string[]> {
  return Object.fromEntries(errors.map((status) => [status, MEDIA.error]));
}
