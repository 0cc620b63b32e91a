import type { Context } from 'koa';
import busboy from 'busboy';
import { badRequest, type HttpError, tooLarge } from '../core/errors.ts';

export interface MultipartFile {
  /** The part's field name. */
  name: string;
  body: Buffer;
  mediaType: string;
  filename?: string;
}

/** Fields a multipart body may have: enough for thousands of repeated feature URIs. */
export const MULTIPART_MAX_FIELDS = 10_000;
/** Bytes of one field's value (a list of thousands of feature URIs in one field fits). */
export const MULTIPART_FIELD_MAX_BYTES = 1024 * 1024;
/** Bytes of one field's name. */
export const MULTIPART_FIELD_NAME_MAX_BYTES = 200;
/** Bytes of all the fields of a body together (and never more than the body limit of its request). */
export const MULTIPART_FIELDS_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The parts of a multipart/form-data body: its files (at most `maxFiles`, each at most `limit`
 * bytes) and its fields (at most MULTIPART_MAX_FIELDS, each at most MULTIPART_FIELD_MAX_BYTES,
 * together at most MULTIPART_FIELDS_MAX_BYTES and `limit`). Beyond any of them: 413 naming the
 * limit; nothing more of the body is kept (the rest is read and dropped).
 */
export function readMultipart(ctx: Context, limit: number, maxFiles: number): Promise<{ files: MultipartFile[]; fields: [string, string][] }> {
  const fieldsLimit = Math.min(MULTIPART_FIELDS_MAX_BYTES, limit);
  return new Promise((resolve, reject) => {
    const files: MultipartFile[] = [];
    const fields: [string, string][] = [];
    let fieldBytes = 0;
    let failed = false;
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: ctx.req.headers,
        limits: {
          fileSize: limit,
          files: maxFiles,
          fields: MULTIPART_MAX_FIELDS,
          fieldSize: MULTIPART_FIELD_MAX_BYTES,
          fieldNameSize: MULTIPART_FIELD_NAME_MAX_BYTES,
          parts: MULTIPART_MAX_FIELDS + maxFiles,
        },
      });
    } catch (e) {
      return reject(badRequest(`the multipart body cannot be read: ${(e as Error).message}`));
    }
    const fail = (error: HttpError) => {
      if (failed) return;
      failed = true;
      // the rest of the body is read and dropped: nothing more is kept
      ctx.req.unpipe(bb);
      ctx.req.resume();
      reject(error);
    };
    bb.on('field', (name, value, info) => {
      if (failed) return;
      if (info.nameTruncated) return fail(tooLarge(`a field name of the multipart body is longer than ${MULTIPART_FIELD_NAME_MAX_BYTES} bytes`));
      if (info.valueTruncated) return fail(tooLarge(`the field ${JSON.stringify(name)} of the multipart body is longer than ${MULTIPART_FIELD_MAX_BYTES} bytes`));
      fieldBytes += Buffer.byteLength(name) + Buffer.byteLength(value);
      if (fieldBytes > fieldsLimit) return fail(tooLarge(`the fields of the multipart body hold more than ${fieldsLimit} bytes together`));
      fields.push([name, value]);
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => {
        if (!failed) chunks.push(c);
      });
      stream.on('limit', () => fail(tooLarge(`the uploaded file exceeds the limit of ${limit} bytes`)));
      stream.on('end', () => {
        if (!failed) files.push({ name, body: Buffer.concat(chunks), mediaType: info.mimeType.toLowerCase(), filename: info.filename });
      });
    });
    bb.on('filesLimit', () => fail(tooLarge(`the multipart body has more than ${maxFiles} file${maxFiles === 1 ? '' : 's'}`)));
    bb.on('fieldsLimit', () => fail(tooLarge(`the multipart body has more than ${MULTIPART_MAX_FIELDS} fields`)));
    bb.on('partsLimit', () => fail(tooLarge(`the multipart body has more than ${MULTIPART_MAX_FIELDS + maxFiles} parts`)));
    bb.on('error', (e) => fail(badRequest(`the multipart body cannot be read: ${(e as Error).message}`)));
    bb.on('close', () => {
      if (!failed) resolve({ files, fields });
    });
    ctx.req.pipe(bb);
  });
}
