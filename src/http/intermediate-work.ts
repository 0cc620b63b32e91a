import type { Context } from 'koa';
import { badRequest } from '../core/errors.ts';
import { escapeHtml } from '../rdf/html.ts';
import { param } from './route-description.ts';

/**
 * Lists leave out intermediate work: what a task made on the way to its result (the fold
 * datasets, models and validations of a cross-validation, a supermodel's descriptor dataset),
 * which is `dcterms:isPartOf` that result and linked from it. `intermediate=true` lists it too.
 */
export const INTERMEDIATE_PARAM = {
  intermediate: param.optional('true: also list what was made inside other work (the folds of cross-validations, the steps of supermodels); left out by default'),
};

/** Does the request ask for intermediate work too? (400 for a value that is neither true nor false) */
export function listsIntermediate(p: { intermediate?: string }): boolean {
  const v = p.intermediate?.trim().toLowerCase();
  if (v === undefined || v === '' || v === 'false') return false;
  if (v === 'true') return true;
  throw badRequest(`intermediate: ${p.intermediate} is neither true nor false`);
}

/** The list page's switch between the two. */
export function intermediateSwitchHtml(ctx: Context, shown: boolean): string {
  const q = new URLSearchParams(ctx.querystring);
  if (shown) q.delete('intermediate');
  else q.set('intermediate', 'true');
  const href = `${ctx.path}${q.size ? `?${q}` : ''}`;
  return `<p class="switch">${
    shown
      ? `Intermediate work (made inside cross-validations and supermodels) is listed. <a href="${escapeHtml(href)}">Hide it</a>`
      : `Work made inside cross-validations and supermodels (fold datasets and models, a supermodel's steps) is left out: it is linked from what it was made for. <a href="${escapeHtml(href)}">List it too</a>`
  }</p>`;
}
