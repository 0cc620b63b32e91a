import type { Services } from '../core/services.ts';
import { HttpError, notFound } from '../core/errors.ts';
import { currentUser } from '../core/request-context.ts';
import { CLIENT_RUNNER, taskQuads, taskRecord, type TaskRecord } from './task-codec.ts';
import type { NewClientTask } from './task-input.ts';
import { changedTask, type TaskChange } from './task-states.ts';

/** A title for a task created without one. */
const UNTITLED = 'A task run by another service';

/**
 * Tasks that other services run themselves (`POST /task`, then `PUT` of their state), as the
 * OpenTox task service had them: the task is a resource here, its work is elsewhere. Such a task
 * records the runner `client`: the task runner never runs it, and a restart does not end it (the
 * work it stands for did not stop). Who may change it is access control's decision (the creator,
 * who owns it as every resource it creates).
 */
export class ClientTasks {
  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  /** The change of each task being written: changes of one task are applied one after the other. */
  private readonly changing = new Map<string, Promise<unknown>>();
  constructor(services: ClientTasks['services']) {
    this.services = services;
  }

  /** Create a task that its caller runs; answers its URI. */
  async create(task: NewClientTask): Promise<string> {
    const user = currentUser.getStore();
    // minted like every resource: the caller owns it (with access control on)
    const uri = await this.services.ids.nextUnique(this.services.uris.collection('task'));
    const now = new Date();
    const record: TaskRecord = {
      uri,
      title: task.title ?? UNTITLED,
      creator: task.creator ?? user,
      status: task.status,
      percent: 0,
      created: now,
      modified: now,
      runner: CLIENT_RUNNER,
      stage: task.description,
    };
    await this.services.store.createGraphs({ [uri]: taskQuads(record) });
    return uri;
  }

  /** The task a PUT names: 404 when there is none, 405 when this server runs it (its state is the runner's). */
  async require(uri: string): Promise<TaskRecord> {
    const task = taskRecord(await this.services.store.readGraph(uri), uri);
    if (!task) throw notFound(`task ${uri} not found`);
    if (task.runner !== CLIENT_RUNNER) {
      throw new HttpError(405, 'MethodNotAllowed', `task ${uri} is run by this server: only its runner sets its state (PUT is for tasks created with POST /task)`, undefined, { Allow: 'GET, DELETE' });
    }
    return task;
  }

  /** Set a task's state (task-states.ts decides what may follow), in one write; nothing to change for the Ruby clients' `pid`. */
  async change(uri: string, change: TaskChange | undefined): Promise<void> {
    const previous = this.changing.get(uri) ?? Promise.resolve();
    const write = previous
      .catch(() => undefined)
      .then(async () => {
        const task = await this.require(uri);
        if (change) await this.services.store.replaceGraphs({ [uri]: taskQuads(changedTask(task, change, new Date())) });
      });
    this.changing.set(uri, write);
    try {
      await write;
    } finally {
      if (this.changing.get(uri) === write) this.changing.delete(uri);
    }
  }
}
