import { z } from 'zod';
import { defineJob } from '../task/job-definition.ts';
import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { df, dc, dcterms, ot, rdf, literal, xsd } from '../rdf/namespaces.ts';
import { textChunkQuads, textOfChunks } from '../rdf/text-chunks.ts';
import { readTypedGraph, resourcesOfType, selectUris } from '../store/query-helpers.ts';
import { toDocBook } from '../report/report-document.ts';
import { checklistQuads } from './qmrf-codec.ts';
import type { QmrfStore } from './qmrf-store.ts';
import type { QprfFacts } from './qprf-facts.ts';
import { qafPredictionChecklist, qprfDocument } from './qprf-document.ts';
import type { PreparedJob } from '../task/task-runner.ts';

/** What a QPRF is made of: a model, and a compound (of a dataset, optionally). */
const qprfRequest = z.object({ modelUri: z.string().optional(), datasetUri: z.string().optional(), compoundUri: z.string() });
type QprfRequest = z.infer<typeof qprfRequest>;

/**
 * QPRF reports: one prediction of one model for one substance (`POST /reach_report/qprf` with
 * `model_uri` and `compound_uri`, or `dataset_uri` of a prediction dataset and `compound_uri`).
 * The report object (`ot:QPRFReport`) with what it is about, the applicability-domain verdict
 * (`ot:DomainInfo`), the adequacy of the prediction (`ot:AdequacyInfo`) and the QAF prediction
 * checklist; the document is DocBook in its content graph (HTML and PDF converted from it).
 */
export class Qprfs {
  readonly collection: string;
  /** Making a QPRF is a job kind, so a worker may run it. */
  readonly jobs = { qprf: defineJob({ kind: 'qprf', input: qprfRequest, prepare: (request) => this.prepare(request) }) };
  private readonly startQprf: (request: QprfRequest) => Promise<string>;

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids' | 'tasks' | 'chemistry'>;
  private readonly facts: QprfFacts;
  private readonly qmrfs: QmrfStore;
  constructor(services: Qprfs['services'], facts: QprfFacts, qmrfs: QmrfStore) {
    this.services = services;
    this.facts = facts;
    this.qmrfs = qmrfs;
    this.collection = services.uris.reachReports('qprf');
    this.startQprf = services.tasks.starters(this.jobs).qprf;
  }

  private contentGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'content');
  }

  /** Checked at once (404/400 naming the parameter); the report is made by a task (a job kind). */
  start(request: QprfRequest): Promise<string> {
    return this.startQprf(request);
  }

  private async prepare(request: QprfRequest): Promise<PreparedJob> {
    const checked = await this.facts.check(request);
    return {
      title: `QPRF of ${checked.model.uri} for ${checked.compound.uri}`,
      work: async (job) => {
        const facts = await this.facts.of(checked, job.signal);
        const qmrfs = await this.qmrfs.list(facts.model.uri);
        const checklist = qafPredictionChecklist(facts, qmrfs);
        const uri = await this.services.ids.next(this.collection);
        const date = new Date();
        const doc = qprfDocument(facts, { uri, date: date.toISOString(), qmrfs, depiction: (s) => this.services.chemistry.svg(this.services.chemistry.molfileOf(s), 300, 220), checklist });
        const s = df.namedNode(uri);
        const domain = checklist[1];
        const reliability = checklist[2];
        const quads: RDF.Quad[] = [
          df.quad(s, rdf('type'), ot('QPRFReport')),
          df.quad(s, rdf('type'), ot('Report')),
          df.quad(s, dc('identifier'), literal(uri, xsd('anyURI'))),
          df.quad(s, dc('title'), literal(doc.title)),
          df.quad(s, ot('date'), literal(date)),
          df.quad(s, dcterms('created'), literal(date)),
          df.quad(s, ot('reportModel'), df.namedNode(facts.model.uri)),
          df.quad(s, ot('reportCompound'), df.namedNode(facts.compound.uri)),
          ...(facts.source.kind === 'dataset' ? [df.quad(s, ot('reportDataset'), df.namedNode(facts.source.uri))] : []),
          ...(facts.prediction.value ? [df.quad(s, ot('predictedValue'), facts.prediction.value)] : []),
          df.quad(s, ot('domainInfo'), df.namedNode(`${uri}#domain`)),
          df.quad(df.namedNode(`${uri}#domain`), rdf('type'), ot('DomainInfo')),
          df.quad(df.namedNode(`${uri}#domain`), ot('descritporDomain'), literal(`${domain.verdict}: ${domain.evidence}`)),
          df.quad(s, ot('adequacyInfo'), df.namedNode(`${uri}#adequacy`)),
          df.quad(df.namedNode(`${uri}#adequacy`), rdf('type'), ot('AdequacyInfo')),
          df.quad(df.namedNode(`${uri}#adequacy`), ot('adequacyOutcome'), literal(`${reliability.verdict}: ${reliability.evidence}`)),
          ...checklistQuads(uri, checklist),
        ];
        await this.services.store.replaceGraphs({ [uri]: quads, [this.contentGraph(uri)]: textChunkQuads(uri, ot('reportContent'), toDocBook(doc)) });
        return uri;
      },
    };
  }

  read(uri: string): Promise<RDF.Quad[] | undefined> {
    return readTypedGraph(this.services.store, uri, ot('QPRFReport'));
  }

  async document(uri: string): Promise<string> {
    return textOfChunks(await this.services.store.readGraph(this.contentGraph(uri)));
  }

  list(filter: { model?: string; compound?: string }): Promise<string[]> {
    return selectUris(
      this.services.store,
      resourcesOfType(ot('QPRFReport'), [
        [ot('reportModel'), filter.model],
        [ot('reportCompound'), filter.compound],
      ]),
    );
  }

  async delete(uri: string): Promise<void> {
    await this.services.store.deleteGraphs([uri, this.contentGraph(uri)]);
  }
}
