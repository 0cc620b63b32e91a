import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { parse as parseYaml } from 'yaml';
import { badRequest, unsupportedType } from '../core/errors.ts';
import { readText, requestMediaType } from '../http/body.ts';
import { Params } from '../http/params.ts';
import { propertyValue } from '../rdf/graph-values.ts';
import { dc, ot, rdf } from '../rdf/namespaces.ts';
import { isRdfMediaType, parseRdf, RDF_INPUT_TYPES } from '../rdf/parse.ts';
import { checkIri } from '../rdf/terms.ts';
import type { TaskError, TaskStatus } from './task-codec.ts';
import { TASK_STATUSES, type TaskChange } from './task-states.ts';

// What a service that runs its own task sends: a new task (POST /task) and its changes of state
// (PUT /task/{id}, or /task/{id}/{state} as the OpenTox Ruby clients send it), as form fields or RDF.

/** A task another service creates: it starts Running (as the Ruby task service's did) or Queued. */
export interface NewClientTask {
  title?: string;
  description?: string;
  creator?: string;
  status: 'Queued' | 'Running';
}

/** The longest text a task's field may hold (a title, a message, an error report). */
export const TASK_TEXT_MAX = 100_000;

/** The Ruby clients' `PUT {task}/pid` (the process that runs it there): nothing to change here. */
export const PID_STATE = 'pid';

const FORM_TYPES = ['application/x-www-form-urlencoded', 'application/www-form-urlencoded', ''];

/** The fields of a request (a form, or RDF about the task) by the names of the form. */
type Fields = (name: string) => string | undefined;

/** `POST /task`: title, description, creator and hasStatus (Queued or Running), as form fields or RDF about an ot:Task. */
export async function newClientTaskOf(ctx: Context, collection: string, bodyLimit: number): Promise<NewClientTask> {
  const { fields } = await fieldsOf(ctx, `${collection}/`, bodyLimit);
  const status = fields('hasStatus') === undefined ? 'Running' : statusOf(fields('hasStatus')!);
  if (status !== 'Running' && status !== 'Queued') throw badRequest(`a new task is Running or Queued, not ${status}: create it, then PUT its state`);
  return { title: fields('title'), description: fields('description'), creator: fields('creator'), status };
}

/**
 * `PUT /task/{id}` (or `/task/{id}/{state}`): the new state and what goes with it, as form fields
 * (hasStatus, percentageCompleted, resultURI, description; an error as errorCode, message,
 * statusCode, actor, errorCause, or the Ruby clients' `errorReport`) or RDF (the task with
 * ot:hasStatus …, an ot:ErrorReport). Undefined for the Ruby clients' `pid`.
 */
export async function taskChangeOf(ctx: Context, uri: string, pathState: string | undefined, bodyLimit: number): Promise<TaskChange | undefined> {
  if (pathState === PID_STATE) return undefined;
  const { fields, quads } = await fieldsOf(ctx, uri, bodyLimit);
  const given = fields('hasStatus');
  const named = pathState ?? given;
  if (named === undefined) throw badRequest('missing required parameter hasStatus (or PUT to /task/{id}/{state})');
  const status = statusOf(named);
  if (pathState !== undefined && given !== undefined && statusOf(given) !== status) throw badRequest(`the path says ${status}, hasStatus says ${given}`);
  const percent = fields('percentageCompleted');
  return {
    status,
    percent: percent === undefined ? undefined : percentOf(percent),
    resultUri: fields('resultURI') === undefined ? undefined : resultUriOf(fields('resultURI')!),
    stage: fields('description'),
    error: quads ? rdfErrorOf(quads, uri) : formErrorOf(fields),
  };
}

/** The fields of a form (or a request without a body), or of RDF about the task (`<>` or an ot:Task); the RDF too. */
async function fieldsOf(ctx: Context, base: string, bodyLimit: number): Promise<{ fields: Fields; quads?: RDF.Quad[] }> {
  const type = requestMediaType(ctx);
  if (FORM_TYPES.includes(type)) {
    const params = await Params.fromRequest(ctx, bodyLimit);
    return { fields: (name) => textOf(params.get(name), name) };
  }
  if (!isRdfMediaType(type)) throw unsupportedType(`Content-Type ${type} is not taken here; send a form (application/x-www-form-urlencoded) or RDF (${RDF_INPUT_TYPES.join(', ')})`);
  const text = await readText(ctx, bodyLimit);
  const quads = text.trim() ? await parseRdf(text, type, base) : [];
  const task = quads.find((q) => q.subject.value === base && q.subject.termType === 'NamedNode')?.subject ?? quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Task')))?.subject;
  const properties: Record<string, RDF.NamedNode> = {
    title: dc('title'),
    description: dc('description'),
    creator: dc('creator'),
    hasStatus: ot('hasStatus'),
    percentageCompleted: ot('percentageCompleted'),
    resultURI: ot('resultURI'),
  };
  return { fields: (name) => (task && properties[name] ? textOf(propertyValue(quads, task, properties[name]), name) : undefined), quads };
}

/** A field's text: at most TASK_TEXT_MAX characters (blank is not given). */
function textOf(value: string | undefined, name: string): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.length > TASK_TEXT_MAX) throw badRequest(`${name} is longer than ${TASK_TEXT_MAX} characters`);
  return value;
}

/** A state by its name (in any letter case: early clients wrote `completed`). */
function statusOf(text: string): TaskStatus {
  const status = TASK_STATUSES.find((s) => s.toLowerCase() === text.trim().toLowerCase());
  if (!status) throw badRequest(`hasStatus must be one of ${TASK_STATUSES.join(', ')} (got ${JSON.stringify(text.slice(0, 100))})`);
  return status;
}

function percentOf(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw badRequest(`percentageCompleted must be a number from 0 to 100 (got ${JSON.stringify(text.slice(0, 100))})`);
  return n;
}

/** An absolute http(s) URI (a result, an actor). */
function absoluteUriOf(text: string, name: string): string {
  const uri = text.trim();
  let url: URL | undefined;
  try {
    url = new URL(checkIri(uri));
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw badRequest(`${name} must be an absolute http(s) URI (got ${JSON.stringify(uri.slice(0, 200))})`);
  return uri;
}

const resultUriOf = (text: string) => absoluteUriOf(text, 'resultURI');

/** The fields of an error report, checked: a status of 400–599 (GET answers it), an actor that is a URI. */
interface ReportFields {
  statusCode?: unknown;
  errorCode?: unknown;
  message?: unknown;
  actor?: unknown;
  errorCause?: unknown;
}

function errorOf(report: ReportFields): TaskError {
  const text = (value: unknown, name: string) => (value === undefined || value === null ? undefined : textOf(typeof value === 'string' ? value : String(value), name));
  const statusText = text(report.statusCode, 'statusCode');
  const status = statusText === undefined ? 500 : Number(statusText);
  if (!Number.isInteger(status) || status < 400 || status > 599)
    throw badRequest(`the error report's statusCode must be an HTTP error status, 400 to 599 (got ${JSON.stringify(statusText?.slice(0, 100))})`);
  const actor = text(report.actor, 'actor');
  return {
    status,
    code: text(report.errorCode, 'errorCode') ?? 'TaskFailed',
    message: text(report.message, 'message') ?? '',
    details: text(report.errorCause, 'errorCause'),
    actor: actor === undefined ? undefined : absoluteUriOf(actor, 'the error report’s actor'),
  };
}

/** An error report as form fields, or as the one field `errorReport` (the Ruby clients': YAML, or RDF); undefined when there is none. */
function formErrorOf(fields: Fields): TaskError | undefined {
  const report = fields('errorReport');
  if (report !== undefined) return errorOf(reportTextOf(report));
  const named = { statusCode: fields('statusCode'), errorCode: fields('errorCode'), message: fields('message'), actor: fields('actor'), errorCause: fields('errorCause') };
  return Object.values(named).some((v) => v !== undefined) ? errorOf(named) : undefined;
}

/** The most characters of an `errorReport` field's YAML. */
const ERROR_REPORT_YAML_MAX = 8192;

/** The `errorReport` field: opentox-ruby's YAML of an OpenTox::ErrorReport (http_code, errorType, …) or N-Triples of an ot:ErrorReport. */
function reportTextOf(report: string): ReportFields {
  const text = report.trim();
  if (text.startsWith('<') || text.startsWith('_:')) {
    throw badRequest('errorReport as RDF: send the RDF as the body (Content-Type: an RDF type), not in a form field');
  }
  // a report is a few lines: parsed on the request's thread, so kept short (100 kB of nested brackets took 0.4 s and 76 MB) and without aliases
  if (text.length > ERROR_REPORT_YAML_MAX) throw badRequest(`errorReport may be at most ${ERROR_REPORT_YAML_MAX} characters of YAML; send a longer report as RDF in the body`);
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { maxAliasCount: 0, logLevel: 'silent' });
  } catch (e) {
    throw badRequest(`errorReport is not YAML: ${(e as Error).message.split('\n')[0].slice(0, 200)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('errorReport must be a YAML mapping (http_code, errorType, message, actor, errorCause)');
  const r = parsed as Record<string, unknown>;
  const cause = r.errorCause && typeof r.errorCause === 'object' ? (r.errorCause as Record<string, unknown>).message : r.errorCause;
  return { statusCode: r.statusCode ?? r.http_code, errorCode: r.errorCode ?? r.errorType, message: r.message, actor: r.actor, errorCause: cause };
}

/** The ot:ErrorReport of an RDF body: the task's ot:error (or opentox-ruby's ot:errorReport), else the one node typed so. */
function rdfErrorOf(quads: RDF.Quad[], uri: string): TaskError | undefined {
  const linked = quads.find((q) => q.subject.value === uri && (q.predicate.equals(ot('error')) || q.predicate.equals(ot('errorReport'))))?.object;
  const node = linked ?? quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('ErrorReport')))?.subject;
  if (!node) return undefined;
  const value = (local: string) => propertyValue(quads, node, ot(local));
  const causeNode = quads.find((q) => q.subject.equals(node) && q.predicate.equals(ot('errorCause')))?.object;
  const cause = causeNode?.termType === 'Literal' ? causeNode.value : causeNode && propertyValue(quads, causeNode, ot('message'));
  return errorOf({ statusCode: value('statusCode'), errorCode: value('errorCode'), message: value('message'), actor: value('actor'), errorCause: cause });
}
