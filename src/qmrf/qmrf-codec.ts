import type * as RDF from '@rdfjs/types';
import { df, dc, dcterms, ot, rdf, rdfs, literal, xsd } from '../rdf/namespaces.ts';
import { textChunkQuads, textOfChunks } from '../rdf/text-chunks.ts';
import { find, type QmrfNode } from './qmrf-xml.ts';
import { evidenceUris, qafModelChecklist, type ChecklistElement } from './qaf-checklist.ts';

/**
 * The RDF of a QMRF report (spec 2.8, draft): an `ot:QMRFReport` (a subclass of `ot:Report`)
 * with its title and dates, what it is about (model, algorithm, datasets, endpoint, attached
 * validations), its authors as `ot:Author` nodes in an rdf:Seq and its applicability domain as
 * an `ot:DomainInfo`; the QMRF XML itself in the content graph.
 */
export interface QmrfRecord {
  uri: string;
  title: string;
  created: Date;
  modified: Date;
  model?: string;
  algorithm?: string;
  datasets: string[];
  endpoint?: string;
  validations: string[];
  authors: { name: string; affiliation?: string; contact?: string; email?: string; url?: string }[];
  /** The limits of applicability the QMRF states (chapter 5.4), as the DomainInfo's descriptor domain. */
  domain?: string;
  /** The OECD QAF model checklist judged from the document. */
  checklist: ChecklistElement[];
}

/** What a QMRF document itself says that the RDF repeats: title, authors, endpoint, domain, datasets. */
export function describedBy(tree: QmrfNode): Pick<QmrfRecord, 'title' | 'authors' | 'endpoint' | 'domain' | 'datasets' | 'checklist'> {
  const catalog = (name: string) => find(tree, name)?.children ?? [];
  const authorIds = (find(tree, 'qmrf_authors')?.children ?? []).map((r) => r.attributes.idref);
  const authors = catalog('authors_catalog')
    .filter((a) => authorIds.includes(a.attributes.id))
    .map((a) => ({ name: a.attributes.name, affiliation: a.attributes.affiliation, contact: a.attributes.contact, email: a.attributes.email, url: a.attributes.url }));
  const endpointId = find(tree, 'model_endpoint')?.children[0]?.attributes.idref;
  const endpoint = catalog('endpoints_catalog').find((e) => e.attributes.id === endpointId)?.attributes.ontology_term;
  const limits = (tree.children[0]?.children ?? [])
    .filter((c) => c.name === 'QSAR_Applicability_domain')
    .map((c) => find(c, 'applicability_limits')?.text?.trim())
    .filter((t): t is string => !!t);
  const molecules = [...(find(tree, 'attachment_training_data')?.children ?? []), ...(find(tree, 'attachment_validation_data')?.children ?? [])].map((m) => m.attributes.url);
  return {
    title: find(tree, 'QSAR_title')?.text?.trim() || 'QMRF report',
    authors,
    endpoint: endpoint && /^https?:\/\//.test(endpoint) ? endpoint : undefined,
    domain: limits.join(' ') || undefined,
    datasets: molecules.filter((u) => u && /^https?:\/\//.test(u)),
    checklist: qafModelChecklist(tree),
  };
}

export function qmrfQuads(r: QmrfRecord): RDF.Quad[] {
  const s = df.namedNode(r.uri);
  const quads: RDF.Quad[] = [
    df.quad(s, rdf('type'), ot('QMRFReport')),
    df.quad(s, rdf('type'), ot('Report')),
    df.quad(s, dc('identifier'), literal(r.uri, xsd('anyURI'))),
    df.quad(s, dc('title'), literal(r.title)),
    df.quad(s, ot('date'), literal(r.created)),
    df.quad(s, dcterms('created'), literal(r.created)),
    df.quad(s, dcterms('modified'), literal(r.modified)),
    ...(r.model ? [df.quad(s, ot('reportModel'), df.namedNode(r.model))] : []),
    ...(r.algorithm ? [df.quad(s, ot('reportAlgorithm'), df.namedNode(r.algorithm))] : []),
    ...(r.endpoint ? [df.quad(s, ot('reportEndpoint'), df.namedNode(r.endpoint))] : []),
    ...r.datasets.map((d) => df.quad(s, ot('reportDataset'), df.namedNode(d))),
    ...r.validations.map((v) => df.quad(s, ot('reportValidation'), df.namedNode(v))),
  ];
  if (r.authors.length) {
    const seq = df.namedNode(`${r.uri}#authors`);
    quads.push(df.quad(s, ot('authors'), seq), df.quad(seq, rdf('type'), rdf('Seq')));
    r.authors.forEach((a, i) => {
      const node = df.namedNode(`${r.uri}#author-${i + 1}`);
      quads.push(df.quad(seq, rdf(`_${i + 1}`), node), df.quad(node, rdf('type'), ot('Author')), df.quad(node, ot('authorName'), literal(a.name)));
      const optional: [string, string | undefined][] = [
        ['authorAffiliation', a.affiliation],
        ['authorContact', a.contact],
        ['email', a.email],
      ];
      for (const [p, v] of optional) if (v) quads.push(df.quad(node, ot(p), literal(v)));
      if (a.url) quads.push(df.quad(node, ot('authorUrl'), literal(a.url, xsd('anyURI'))));
    });
  }
  quads.push(...checklistQuads(r.uri, r.checklist));
  if (r.domain) {
    const node = df.namedNode(`${r.uri}#domain`);
    quads.push(df.quad(s, ot('domainInfo'), node), df.quad(node, rdf('type'), ot('DomainInfo')), df.quad(node, ot('descritporDomain'), literal(r.domain)));
  }
  return quads;
}

/** A report's QAF checklist as `ot:QAFChecklistElement` nodes (`{uri}#qaf-1` …), the resources its evidence names as rdfs:seeAlso. */
export function checklistQuads(uri: string, checklist: ChecklistElement[]): RDF.Quad[] {
  const s = df.namedNode(uri);
  return checklist.flatMap((c, i) => {
    const node = df.namedNode(`${uri}#qaf-${i + 1}`);
    return [
      df.quad(s, ot('qafChecklistElement'), node),
      df.quad(node, rdf('type'), ot('QAFChecklistElement')),
      df.quad(node, ot('qafPrinciple'), literal(c.principle)),
      df.quad(node, ot('qafQuestion'), literal(c.question)),
      df.quad(node, ot('qafVerdict'), literal(c.verdict)),
      df.quad(node, ot('qafEvidence'), literal(c.evidence)),
      ...evidenceUris(c).map((u) => df.quad(node, rdfs('seeAlso'), df.namedNode(u))),
    ];
  });
}

export function qmrfRecord(quads: RDF.Quad[], uri: string): QmrfRecord {
  const values = (p: RDF.NamedNode) => quads.filter((q) => q.subject.value === uri && q.predicate.equals(p)).map((q) => q.object.value);
  const of = (subject: string, p: RDF.NamedNode) => quads.find((q) => q.subject.value === subject && q.predicate.equals(p))?.object.value;
  const seq = values(ot('authors'))[0];
  const authors = seq
    ? quads
        .filter((q) => q.subject.value === seq && /#_\d+$/.test(q.predicate.value))
        .sort((a, b) => Number(a.predicate.value.split('_').pop()) - Number(b.predicate.value.split('_').pop()))
        .map((q) => ({
          name: of(q.object.value, ot('authorName')) ?? '',
          affiliation: of(q.object.value, ot('authorAffiliation')),
          contact: of(q.object.value, ot('authorContact')),
          email: of(q.object.value, ot('email')),
          url: of(q.object.value, ot('authorUrl')),
        }))
    : [];
  const domain = values(ot('domainInfo'))[0];
  return {
    uri,
    title: values(dc('title'))[0] ?? uri,
    created: new Date(values(dcterms('created'))[0] ?? 0),
    modified: new Date(values(dcterms('modified'))[0] ?? 0),
    model: values(ot('reportModel'))[0],
    algorithm: values(ot('reportAlgorithm'))[0],
    endpoint: values(ot('reportEndpoint'))[0],
    datasets: values(ot('reportDataset')),
    validations: values(ot('reportValidation')),
    authors,
    domain: domain ? of(domain, ot('descritporDomain')) : undefined,
    checklist: values(ot('qafChecklistElement'))
      .sort((a, b) => Number(a.split('-').pop()) - Number(b.split('-').pop()))
      .map((n) => ({
        principle: of(n, ot('qafPrinciple')) ?? '',
        question: of(n, ot('qafQuestion')) ?? '',
        verdict: (of(n, ot('qafVerdict')) ?? 'not known') as ChecklistElement['verdict'],
        evidence: of(n, ot('qafEvidence')) ?? '',
      })),
  };
}

export function qmrfContentQuads(uri: string, xml: string): RDF.Quad[] {
  return textChunkQuads(uri, ot('reportContent'), xml);
}

export function qmrfContentOf(quads: RDF.Quad[]): string {
  return textOfChunks(quads);
}
