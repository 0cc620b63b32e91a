import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { notFound } from '../core/errors.ts';
import { sendGraphList, sendNegotiated, rdfRenderers, sendDone, uriList } from '../http/respond.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import type { Services } from '../core/services.ts';

/** Task resources (spec 2.9, DESIGN.md): GET list, GET one (status code follows the state), DELETE cancels. */
export function taskRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris' | 'store' | 'tasks'>): void {
  const { store, tasks } = services;

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
      const refresh = running ? { seconds: 1, url: `${ctx.path}?follow=1` } : watching && result ? { seconds: 0, url: linkOf(result).href } : undefined;
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
