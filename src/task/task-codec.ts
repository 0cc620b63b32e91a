import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, dc, dcterms, literal, xsd } from '../rdf/namespaces.ts';
import { errorReportQuads, readErrorReport } from '../rdf/error-report.ts';

export type TaskStatus = 'Queued' | 'Running' | 'Completed' | 'Cancelled' | 'Error';

export type TaskError = NonNullable<ReturnType<typeof readErrorReport>>;

/** A task as stored (spec 2.9): the typed record of its graph. */
export interface TaskRecord {
  uri: string;
  title: string;
  creator?: string;
  status: TaskStatus;
  percent: number;
  created: Date;
  modified: Date;
  resultUri?: string;
  /** What it is doing now, in words ("fold 3 of 10 done"): `dc:description`. */
  stage?: string;
  error?: TaskError;
  /** The process that runs it (`queue`: the shared job queue's workers); see TaskRunner.recoverInterrupted. */
  runner?: string;
}

/** Which process runs a task: ToxGraph's own term, not the interface's. */
export const TASK_RUNNER = df.namedNode('urn:toxgraph:runner');

/** The runner of a task that another service created with `POST /task` and runs itself (it sets the state by `PUT`). */
export const CLIENT_RUNNER = 'client';

const errorNode = (uri: string) => df.namedNode(`${uri}#error`);

export function taskQuads(task: TaskRecord): RDF.Quad[] {
  const t = df.namedNode(task.uri);
  const quads = [
    df.quad(t, rdf('type'), ot('Task')),
    df.quad(t, dc('title'), literal(task.title)),
    df.quad(t, ot('hasStatus'), literal(task.status)),
    df.quad(t, ot('percentageCompleted'), literal(String(task.percent), xsd('double'))),
    df.quad(t, dcterms('created'), literal(task.created)),
    df.quad(t, dcterms('modified'), literal(task.modified)),
  ];
  if (task.creator) quads.push(df.quad(t, dc('creator'), literal(task.creator)));
  if (task.stage && (task.status === 'Running' || task.status === 'Queued')) quads.push(df.quad(t, dc('description'), literal(task.stage)));
  if (task.runner) quads.push(df.quad(t, TASK_RUNNER, literal(task.runner)));
  if (task.resultUri) quads.push(df.quad(t, ot('resultURI'), literal(task.resultUri, xsd('anyURI'))));
  // the actor of a report a client sent is its own; ours is the task
  if (task.error) quads.push(df.quad(t, ot('error'), errorNode(task.uri)), ...errorReportQuads(errorNode(task.uri), task.error, task.error.actor ?? task.uri));
  return quads;
}

/** The record of a task's graph; undefined when the graph holds no task. */
export function taskRecord(quads: RDF.Quad[], uri: string): TaskRecord | undefined {
  const own = quads.filter((q) => q.subject.value === uri);
  const value = (p: RDF.NamedNode) => own.find((q) => q.predicate.equals(p))?.object.value;
  const status = value(ot('hasStatus')) as TaskStatus | undefined;
  if (!status) return undefined;
  const error = own.find((q) => q.predicate.equals(ot('error')))?.object;
  return {
    uri,
    title: value(dc('title')) ?? '',
    creator: value(dc('creator')),
    status,
    percent: Number(value(ot('percentageCompleted')) ?? 0),
    created: new Date(value(dcterms('created')) ?? 0),
    modified: new Date(value(dcterms('modified')) ?? 0),
    resultUri: value(ot('resultURI')),
    ...(value(dc('description')) === undefined ? {} : { stage: value(dc('description')) }),
    runner: value(TASK_RUNNER),
    error: error && readErrorReport(quads, error),
  };
}

/** `{task}/minted`: what a running task's work has created (removed again unless it completes). */
export function mintedQuads(taskUri: string, minted: string[]): RDF.Quad[] {
  return minted.map((m) => df.quad(df.namedNode(taskUri), ot('minted'), df.namedNode(m)));
}

export function mintedOf(quads: RDF.Quad[]): string[] {
  return quads.filter((q) => q.predicate.equals(ot('minted'))).map((q) => q.object.value);
}
