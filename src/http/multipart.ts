import type { Context } from 'koa';
import busboy from 'busboy';
import { badRequest, tooLarge } from '../core/errors.ts';

export interface MultipartFile {
  /** The part's field name. */
  name: string;
  body: Buffer;
  mediaType: string;
  filename?: string;
}

/** Fields a multipart body may have (each at most busboy's 1 MB): enough for thousands of repeated feature URIs. */
const MAX_FIELDS = 10_000;

/** The parts of a multipart/form-data body: its files (at most `maxFiles`, each at most `limit` bytes) and its fields (at most MAX_FIELDS). */
export function readMultipart(ctx: Context, limit: number, maxFiles: number): Promise<{ files: MultipartFile[]; fields: [string, string][] }> {
  return new Promise((resolve, reject) => {
    const files: MultipartFile[] = [];
    const fields: [string, string][] = [];
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { fileSize: limit, files: maxFiles, fields: MAX_FIELDS, parts: MAX_FIELDS + maxFiles } });
    } catch (e) {
      return reject(badRequest(`the multipart body cannot be read: ${(e as Error).message}`));
    }
    bb.on('field', (name, value) => fields.push([name, value]));
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => reject(tooLarge(`the uploaded file exceeds the limit of ${limit} bytes`)));
      stream.on('end', () => files.push({ name, body: Buffer.concat(chunks), mediaType: info.mimeType.toLowerCase(), filename: info.filename }));
    });
    bb.on('fieldsLimit', () => reject(tooLarge(`the multipart body has more than ${MAX_FIELDS} fields`)));
    bb.on('partsLimit', () => reject(tooLarge(`the multipart body has more than ${MAX_FIELDS + maxFiles} parts`)));
    bb.on('error', (e) => reject(badRequest(`the multipart body cannot be read: ${(e as Error).message}`)));
    bb.on('close', () => resolve({ files, fields }));
    ctx.req.pipe(bb);
  });
}
