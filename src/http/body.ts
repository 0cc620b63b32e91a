import type { Context } from 'koa';
import { badRequest, tooLarge } from '../core/errors.ts';

/** The media type of the request body, lower-case, without parameters. */
export function requestMediaType(ctx: Context): string {
  return (ctx.get('content-type') || '').split(';')[0].trim().toLowerCase();
}

/**
 * Read the whole request body, refusing more than `limit` bytes with 413 (before reading, when
 * Content-Length says so; while reading otherwise).
 */
export async function readBody(ctx: Context, limit: number): Promise<Buffer> {
  if (ctx.state.rawBody) return ctx.state.rawBody as Buffer;
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(`request body of ${declared} bytes exceeds the limit of ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      ctx.req.destroy();
      throw tooLarge(`request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  const body = Buffer.concat(chunks);
  ctx.state.rawBody = body;
  return body;
}

export async function readText(ctx: Context, limit: number): Promise<string> {
  const body = await readBody(ctx, limit);
  const text = body.toString('utf8');
  if (text.includes('\uFFFD') && !isValidUtf8(body)) throw badRequest('the request body is not valid UTF-8');
  return text;
}

function isValidUtf8(buf: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}
