import type { Context, Next } from 'koa';
import { HttpError } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { requestMediaType } from '../http/body.ts';
import type { Services } from '../core/services.ts';
import type { Action } from './access-control.ts';
import { currentUser } from '../core/request-context.ts';
import { callerTokenOf } from './caller-token.ts';

// /mcp: an agent's tool calls are requests to this service carrying the agent's token, checked
// there as any other request (src/mcp/service-client.ts); listing the tools needs no token
// /opensso/identity/…: OpenSSO's identity services, which check the token they are given themselves (read's is its admin parameter)
const OPEN_PATHS = [
  '/auth/authenticate',
  '/auth/isTokenValid',
  '/auth/authorize',
  '/auth/logout',
  ...['authenticate', 'isTokenValid', 'authorize', 'logout', 'attributes', 'read'].map((service) => `/opensso/identity/${service}`),
  '/health',
  '/metrics',
  '/mcp',
];

/** Parameters that name other resources the request reads on the caller's behalf. */
const READ_PARAMS = [
  'dataset_uri',
  'feature_uri',
  'feature_uris',
  'compound_uri',
  'compound_uris',
  'model_uri',
  'algorithm_uri',
  'prediction_feature',
  'test_dataset_uri',
  'training_dataset_uri',
  'training_dataset',
  'test_target_dataset_uri',
  'prediction_dataset_uri',
  'result_dataset',
  'associated_features',
  'validation_uri',
  'validation_uris',
];

/** Does a request only read? GET, HEAD, OPTIONS, and a SPARQL query posted to /sparql or /ontology (the protocol's POST forms of a query, not an update). */
function readsOnly(ctx: Context, params: Params): boolean {
  if (['GET', 'HEAD', 'OPTIONS'].includes(ctx.method)) return true;
  if (ctx.method !== 'POST' || (ctx.path !== '/sparql' && ctx.path !== '/ontology')) return false;
  const type = requestMediaType(ctx);
  if (type === 'application/sparql-query') return true;
  return type === 'application/x-www-form-urlencoded' && params.all('query').length === 1 && params.all('update').length === 0;
}

/**
 * Access control on every request when it is on (spec 5): no token or a bad one → 401; an
 * action the resource's policy does not allow, on the resource or on a resource the request
 * would read → 403. The caller's name is kept for the work it starts (policies of created
 * resources, tasks).
 */
export function accessControl(services: Pick<Services, 'config' | 'uris' | 'access'>) {
  const { access, config } = services;
  return async (ctx: Context, next: Next) => {
    if (!access.enabled) return next();
    if (OPEN_PATHS.includes(ctx.path) || (ctx.path === '/' && ctx.method === 'GET')) return currentUser.run(undefined, next);
    const token = await callerTokenOf(ctx, config.bodyLimit);
    if (!token) throw new HttpError(401, 'Unauthorized', 'access control is on: send a token in the subjectid header (from POST /auth/authenticate)');
    const caller = await access.callerOfToken(token);
    if (!caller) throw new HttpError(401, 'Unauthorized', 'the token is not valid (unknown, expired, revoked or logged out)');
    const { user } = caller;
    const action = (['GET', 'HEAD', 'OPTIONS'].includes(ctx.method) ? 'GET' : ctx.method) as Action;
    const target = services.uris.ofPath(ctx.path);
    if (!access.allowed(user, target, action)) throw new HttpError(403, 'Forbidden', `${user} may not ${ctx.method} ${target}`);
    const params =
      ctx.method === 'GET' ? Params.fromQuery(ctx) : requestMediaType(ctx) === 'application/x-www-form-urlencoded' ? await Params.fromRequest(ctx, config.bodyLimit) : Params.fromQuery(ctx);
    if (caller.readOnly && !readsOnly(ctx, params)) throw new HttpError(403, 'Forbidden', `a read-only API key may not ${ctx.method} ${ctx.path} (it reads, and asks SPARQL queries)`);
    for (const name of READ_PARAMS) {
      for (const value of params.all(name).flatMap((v) => v.split(','))) {
        if (!access.allowed(user, value.trim(), 'GET')) throw new HttpError(403, 'Forbidden', `${user} may not read ${value.trim()} (parameter ${name})`);
      }
    }
    ctx.state.canRead = (uri: string) => access.allowed(user, uri, 'GET');
    await currentUser.run(user, next);
  };
}
