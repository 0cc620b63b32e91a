import type { Context } from 'koa';
import { HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { JobQuota } from '../core/config.ts';
import { currentUser } from '../core/request-context.ts';

/**
 * Per-caller quotas on the requests that start jobs (`--job-quota`, `--group-job-quotas`): the
 * routes described with `startsJob` (uploads and their previews, applying an algorithm,
 * predicting with a model, importing a model, validations and cross-validations), counted on
 * the route that serves the request, whatever spelling or alias of its path was used. Over
 * its quota a caller gets 429 with `Retry-After` (the seconds until its window ends), while
 * reads and other callers go on. The caller is the user (access control on) or the client's
 * address; a member of groups with quotas gets the largest of them. Windows are fixed, counted
 * in the processes' shared coordination (Redis with --redis-url), and forgotten when they end.
 */
export function jobQuotas(services: Pick<Services, 'config' | 'access' | 'coordination' | 'metrics'>): (ctx: Context) => Promise<void> {
  const { config, access, coordination, metrics } = services;
  const quotaOf = (user: string | undefined): JobQuota | undefined => {
    const ofGroups = user ? access.groupsOf(user).flatMap((g) => config.groupJobQuotas.get(g) ?? []) : [];
    if (!ofGroups.length) return config.jobQuota;
    // a member of several groups: the most generous (the most requests per millisecond)
    return ofGroups.sort((a, b) => b.limit / b.periodMs - a.limit / a.periodMs)[0];
  };
  return async (ctx: Context) => {
    const user = currentUser.getStore();
    const quota = quotaOf(user);
    if (!quota) return;
    const caller = user ? `user:${user}` : `address:${ctx.ip}`;
    const now = Date.now();
    const window = Math.floor(now / quota.periodMs);
    const windowEnds = (window + 1) * quota.periodMs;
    const count = await coordination.countInWindow(`jobs:${caller}:${quota.limit}/${quota.periodMs}:${window}`, Math.ceil((windowEnds - now) / 1000) + 1);
    if (count > quota.limit) {
      metrics.quotaRefused('jobs');
      const seconds = Math.max(1, Math.ceil((windowEnds - now) / 1000));
      throw new HttpError(
        429,
        'TooManyRequests',
        `${user ?? ctx.ip} has started ${quota.limit} jobs in this period (the quota is ${quota.limit} per ${quota.periodMs / 1000} s); try again in ${seconds} s`,
        undefined,
        { 'Retry-After': String(seconds) },
      );
    }
  };
}
