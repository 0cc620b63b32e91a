import { INTERMEDIATE_PARAM, intermediateSwitchHtml, listsIntermediate } from '../http/intermediate-work.ts';
import { z } from 'zod';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import { sendGraphList, sendDone } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { ValidationRunner } from './validation-runner.ts';
import { validationTitle, sendValidation } from './validation-views.ts';
import { validationServiceRoutes, type ValidationStarters } from './validation-service-routes.ts';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';

/** Validation component (spec 2.6, 4.1), mounted at /validation: the validations as resources here, the services that make them in validation-service-routes.ts. */
export function validationRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris' | 'store'>, runner: ValidationRunner, start: ValidationStarters): void {
  validationServiceRoutes(routes, start);
  const { validations } = runner;
  const validationUri = (ctx: Context) => services.uris.item('validation', ctx.params.id);

  const xml = ['application/xml', 'text/xml'];
  routes.add(
    {
      method: 'GET',
      path: '/validation',
      summary: 'Validations (those of a model, an algorithm, a training or a test dataset)',
      tag: 'validation',
      params: z.object({
        model: param.optional('Of this model'),
        algorithm: param.optional('Of this algorithm'),
        trainingDataset: param.optional('Trained on this dataset'),
        testDataset: param.optional('Tested on this dataset'),
        ...INTERMEDIATE_PARAM,
      }),
      responses: answers(MEDIA.list),
    },
    async (ctx, { intermediate: given, ...filter }) => {
      // a filtered list names what it is about: the folds of a model, a dataset are listed
      const intermediate = listsIntermediate({ intermediate: given }) || Object.values(filter).some((v) => v);
      await sendGraphList(ctx, services.store, await validations.list(filter, { intermediate }), 'Validations', intermediateSwitchHtml(ctx, intermediate));
    },
  );

  routes.add({ method: 'GET', path: '/validation/:id', summary: 'A validation with its statistics', tag: 'validation', responses: answers([...MEDIA.resource, ...xml], 404) }, async (ctx) => {
    const uri = validationUri(ctx);
    const quads = await validations.read(uri);
    if (!quads) throw notFound(`validation ${uri} not found`);
    await sendValidation(ctx, uri, quads, (tree) => validationTitle(services.store, tree));
  });

  routes.add({ method: 'DELETE', path: '/validation/:id', summary: 'Delete a validation', tag: 'validation', responses: answers([], 404) }, async (ctx) => {
    const uri = validationUri(ctx);
    if (!(await validations.read(uri))) throw notFound(`validation ${uri} not found`);
    await validations.delete([uri]);
    sendDone(ctx);
  });
}
