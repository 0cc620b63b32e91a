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
    if (t.datatype && t.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') return `<literal datatype="${xmlEscape(t.datatype.value)}">${xmlEscape(t.value)}</literal>`;
    return `<literal>${xmlEscape(t.value)}</literal>`;
  }
  return `<literal>${xmlEscape(t.value)}</literal>`;
}

function jsonTerm(t: RDF.Term): Record<string, string> {
  if (t.termType === 'NamedNode') return { type: 'uri', value: t.value };
  if (t.termType === 'BlankNode') return { type: 'bnode', value: t.value };
  if (t.termType === 'Literal') {
    if (t.language) return { type: 'literal', value: t.value, 'xml:lang': t.language };
    if (t.datatype && t.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') return { type: 'literal', value: t.value, datatype: t.datatype.value };
    return { type: 'literal', value: t.value };
  }
  return { type: 'literal', value: t.value };
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
    case 'application/sparql-results+xml':
      return `<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#">\n<head>${variables.map((v) => `<variable name="${xmlEscape(v)}"/>`).join('')}</head>\n<results>\n${solutions
        .map(
          (s) =>
            `<result>${Object.entries(s)
              .map(([k, t]) => `<binding name="${xmlEscape(k)}">${xmlTerm(t)}</binding>`)
              .join('')}</result>`,
        )
        .join('\n')}\n</results>\n</sparql>\n`;
    case 'application/sparql-results+json':
      return JSON.stringify({
        head: { vars: variables },
        results: { bindings: solutions.map((s) => Object.fromEntries(Object.entries(s).map(([k, t]) => [k, jsonTerm(t)]))) },
      });
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
