import { z } from 'zod';
import { defineJob } from '../task/job-definition.ts';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { Block, ReportDocument } from './report-document.ts';
import { toDocBook } from './report-document.ts';
import type { PlotRequest } from './plots.ts';
import type { ReportFacts, ValidationFacts } from './report-facts.ts';
import type { ReportStore } from './report-store.ts';
import { REPORT_TYPES, type ReportType } from './report-codec.ts';
import { crossvalidationSections, validationSections, type DraftSection } from './report-builders.ts';
import { comparisonSections } from './comparison-report.ts';

const PLOTS_MODULE = new URL('./plots.ts', import.meta.url).href;

/** A checked report request: its type, validations (in order) and identifiers. */
const reportRequest = z.object({ type: z.enum(REPORT_TYPES), validations: z.array(z.string()), identifiers: z.array(z.string()) });
type ReportRequest = z.infer<typeof reportRequest>;

/** What a report request gives: `validation_uris` and `identifier`, each value a comma-separated list (or the parameter repeated). */
export interface ReportAsked {
  validationUris: string[];
  identifiers: string[];
}

function split(values: string[]): string[] {
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v);
}

/** Making validation reports (spec 4.3): the request checked at once, the report written by a task. */
export class Reports {
  /** Making a report is a job kind (input: the checked request), so a worker may run it. */
  readonly jobs = {
    report: defineJob({
      kind: 'report',
      input: reportRequest,
      prepare: async (request) => {
        await this.requireValidations(request);
        const title =
          request.type === 'algorithm_comparison'
            ? `Algorithm comparison report of ${request.identifiers.join(', ')}`
            : `${request.type === 'validation' ? 'Validation' : 'Cross-validation'} report of ${request.validations[0]}`;
        return { title, work: (job) => this.make(request, job.signal) };
      },
    }),
  };
  private readonly startReport: (request: ReportRequest) => Promise<string>;

  private readonly services: Pick<Services, 'tasks' | 'workers'>;
  private readonly facts: ReportFacts;
  private readonly store: ReportStore;
  constructor(services: Reports['services'], facts: ReportFacts, store: ReportStore) {
    this.services = services;
    this.facts = facts;
    this.store = store;
    this.startReport = services.tasks.starters(this.jobs).report;
  }

  /**
   * Check a request (400/404 naming the parameter). Answers an existing report of the same
   * validations that the caller may read (`canRead`, with access control on), or the task that
   * makes the report.
   */
  async start(type: ReportType, asked: ReportAsked, canRead: (uri: string) => boolean = () => true): Promise<{ existing: string } | { task: string }> {
    const request = this.check(type, asked);
    await this.requireValidations(request);
    const existing = await this.store.existing(type, request.validations, request.identifiers, canRead);
    if (existing) return { existing };
    return { task: await this.startReport(request) };
  }

  /** Every validation must exist and be of the right kind before work is queued. */
  private async requireValidations(request: ReportRequest): Promise<void> {
    const kind = request.type === 'validation' ? 'Validation' : 'Crossvalidation';
    const tasks = new Set<string>();
    for (const v of request.validations) tasks.add((await this.facts.require(v, kind)).task);
    if (tasks.size > 1) throw badRequest('validation_uris: an algorithm comparison compares cross-validations of one kind (all regression or all classification)');
  }

  private check(type: ReportType, asked: ReportAsked): ReportRequest {
    const validations = split(asked.validationUris);
    if (!validations.length) throw badRequest('missing required parameter validation_uris (comma-separated validation URIs)');
    if (new Set(validations).size !== validations.length) throw badRequest('validation_uris: a validation is given twice');
    const notUri = validations.find((v) => !/^https?:\/\/[^\s<>"{}|\\^`]+$/.test(v));
    if (notUri) throw badRequest(`validation_uris: ${JSON.stringify(notUri.slice(0, 200))} is not a validation URI`);
    const identifiers = split(asked.identifiers);
    if (type === 'algorithm_comparison') {
      if (validations.length < 2) throw badRequest('validation_uris: an algorithm comparison needs at least two cross-validations');
      if (identifiers.length !== validations.length) throw badRequest(`identifier: give one identifier per cross-validation (${validations.length}, comma-separated), not ${identifiers.length}`);
      if (new Set(identifiers).size !== identifiers.length) throw badRequest('identifier: the identifiers must be distinct');
    } else {
      if (validations.length > 1) throw badRequest(`validation_uris: a ${type} report is about one ${type}; compare cross-validations with the algorithm_comparison report type`);
      if (identifiers.length) throw badRequest('identifier: only an algorithm comparison takes identifiers');
    }
    return { type, validations, identifiers };
  }

  private async make(request: ReportRequest, signal?: AbortSignal): Promise<string> {
    const { type, validations, identifiers } = request;
    let title: string;
    let subtitle: string;
    let sections: DraftSection[];
    let about: ValidationFacts[];
    if (type === 'validation') {
      const v = await this.facts.validation(validations[0]);
      title = `Validation report: ${v.model?.title ?? v.model?.uri ?? v.uri}`;
      subtitle = `${v.record.validationType} of the prediction of ${v.predictionFeature.title ?? v.predictionFeature.uri}`;
      sections = validationSections(v);
      about = [v];
    } else if (type === 'crossvalidation') {
      const cv = await this.facts.crossvalidation(validations[0]);
      title = `Cross-validation report: ${cv.algorithm.title ?? cv.algorithm.uri}`;
      subtitle = `${cv.record.numFolds}-fold cross-validation on ${cv.dataset.title ?? cv.dataset.uri}, predicting ${cv.predictionFeature.title ?? cv.predictionFeature.uri}`;
      sections = crossvalidationSections(cv);
      about = [{ ...cv.pooled, algorithm: cv.algorithm }];
    } else {
      const compared = [];
      for (const [k, uri] of validations.entries()) compared.push({ identifier: identifiers[k], cv: await this.facts.crossvalidation(uri) });
      title = `Algorithm comparison: ${identifiers.join(', ')}`;
      subtitle = `${compared.length} cross-validations predicting ${[...new Set(compared.map((c) => c.cv.predictionFeature.title ?? c.cv.predictionFeature.uri))].join(', ')}`;
      sections = comparisonSections(compared);
      about = compared.map((c) => ({ ...c.cv.pooled, algorithm: c.cv.algorithm }));
    }
    const date = new Date();
    const document: ReportDocument = { title, subtitle, date: date.toISOString(), sections: await this.drawPlots(sections, signal) };
    return this.store.create(
      {
        type,
        title,
        date,
        validations,
        identifiers,
        models: [...new Set(about.flatMap((v) => (v.model ? [v.model.uri] : [])))],
        algorithms: [...new Set(about.flatMap((v) => (v.algorithm ? [v.algorithm.uri] : [])))],
      },
      () => toDocBook(document),
    );
  }

  /** Draw every plot of the drafts on the worker pool (one call) and put the SVGs in place. */
  private async drawPlots(drafts: DraftSection[], signal?: AbortSignal) {
    const plots: PlotRequest[] = drafts.flatMap((s) => s.blocks.flatMap((b) => (b.kind === 'plot' ? [b.plot] : [])));
    const svgs = plots.length ? await this.services.workers.run<string[]>(PLOTS_MODULE, 'renderPlots', [plots], signal) : [];
    let next = 0;
    return drafts.map((s) => ({
      title: s.title,
      blocks: s.blocks.map((b): Block => (b.kind === 'plot' ? { kind: 'figure', title: b.plot.title, svg: svgs[next++] } : b)),
    }));
  }
}
