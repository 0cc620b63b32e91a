import { z } from 'zod';
import type * as RDF from '@rdfjs/types';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { dc, dcterms, ot, owl, RDF_TYPE, rdfs } from '../rdf/namespaces.ts';
import { propertyValue, propertyValues } from '../rdf/graph-values.ts';
import { INCHI_MAX_CHARS, MOLFILE_MAX_CHARS, SMARTS_MAX_CHARS, SMILES_MAX_CHARS } from '../chemistry/structure-limits.ts';
import { ArgumentError, ServiceError, explanation, json, number, type ServiceAnswer, type ServiceClient } from './service-client.ts';
import { validationStatistics } from './model-validations.ts';

/** The most a tool answers of a resource's JSON-LD. */
const MAX_RESOURCE_BYTES = 2 * 2 ** 20;
/** How long make_qprf waits for its report before it answers the task instead. */
const QPRF_WAIT_MS = 30_000;

/** An algorithm's parameters, by name. */
const PARAMETERS = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string().max(2000)).optional();
const uri = (what: string) => z.string().min(1).max(2000).describe(what);
const reads = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const writes = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** Every URI of this service in an answer (at most `limit`), the resources it is about. */
function urisIn(value: unknown, base: string, found = new Set<string>(), limit = 50): Set<string> {
  if (found.size >= limit) return found;
  if (typeof value === 'string' && value.startsWith(`${base}/`)) found.add(value);
  else if (Array.isArray(value)) for (const v of value) urisIn(v, base, found, limit);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) urisIn(v, base, found, limit);
  return found;
}

/** A tool's answer: structured content, the same as text for clients that read only text, and a link to each resource it names. */
function answer(structured: Record<string, unknown>, base: string): CallToolResult {
  const links = [...urisIn(structured, base)].map((uri) => ({ type: 'resource_link' as const, uri, name: uri.slice(base.length + 1) }));
  return { structuredContent: structured, content: [{ type: 'text', text: JSON.stringify(structured) }, ...links] };
}

/** A tool's work, with its failures answered as MCP tool errors (the argument or the service's own explanation), never thrown. */
function tool<A>(work: (args: A) => Promise<Record<string, unknown>>, onInternal: (e: unknown) => void, base: string): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return answer(await work(args), base);
    } catch (e) {
      if (e instanceof ArgumentError || e instanceof ServiceError) return { isError: true, content: [{ type: 'text', text: e.message }] };
      onInternal(e);
      return { isError: true, content: [{ type: 'text', text: 'the service failed to answer this call' }] };
    }
  };
}

/** A resource's title, whichever of the usual properties gives it. */
const titleOf = (quads: RDF.Quad[], subject: string) => [dc('title'), dcterms('title'), rdfs('label')].map((p) => propertyValue(quads, subject, p)).find((v) => v !== undefined);
const lines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim());

/** A task's state as the service reports it. */
async function taskState(client: ServiceClient, task: string) {
  const answer = await client.request('GET', task, { accept: 'application/n-triples' });
  if (answer.status === 404 || answer.status === 401 || answer.status === 403) throw new ServiceError(answer.status, `task ${task}: ${answer.status === 404 ? 'not found' : 'not yours to read'}`);
  // the task's description comes with every status (202 while it runs, the error's own when it failed)
  const quads = await client.parse(answer);
  const value = (p: string) => propertyValue(quads, task, ot(p));
  const error = value('error');
  return {
    task,
    status: value('hasStatus') ?? 'Unknown',
    percentage_completed: number(value('percentageCompleted')),
    result: value('resultURI'),
    ...(error ? { error: propertyValue(quads, error, ot('message')) ?? propertyValue(quads, error, ot('details')) ?? 'failed' } : {}),
  };
}

/**
 * What a request that may run as a task answered: the result's URI (as `key`), or the task to
 * follow; a 400, 404 or 415 is about the argument `blame` names from the service's message.
 */
function started(sent: ServiceAnswer, key: string, blame: (message: string) => string): Record<string, unknown> {
  if (sent.status === 400 || sent.status === 404 || sent.status === 415) throw new ArgumentError(blame(explanation(sent)), explanation(sent));
  if (sent.status !== 200 && sent.status !== 201 && sent.status !== 202) throw new ServiceError(sent.status, explanation(sent));
  const target = lines(sent.text)[0];
  return sent.status === 202 ? { task: target, status: 'Running', next: 'get_task' } : { [key]: target };
}

/** A prediction's values, each with its feature's title and kind (prediction, confidence, conformal, applicability domain). */
async function outputsOf(client: ServiceClient, model: string, quads: RDF.Quad[], entry: RDF.Term) {
  // the applicability domains' features: the model's own (embedded) and its linked domain models'
  const described = await client.triples(model);
  const linked = propertyValues(described, model, ot('hasDomain')).filter((d) => d !== model);
  const domains = [...described, ...(await Promise.all(linked.map((d) => client.triples(d)))).flat()];
  const featuresOf = (p: string) => new Set(domains.filter((q) => q.predicate.equals(ot(p))).map((q) => q.object.value));
  const [metrics, memberships] = [featuresOf('adMetric'), featuresOf('adMembership')];
  const nodes = quads.filter((q) => q.subject.equals(entry) && q.predicate.equals(ot('values'))).map((q) => q.object);
  return Promise.all(
    nodes.map(async (node) => {
      const feature = propertyValue(quads, node, ot('feature')) ?? '';
      const value = quads.find((q) => q.subject.equals(node) && q.predicate.equals(ot('value')))?.object;
      // its description where the caller may read it: a model shared for predictions need not share its features
      const fq = await client.triples(feature).catch((e) => (e instanceof ServiceError && (e.status === 403 || e.status === 401) ? [] : Promise.reject(e)));
      const of = propertyValue(fq, feature, ot('confidenceOf')) ?? propertyValue(fq, feature, ot('conformalOf'));
      const level = propertyValue(fq, feature, ot('confidenceLevel'));
      return {
        feature,
        title: titleOf(fq, feature),
        kind: memberships.has(feature)
          ? 'applicability domain'
          : metrics.has(feature)
            ? 'applicability domain metric'
            : of === undefined
              ? 'prediction'
              : propertyValue(fq, feature, ot('confidenceOf'))
                ? 'confidence'
                : 'conformal',
        types: propertyValues(fq, feature, RDF_TYPE).map((t) => t.replace(/^.*[#/]/, '')),
        ...(of ? { of } : {}),
        ...(level ? { confidence_level: Number(level) } : {}),
        value: value === undefined ? null : value.termType === 'Literal' && /#(double|float|decimal|integer|int|long)$/.test(value.datatype.value) ? Number(value.value) : value.value,
      };
    }),
  );
}

/** Every tool of the endpoint, on one caller's view of the service. */
export function registerTools(server: McpServer, client: ServiceClient, onInternal: (e: unknown) => void): void {
  const handle = <A>(work: (args: A) => Promise<Record<string, unknown>>) => tool(work, onInternal, client.baseUrl);
  server.registerTool(
    'search_compounds',
    {
      title: 'Search compounds',
      description:
        'Find compounds by name or identifier (CAS, InChI, InChIKey; name* for a prefix), by exact SMILES, by substructure (SMARTS) or by similarity to a structure (Tanimoto on Morgan fingerprints). Give exactly one of text, smiles, smarts, similar_to.',
      inputSchema: {
        // the service's own limits (structure-limits.ts); it measures atoms and nesting too, and its 400 names them
        text: z.string().min(1).max(INCHI_MAX_CHARS).optional().describe('A name, CAS number, InChI or InChIKey'),
        smiles: z.string().min(1).max(SMILES_MAX_CHARS).optional().describe('A structure as SMILES: the same structure'),
        smarts: z.string().min(1).max(SMARTS_MAX_CHARS).optional().describe('A substructure (SMARTS, or SMILES)'),
        similar_to: z.string().min(1).max(MOLFILE_MAX_CHARS).optional().describe('A structure (SMILES or molfile): compounds similar to it'),
        threshold: z.number().min(0).max(1).optional().describe('similar_to: the least Tanimoto similarity (default 0.7)'),
        limit: z.number().int().min(1).max(1000).optional().describe('At most this many compounds (default 20)'),
      },
      annotations: { title: 'Search compounds', ...reads },
    },
    handle(async (a: { text?: string; smiles?: string; smarts?: string; similar_to?: string; threshold?: number; limit?: number }) => {
      const given = (['text', 'smiles', 'smarts', 'similar_to'] as const).filter((k) => a[k] !== undefined);
      if (given.length !== 1) throw new ArgumentError(given[1] ?? 'text', 'give exactly one of text, smiles, smarts or similar_to');
      const limit = a.limit ?? 20;
      const query =
        a.similar_to !== undefined
          ? { similarity: a.similar_to, threshold: String(a.threshold ?? 0.7), top: String(limit) }
          : a.smarts !== undefined
            ? { smarts: a.smarts, pagesize: String(limit) }
            : { search: a.text ?? a.smiles };
      const found = await client.request('GET', '/compound', { query, accept: a.similar_to !== undefined ? 'text/csv' : 'text/uri-list' });
      if (found.status === 404) return { compounds: [], count: 0 };
      if (found.status === 400) throw new ArgumentError(given[0], explanation(found));
      if (found.status !== 200) throw new ServiceError(found.status, explanation(found));
      const compounds =
        a.similar_to !== undefined
          ? lines(found.text)
              .slice(1)
              .map((l) => l.split(','))
              .map(([compound, similarity]) => ({ compound, similarity: Number(similarity) }))
          : lines(found.text).map((compound) => ({ compound }));
      return { compounds: compounds.slice(0, limit), count: compounds.length };
    }),
  );

  server.registerTool(
    'get_resource',
    {
      title: 'Read a resource',
      description: 'Any resource of this service (compound, feature, dataset, algorithm, model, validation, report, task) by its URI, as JSON-LD.',
      inputSchema: { uri: uri('The resource URI') },
      annotations: { title: 'Read a resource', ...reads },
    },
    handle(async (a: { uri: string }) => {
      const target = client.uriArgument('uri', a.uri);
      const got = await client.expect('GET', target, { accept: 'application/ld+json' });
      if (got.text.length > MAX_RESOURCE_BYTES)
        throw new ArgumentError('uri', `its JSON-LD is ${got.text.length} bytes, more than a tool answers (${MAX_RESOURCE_BYTES}); ask for a part with sparql_query`);
      return { uri: target, resource: json(got.text, 'uri') };
    }),
  );

  server.registerTool(
    'list_models',
    {
      title: 'List models',
      description:
        'The models the caller may use, with their endpoint, learner, training dataset and its size, and the statistics of their validations and of the cross-validations of their recipe (pooled over the folds), each with its baseline (the majority class, or the mean predictor) to read it against.',
      inputSchema: {
        endpoint: z.string().min(1).max(2000).optional().describe('Only models of this endpoint (an ontology IRI the model is owl:sameAs)'),
        limit: z.number().int().min(1).max(200).optional().describe('At most this many, the newest first (default 50)'),
      },
      annotations: { title: 'List models', ...reads },
    },
    handle(async (a: { endpoint?: string; limit?: number }) => {
      const listed = await client.request('GET', '/model', { query: { query: a.endpoint } });
      if (listed.status === 404 && a.endpoint) return { models: [], count: 0 };
      if (listed.status !== 200) throw new ServiceError(listed.status, explanation(listed));
      const all = lines(listed.text);
      const uris = all.slice(-(a.limit ?? 50)).reverse();
      const statistics = await validationStatistics(client, uris);
      const describe = async (model: string) => {
        const quads = await client.triples(model);
        const training = propertyValue(quads, model, ot('trainingDataset'));
        const compounds = training ? await client.request('GET', `${training}/compounds`) : undefined;
        // unknown when the caller may not read the training set
        const size = compounds?.status === 200 ? lines(compounds.text).length : undefined;
        return {
          model,
          title: titleOf(quads, model),
          endpoint: propertyValues(quads, model, owl('sameAs')),
          learner: propertyValue(quads, model, ot('algorithm')),
          training_dataset: training,
          training_set_size: size,
          predicts: propertyValues(quads, model, ot('dependentVariables')),
          validations: statistics.get(model) ?? [],
        };
      };
      // a few models at a time: each costs two requests to this process
      const models = [];
      for (let i = 0; i < uris.length; i += 8) models.push(...(await Promise.all(uris.slice(i, i + 8).map(describe))));
      return { models, count: all.length };
    }),
  );

  server.registerTool(
    'predict',
    {
      title: 'Predict a structure',
      description:
        "A model's prediction for one structure (smiles) or compound: the value, its confidence or conformal interval/set where the model has one, how to read it (an uncertain class, a tie, a prediction that disagrees with all its nearest training compounds), the applicability-domain verdicts with each metric's limit, and the nearest training compounds with their measured and out-of-fold predicted values (from a cross-validation of the model's recipe, else from the learner trained again without them; never in-sample). The prediction is stored as a dataset, whose page shows the same.",
      inputSchema: {
        model: uri('The model URI'),
        smiles: z.string().min(1).max(SMILES_MAX_CHARS).optional().describe('The structure as SMILES'),
        compound: z.string().min(1).max(2000).optional().describe('Or a compound URI of this service'),
        neighbours: z.boolean().optional().describe('With the nearest training compounds and their measured values (default true; false answers sooner)'),
      },
      annotations: { title: 'Predict a structure', ...writes },
    },
    handle(async (a: { model: string; smiles?: string; compound?: string; neighbours?: boolean }) => {
      const model = client.uriArgument('model', a.model, 'model');
      if ((a.smiles === undefined) === (a.compound === undefined)) throw new ArgumentError(a.smiles === undefined ? 'smiles' : 'compound', 'give smiles or compound (one of them, not both)');
      const form = a.smiles !== undefined ? { smiles: a.smiles } : { compound_uri: client.uriArgument('compound', a.compound!, 'compound') };
      const done = await client.request('POST', model, { form, accept: 'application/n-triples' });
      const given = a.smiles !== undefined ? 'smiles' : 'compound';
      if (done.status === 400 || done.status === 404)
        throw new ArgumentError(blamed(explanation(done), { smiles: 'smiles', compound: 'compound', 'model ': 'model', filters: 'model' }, done.status === 404 ? 'model' : given), explanation(done));
      if (done.status !== 200) throw new ServiceError(done.status, explanation(done));
      const quads = await client.parse(done);
      const entry = quads.find((q) => q.predicate.equals(ot('dataEntry')));
      const dataset = done.location ?? entry?.subject.value;
      const compound = entry && propertyValue(quads, entry.object, ot('compound'));
      const outputs = entry ? await outputsOf(client, model, quads, entry.object) : [];
      const inside = outputs.filter((o) => o.kind === 'applicability domain').map((o) => o.value === 'true');
      // what a QPRF would report: the interval's levels, each domain's verdict, the nearest training compounds
      const evidence =
        dataset && compound && a.neighbours !== false
          ? await client.request('GET', '/reach_report/qprf/evidence', { query: { dataset_uri: dataset, compound_uri: compound }, accept: 'application/json' })
          : undefined;
      const facts = evidence?.status === 200 ? (json(evidence.text, 'model') as Record<string, unknown>) : undefined;
      return {
        model,
        compound,
        prediction_dataset: dataset,
        page: dataset,
        ...(facts ? { prediction: facts.prediction, applicability_domains: facts.applicability_domains } : {}),
        inside_applicability_domain: inside.length ? inside.every(Boolean) : null,
        nearest_training_compounds: facts?.nearest_training_compounds ?? null,
        ...(facts ? { neighbour_predictions: facts.neighbour_predictions } : {}),
        ...(facts || a.neighbours === false ? {} : { evidence: evidence ? explanation(evidence) : 'none' }),
        outputs,
      };
    }),
  );

  server.registerTool(
    'upload_dataset',
    {
      title: 'Upload a dataset',
      description:
        'A table of structures and values as CSV (a SMILES column, in any dialect Excel writes) or SDF text. Small tables answer the dataset at once; larger ones a task (follow it with get_task).',
      inputSchema: {
        content: z
          .string()
          .min(1)
          .max(50 * 2 ** 20)
          .describe('The file as text'),
        format: z.enum(['csv', 'sdf']).describe('csv or sdf'),
        title: z.string().min(1).max(500).optional().describe('Its title'),
      },
      annotations: { title: 'Upload a dataset', ...writes },
    },
    handle(async (a: { content: string; format: 'csv' | 'sdf'; title?: string }) => {
      const sent = await client.request('POST', '/dataset', { body: a.content, contentType: a.format === 'csv' ? 'text/csv' : 'chemical/x-mdl-sdfile', query: { title: a.title } });
      return started(sent, 'dataset', () => 'content');
    }),
  );

  server.registerTool(
    'train_model',
    {
      title: 'Train a model',
      description:
        "Apply a learning algorithm (its id, e.g. random-forest-regression, or URI) to a dataset with descriptors, for one target feature (genra, read-across, calculates its own fingerprints from the structures). Answers a task; its result is the model. The algorithm's parameters as name/value pairs.",
      inputSchema: {
        algorithm: z.string().min(1).max(2000).describe('An algorithm id or URI of this service'),
        dataset: uri('The training dataset URI'),
        target: uri('The feature to predict (prediction_feature)'),
        parameters: PARAMETERS.describe('Algorithm parameters, e.g. {"numTrees": "100", "conformal": "cv+"}'),
      },
      annotations: { title: 'Train a model', ...writes },
    },
    handle(async (a: { algorithm: string; dataset: string; target: string; parameters?: Record<string, string> }) => {
      const algorithm = algorithmUri(client, a.algorithm);
      const form = { ...a.parameters, dataset_uri: client.uriArgument('dataset', a.dataset, 'dataset'), prediction_feature: client.uriArgument('target', a.target) };
      const sent = await client.request('POST', algorithm, { form });
      return started(sent, 'model', (message) => blamed(message, LEARNING_PARAMETERS, sent.status === 404 ? 'algorithm' : 'parameters'));
    }),
  );

  server.registerTool(
    'cross_validate',
    {
      title: 'Cross-validate',
      description: 'A k-fold cross-validation of a learning algorithm on a dataset for one target. Answers a task; its result is the cross-validation with pooled and per-fold statistics.',
      inputSchema: {
        algorithm: z.string().min(1).max(2000).describe('An algorithm id or URI of this service'),
        dataset: uri('The dataset URI'),
        target: uri('The feature to predict'),
        folds: z.number().int().min(2).max(100).optional().describe('Number of folds (default 10)'),
        seed: z.number().int().min(0).optional().describe('Random seed of the folds (default 1)'),
        parameters: PARAMETERS.describe('The algorithm’s parameters'),
      },
      annotations: { title: 'Cross-validate', ...writes },
    },
    handle(async (a: { algorithm: string; dataset: string; target: string; folds?: number; seed?: number; parameters?: Record<string, string> }) => {
      const form = {
        algorithm_uri: algorithmUri(client, a.algorithm),
        dataset_uri: client.uriArgument('dataset', a.dataset, 'dataset'),
        prediction_feature: client.uriArgument('target', a.target),
        num_folds: a.folds === undefined ? undefined : String(a.folds),
        random_seed: a.seed === undefined ? undefined : String(a.seed),
        algorithm_params: a.parameters
          ? Object.entries(a.parameters)
              .map(([k, v]) => `${k}=${v}`)
              .join(';')
          : undefined,
      };
      const sent = await client.request('POST', '/crossvalidation', { form });
      return started(sent, 'crossvalidation', (message) => blamed(message, LEARNING_PARAMETERS, 'parameters'));
    }),
  );

  server.registerTool(
    'get_task',
    {
      title: 'Follow a task',
      description: "A task's status (Queued, Running, Completed, Cancelled, Error), progress, result URI and error.",
      inputSchema: { task: uri('The task URI') },
      annotations: { title: 'Follow a task', ...reads },
    },
    handle(async (a: { task: string }) => taskState(client, client.uriArgument('task', a.task, 'task'))),
  );

  server.registerTool(
    'sparql_query',
    {
      title: 'SPARQL query',
      description: "A SPARQL 1.1 SELECT, ASK, CONSTRUCT or DESCRIBE over the graphs the caller may read, under the service's query time limit. Updates are refused.",
      inputSchema: { query: z.string().min(1).max(100_000).describe('The query') },
      annotations: { title: 'SPARQL query', ...reads },
    },
    handle(async (a: { query: string }) => {
      const sent = await client.request('POST', '/sparql', { form: { query: a.query }, accept: 'application/sparql-results+json, application/n-triples;q=0.9' });
      if (sent.status === 400) throw new ArgumentError('query', explanation(sent));
      if (sent.status !== 200) throw new ServiceError(sent.status, explanation(sent));
      if (sent.text.trimStart().startsWith('{')) return { results: json(sent.text, 'query') };
      return { triples: sent.text };
    }),
  );

  server.registerTool(
    'read_across',
    {
      title: 'Read across',
      description:
        'Read-across for a target compound and an endpoint (a feature URI, or an ontology term such as an otee: endpoint, pooling every dataset of it you may read): its analogues with their measured values and sources, the gap filled side by side (GenRA read-across with its spread, the trend on log P with a 95 % prediction interval, the worst case, QSAR models with their domain) and a draft assessment (RAAF scenario 2, or 5 for a category of more than 3 sources) whose URI a person opens to score and conclude.',
      inputSchema: {
        target: uri('The target compound URI'),
        endpoint: z.string().min(1).max(2000).describe('A feature URI or an ontology term (owl:sameAs of features)'),
        similarity: z.number().min(0).max(1).optional().describe('The least Tanimoto similarity of an analogue (default 0.3)'),
        k: z.number().int().min(1).max(100).optional().describe('At most this many sources (default 10)'),
      },
      annotations: { title: 'Read across', ...writes },
    },
    handle(async (a: { target: string; endpoint: string; similarity?: number; k?: number }) => {
      const target = client.uriArgument('target', a.target, 'compound');
      const threshold = String(a.similarity ?? 0.3);
      const k = String(a.k ?? 10);
      const found = await client.request('GET', `${target}/analogues`, { query: { endpoint: a.endpoint, k, threshold }, accept: 'application/json' });
      if (found.status === 400 || found.status === 404) throw new ArgumentError(found.text.includes('endpoint') ? 'endpoint' : 'target', explanation(found));
      if (found.status !== 200) throw new ServiceError(found.status, explanation(found));
      const analogues = json(found.text, 'endpoint') as { analogues: { compound: string; smiles?: string; similarity: number; values: unknown[] }[] };
      const category = (await client.expect('POST', '/category', { form: { target, endpoint: a.endpoint, similarity_threshold: threshold, max_sources: k } }, [201])).text.trim();
      const filled = json((await client.expect('GET', `${category}/gap-filling`, { accept: 'application/json' })).text, 'endpoint') as { endpoints: Record<string, unknown>[] };
      const scenario = analogues.analogues.length > 3 ? '5' : '2';
      const assessment = (await client.expect('POST', '/assessment', { form: { category, scenario } }, [201])).text.trim();
      return {
        analogues: analogues.analogues.map((x) => ({ compound: x.compound, smiles: x.smiles, similarity: x.similarity, values: x.values })),
        gapFilling: filled.endpoints.map((e) => ({
          endpoint: e.endpoint,
          kind: e.kind,
          readAcross: e.readAcross,
          trend: e.trend,
          worstCase: e.worstCase,
          qsar: e.qsar,
          consistency: (e.consistency as { text?: string })?.text,
        })),
        category,
        assessment,
        next: `a person opens ${assessment} to choose the method, score each assessment element and conclude`,
      };
    }),
  );

  server.registerTool(
    'make_qprf',
    {
      title: 'Make a QPRF',
      description: "A QMRF prediction report (QPRF) for one compound's prediction by one model: its URI, which a browser opens as HTML (and PDF, XML).",
      inputSchema: { model: uri('The model URI'), compound: uri('The compound URI') },
      annotations: { title: 'Make a QPRF', ...writes },
    },
    handle(async (a: { model: string; compound: string }) => {
      const form = { model_uri: client.uriArgument('model', a.model, 'model'), compound_uri: client.uriArgument('compound', a.compound, 'compound') };
      const sent = started(await client.request('POST', '/reach_report/qprf', { form }), 'qprf', (message) => blamed(message, { compound: 'compound', model: 'model' }, 'model'));
      if (!sent.task) return { ...sent, html: sent.qprf };
      const task = String(sent.task);
      const until = Date.now() + QPRF_WAIT_MS;
      for (;;) {
        const state = await taskState(client, task);
        if (state.status === 'Completed' && state.result) return { qprf: state.result, html: state.result, task };
        if (state.status === 'Error' || state.status === 'Cancelled') throw new ServiceError(500, `the QPRF task ended ${state.status}: ${state.error ?? ''}`);
        if (Date.now() > until) return { task, status: state.status, next: 'get_task' };
        await new Promise((r) => setTimeout(r, 200));
      }
    }),
  );
}

/** The tool argument a service's 400 or 404 is about: the one whose REST parameter its message names, else `fallback`. */
function blamed(message: string, parameters: Record<string, string>, fallback: string): string {
  return Object.entries(parameters).find(([parameter]) => message.includes(parameter))?.[1] ?? fallback;
}
const LEARNING_PARAMETERS = { dataset_uri: 'dataset', prediction_feature: 'target', algorithm: 'algorithm', num_folds: 'folds', random_seed: 'seed' };

/** An algorithm argument: an id of the catalogue or a URI of this service. */
function algorithmUri(client: ServiceClient, algorithm: string): string {
  if (/^[a-z0-9][a-z0-9+-]*$/i.test(algorithm)) return `${client.baseUrl}/algorithm/${algorithm}`;
  return client.uriArgument('algorithm', algorithm, 'algorithm');
}
