import { z } from 'zod';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import type { Context } from 'koa';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { readText, requestMediaType } from '../http/body.ts';
import { Params } from '../http/params.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendTask, sendUri, type Renderer } from '../http/respond.ts';
import { escapeXml } from '../rdf/xml-text.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import type { Qmrfs } from './qmrfs.ts';
import type { QmrfStore } from './qmrf-store.ts';

const RENDER_MODULE = new URL('./qmrf-render.ts', import.meta.url).href;
const QMRF_XML = 'application/qmrf-xml';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Bodies that are a QMRF document rather than form parameters. */
const XML_TYPES = [QMRF_XML, 'application/xml', 'text/xml'];

/** REACH (QMRF) reports (spec 4.6), also under the Ruby service layout `/validation/reach_report/qmrf`. */
export function qmrfRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>, qmrfs: Qmrfs, store: QmrfStore): void {
  const { uris, config } = services;
  const uriOf = (ctx: Context) => uris.reachReport('qmrf', ctx.params.id);

  const also = (path: string) => [`/validation${path}`];
  const xmlBody = [QMRF_XML, 'application/xml', 'text/xml'];
  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qmrf',
      aliases: also('/reach_report/qmrf'),
      summary: 'QMRF reports, searched',
      tag: 'qmrf',
      params: z.object({
        model_uri: param.optional('About this model'),
        dataset_uri: param.optional('Naming this dataset'),
        compound_uri: param.optional('Whose training set holds this compound'),
        algorithm_uri: param.optional('Of this algorithm'),
        endpoint_uri: param.optional('Of this endpoint'),
        search: param.optional('Words in the report'),
      }),
      responses: answers(MEDIA.list),
    },
    async (ctx, q) => sendGraphList(ctx, services.store, await qmrfs.search(q), 'QMRF reports'),
  );

  routes.add(
    {
      method: 'POST',
      path: '/reach_report/qmrf',
      aliases: also('/reach_report/qmrf'),
      summary: 'Make a QMRF: filled from a model (model_uri, a task), or posted as QMRF XML',
      tag: 'qmrf',
      params: z.object({ model_uri: param.optional('The model the report is filled from (required unless the body is QMRF XML)') }),
      body: xmlBody,
      responses: { ...taskResponses(400, 404), 200: MEDIA.uri },
    },
    async (ctx, p) => {
      if (XML_TYPES.includes(requestMediaType(ctx))) return sendUri(ctx, await qmrfs.createFromXml(await readText(ctx, config.bodyLimit)));
      if (!p.model_uri?.trim()) throw badRequest('missing required parameter model_uri');
      await sendTask(ctx, await qmrfs.startFromModel(p.model_uri));
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qmrf/:id',
      aliases: also('/reach_report/qmrf/:id'),
      summary: 'A QMRF: RDF, QMRF XML, DocBook, HTML, PDF, XLSX',
      tag: 'qmrf',
      responses: answers([...MEDIA.resource, QMRF_XML, 'application/xml', 'text/xml', 'application/docbook+xml', 'application/pdf', XLSX], 404),
    },
    async (ctx) => {
      const uri = uriOf(ctx);
      const found = await store.read(uri);
      if (!found) throw notFound(`QMRF report ${uri} not found`);
      // by media type, as every page's "Also as" links are (their names come from the type)
      const alternates = {
        [QMRF_XML]: `${uri}?media=${QMRF_XML}`,
        'application/pdf': `${uri}?media=application/pdf`,
        [XLSX]: `${uri}?media=${XLSX}`,
        'text/turtle': `${uri}?media=text/turtle`,
        'application/docbook+xml': `${uri}?media=application/docbook%2Bxml`,
      };
      const convert = async (format: 'docbook' | 'html' | 'pdf' | 'xlsx') =>
        services.workers.run<string | Uint8Array>(RENDER_MODULE, 'convertQmrf', [await store.xml(uri), format, { uri, date: found.record.modified.toISOString(), alternates, base: config.baseUrl }]);
      const renderers: Record<string, Renderer> = {
        ...resourceRenderers(ctx, uri, found.quads, found.record.title, { tree: resourceTree(found.quads, uri, false) }),
        [QMRF_XML]: () => store.xml(uri),
        'application/xml': () => store.xml(uri),
        'text/xml': () => store.xml(uri),
        'application/docbook+xml': async () => String(await convert('docbook')),
        'text/html': async () => String(await convert('html')),
        'application/pdf': async () => Buffer.from((await convert('pdf')) as Uint8Array),
        [XLSX]: async () => Buffer.from((await convert('xlsx')) as Uint8Array),
      };
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/reach_report/qmrf/:id',
      aliases: also('/reach_report/qmrf/:id'),
      summary: 'Replace a QMRF (XML), or update sections (form parameters named after QMRF elements) and attach validations',
      tag: 'qmrf',
      params: z.object({ validation_uri: param.list('Validations to attach') }),
      body: xmlBody,
      responses: { ...answers(MEDIA.uri, 400, 404), 303: [] },
    },
    async (ctx) => {
      const uri = uriOf(ctx);
      if (XML_TYPES.includes(requestMediaType(ctx))) await qmrfs.replaceXml(uri, await readText(ctx, config.bodyLimit));
      else {
        const params = await Params.fromRequest(ctx, config.bodyLimit);
        if (!params.entries().some(([k]) => k !== 'subjectid')) throw badRequest(`give QMRF XML (Content-Type ${QMRF_XML}) or form parameters named after QMRF elements, or validation_uri`);
        await qmrfs.update(uri, params);
      }
      // a browser (the editing form) goes back to the report, other clients get its URI
      await sendUri(ctx, uri);
    },
  );

  routes.add({ method: 'DELETE', path: '/reach_report/qmrf/:id', aliases: also('/reach_report/qmrf/:id'), summary: 'Delete a QMRF', tag: 'qmrf', responses: answers([], 404) }, async (ctx) => {
    const uri = uriOf(ctx);
    await qmrfs.require(uri);
    await store.delete(uri);
    sendDone(ctx);
  });

  // the desktop QMRF editor (Java Web Start), opening this report
  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qmrf/:id/editor',
      aliases: also('/reach_report/qmrf/:id/editor'),
      summary: 'A Java Web Start descriptor for the desktop QMRF editor',
      tag: 'qmrf',
      responses: answers(['application/x-java-jnlp-file'], 404),
    },
    async (ctx) => {
      const uri = uriOf(ctx);
      await qmrfs.require(uri);
      const codebase = config.qmrfEditorCodebase;
      ctx.set('Content-Type', 'application/x-java-jnlp-file');
      ctx.set('Content-Disposition', `attachment; filename="qmrf-${encodeURIComponent(ctx.params.id)}.jnlp"`);
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>
<jnlp spec="1.0+" codebase="${escapeXml(codebase)}" href="${escapeXml(`${uri}/editor`)}">
  <information>
    <title>QMRF Editor</title>
    <vendor>Joint Research Centre, European Commission</vendor>
    <description>Edit the QMRF report ${escapeXml(uri)}</description>
    <offline-allowed/>
  </information>
  <security><all-permissions/></security>
  <resources>
    <j2se version="1.8+"/>
    <jar href="${escapeXml(`${codebase}/QMRFEditor.jar`)}" main="true"/>
  </resources>
  <application-desc main-class="ambit.applications.qmrf.QMRFEditor">
    <argument>-x ${escapeXml(`${uri}?media=${encodeURIComponent(QMRF_XML)}`)}</argument>
  </application-desc>
</jnlp>
`;
    },
  );
}
