import type * as RDF from '@rdfjs/types';
import type { Solution } from '../store/triple-store.ts';
import { escapeHtml } from '../rdf/html.ts';
import { writeTerm } from '../store/sparql-template.ts';
import { escapeXml } from '../rdf/xml-text.ts';

/** Writers for SPARQL 1.1 query results: XML, JSON, CSV, TSV and an HTML table. */
export const RESULT_TYPES = ['application/sparql-results+xml', 'application/sparql-results+json', 'text/csv', 'text/tab-separated-values', 'text/html'];

/** Markup escaped, text XML cannot carry dropped (a literal holding U+0000 must not make the document ill-formed). */
const xmlEscape = escapeXml;

function xmlTerm(t: RDF.Term): string {
  if (t.termType === 'NamedNode') return `<uri>${xmlEscape(t.value)}</uri>`;
  if (t.termType === 'BlankNode') return `<bnode>${xmlEscape(t.value)}</bnode>`;
  if (t.termType === 'Literal') {
    if (t.language) return `<literal xml:lang="${xmlEscape(t.language)}">${xmlEscape(t.value)}</literal>`;
    if (t.datatype && t.datatype.value !== XSD_STRING) return `<literal datatype="${xmlEscape(t.datatype.value)}">${xmlEscape(t.value)}</literal>`;
    return `<literal>${xmlEscape(t.value)}</literal>`;
  }
  return `<literal>${xmlEscape(t.value)}</literal>`;
}

/** A term as SPARQL JSON results write it, as text (no object per term to make and serialise). */
function jsonTerm(t: RDF.Term): string {
  const value = JSON.stringify(t.value);
  if (t.termType === 'NamedNode') return `{"type":"uri","value":${value}}`;
  if (t.termType === 'BlankNode') return `{"type":"bnode","value":${value}}`;
  if (t.termType === 'Literal') {
    if (t.language) return `{"type":"literal","value":${value},"xml:lang":${JSON.stringify(t.language)}}`;
    if (t.datatype && t.datatype.value !== XSD_STRING) return `{"type":"literal","value":${value},"datatype":${JSON.stringify(t.datatype.value)}}`;
  }
  return `{"type":"literal","value":${value}}`;
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

/** SPARQL JSON results, written as text row by row in the order of `variables` (unbound ones left out). */
function jsonResults(variables: string[], solutions: Solution[]): string {
  const names = variables.map((v) => `${JSON.stringify(v)}:`);
  const rows: string[] = [];
  for (const s of solutions) {
    let row = '';
    for (const [i, v] of variables.entries()) {
      const t = s[v];
      if (t) row += `${row ? ',' : ''}${names[i]}${jsonTerm(t)}`;
    }
    rows.push(`{${row}}`);
  }
  return `{"head":{"vars":${JSON.stringify(variables)}},"results":{"bindings":[${rows.join(',')}]}}`;
}

function csvField(t: RDF.Term | undefined): string {
  if (!t) return '';
  const v = t.termType === 'BlankNode' ? `_:${t.value}` : t.value;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function tsvTerm(t: RDF.Term | undefined): string {
  if (!t) return '';
  if (t.termType === 'BlankNode') return `_:${t.value}`;
  try {
    return writeTerm(t).replace(/\t/g, '\\t');
  } catch {
    return t.value;
  }
}

export function writeBindings(mediaType: string, variables: string[], solutions: Solution[]): string {
  switch (mediaType) {
    case 'application/sparql-results+xml': {
      const names = variables.map((v) => `<binding name="${xmlEscape(v)}">`);
      const rows = solutions.map((s) => {
        let row = '<result>';
        for (const [i, v] of variables.entries()) if (s[v]) row += `${names[i]}${xmlTerm(s[v])}</binding>`;
        return `${row}</result>`;
      });
      return `<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>${variables.map((v) => `<variable name="${xmlEscape(v)}"/>`).join('')}</head>\n<results>\n${rows.join('\n')}\n</results>\n</sparql>\n`;
    }
    case 'application/sparql-results+json':
      return jsonResults(variables, solutions);
    case 'text/csv':
      return `${[variables.join(','), ...solutions.map((s) => variables.map((v) => csvField(s[v])).join(','))].join('\r\n')}\r\n`;
    case 'text/tab-separated-values':
      return `${[variables.map((v) => `?${v}`).join('\t'), ...solutions.map((s) => variables.map((v) => tsvTerm(s[v])).join('\t'))].join('\n')}\n`;
    case 'text/html':
      return `<p>${solutions.length} result(s)</p><table><thead><tr>${variables.map((v) => `<th>?${escapeHtml(v)}</th>`).join('')}</tr></thead><tbody>${solutions.map((s) => `<tr>${variables.map((v) => `<td>${s[v] ? htmlTerm(s[v]) : ''}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;
    default:
      throw new Error(`no results writer for ${mediaType}`);
  }
}

export function writeBoolean(mediaType: string, value: boolean): string {
  switch (mediaType) {
    case 'application/sparql-results+xml':
      return `<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head/>\n<boolean>${value}</boolean>\n</sparql>\n`;
    case 'application/sparql-results+json':
      return JSON.stringify({ head: {}, boolean: value });
    case 'text/csv':
      return `_askResult\r\n${value}\r\n`;
    case 'text/tab-separated-values':
      return `?_askResult\n${value}\n`;
    case 'text/html':
      return `<p>Answer: <strong>${value}</strong></p>`;
    default:
      throw new Error(`no results writer for ${mediaType}`);
  }
}

function htmlTerm(t: RDF.Term): string {
  if (t.termType === 'NamedNode') return /^https?:/i.test(t.value) ? `<a href="${escapeHtml(t.value)}">${escapeHtml(t.value)}</a>` : escapeHtml(t.value);
  if (t.termType === 'BlankNode') return `_:${escapeHtml(t.value)}`;
  return escapeHtml(t.value);
}
