import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendGraphList, sendDone } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { ValidationRunner } from './validation-runner.ts';
import { sendValidation } from './validation-views.ts';
import { validationServiceRoutes, type ValidationStarters } from './validation-service-routes.ts';
import type { DescribedRoutes } from '../http/route-description.ts';

/** Validation component (spec 2.6, 4.1), mounted at /validation: the validations as resources here, the services that make them in validation-service-routes.ts. */
export function validationRoutes(router: Router, routes: DescribedRoutes, services: Services, runner: ValidationRunner, start: ValidationStarters): void {
  validationServiceRoutes(routes, start);
  const { validations } = runner;
  const validationUri = (ctx: Context) => services.uris.item('validation', ctx.params.id);

  router.get('/validation', async (ctx) => {
    const q = Params.fromQuery(ctx);
    const filter = { model: q.get('model'), algorithm: q.get('algorithm'), trainingDataset: q.get('trainingDataset'), testDataset: q.get('testDataset') };
    const uris = await validations.list(filter);
    await sendGraphList(ctx, services.store, uris, 'Validations');
  });

  router.get('/validation/:id', async (ctx) => {
    const uri = validationUri(ctx);
    const quads = await validations.read(uri);
    if (!quads) throw notFound(`validation ${uri} not found`);
    await sendValidation(ctx, uri, quads);
  });

  router.delete('/validation/:id', async (ctx) => {
    const uri = validationUri(ctx);
    if (!(await validations.read(uri))) throw notFound(`validation ${uri} not found`);
    await validations.delete([uri]);
    sendDone(ctx);
  });
}
