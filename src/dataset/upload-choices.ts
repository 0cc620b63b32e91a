import { badRequest } from '../core/errors.ts';
import type { Params } from '../http/params.ts';
import { checkIri } from '../rdf/terms.ts';
import type { Cell, Endpoint, TableSource } from './table-input.ts';
import { checkCell } from './table-limits.ts';

/**
 * What the person uploading a table decided on its preview page (upload-preview.ts), as
 * request parameters, for the upload itself too: columns left out (`ignore_column`, numbered
 * from 1 in the order the preview lists them), units written over the header's
 * (`units_{n}`), and the measured endpoint (`endpoint_column`) with its ontology term
 * (`endpoint`), `species` and test `guideline`; identifier columns kept as text (`id_columns`:
 * their numbers as above or their titles, repeated or separated by commas).
 */
export interface UploadChoices {
  ignored: Set<number>;
  units: Map<number, string>;
  endpoint?: { column: number } & Endpoint;
  ids: string[];
}

export function uploadChoicesOf(params: Params): UploadChoices {
  const number = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw badRequest(`${name}: ${JSON.stringify(v.slice(0, 20))} is not a column number (from 1)`);
    return n;
  };
  const ignored = new Set(
    params
      .all('ignore_column')
      .filter((v) => v.trim())
      .map((v) => number('ignore_column', v)),
  );
  const units = new Map<number, string>();
  for (const [name, value] of params.entries()) {
    const m = /^units_(\d+)$/.exec(name);
    if (!m) continue;
    checkCell(value, `the parameter ${name}`);
    units.set(number(name, m[1]), value.trim());
  }
  const column = params.get('endpoint_column')?.trim();
  // what describes the endpoint becomes its feature's literals: a cell's length and characters at most
  const text = (name: string) => {
    const value = params.get(name)?.trim() || undefined;
    if (value) checkCell(value, `the parameter ${name}`);
    return value;
  };
  const term = text('endpoint');
  if (term) checkIri(term);
  const endpoint = column ? { column: number('endpoint_column', column), sameAs: term, species: text('species'), protocol: text('guideline') } : undefined;
  if (!endpoint && (term || text('species') || text('guideline'))) throw badRequest('endpoint, species and guideline describe a column: name it with endpoint_column');
  return { ignored, units, endpoint, ids: idColumnsOf(params) };
}

/** The identifier columns a request names (`id_columns`: numbers or titles, repeated or separated by commas; empty values are none). */
export function idColumnsOf(params: Params): string[] {
  const ids = params
    .all('id_columns')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const id of ids) checkCell(id, 'the parameter id_columns');
  return ids;
}

/** Were any choices made? (A plain upload has none.) */
export function hasChoices(c: UploadChoices): boolean {
  return c.ignored.size > 0 || c.units.size > 0 || c.endpoint !== undefined || c.ids.length > 0;
}

/** The source as the choices make it: ignored columns gone, units and the endpoint's description on theirs. */
export function withChoices(source: TableSource, choices: UploadChoices): TableSource {
  if (!hasChoices(choices)) return source;
  const n = source.columns.length;
  for (const c of [...choices.ignored, ...choices.units.keys(), ...(choices.endpoint ? [choices.endpoint.column] : [])])
    if (c > n) throw badRequest(`column ${c}: the table has ${n} columns besides its structure`);
  if (choices.endpoint && choices.ignored.has(choices.endpoint.column)) throw badRequest(`endpoint_column ${choices.endpoint.column} is also ignored`);
  const ids = new Set(choices.ids.map((id) => columnNamed(source, id, 'id_columns')));
  const kept = source.columns.map((_, i) => i).filter((i) => !choices.ignored.has(i + 1));
  if (!kept.length && n) throw badRequest('every column is ignored: keep at least one besides the structure');
  const columns = kept.map((i) => {
    const column = { ...source.columns[i] };
    const units = choices.units.get(i + 1);
    if (units !== undefined) column.units = units || undefined;
    if (choices.endpoint?.column === i + 1) column.endpoint = { sameAs: choices.endpoint.sameAs, species: choices.endpoint.species, protocol: choices.endpoint.protocol };
    if (ids.has(i)) column.identifier = true;
    return column;
  });
  return {
    ...source,
    columns,
    chunks: async function* (size: number) {
      // an identifier's value is its text (an Excel number 1001 is "1001")
      const cellOf = (cell: Cell, i: number) => (ids.has(i) && cell !== undefined && typeof cell !== 'string' ? cell.value : cell);
      for await (const chunk of source.chunks(size)) yield chunk.map((r) => ({ ...r, cells: kept.map((i) => cellOf(r.cells[i], i)) }));
    },
  };
}

/** The index of the column a parameter names: its number from 1 (in the preview's order) or its title. */
function columnNamed(source: TableSource, name: string, parameter: string): number {
  const byTitle = source.columns.findIndex((c) => c.title === name.replace(/\s+/gu, ' '));
  if (byTitle >= 0) return byTitle;
  const n = Number(name);
  if (Number.isInteger(n) && n >= 1 && n <= source.columns.length) return n - 1;
  throw badRequest(`${parameter}: the table has no column ${JSON.stringify(name.slice(0, 100))} besides its structure (give its title or its number from 1)`);
}
