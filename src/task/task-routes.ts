import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { notFound } from '../core/errors.ts';
import { sendGraphList, sendNegotiated, rdfRenderers, sendDone, sendUri, uriList } from '../http/respond.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import { RDF_INPUT_TYPES } from '../rdf/parse.ts';
import type { Services } from '../core/services.ts';
import { ClientTasks } from './client-tasks.ts';
import { newClientTaskOf, taskChangeOf } from './task-input.ts';
import { TASK_STATUSES } from './task-states.ts';

/** What a new task and a change of state are described by (task-input.ts reads them, from a form or RDF). */
const TASK_FIELDS = {
  title: param.optional('A new task: its title'),
  description: param.optional('What the task does (now)'),
  creator: param.optional('A new task: who made it (a service URI)'),
  hasStatus: param.optional(`The state: ${TASK_STATUSES.join(', ')} (a new task: Running, the default, or Queued)`),
  percentageCompleted: param.optional('Running: how far it got, 0 to 100'),
  resultURI: param.optional('Completed: the URI of the result (absolute http or https)'),
  errorCode: param.optional('Error: the report’s errorCode'),
  message: param.optional('Error: the report’s message'),
  statusCode: param.optional('Error: the report’s statusCode (400–599; GET answers it; 500 when not given)'),
  actor: param.optional('Error: the report’s actor (a URI)'),
  errorCause: param.optional('Error: the report’s errorCause'),
  errorReport: param.optional('Error: the whole report as YAML (as the OpenTox Ruby clients send it)'),
};

/** Task resources (spec 2.9, DESIGN.md): GET list, GET one (status code follows the state), DELETE cancels; tasks other services run: POST, PUT of the state. */
export function taskRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks'>): void {
  const { store, tasks, config } = services;
  const clientTasks = new ClientTasks(services);

  routes.add({ method: 'GET', path: '/task', summary: 'Tasks', tag: 'task', responses: answers(MEDIA.list) }, async (ctx) => {
    await sendGraphList(ctx, store, await tasks.list(), 'Tasks');
  });

  const task = [...MEDIA.rdf, 'text/uri-list'];
  routes.add(
    {
      method: 'GET',
      path: '/task/:id',
      summary: 'A task: 202 while it runs, 200 with the result, its error’s status when it failed',
      tag: 'task',
      params: z.object({ follow: param.optional('A browser page: go on to the result when done') }),
      responses: { ...answers(task, 400, 404, 500, 503), 202: task },
    },
    async (ctx, p) => {
      const uri = services.uris.item('task', ctx.params.id);
      const found = await tasks.read(uri);
      if (!found) throw notFound(`task ${uri} not found`);
      const { quads, record: task } = found;
      const { status, resultUri: result } = task;
      let code = 200;
      if (status === 'Queued' || status === 'Running') code = 202;
      else if (status === 'Cancelled') code = 503;
      else if (status === 'Error') code = task.error?.status ?? 500;
      if (result) ctx.set('Location', result);
      // a browser watches the progress (the page reloads itself) and goes on to the result when it was watching
      const running = status === 'Queued' || status === 'Running';
      const watching = p.follow !== undefined;
      const progress = running
        ? `<p class="task-status">${escapeHtml(task.title)}: ${escapeHtml(status === 'Queued' ? 'waiting for a free worker' : 'running')}</p><progress max="100" value="${task.percent}">${task.percent}%</progress> <span>${task.percent.toFixed(0)}%</span>
<p class="task-stage">${task.stage ? `${escapeHtml(task.stage)}. ` : ''}${escapeHtml(timing(task))}</p>
<p><small>This page follows the work and opens the result when it is done. Cancel it with <code>DELETE</code> on this task.</small></p>`
        : status === 'Completed'
          ? `<p class="task-status">Done: ${result ? iriHtml(result, 'the result') : 'no result'}</p>`
          : `<p class="task-status error">${escapeHtml(status)}${task.error ? `: ${escapeHtml(task.error.message ?? '')}` : ''}</p>`;
      // only to a result of this server: a task another service runs names any result it likes (no open redirect)
      const local = result ? linkOf(result) : undefined;
      const refresh = running ? { seconds: 1, url: `${ctx.path}?follow=1` } : watching && local && !local.remote ? { seconds: 0, url: local.href } : undefined;
      await sendNegotiated(
        ctx,
        {
          ...rdfRenderers(ctx, () => quads, `Task ${status}${result ? ': done' : ''}`, progress, { refresh }),
          'text/uri-list': () => uriList([status === 'Completed' && result ? result : uri]),
        },
        code,
      );
    },
  );

  // a task that another service runs itself: it creates it here and sets its state (task-states.ts)
  routes.add(
    {
      method: 'POST',
      path: '/task',
      summary: 'Create a task that the caller runs itself (then PUT its state); its work never runs here',
      tag: 'task',
      params: z.object(TASK_FIELDS),
      ownInput: true,
      body: RDF_INPUT_TYPES,
      responses: answers(MEDIA.uri, 400, 401),
    },
    async (ctx) => {
      await sendUri(ctx, await clientTasks.create(await newClientTaskOf(ctx, tasks.collectionUri, config.bodyLimit)));
    },
  );

  // `/task/{id}/{state}`: the OpenTox Ruby clients' form (`PUT {task}/Completed` with resultURI; `{task}/pid` changes nothing)
  routes.add(
    {
      method: 'PUT',
      path: '/task/:id',
      aliases: ['/task/:id/:state'],
      summary: 'Set the state of a task created with POST /task: Running, Completed (resultURI), Cancelled, Error (an ot:ErrorReport)',
      tag: 'task',
      params: z.object(TASK_FIELDS),
      ownInput: true,
      body: RDF_INPUT_TYPES,
      responses: answers(MEDIA.uri, 400, 401, 403, 404, 405),
    },
    async (ctx) => {
      const uri = services.uris.item('task', ctx.params.id);
      await clientTasks.require(uri);
      await clientTasks.change(uri, await taskChangeOf(ctx, uri, ctx.params.state, config.bodyLimit));
      await sendUri(ctx, uri);
    },
  );

  routes.add({ method: 'DELETE', path: '/task/:id', summary: 'Cancel a task (or remove a finished one)', tag: 'task', responses: answers([], 404) }, async (ctx) => {
    const uri = services.uris.item('task', ctx.params.id);
    if (!(await tasks.remove(uri))) throw notFound(`task ${uri} not found`);
    sendDone(ctx);
  });
}

/** "12 s so far, about 30 s left" (the estimate once a tenth is done). */
function timing(task: { created: Date; percent: number }): string {
  const elapsed = (Date.now() - task.created.getTime()) / 1000;
  const left = task.percent >= 10 && task.percent < 100 ? (elapsed * (100 - task.percent)) / task.percent : undefined;
  return `${duration(elapsed)} so far${left === undefined ? '' : `, about ${duration(left)} left`}`;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(0, Math.round(seconds))} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
