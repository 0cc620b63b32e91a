import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { readText, requestMediaType } from '../http/body.ts';
import { Params } from '../http/params.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendTask, sendUri, type Renderer } from '../http/respond.ts';
import { escapeXml } from '../report/report-document.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import type { Qmrfs } from './qmrfs.ts';
import type { QmrfStore } from './qmrf-store.ts';

const RENDER_MODULE = new URL('./qmrf-render.ts', import.meta.url).href;
const QMRF_XML = 'application/qmrf-xml';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** Bodies that are a QMRF document rather than form parameters. */
const XML_TYPES = [QMRF_XML, 'application/xml', 'text/xml'];

/** REACH (QMRF) reports (spec 4.6), also under the Ruby service layout `/validation/reach_report/qmrf`. */
export function qmrfRoutes(router: Router, services: Services, qmrfs: Qmrfs, store: QmrfStore): void {
  const { uris, config } = services;
  const uriOf = (ctx: Context) => uris.reachReport('qmrf', ctx.params.id);

  for (const base of ['/reach_report/qmrf', '/validation/reach_report/qmrf']) {
    router.get(base, async (ctx) => {
      const q = Params.fromQuery(ctx);
      const found = await qmrfs.search({
        model_uri: q.get('model_uri'),
        dataset_uri: q.get('dataset_uri'),
        compound_uri: q.get('compound_uri'),
        algorithm_uri: q.get('algorithm_uri'),
        endpoint_uri: q.get('endpoint_uri'),
        search: q.get('search'),
      });
      await sendGraphList(ctx, services.store, found, 'QMRF reports');
    });

    router.post(base, async (ctx) => {
      if (XML_TYPES.includes(requestMediaType(ctx))) return sendUri(ctx, await qmrfs.createFromXml(await readText(ctx, config.bodyLimit)));
      const params = await Params.fromRequest(ctx, config.bodyLimit);
      await sendTask(ctx, await qmrfs.startFromModel(params.required('model_uri')));
    });

    router.get(`${base}/:id`, async (ctx) => {
      const uri = uriOf(ctx);
      const found = await store.read(uri);
      if (!found) throw notFound(`QMRF report ${uri} not found`);
      const alternates = {
        'QMRF XML': `${uri}?media=${QMRF_XML}`,
        PDF: `${uri}?media=application/pdf`,
        XLSX: `${uri}?media=${XLSX}`,
        RDF: `${uri}?media=text/turtle`,
        DocBook: `${uri}?media=application/docbook%2Bxml`,
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
    });

    router.post(`${base}/:id`, async (ctx) => {
      const uri = uriOf(ctx);
      if (XML_TYPES.includes(requestMediaType(ctx))) await qmrfs.replaceXml(uri, await readText(ctx, config.bodyLimit));
      else {
        const params = await Params.fromRequest(ctx, config.bodyLimit);
        if (!params.entries().some(([k]) => k !== 'subjectid')) throw badRequest(`give QMRF XML (Content-Type ${QMRF_XML}) or form parameters named after QMRF elements, or validation_uri`);
        await qmrfs.update(uri, params);
      }
      // a browser (the editing form) goes back to the report, other clients get its URI
      await sendUri(ctx, uri);
    });

    router.delete(`${base}/:id`, async (ctx) => {
      const uri = uriOf(ctx);
      await qmrfs.require(uri);
      await store.delete(uri);
      sendDone(ctx);
    });

    // the desktop QMRF editor (Java Web Start), opening this report
    router.get(`${base}/:id/editor`, async (ctx) => {
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
    });
  }
}
