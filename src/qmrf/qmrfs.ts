import { SERVICE_VERSION } from '../core/version.ts';
import { z } from 'zod';
import { defineJob } from '../task/job-definition.ts';
import { badRequest, HttpError, notFound } from '../core/errors.ts';
import { currentUser } from '../core/request-context.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { Params } from '../http/params.ts';
import type { ModelStore } from '../model/model-store.ts';
import { describedBy, type QmrfRecord } from './qmrf-codec.ts';
import type { QmrfFacts } from './qmrf-facts.ts';
import { fillQmrf, validationLine } from './qmrf-filler.ts';
import type { QmrfStore } from './qmrf-store.ts';
import { find, readQmrf, spec, toQmrfXml, type QmrfNode } from './qmrf-xml.ts';

/** This server's version, written into the QMRF's software catalogue. */
const VERSION = SERVICE_VERSION;

/** Parameters of a section update that are not QMRF elements. */
const NOT_SECTIONS = new Set(['validation_uri', 'validation_uris', 'subjectid']);

/** The search parameters of `GET /reach_report/qmrf`. */
export interface QmrfSearch {
  model_uri?: string;
  dataset_uri?: string;
  compound_uri?: string;
  algorithm_uri?: string;
  endpoint_uri?: string;
  search?: string;
}

/** QMRF reports (spec 4.6): made from a model, posted as QMRF XML, replaced, updated by section, searched. */
export class Qmrfs {
  /** Filling a QMRF from a model is a job kind, so a worker may run it. */
  readonly jobs = {
    qmrf: defineJob({
      kind: 'qmrf',
      input: z.object({ modelUri: z.string() }),
      prepare: async ({ modelUri }) => {
        if (!(await this.models.describe(modelUri))) throw notFound(`model_uri: model ${modelUri} not found`);
        return { title: `QMRF report of ${modelUri}`, work: () => this.fromModel(modelUri) };
      },
    }),
  };
  private readonly startQmrf: (input: { modelUri: string }) => Promise<string>;

  private readonly services: Pick<Services, 'uris' | 'tasks' | 'chemistry'>;
  private readonly facts: QmrfFacts;
  private readonly store: QmrfStore;
  private readonly models: ModelStore;
  private readonly datasets: DatasetStore;
  constructor(services: Qmrfs['services'], facts: QmrfFacts, store: QmrfStore, models: ModelStore, datasets: DatasetStore) {
    this.services = services;
    this.facts = facts;
    this.store = store;
    this.models = models;
    this.datasets = datasets;
    this.startQmrf = services.tasks.starters(this.jobs).qmrf;
  }

  private context(date = new Date()) {
    return { author: currentUser.getStore() ?? 'ToxGraph user', date, service: { uri: this.services.uris.service(), version: VERSION }, rdkitVersion: this.services.chemistry.rdkitVersion };
  }

  /** `POST /reach_report/qmrf` with `model_uri`: checked at once (404), filled by a task (a job kind) that answers the report. */
  async startFromModel(modelUri: string): Promise<string> {
    return this.startQmrf({ modelUri });
  }

  private async fromModel(modelUri: string): Promise<string> {
    const facts = await this.facts.of(modelUri);
    const context = this.context();
    const tree = fillQmrf(facts, context);
    const xml = checked(toQmrfXml(tree)).xml;
    return this.store.create(
      {
        ...describedBy(tree),
        created: context.date,
        modified: context.date,
        model: modelUri,
        algorithm: facts.algorithm.uri,
        // an imported model may name no training dataset ('')
        datasets: [...(facts.training.uri ? [facts.training.uri] : []), ...describedBy(tree).datasets.filter((d) => d && d !== facts.training.uri)],
        validations: [],
      },
      xml,
    );
  }

  /** `POST /reach_report/qmrf` with a QMRF XML body: stored as it is when valid (400 with the errors otherwise). */
  async createFromXml(xml: string): Promise<string> {
    const { tree } = checked(xml);
    const now = new Date();
    return this.store.create({ ...describedBy(tree), created: now, modified: now, validations: [] }, xml);
  }

  async require(uri: string): Promise<QmrfRecord> {
    const found = await this.store.read(uri);
    if (!found) throw notFound(`QMRF report ${uri} not found`);
    return found.record;
  }

  /** `POST /reach_report/qmrf/{id}` with XML: the report's content replaced (what it is about is kept). */
  async replaceXml(uri: string, xml: string): Promise<void> {
    const record = await this.require(uri);
    const { tree } = checked(xml);
    await this.store.replace({ ...record, ...describedBy(tree), datasets: merged(record.datasets, describedBy(tree).datasets), modified: new Date() }, xml);
  }

  /**
   * `POST /reach_report/qmrf/{id}` with form parameters: each parameter named after a text
   * element of the DTD sets its text (the first such element), `element@attribute` sets an
   * attribute, and `validation_uri` attaches validations or cross-validations of the report's
   * model (their statistics go to chapters 6 and 7). The result must stay valid; nothing is
   * stored otherwise.
   */
  async update(uri: string, params: Params): Promise<void> {
    const record = await this.require(uri);
    const found = readQmrf(await this.store.xml(uri));
    if ('errors' in found) throw new Error(`stored QMRF ${uri} is not valid: ${found.errors[0]}`);
    const tree = found.tree;
    for (const name of new Set(params.entries().map(([k]) => k))) {
      if (NOT_SECTIONS.has(name)) continue;
      const [element, attribute] = name.split('@');
      const s = (() => {
        try {
          return spec(element);
        } catch {
          throw badRequest(`${name} is not an element of the QMRF DTD`);
        }
      })();
      const node = find(tree, element);
      if (!node) throw badRequest(`${name}: the report has no ${element} element`);
      const value = params.get(name) ?? '';
      if (attribute) {
        const declared = s.attributes.find((a) => a.name === attribute);
        if (!declared || declared.fixed !== undefined || declared.type === 'ID' || declared.type === 'IDREF')
          throw badRequest(`${name}: ${attribute} is not an attribute of ${element} that can be set`);
        node.attributes[attribute] = value;
      } else {
        if (s.content.kind !== 'text') throw badRequest(`${name}: ${element} holds elements, not text; post the whole QMRF XML to change it`);
        node.text = value;
      }
    }
    const validations = params.all('validation_uri').flatMap((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x),
    );
    for (const v of validations) await this.attach(record, tree, v);
    const { xml } = checked(toQmrfXml(tree));
    await this.store.replace(
      { ...record, ...describedBy(tree), datasets: merged(record.datasets, describedBy(tree).datasets), validations: merged(record.validations, validations), modified: new Date() },
      xml,
    );
  }

  private async attach(record: QmrfRecord, tree: QmrfNode, uri: string): Promise<void> {
    if (!record.model) throw badRequest(`validation_uri: report ${record.uri} is not about a model of this service`);
    const summary = await this.facts.validationOf(uri, record.model);
    if (!summary) throw notFound(`validation_uri: validation or cross-validation ${uri} not found`);
    if (!summary.ofModel) throw badRequest(`validation_uri: ${uri} validates another model (or another algorithm or training set) than ${record.model}`);
    const t = summary.tree;
    const element = t.numFolds !== undefined ? (t.yScramble ? 'yscrambling' : t.leaveOneOut ? 'loo' : 'lmo') : t.validationType === 'bootstrapping' ? 'bootstrap' : 'validation_predictivity';
    const node = find(tree, element)!;
    const line = validationLine(summary);
    if (!(node.text ?? '').includes(uri)) node.text = [node.text?.trim(), line].filter((x) => x).join('\n');
    if (element === 'validation_predictivity') {
      const availability = find(tree, 'validation_set_availability')!;
      availability.attributes.answer = 'Yes';
    }
  }

  /** Reports matching every given criterion (all reports when none). */
  async search(q: QmrfSearch): Promise<string[]> {
    const holding = q.compound_uri ? new Set(await this.datasets.holding(q.compound_uri)) : undefined;
    const words = (q.search ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w);
    const out: string[] = [];
    // each report read once, every criterion checked on it (the document only for a text search)
    for (const uri of await this.store.list(q.model_uri)) {
      const r = (await this.store.read(uri))?.record;
      if (!r) continue;
      if (q.algorithm_uri && r.algorithm !== q.algorithm_uri) continue;
      if (q.endpoint_uri && r.endpoint !== q.endpoint_uri) continue;
      if (q.dataset_uri && !r.datasets.includes(q.dataset_uri)) continue;
      if (holding && !r.datasets.some((d) => holding.has(d))) continue;
      if (words.length) {
        const text = `${r.title}\n${await this.store.xml(uri)}`.toLowerCase();
        if (!words.every((w) => text.includes(w))) continue;
      }
      out.push(uri);
    }
    return out;
  }
}

const merged = (a: string[], b: string[]) => [...new Set([...a, ...b])];

/** A QMRF document that must be valid: the tree and the XML, or 400 listing what is wrong. */
function checked(xml: string): { tree: QmrfNode; xml: string } {
  const read = readQmrf(xml);
  if ('errors' in read) {
    const shown = [...new Set(read.errors)].slice(0, 20);
    throw new HttpError(400, 'InvalidInput', `the QMRF XML is not valid against qmrf.dtd: ${shown.join('; ')}${read.errors.length > 20 ? ` (and ${read.errors.length - 20} more)` : ''}`);
  }
  return { tree: read.tree, xml };
}
