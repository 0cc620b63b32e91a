import type { Params } from '../http/params.js';
import { badRequest } from '../http/errors.js';

/** Typed readers of validation parameters: a bad value answers 400 naming the parameter. */
export function booleanParam(params: Params, name: string, fallback: boolean): boolean {
  const v = params.get(name)?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw badRequest(`${name} must be true or false (got ${JSON.stringify(v.slice(0, 40))})`);
}

export function integerParam(params: Params, name: string, fallback: number, min = -Infinity, max = Infinity): number {
  const v = params.get(name)?.trim();
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!/^[-+]?\d+$/.test(v) || !Number.isSafeInteger(n)) throw badRequest(`${name} must be an integer (got ${JSON.stringify(v.slice(0, 40))})`);
  if (n < min || n > max) throw badRequest(`${name} must be between ${min} and ${max} (got ${n})`);
  return n;
}

/** A number strictly between `low` and `high` (or up to `high` inclusive when `highInclusive`). */
export function fractionParam(params: Params, name: string, fallback: number, highInclusive = false): number {
  const v = params.get(name)?.trim();
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(v)) throw badRequest(`${name} must be a number (got ${JSON.stringify(v.slice(0, 40))})`);
  if (n <= 0 || n > 1 || (n === 1 && !highInclusive)) throw badRequest(`${name} must be greater than 0 and ${highInclusive ? 'at most' : 'less than'} 1 (got ${v})`);
  return n;
}
