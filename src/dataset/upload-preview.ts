import { randomUUID } from 'node:crypto';
import { HttpError, notFound, tooLarge } from '../core/errors.ts';
import { escapeHtml, labelledTerms, valueHtml } from '../rdf/html.ts';
import { otee } from '../rdf/namespaces.ts';
import type { StructureReader } from '../chemistry/structure-reader.ts';
import { roleByHeader } from './column-roles.ts';
import { ColumnTyper, type TypedColumn } from './columns.ts';
import { ConflictFinder, comparedColumn, conflictWarning } from './conflicting-duplicates.ts';
import { idColumnsOf, withChoices } from './upload-choices.ts';
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
/** Characters of a cell shown in the preview's rows (a cell of 100,000 characters is stored whole, shown cut short). */
export const SHOWN_CELL_CHARS = 200;

export interface TablePreview {
  file: { name?: string; type: string; bytes: number };
  notes: string[];
  structureHeader?: string;
  unit: string;
  /** `identifier`: named by `id_columns=` (its values are text; its role 'identifier'). */
  columns: (TypedColumn & { n: number; role: string; values: number; identifier?: boolean })[];
  rows: { line: number; smiles?: string; cells: string[] }[];
  total: number;
  checked: number;
  skipped: string[];
  /** Rows of the first CHECKED_ROWS whose structure is another row's and whose values disagree with it. */
  conflicts: string[];
}

/**
 * Reads the source once for the column kinds, and the structures of its first CHECKED_ROWS rows.
 * The identifier columns the upload names (`id_columns=`) are read as the upload will store them
 * (text); its other choices are its form's fields, shown as given.
 */
export async function previewOf(upload: Upload, type: string, table: TableSource, read: StructureReader): Promise<TablePreview> {
  const source = withChoices(table, { ignored: new Set(), units: new Map(), ids: idColumnsOf(upload.params) });
  const typer = new ColumnTyper(source.columns);
  const values = source.columns.map(() => 0);
  const rows: TablePreview['rows'] = [];
  const skipped: string[] = [];
  const duplicates = new ConflictFinder();
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
      // a structure's SMILES (canonical: one for each compound) or its compound URI
      const key = r.structure && 'structure' in r.structure ? r.structure.structure.smiles : r.structure?.uri;
      if (key)
        duplicates.observe(
          key,
          r.line,
          r.cells.flatMap((c, j) => (text(c) ? [[String(j), text(c)] as [string, string]] : [])),
        );
      if (rows.length >= PREVIEW_ROWS) continue;
      rows.push({ line: r.line, smiles: r.structure && 'structure' in r.structure ? r.structure.structure.smiles : r.structure?.uri, cells: r.cells.map((c) => shown(text(c))) });
    }
  }
  const columns = typer.columns().map((c, i) => {
    const identifier = source.columns[i].identifier;
    return { ...c, accepted: c.accepted.map(shown), n: i + 1, role: identifier ? 'identifier' : roleByHeader(c.title), values: values[i], ...(identifier ? { identifier } : {}) };
  });
  const conflicts = duplicates
    .conflicts()
    .filter((c) => comparedColumn(columns[Number(c.column)]))
    .map((c) => conflictWarning({ ...c, column: columns[Number(c.column)].title }, source.unit, columns[Number(c.column)].kind === 'numeric'));
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
    conflicts,
  };
}

const text = (c: Cell) => (typeof c === 'string' ? c : (c?.value ?? '')).trim();
const shown = (t: string) => (t.length > SHOWN_CELL_CHARS ? `${t.slice(0, SHOWN_CELL_CHARS)}…` : t);

/** The preview's page: what was read, and one form to correct it and store it (or read it again). */
export function previewHtml(
  p: TablePreview,
  pending: string,
  given: { encoding?: string; delimiter?: string; decimal?: string; sheet?: string; header_row?: string; structure_column?: string; title?: string },
): string {
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
  const headerRow =
    delimited || p.file.type.includes('spreadsheetml')
      ? `<p><label>Header row <input name="header_row" value="${escapeHtml(given.header_row ?? '')}" placeholder="as found" size="6" inputmode="numeric"></label> (the row of column titles, numbered as the rows below are; title rows above it are not read)</p>
<p><label>Structure column <input name="structure_column" value="${escapeHtml(given.structure_column ?? '')}" placeholder="by its header"></label> (its header or its number from 1, when no header names it SMILES, InChI or Name)</p>`
      : '';
  const numeric = p.columns.filter((c) => c.kind === 'numeric');
  const columns = p.columns
    .map(
      (
        c,
      ) => `<tr><td>${c.n}</td><td>${escapeHtml(c.title)}</td><td>${escapeHtml(c.role)}</td><td>${c.kind === 'nominal' ? `classes (${c.accepted.slice(0, 5).map(escapeHtml).join(', ')}${c.accepted.length > 5 ? ' …' : ''})` : c.kind === 'string' ? 'text' : 'numbers'}</td><td>${c.values}</td>
<td><input name="units_${c.n}" value="${escapeHtml(c.units ?? '')}" size="8" aria-label="units of ${escapeHtml(c.title)}"></td>
<td><label><input type="checkbox" name="ignore_column" value="${c.n}"> leave out</label> <label><input type="checkbox" name="id_columns" value="${c.n}"${c.identifier ? ' checked' : ''}> identifier (text)</label></td></tr>`,
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
<input type="hidden" name="id_columns" value="">
<h2>How the file was read</h2>
${dialect || '<p>As its format says.</p>'}
${headerRow}
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
${
  p.conflicts.length
    ? `<h2>Rows of the same structure whose values disagree</h2><p>They are all stored; decide which to keep before a model learns from both.</p><ul class="conflicts">${p.conflicts
        .slice(0, 50)
        .map((w) => `<li>${escapeHtml(w)}</li>`)
        .join('')}${p.conflicts.length > 50 ? `<li>and ${p.conflicts.length - 50} more</li>` : ''}</ul>`
    : ''
}
<h2>Store it</h2>
<p><label>Title <input name="title" size="50" value="${escapeHtml(given.title ?? p.file.name ?? '')}"></label></p>
<p><button type="submit">Store the dataset</button></p>
</form>`;
}

/** A waiting upload: its file and parameters, whose it is, who sent it, since when, and what it holds. */
interface Pending {
  upload: Upload;
  owner?: string;
  caller: string;
  at: number;
  bytes: number;
}

/** Uploads one caller may have waiting on their previews. */
export const PREVIEWS_PER_CALLER = 10;
/** What all waiting uploads may hold together, in request bodies (`--body-limit`): 250 MiB by default. */
export const PREVIEW_STORE_BODIES = 5;
/** How long an upload waits for its page's form. */
export const PREVIEW_TTL_MS = 3_600_000;
/** What one waiting upload is counted beyond its file and fields (its record, its name, its type). */
const UPLOAD_OVERHEAD_BYTES = 1024;
/** What one field is counted beyond its name and value. */
const FIELD_OVERHEAD_BYTES = 64;

export interface PreviewLimits {
  /** Bytes all waiting uploads may hold together. */
  maxBytes: number;
  /** Bytes the waiting uploads of one caller may hold together (one upload more: 413). */
  callerBytes: number;
  /** Uploads one caller may have waiting. */
  perCaller: number;
  ttlMs: number;
}

/** The limits of the preview store of a server whose requests may carry `bodyLimit` bytes. */
export function previewLimitsOf(bodyLimit: number): PreviewLimits {
  const maxBytes = PREVIEW_STORE_BODIES * bodyLimit;
  return { maxBytes, callerBytes: Math.floor(maxBytes / 2), perCaller: PREVIEWS_PER_CALLER, ttlMs: PREVIEW_TTL_MS };
}

/**
 * What a waiting upload holds in memory: its file, and every field and parameter that came
 * with it (strings of JavaScript count two bytes a character), each with what its record
 * costs. Nothing decoded from the file is kept: its preview is read again from the file.
 */
export function pendingBytes(upload: Upload): number {
  let bytes = UPLOAD_OVERHEAD_BYTES + upload.body.length + 2 * ((upload.filename?.length ?? 0) + upload.mediaType.length);
  for (const [name, value] of upload.params.entries()) bytes += FIELD_OVERHEAD_BYTES + 2 * (name.length + value.length);
  return bytes;
}

/**
 * Uploads waiting on their preview page, in this process: each for at most `ttlMs`, at most
 * `perCaller` and `callerBytes` of one caller (the user with access control on, else the client's
 * address), at most `maxBytes` in all, everything they keep counted (pendingBytes). The file is
 * sent once, and stored or left. What does not fit is refused, never made room for: an upload
 * larger than a caller may keep answers 413, one more than the caller's share or the store's
 * room answers 429 with Retry-After (when the caller's, or anyone's, oldest is forgotten).
 */
export class PendingUploads {
  private readonly waiting = new Map<string, Pending>();
  private readonly limits: PreviewLimits;
  constructor(limits: PreviewLimits = previewLimitsOf(50 * 1024 * 1024)) {
    this.limits = limits;
  }

  /** What the waiting uploads hold together, as counted against `maxBytes`. */
  get bytes(): number {
    this.expire();
    let bytes = 0;
    for (const p of this.waiting.values()) bytes += p.bytes;
    return bytes;
  }

  /**
   * Keep an upload waiting (under `id` again when it was read before with other settings, in
   * place of what it was); answers its name and how to undo this (the file could not be read:
   * what waited before under that name waits again).
   */
  keep(upload: Upload, owner: string | undefined, caller: string, id: string = randomUUID()): { id: string; undo: () => void } {
    this.expire();
    const previous = this.waiting.get(id);
    this.waiting.delete(id);
    const undo = () => {
      this.waiting.delete(id);
      if (previous) this.waiting.set(id, previous);
    };
    try {
      this.admit(pendingBytes(upload), caller);
    } catch (e) {
      undo();
      throw e;
    }
    this.waiting.set(id, { upload, owner, caller, at: Date.now(), bytes: pendingBytes(upload) });
    return { id, undo };
  }

  private admit(bytes: number, caller: string): void {
    const { maxBytes, callerBytes, perCaller, ttlMs } = this.limits;
    if (bytes > callerBytes) throw tooLarge(`a file to preview with its fields may hold ${callerBytes} bytes (this one holds ${bytes}); upload it without a preview (POST /dataset)`);
    const now = Date.now();
    const retry = (oldest: number) => ({ 'Retry-After': String(Math.max(1, Math.ceil((oldest + ttlMs - now) / 1000))) });
    const all = [...this.waiting.values()];
    const mine = all.filter((p) => p.caller === caller);
    const who = caller.replace(/^(user|address):/, '');
    if (mine.length >= perCaller)
      throw new HttpError(
        429,
        'TooManyRequests',
        `${who} has ${mine.length} uploads waiting on their previews, the most one caller may have: store one or wait until the oldest is forgotten (an hour after it was read)`,
        undefined,
        retry(mine[0].at),
      );
    const held = mine.reduce((n, p) => n + p.bytes, 0);
    if (held + bytes > callerBytes)
      throw new HttpError(
        429,
        'TooManyRequests',
        `the uploads of ${who} waiting on their previews hold ${held} bytes; with this one (${bytes}) they would pass the ${callerBytes} one caller may keep: store one or wait until the oldest is forgotten`,
        undefined,
        retry(mine[0]?.at ?? now),
      );
    const total = all.reduce((n, p) => n + p.bytes, 0);
    if (total + bytes > maxBytes)
      throw new HttpError(
        429,
        'TooManyRequests',
        `the uploads waiting on their previews hold ${total} bytes; with this one (${bytes}) they would pass the ${maxBytes} this server keeps: try again later, or upload it without a preview (POST /dataset)`,
        undefined,
        retry(all[0]?.at ?? now),
      );
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
    for (const [id, p] of this.waiting) if (now - p.at > this.limits.ttlMs) this.waiting.delete(id);
  }
}
