import type { Context, Next } from 'koa';
import { HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { JobQuota } from '../core/config.ts';
import { currentUser } from '../core/request-context.ts';

/**
 * Requests that start jobs: uploads, applying an algorithm (descriptors, training, domains),
 * predicting a dataset with a model, importing a model, validations and cross-validations.
 * Reads, previews, SPARQL, reports and access control are not counted.
 */
const STARTS_JOB =
  /^\/(dataset|model|algorithm\/[^/]+|model\/[^/]+|validation\/(test_set_validation|training_test_validation|training_test_valdiation|training_test_split|bootstrapping|validate_datasets)|crossvalidation(\/loo)?)$/;

export function startsJob(ctx: Pick<Context, 'method' | 'path'>): boolean {
  return ctx.method === 'POST' && STARTS_JOB.test(ctx.path);
}

/**
 * Per-caller quotas on the requests that start jobs (`--job-quota`, `--group-job-quotas`): over
 * its quota a caller gets 429 with `Retry-After` (the seconds until its window ends), while
 * reads and other callers go on. The caller is the user (access control on) or the client's
 * address; a member of groups with quotas gets the largest of them. Windows are fixed, counted
 * in the processes' shared coordination (Redis with --redis-url), and forgotten when they end.
 */
export function jobQuotas(services: Pick<Services, 'config' | 'access' | 'coordination' | 'metrics'>) {
  const { config, access, coordination, metrics } = services;
  const quotaOf = (user: string | undefined): JobQuota | undefined => {
    const ofGroups = user ? access.groupsOf(user).flatMap((g) => config.groupJobQuotas.get(g) ?? []) : [];
    if (!ofGroups.length) return config.jobQuota;
    // a member of several groups: the most generous (the most requests per millisecond)
    return ofGroups.sort((a, b) => b.limit / b.periodMs - a.limit / a.periodMs)[0];
  };
  return async (ctx: Context, next: Next) => {
    if (!startsJob(ctx)) return next();
    const user = currentUser.getStore();
    const quota = quotaOf(user);
    if (!quota) return next();
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
    return next();
  };
}
