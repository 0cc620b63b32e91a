import type * as RDF from '@rdfjs/types';
import type { Context } from 'koa';
import type { Services } from '../core/services.ts';
import { currentUser } from '../core/request-context.ts';
import { Params } from '../http/params.ts';
import { dc, ot, literal } from '../rdf/namespaces.ts';
import type { WorkProgress } from '../task/now-or-as-task.ts';
import { mergeAnnotations } from './dataset-codec.ts';
import { annotationsOf, associatedFeatures, dedupe, fileTypeOf, isLargeUpload, openTable, readUpload, type Upload } from './dataset-input.ts';
import type { DatasetStore } from './dataset-store.ts';
import { checkCell } from './table-limits.ts';
import { uploadChoicesOf, withChoices } from './upload-choices.ts';
import { PendingUploads, previewLimitsOf, previewOf, type TablePreview } from './upload-preview.ts';

/** An upload ready to store: as a task or at once, and the work that stores it. */
export interface PreparedUpload {
  slow: boolean;
  title: string;
  work: (job: WorkProgress) => Promise<string>;
}

/** The upload a request carries, the waiting file it names (a preview's form), and who sent it. */
export interface GivenUpload {
  upload: Upload;
  pending?: string;
  /** The user (access control on) or the client's address, as the job quotas name callers. */
  caller: string;
}

/**
 * Uploads: a file stored as a dataset (at once, or as a task when it is large), or first looked
 * at (the preview) and stored later from its page with what the person corrected and added.
 * Either way the table is opened once, read and checked whole (openTable) before anything is
 * stored or a task started: a table that cannot be stored answers 4xx to the request itself.
 */
export class DatasetUploads {
  private readonly services: Pick<Services, 'config' | 'store' | 'workers' | 'shapes' | 'chemistry'>;
  private readonly datasets: DatasetStore;
  private readonly pending: PendingUploads;
  constructor(services: DatasetUploads['services'], datasets: DatasetStore) {
    this.services = services;
    this.datasets = datasets;
    this.pending = new PendingUploads(previewLimitsOf(services.config.bodyLimit));
  }

  /** What the waiting uploads of this process hold, as counted against their limits (upload-preview.ts). */
  get pendingBytes(): number {
    return this.pending.bytes;
  }

  /**
   * The upload a request carries: its file (raw, or multipart's `file`), or the waiting file a
   * preview's form names (`pending`), with the form's fields over the file's first ones.
   */
  async of(ctx: Context, form?: Params): Promise<GivenUpload> {
    const user = currentUser.getStore();
    const caller = user ? `user:${user}` : `address:${ctx.ip}`;
    const pending = form?.get('pending');
    if (!form || !pending) return { upload: await readUpload(ctx, this.services.config.bodyLimit), caller };
    const waiting = this.pending.get(pending, user);
    const params = new Params(new URLSearchParams([...[...waiting.params.entries()].filter(([name]) => !form.has(name)), ...form.entries()]));
    return { upload: { ...waiting, params }, pending, caller };
  }

  /**
   * Look at an upload before storing it; it waits for its page's form. Answers the preview and
   * the name it waits under. Its place among the waiting uploads is taken first (413 or 429
   * before any work when there is none), and given back when its table cannot be read.
   */
  async preview(given: GivenUpload): Promise<{ preview: TablePreview; pending: string }> {
    const { upload } = given;
    const kept = this.pending.keep(upload, currentUser.getStore(), given.caller, given.pending);
    try {
      const source = await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner(), true);
      const preview = await previewOf(upload, fileTypeOf(upload), source, this.datasets.structureReader());
      return { preview, pending: kept.id };
    } catch (e) {
      kept.undo();
      throw e;
    }
  }

  /** The preview of a waiting upload (its page: GET /dataset/preview/{pending}), read with its settings. */
  async previewOfPending(pending: string): Promise<{ preview: TablePreview; pending: string; params: Params }> {
    const upload = this.pending.get(pending, currentUser.getStore());
    const source = await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner(), true);
    const preview = await previewOf(upload, fileTypeOf(upload), source, this.datasets.structureReader());
    return { preview, pending, params: upload.params };
  }

  /**
   * The work of storing an upload, its table read and checked first (what cannot be stored:
   * 4xx now, never a task that fails); a task when it has more rows than `--dataset-task-rows`
   * or more bytes than `--dataset-task-bytes`, whatever its format.
   */
  async prepare(given: { upload: Upload; pending?: string }): Promise<PreparedUpload> {
    const { upload, pending } = given;
    const params = new Params(new URLSearchParams([...upload.params.entries()]));
    const associated = await associatedFeatures(params, this.datasets, this.services.store);
    const annotations = annotationsOf(params);
    const choices = uploadChoicesOf(params);
    const table = await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner());
    const source = withChoices(table, choices);
    // the file's name and the dataset's own title become its dc:title and ot:hasSource
    if (upload.filename) checkCell(upload.filename, 'the name of the uploaded file');
    if (source.title) checkCell(source.title, "the dataset's title");
    // a few thousand structures take seconds to register (about 1 ms each): a task, however small the file;
    // as a task it stops when the task is cancelled or the server stops (then nothing is kept)
    const slow = isLargeUpload(upload, table.rows, this.services.config);
    return {
      slow,
      title: `Upload ${upload.filename ?? 'dataset'}`,
      work: async ({ progress, signal }) => {
        const defaults: [RDF.NamedNode, RDF.Term][] = [];
        if (upload.filename) defaults.push([ot('hasSource'), literal(upload.filename)], [dc('title'), literal(titleOfFile(upload.filename))]);
        if (source.title) defaults.push([dc('title'), literal(source.title)]);
        const reader = this.datasets.structureReader(signal);
        const uri = await this.datasets.create(source, reader, mergeAnnotations(dedupe(defaults), annotations), { associated, progress, signal });
        if (pending) this.pending.drop(pending);
        return uri;
      },
    };
  }
}

/** A dataset's title from the name of the file it was uploaded from: without its extension ("EPAFHM_log10.csv" is "EPAFHM_log10"). */
export function titleOfFile(filename: string): string {
  return filename.replace(/\.[A-Za-z][A-Za-z0-9]{0,4}$/, '') || filename;
}
