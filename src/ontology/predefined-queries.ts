import { dc, df, dcterms, literal, ot, prov, rdf } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import type * as RDF from '@rdfjs/types';

/** A query a reviewer asks often, published by the ontology service: its parameter is bound as an IRI, never pasted. */
export interface PredefinedQuery {
  name: string;
  title: string;
  description: string;
  /** The query parameter that names the IRI the query is about. */
  parameter: string;
  query: (iri: string) => SparqlText;
}

/** Provenance of read-across assessments (issue 57): what a gap-filled value rests on, and which assessments rest on a dataset. */
export const PREDEFINED_QUERIES: PredefinedQuery[] = [
  {
    name: 'gap-fill-sources',
    title: 'What an assessment’s gap-filled values rest on',
    description:
      'For each gap-filled value of an assessment: the measured values it was derived from (prov:wasDerivedFrom), their compounds, similarity to the target and datasets (prov:hadPrimarySource), each value read from its dataset’s rows (those of datasets the caller may read).',
    parameter: 'assessment',
    query: (a) => {
      const s = df.namedNode(checkIri(a));
      return sparql`SELECT ?endpoint ?method ?predicted ?compound ?similarity ?measured ?dataset WHERE { GRAPH ${s} {
  ${s} ${ot('gapFill')} ?fill . ?fill ${ot('endpoint')} ?endpoint ; ${ot('method')} ?method .
  OPTIONAL { ?fill ${ot('value')} ?predicted }
  ?fill ${prov('wasDerivedFrom')} ?source . ?source ${ot('compound')} ?compound ; ${ot('feature')} ?feature ; ${prov('hadPrimarySource')} ?dataset .
  OPTIONAL { ?source ${ot('similarity')} ?similarity } }
  # the value from the dataset's own rows: only where the caller may read the dataset
  BIND(IRI(CONCAT(STR(?dataset), "/entries")) AS ?rows)
  GRAPH ?rows { ?entry ${ot('compound')} ?compound ; ?feature ?measured } } ORDER BY ?endpoint DESC(?similarity) ?compound`;
    },
  },
  {
    name: 'assessments-resting-on',
    title: 'The assessments whose gap-filled values rest on a dataset',
    description: 'Every assessment (and version) with a gap-filled value derived from a measured value of the dataset: what a correction of the dataset would touch.',
    parameter: 'dataset',
    query: (d) => {
      const s = df.namedNode(checkIri(d));
      return sparql`SELECT ?assessment ?version ?status ?endpoint (COUNT(?source) AS ?values) WHERE { GRAPH ?assessment {
  ?assessment a ${ot('Assessment')} ; ${ot('version')} ?version ; ${ot('status')} ?status ; ${ot('gapFill')} ?fill .
  ?fill ${ot('endpoint')} ?endpoint ; ${prov('wasDerivedFrom')} ?source . ?source ${prov('hadPrimarySource')} ${s} } }
  GROUP BY ?assessment ?version ?status ?endpoint ORDER BY ?assessment`;
    },
  },
  {
    name: 'gap-fill-activity',
    title: 'How an assessment’s gap-filled values were made',
    description: 'For each gap-filled value: the method, the algorithm, model and category the activity used (prov:used) and its parameters, and the assessor’s rationale.',
    parameter: 'assessment',
    query: (a) => {
      const s = df.namedNode(checkIri(a));
      return sparql`SELECT ?endpoint ?method ?used ?parameters ?rationale WHERE { GRAPH ${s} {
  ${s} ${ot('gapFill')} ?fill . ?fill ${ot('endpoint')} ?endpoint ; ${ot('method')} ?method ; ${ot('rationale')} ?rationale ; ${prov('wasGeneratedBy')} ?activity .
  ?activity ${prov('used')} ?used ; ${ot('algorithmParams')} ?parameters } } ORDER BY ?endpoint ?used`;
    },
  },
];

/** The predefined queries as RDF: each one's title, description, parameter and SPARQL (with the parameter as a placeholder IRI). */
export function predefinedQueryQuads(collection: string): RDF.Quad[] {
  return PREDEFINED_QUERIES.flatMap((q) => {
    const s = df.namedNode(`${collection}/${q.name}`);
    return [
      df.quad(s, rdf('type'), ot('PredefinedQuery')),
      df.quad(s, dc('title'), literal(q.title)),
      df.quad(s, dc('description'), literal(q.description)),
      df.quad(s, ot('parameter'), literal(q.parameter)),
      df.quad(s, dcterms('conformsTo'), df.namedNode('http://www.w3.org/TR/sparql11-query/')),
      df.quad(s, ot('sparql'), literal(q.query(`urn:example:${q.parameter}`).toString())),
    ];
  });
}
