import type { ParameterSpec, ParamValue } from '../learning/learner.ts';
import type { Params } from '../http/params.ts';
import { z } from 'zod';
import { badRequest } from '../core/errors.ts';

/**
 * The values of an algorithm's own parameters in a request, checked against their specs and
 * completed with defaults. A bad value answers 400 naming the parameter and what it accepts.
 */
export function readParameters(specs: ParameterSpec[], params: Params): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const spec of specs) {
    const raw = params.get(spec.name);
    out[spec.name] = raw === undefined || raw.trim() === '' ? spec.default : parseValue(spec, raw.trim());
  }
  return out;
}

/** A parameter of a route description (http/route-description.ts) read as its spec says: the default when absent or blank, 400 naming what it accepts otherwise. */
export function specParam(spec: ParameterSpec) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): ParamValue => {
      if (raw === undefined || raw.trim() === '') return spec.default;
      try {
        return parseValue(spec, raw.trim());
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    })
    .describe(spec.description);
}

/** Check already-typed values (stored ones, or `name=value;...` strings parsed by the caller). */
export function checkParameters(specs: ParameterSpec[], given: Record<string, string>): Record<string, ParamValue> {
  const unknown = Object.keys(given).filter((k) => !specs.some((s) => s.name === k));
  if (unknown.length) throw badRequest(`unknown parameter ${unknown.join(', ')}; this algorithm takes ${specs.map((s) => s.name).join(', ') || 'no parameters'}`);
  const out: Record<string, ParamValue> = {};
  for (const spec of specs) out[spec.name] = given[spec.name] === undefined ? spec.default : parseValue(spec, given[spec.name]);
  return out;
}

function parseValue(spec: ParameterSpec, raw: string): ParamValue {
  const name = spec.name;
  switch (spec.type) {
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw) || !Number.isFinite(n))
        throw badRequest(`parameter ${name} must be ${spec.type === 'integer' ? 'an integer' : 'a number'}${range(spec)} (got ${JSON.stringify(raw.slice(0, 40))})`);
      if (spec.type === 'integer' && !Number.isInteger(n)) throw badRequest(`parameter ${name} must be an integer${range(spec)} (got ${raw})`);
      const outside =
        (spec.min !== undefined && n < spec.min) ||
        (spec.max !== undefined && n > spec.max) ||
        (spec.greaterThan !== undefined && n <= spec.greaterThan) ||
        (spec.lessThan !== undefined && n >= spec.lessThan);
      if (outside) throw badRequest(`parameter ${name} is out of range: it must be${range(spec)} (got ${raw})`);
      return n;
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      throw badRequest(`parameter ${name} must be true or false (got ${JSON.stringify(raw.slice(0, 40))})`);
    }
    default: {
      if (spec.choices && !spec.choices.includes(raw)) throw badRequest(`parameter ${name} must be one of ${spec.choices.join(', ')} (got ${JSON.stringify(raw.slice(0, 40))})`);
      return raw;
    }
  }
}

function range(spec: ParameterSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return ` between ${spec.min} and ${spec.max}`;
  const bounds = [
    spec.min !== undefined && `at least ${spec.min}`,
    spec.greaterThan !== undefined && `greater than ${spec.greaterThan}`,
    spec.max !== undefined && `at most ${spec.max}`,
    spec.lessThan !== undefined && `less than ${spec.lessThan}`,
  ].filter(Boolean);
  return bounds.length ? ` ${bounds.join(' and ')}` : '';
}
