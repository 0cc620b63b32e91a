import { randomUUID } from 'node:crypto';
import { notFound, tooLarge } from '../core/errors.ts';
import { escapeHtml, labelledTerms, valueHtml } from '../rdf/html.ts';
import { otee } from '../rdf/namespaces.ts';
import type { StructureReader } from '../chemistry/structure-reader.ts';
import { roleByHeader } from './column-roles.ts';
import { ColumnTyper, type TypedColumn } from './columns.ts';
import type { Upload } from './dataset-input.ts';
import { ROWS_PER_CHUNK, withStructures, type Cell, type TableSource } from './table-input.ts';

/**
 * An upload looked at before it is stored: how the file was read (encoding, separator, decimal
 * mark), each column's role, kind and units, the first rows as they will be stored, and the rows
 * that will be skipped with the reason. The file waits (PendingUploads) for the person to correct
 * what was read, describe the endpoint and store it, or to leave it.
 */

/** Rows shown as they will be read. */
export const PREVIEW_ROWS = 15;
/** Rows whose structures are read for the preview (the rest are read when the table is stored). */
export const CHECKED_ROWS = 5000;

export interface TablePreview {
  file: { name?: string; type: string; bytes: number };
  notes: string[];
  structureHeader?: string;
  unit: string;
  columns: (TypedColumn & { n: number; role: string; values: number })[];
  rows: { line: number; smiles?: string; cells: string[] }[];
  total: number;
  checked: number;
  skipped: string[];
}

/** Reads the source once for the column kinds, and the structures of its first CHECKED_ROWS rows. */
export async function previewOf(upload: Upload, type: string, source: TableSource, read: StructureReader): Promise<TablePreview> {
  const typer = new ColumnTyper(source.columns);
  const values = source.columns.map(() => 0);
  const rows: TablePreview['rows'] = [];
  const skipped: string[] = [];
  let total = 0;
  let checked = 0;
  for await (const chunk of source.chunks(ROWS_PER_CHUNK)) {
    for (const r of chunk) {
      typer.observe(r.cells);
      r.cells.forEach((c, j) => {
        if (text(c)) values[j]++;
      });
    }
    total += chunk.length;
    if (checked >= CHECKED_ROWS) continue;
    const part = chunk.slice(0, CHECKED_ROWS - checked);
    checked += part.length;
    const found: string[] = [];
    const read_ = await withStructures(part, read, found, source.unit);
    skipped.push(...found.filter((w) => /skipped$/.test(w)));
    for (const r of read_) {
      if (rows.length >= PREVIEW_ROWS) break;
      rows.push({ line: r.line, smiles: r.structure && 'structure' in r.structure ? r.structure.structure.smiles : r.structure?.uri, cells: r.cells.map(text) });
    }
  }
  const columns = typer.columns().map((c, i) => ({ ...c, n: i + 1, role: roleByHeader(c.title), values: values[i] }));
  return {
    file: { name: upload.filename, type, bytes: upload.body.length },
    notes: source.notes ?? [],
    structureHeader: source.structureHeader,
    unit: source.unit,
    columns,
    rows,
    total,
    checked,
    skipped,
  };
}

const text = (c: Cell) => (typeof c === 'string' ? c : (c?.value ?? '')).trim();

/** The preview's page: what was read, and one form to correct it and store it (or read it again). */
export function previewHtml(p: TablePreview, pending: string, given: { encoding?: string; delimiter?: string; decimal?: string; sheet?: string; title?: string }): string {
  const delimited = /csv|tab-separated/.test(p.file.type);
  const select = (name: string, label: string, options: [string, string][], chosen?: string) =>
    `<label>${label} <select name="${name}"><option value="">as found</option>${options.map(([v, t]) => `<option value="${escapeHtml(v)}"${v === chosen ? ' selected' : ''}>${escapeHtml(t)}</option>`).join('')}</select></label>`;
  const dialect = delimited
    ? `<p>${select(
        'encoding',
        'Encoding',
        [
          ['utf-8', 'UTF-8'],
          ['windows-1252', 'Windows-1252 (Western European)'],
          ['utf-16le', 'UTF-16 LE'],
          ['utf-16be', 'UTF-16 BE'],
        ],
        given.encoding,
      )}
${select(
  'delimiter',
  'Separator',
  [
    [',', 'comma ,'],
    [';', 'semicolon ;'],
    ['tab', 'tab'],
    ['|', 'bar |'],
  ],
  given.delimiter,
)}
${select(
  'decimal',
  'Decimal mark',
  [
    ['.', 'point .'],
    [',', 'comma ,'],
  ],
  given.decimal,
)}</p>`
    : p.file.type.includes('spreadsheetml')
      ? `<p><label>Sheet <input name="sheet" value="${escapeHtml(given.sheet ?? '')}" placeholder="the first"></label></p>`
      : '';
  const numeric = p.columns.filter((c) => c.kind === 'numeric');
  const columns = p.columns
    .map(
      (
        c,
      ) => `<tr><td>${c.n}</td><td>${escapeHtml(c.title)}</td><td>${escapeHtml(c.role)}</td><td>${c.kind === 'nominal' ? `classes (${c.accepted.slice(0, 5).map(escapeHtml).join(', ')}${c.accepted.length > 5 ? ' …' : ''})` : c.kind === 'string' ? 'text' : 'numbers'}</td><td>${c.values}</td>
<td><input name="units_${c.n}" value="${escapeHtml(c.units ?? '')}" size="8" aria-label="units of ${escapeHtml(c.title)}"></td>
<td><label><input type="checkbox" name="ignore_column" value="${c.n}"> leave out</label></td></tr>`,
    )
    .join('\n');
  const rows = p.rows.map((r) => `<tr><td>${r.line}</td><td>${escapeHtml(r.smiles ?? '')}</td>${r.cells.map((c) => `<td>${valueHtml(c)}</td>`).join('')}</tr>`).join('\n');
  const skipped = p.skipped.length
    ? `<details open><summary>${p.skipped.length} of the first ${p.checked} ${p.unit}s will be skipped</summary><ul>${p.skipped
        .slice(0, 50)
        .map((w) => `<li>${escapeHtml(w)}</li>`)
        .join('')}${p.skipped.length > 50 ? `<li>and ${p.skipped.length - 50} more</li>` : ''}</ul></details>`
    : `<p>Every structure of the first ${p.checked} ${p.unit}s can be read.</p>`;
  const terms = labelledTerms(otee('').value);
  return `<p>Nothing is stored yet. ${escapeHtml(p.file.name ?? 'The file')} (${(p.file.bytes / 1024).toFixed(0)} KiB): ${p.total} ${p.unit}s; the structures are in the column ${escapeHtml(p.structureHeader ?? '(none)')}.</p>
${p.notes.length ? `<ul class="notes">${p.notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>` : ''}
<form class="run upload-preview" method="post" action="/dataset">
<input type="hidden" name="pending" value="${escapeHtml(pending)}">
<h2>How the file was read</h2>
${dialect || '<p>As its format says.</p>'}
${dialect ? '<p><button type="submit" formaction="/dataset/preview">Read it again with these settings</button></p>' : ''}
<h2>Columns</h2>
<table class="report"><thead><tr><th>#</th><th>column</th><th>role</th><th>values are</th><th>filled</th><th>units</th><th></th></tr></thead><tbody>
${columns}
</tbody></table>
<h2>The measured endpoint</h2>
<p>Say which column holds it and what it is: this reaches its feature, the QMRF (3.1–3.6) and every QPRF.</p>
<p><label>Column <select name="endpoint_column"><option value="">none</option>${numeric.map((c) => `<option value="${c.n}">${escapeHtml(c.title)}</option>`).join('')}${p.columns
    .filter((c) => c.kind === 'nominal')
    .map((c) => `<option value="${c.n}">${escapeHtml(c.title)}</option>`)
    .join('')}</select></label>
<label>Endpoint <input name="endpoint" list="endpoint-terms" size="40" placeholder="an endpoint of the ECHA/QMRF catalogue"></label>
<datalist id="endpoint-terms">${terms.map(([iri, label]) => `<option value="${escapeHtml(iri)}">${escapeHtml(label)}</option>`).join('')}</datalist></p>
<p><label>Species <input name="species" size="30" placeholder="e.g. Daphnia magna"></label>
<label>Test guideline <input name="guideline" size="30" placeholder="e.g. OECD TG 202"></label></p>
<h2>The first ${p.rows.length} ${p.unit}s as they will be stored</h2>
<table class="report dataset"><thead><tr><th>${escapeHtml(p.unit)}</th><th>structure (SMILES)</th>${p.columns.map((c) => `<th>${escapeHtml(c.title)}</th>`).join('')}</tr></thead><tbody>
${rows}
</tbody></table>
<h2>${p.unit[0].toUpperCase()}${p.unit.slice(1)}s that will be skipped</h2>
${skipped}
<h2>Store it</h2>
<p><label>Title <input name="title" size="50" value="${escapeHtml(given.title ?? p.file.name ?? '')}"></label></p>
<p><button type="submit">Store the dataset</button></p>
</form>`;
}

/** A waiting upload: its file and parameters, whose it is, since when. */
interface Pending {
  upload: Upload;
  owner?: string;
  at: number;
}

/**
 * Uploads waiting on their preview page, in this process, for at most `ttlMs` and `maxBytes`
 * in all (the oldest goes first): the file is sent once, and stored or left.
 */
export class PendingUploads {
  private readonly waiting = new Map<string, Pending>();
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  constructor(ttlMs = 3_600_000, maxBytes = 256 * 1024 * 1024) {
    this.ttlMs = ttlMs;
    this.maxBytes = maxBytes;
  }

  /** Keep an upload waiting (under `id` again when it was read before with other settings); answers its name. */
  keep(upload: Upload, owner: string | undefined, id: string = randomUUID()): string {
    this.waiting.delete(id);
    if (upload.body.length > this.maxBytes) throw tooLarge(`a file to preview may have ${this.maxBytes} bytes; upload it without a preview`);
    this.expire();
    let bytes = upload.body.length + [...this.waiting.values()].reduce((n, p) => n + p.upload.body.length, 0);
    for (const [id, p] of this.waiting) {
      if (bytes <= this.maxBytes) break;
      this.waiting.delete(id);
      bytes -= p.upload.body.length;
    }
    this.waiting.set(id, { upload, owner, at: Date.now() });
    return id;
  }

  /** The waiting upload `id` of `owner` (404 when it is gone: expired, stored, or another's). */
  get(id: string, owner: string | undefined): Upload {
    this.expire();
    const p = this.waiting.get(id);
    if (!p || p.owner !== owner) throw notFound('the file to store is no longer waiting (an hour passed, it was stored, or the server restarted): upload it again');
    return p.upload;
  }

  drop(id: string): void {
    this.waiting.delete(id);
  }

  private expire(): void {
    const now = Date.now();
    for (const [id, p] of this.waiting) if (now - p.at > this.ttlMs) this.waiting.delete(id);
  }
}
