import { currentIri, OPENTOX_API_1_2 } from '../rdf/vocabulary-aliases.ts';
import sparqljs from 'sparqljs';
import { badRequest, HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { AUTH_GRAPH_PREFIX } from '../auth/access-control.ts';
import type { SparqlRequest } from './sparql-request.ts';
import { select } from '../store/query-helpers.ts';
import { sparqlQueries } from './sparql-queries.ts';

/**
 * SPARQL 1.1 Update over the protocol (`POST /sparql` with `update=` or an
 * `application/sparql-update` body). Who may: with access control on, administrators only
 * (anonymous 401, others 403); with it off, everyone when `--sparql-update` allows it (off by
 * default: 403).
 *
 * What it may change: graphs of its own. The graphs of this server's resources (datasets,
 * models, …), the bundled vocabularies and the access-control graphs are refused outright (400,
 * nothing written): those are written through their own interfaces, which check them against
 * their shapes. The check runs on the changes the update computed, before anything is written,
 * so an update that would touch one of them changes nothing at all. `LOAD` (a fetch from another
 * host) is refused (`LOAD SILENT` loads nothing and succeeds); post data to `/graph-store` instead.
 */
export async function runUpdate(services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>, request: SparqlRequest, user: string | undefined): Promise<void> {
  checkUpdateRights(services, user);
  // the graphs an update may change are listed only for CLEAR/DROP ALL|NAMED (it reads every graph name)
  const text = await prepareUpdate(request, services.uris.endpoint('sparql'), () => updatableGraphs(services));
  if (!text) return; // an update of no operations (only comments, BASE or PREFIX): done
  try {
    // SPARQL 1.1 Update's dataset: the default graph is the unnamed one (queries see the union)
    await services.store.update(text, { beforeWrite: (graphs) => checkGraphs(services, graphs), unionDefaultGraph: false, baseIri: services.uris.endpoint('sparql') });
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw new HttpError(400, 'UpdateFailed', `the update could not be run: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** The named graphs an update may change: every graph of the store but those of resources, vocabularies and access control. */
async function updatableGraphs(services: Pick<Services, 'uris' | 'store' | 'published'>): Promise<string[]> {
  const graphs = (await select(services.store, sparqlQueries.graphNames())).map((row) => row.g.value);
  const refused = new Set(refusedGraphs(services, graphs));
  return graphs.filter((g) => !refused.has(g));
}

/**
 * Parse and check an update. `CLEAR`/`DROP` of `ALL` or `NAMED` mean the graphs an update may
 * change (`updatable`): the graph store of this endpoint does not include the graphs of the
 * server's resources, which are not changed that way. The protocol's using-graph-uri /
 * using-named-graph-uri become each operation's USING.
 */
async function prepareUpdate(request: SparqlRequest, baseIri: string, updatable: () => Promise<string[]>): Promise<string> {
  const text = request.update;
  if (text === undefined) throw badRequest('missing the update parameter (a SPARQL update)');
  // SPARQL 1.1 allows an update of no operations at all
  if (!text.replace(/#[^\n]*/g, '').trim()) return '';
  let parsed: any;
  try {
    parsed = new sparqljs.Parser({ baseIRI: baseIri }).parse(text);
  } catch (e) {
    throw badRequest(`malformed SPARQL update: ${(e as Error).message.split('\n').slice(0, 4).join(' ')}`);
  }
  // only a prologue (BASE, PREFIX): an update of no operations
  if (parsed.type === undefined) return '';
  if (parsed.type !== 'update') throw badRequest('this is a query: send it as query=, not update=');
  // LOAD fetches from another host, which this server does not do for updates; LOAD SILENT
  // ignores its failure, as SPARQL 1.1 Update says, and loads nothing
  if (parsed.updates.some((op: any) => op.type === 'load' && !op.silent)) throw badRequest('LOAD (fetching data from another host) is not supported; post the data to /graph-store');
  const loads = parsed.updates.filter((op: any) => op.type === 'load').length;
  parsed.updates = parsed.updates.filter((op: any) => op.type !== 'load');
  const wide = (op: any) => (op.type === 'clear' || op.type === 'drop') && (op.graph?.all || op.graph?.named);
  const widened = parsed.updates.some(wide);
  const graphs = widened ? await updatable() : [];
  parsed.updates = parsed.updates.flatMap((op: any) =>
    wide(op)
      ? [...(op.graph.all ? [{ ...op, graph: { default: true } }] : []), ...graphs.map((g) => ({ type: op.type, silent: true, graph: { type: 'graph', name: { termType: 'NamedNode', value: g } } }))]
      : [op],
  );
  const operations: any[] = parsed.updates;
  if (!operations.length) return '';
  const aliased = inCurrentVocabulary(operations);
  // the text is sent as it was unless something was taken out or added (the generator does not
  // write every form back, e.g. ADD/COPY/MOVE … TO DEFAULT)
  const write = () => {
    try {
      return new sparqljs.Generator().stringify(parsed);
    } catch (e) {
      throw badRequest(`this update cannot be rewritten with the protocol's dataset: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  if (!request.usingGraphs.length && !request.usingNamedGraphs.length) return loads || widened || aliased ? write() : text;
  // SPARQL 1.1 protocol 2.2.3: the protocol's dataset and the update's own USING/WITH do not mix
  if (operations.some((op) => op.updateType === 'insertdelete' && (op.using || op.graph)))
    throw badRequest('using-graph-uri / using-named-graph-uri cannot be combined with USING, USING NAMED or WITH in the update');
  for (const op of operations) {
    if (op.updateType === 'insertdelete' || op.updateType === 'deletewhere') {
      op.using = {
        default: request.usingGraphs.map((iri) => ({ termType: 'NamedNode', value: iri })),
        named: request.usingNamedGraphs.map((iri) => ({ termType: 'NamedNode', value: iri })),
      };
    }
  }
  return write();
}

/** May this caller write through SPARQL Update or the Graph Store Protocol? 401/403 otherwise. */
export function checkUpdateRights(services: Pick<Services, 'config' | 'access'>, user: string | undefined): void {
  const { config, access } = services;
  if (access.enabled) {
    if (!user) throw new HttpError(401, 'Unauthorized', 'writing graphs (SPARQL update, graph store) needs an administrator’s token (subjectid)');
    if (!access.isAdmin(user)) throw new HttpError(403, 'Forbidden', `${user} may not write graphs: SPARQL updates and the graph store are for administrators`);
  } else if (!config.sparqlUpdate) {
    throw new HttpError(403, 'Forbidden', 'SPARQL updates and graph store writes are turned off on this server (start it with --sparql-update to allow them)');
  }
}

/** The graphs among these that only their resources' own interfaces may change: resources, vocabularies, access control. */
export function refusedGraphs(services: Pick<Services, 'uris' | 'published'>, graphs: string[]): string[] {
  const vocabularies = new Set(services.published.vocabularyGraphs());
  return graphs.filter((g) => g && (services.uris.resourceOf(g) !== undefined || vocabularies.has(g) || g.startsWith(AUTH_GRAPH_PREFIX)));
}

/** Refuse changes to the graphs of resources, vocabularies and access control. */
function checkGraphs(services: Pick<Services, 'uris' | 'published'>, graphs: string[]): void {
  const refused = refusedGraphs(services, graphs);
  if (refused.length)
    throw badRequest(
      `the update would change graphs this server keeps for its resources or vocabularies (${refused.slice(0, 5).join(', ')}${refused.length > 5 ? ' …' : ''}); change those through their own interfaces. Nothing was written.`,
    );
}

/** The OpenTox 1.2 terms of parsed operations made their 1.1 equals, as every RDF input's are (rdf/vocabulary-aliases.ts); true when there was one. */
function inCurrentVocabulary(operations: unknown[]): boolean {
  let found = false;
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const term = node as { termType?: string; value?: unknown };
    if (term.termType === 'NamedNode' && typeof term.value === 'string' && term.value.startsWith(OPENTOX_API_1_2)) {
      term.value = currentIri(term.value);
      found = true;
    }
    for (const child of Object.values(node)) visit(child);
  };
  visit(operations);
  return found;
}
