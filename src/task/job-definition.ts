import type { z } from 'zod';
import type { JobInput } from './job-queue.ts';
import type { PreparedJob } from './task-runner.ts';

/**
 * A kind of job: long work a request starts (a training, a validation, a report), run as a task
 * here or by a worker process that took it from the shared queue.
 *
 * Components describe their jobs with these and the server registers every component's jobs in
 * one place (server/components.ts), so a worker process knows every kind without building the
 * HTTP application. The input is a typed record, JSON as the queue carries it: checked against
 * `input` where the job starts and again where a worker takes it.
 */
export interface JobDefinition<I extends JobInput> {
  /** The name a queued job carries. */
  kind: string;
  input: z.ZodType<I>;
  /** Check the input against the store (a mistake throws 400/404 to the request) and say what running it does. */
  prepare(input: I): Promise<PreparedJob>;
  /** Quick work (`PreparedJob.quick`) is done at once, in the request, and answers its result instead of a task. */
  mayBeQuick?: true;
}

/** Starts a job: answers its task's URI (or, for a job that may be quick and is, its result). */
export type JobStarter<I> = (input: I) => Promise<string>;
export type QuickOrTaskStarter<I> = (input: I) => Promise<{ result: string } | { task: string }>;

interface Described<S extends z.ZodType<JobInput>> {
  kind: string;
  input: S;
  prepare(input: z.infer<S>): Promise<PreparedJob>;
}

/** A job definition, typed by its input schema (the input type is the schema's). */
export function defineJob<S extends z.ZodType<JobInput>>(definition: Described<S> & { mayBeQuick: true }): JobDefinition<z.infer<S>> & { mayBeQuick: true };
export function defineJob<S extends z.ZodType<JobInput>>(definition: Described<S>): JobDefinition<z.infer<S>>;
export function defineJob<S extends z.ZodType<JobInput>>(definition: Described<S> & { mayBeQuick?: true }): JobDefinition<z.infer<S>> {
  return definition as unknown as JobDefinition<z.infer<S>>;
}

/** The starters of a component's job definitions, by the same names. */
export type JobStarters<T> = {
  [K in keyof T]: T[K] extends { mayBeQuick: true; prepare(input: infer I): unknown } ? QuickOrTaskStarter<I> : T[K] extends { prepare(input: infer I): unknown } ? JobStarter<I> : never;
};
