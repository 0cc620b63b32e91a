import type * as RDF from '@rdfjs/types';
import type { Context } from 'koa';
import type { Services } from '../core/services.ts';
import { currentUser } from '../core/request-context.ts';
import { structureReaderOn } from '../chemistry/structure-reader.ts';
import { Params } from '../http/params.ts';
import { dc, ot, literal } from '../rdf/namespaces.ts';
import type { WorkProgress } from '../task/now-or-as-task.ts';
import { mergeAnnotations } from './dataset-codec.ts';
import { annotationsOf, associatedFeatures, dedupe, fileTypeOf, isLargeUpload, openTable, readUpload, type Upload } from './dataset-input.ts';
import type { DatasetStore } from './dataset-store.ts';
import { uploadChoicesOf, withChoices } from './upload-choices.ts';
import { PendingUploads, previewOf, type TablePreview } from './upload-preview.ts';

/** An upload ready to store: as a task or at once, and the work that stores it. */
export interface PreparedUpload {
  slow: boolean;
  title: string;
  work: (job: WorkProgress) => Promise<string>;
}

/**
 * Uploads: a file stored as a dataset (at once, or as a task when it is large), or first looked
 * at (the preview) and stored later from its page with what the person corrected and added.
 */
export class DatasetUploads {
  private readonly services: Pick<Services, 'config' | 'store' | 'workers' | 'shapes' | 'chemistry'>;
  private readonly datasets: DatasetStore;
  private readonly pending = new PendingUploads();
  constructor(services: DatasetUploads['services'], datasets: DatasetStore) {
    this.services = services;
    this.datasets = datasets;
  }

  /**
   * The upload a request carries: its file (raw, or multipart's `file`), or the waiting file a
   * preview's form names (`pending`), with the form's fields over the file's first ones.
   */
  async of(ctx: Context, form?: Params): Promise<{ upload: Upload; pending?: string }> {
    const pending = form?.get('pending');
    if (!form || !pending) return { upload: await readUpload(ctx, this.services.config.bodyLimit) };
    const waiting = this.pending.get(pending, currentUser.getStore());
    const params = new Params(new URLSearchParams([...[...waiting.params.entries()].filter(([name]) => !form.has(name)), ...form.entries()]));
    return { upload: { ...waiting, params }, pending };
  }

  /** Look at an upload before storing it; it waits for its page's form. Answers the preview and the name it waits under. */
  async preview(given: { upload: Upload; pending?: string }): Promise<{ preview: TablePreview; pending: string }> {
    const { upload } = given;
    const source = await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner());
    const preview = await previewOf(upload, fileTypeOf(upload), source, structureReaderOn(this.services.workers, undefined, this.services.chemistry));
    return { preview, pending: this.pending.keep(upload, currentUser.getStore(), given.pending) };
  }

  /** The preview of a waiting upload (its page: GET /dataset/preview/{pending}), read with its settings. */
  async previewOfPending(pending: string): Promise<{ preview: TablePreview; pending: string; params: Params }> {
    const upload = this.pending.get(pending, currentUser.getStore());
    const source = await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner());
    const preview = await previewOf(upload, fileTypeOf(upload), source, structureReaderOn(this.services.workers, undefined, this.services.chemistry));
    return { preview, pending, params: upload.params };
  }

  /** The work of storing an upload, checked first (a workbook too large: 413). */
  async prepare(given: { upload: Upload; pending?: string }): Promise<PreparedUpload> {
    const { upload, pending } = given;
    const params = new Params(new URLSearchParams([...upload.params.entries()]));
    const associated = await associatedFeatures(params, this.datasets, this.services.store);
    const annotations = annotationsOf(params);
    const choices = uploadChoicesOf(params);
    // a few thousand structures take seconds to register (about 1 ms each): a task, however small the file;
    // as a task it stops when the task is cancelled or the server stops (then nothing is kept)
    const slow = isLargeUpload(upload, this.services.config);
    return {
      slow,
      title: `Upload ${upload.filename ?? 'dataset'}`,
      work: async ({ progress, signal }) => {
        const source = withChoices(await openTable(upload, `${this.datasets.collection}/`, this.services.shapes, this.services.workers.runner()), choices);
        const defaults: [RDF.NamedNode, RDF.Term][] = [];
        if (upload.filename) defaults.push([ot('hasSource'), literal(upload.filename)], [dc('title'), literal(upload.filename)]);
        if (source.title) defaults.push([dc('title'), literal(source.title)]);
        const reader = structureReaderOn(this.services.workers, signal, this.services.chemistry);
        const uri = await this.datasets.create(source, reader, mergeAnnotations(dedupe(defaults), annotations), { associated, progress, signal });
        if (pending) this.pending.drop(pending);
        return uri;
      },
    };
  }
}
