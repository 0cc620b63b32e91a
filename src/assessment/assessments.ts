import { badRequest, conflict, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { Params } from '../http/params.ts';
import { sortById } from '../store/id-minter.ts';
import { select } from '../store/query-helpers.ts';
import type { Categories } from '../read-across/categories.ts';
import type { Category } from '../read-across/category-codec.ts';
import type { EndpointFilling, GapFilling } from '../read-across/gap-filling.ts';
import { MATRIX_DESCRIPTORS, type CollapseRule, type DataMatrix } from '../read-across/data-matrix.ts';
import { assessmentOf, assessmentQuads, GAP_FILL_METHODS, UNCERTAINTY_GRADES, type Assessment, type GapFill, type GapFillMethod, type UncertaintyGrade } from './assessment-codec.ts';
import { assessmentQueries } from './assessment-queries.ts';
import { scenarioById, RAAF_SCENARIOS } from './raaf.ts';
import { assessmentDocument, assessmentPlots, type AssessmentContext } from './assessment-report.ts';
import { toDocBook } from '../report/report-document.ts';
import { profileLines } from './profile-evidence.ts';

const PLOTS_MODULE = new URL('../report/plots.ts', import.meta.url).href;

/** What a new assessment starts from: its category and scenario, and what the person says of it. */
export interface AssessmentRequest {
  category: string;
  scenario: string;
  canRead: (uri: string) => boolean;
  params: Params;
}

/**
 * Read-across assessments (issue 57): made from a category and a RAAF scenario, prefilled with
 * the gap filling the data give (read-across by default, the assessor chooses), written by the
 * person (texts, the method per endpoint with its rationale, a score and comment per assessment
 * element, values taken out with a remark, the overall uncertainty and the conclusion), made
 * final once every element is scored, and revised as new versions that keep the old.
 */
export class Assessments {
  private readonly services: Pick<Services, 'store' | 'uris' | 'ids' | 'workers'>;
  private readonly categories: Categories;
  readonly collection: string;
  constructor(services: Assessments['services'], categories: Categories) {
    this.services = services;
    this.categories = categories;
    this.collection = services.uris.collection('assessment');
  }

  async create(request: AssessmentRequest): Promise<string> {
    const scenario = scenarioById(Number(request.scenario));
    if (!scenario || !/^\d+$/.test(request.scenario.trim())) throw badRequest(`scenario: ${request.scenario.slice(0, 40)} is not a RAAF scenario (1 to ${RAAF_SCENARIOS.length})`);
    const category = await this.readableCategory(request.category, request.canRead);
    const draft: Assessment = {
      uri: '',
      series: '',
      version: 1,
      status: 'draft',
      date: new Date(),
      title: request.params.get('title')?.trim() || `Read-across assessment of ${category.target}`,
      purpose: '',
      regulatoryContext: '',
      problemFormulation: '',
      target: category.target,
      scenario: scenario.id,
      hypothesis: { structural: '', mechanistic: '', metabolic: '' },
      category: category.uri,
      gapFills: [],
      scores: scenario.elements.map((e) => ({ element: e.id, comment: '' })),
      removed: [],
      conclusion: '',
    };
    const written = applyForm(
      draft,
      request.params,
      scenario.elements.map((e) => e.id),
    );
    written.gapFills = await this.gapFills(written, category, request.canRead);
    const uri = await this.services.ids.next(this.collection);
    await this.write({ ...written, uri, series: uri });
    return uri;
  }

  /** Change a draft with form fields (400 naming a bad one, 409 for a final assessment); the gap fills are worked out again. */
  async update(uri: string, params: Params, canRead: (uri: string) => boolean): Promise<void> {
    const current = await this.require(uri);
    if (current.status === 'final') throw conflict(`assessment ${uri} is final: make a new version (POST ${uri}/version) to change it`);
    const scenario = scenarioById(current.scenario)!;
    const changed = applyForm(
      current,
      params,
      scenario.elements.map((e) => e.id),
    );
    const category = await this.readableCategory(changed.category, canRead);
    changed.gapFills = await this.gapFills(changed, category, canRead);
    await this.write({ ...changed, date: new Date() });
  }

  /** Make a draft final: every element scored, the overall uncertainty and the conclusion given (400 listing what is missing). */
  async finalise(uri: string): Promise<void> {
    const current = await this.require(uri);
    if (current.status === 'final') throw conflict(`assessment ${uri} is final already`);
    const missing = [
      ...current.scores.filter((e) => e.score === undefined).map((e) => `${e.element} is not scored`),
      ...(current.overallUncertainty ? [] : ['the overall uncertainty is not graded']),
      ...(current.conclusion.trim() ? [] : ['there is no conclusion']),
    ];
    if (missing.length) throw badRequest(`assessment ${uri} cannot be made final: ${missing.join('; ')}`);
    await this.write({ ...current, status: 'final', date: new Date() });
  }

  /** A new draft version of an assessment: everything the old one holds, which stays as it is. */
  async newVersion(uri: string): Promise<string> {
    const current = await this.require(uri);
    const next = await this.services.ids.next(this.collection);
    await this.write({ ...current, uri: next, version: current.version + 1, previous: current.uri, status: 'draft', date: new Date() });
    return next;
  }

  async require(uri: string): Promise<Assessment> {
    const found = this.services.uris.isIn('assessment', uri) ? assessmentOf(await this.services.store.readGraph(uri), uri) : undefined;
    if (!found) throw notFound(`assessment ${uri} not found`);
    return found;
  }

  async delete(uri: string): Promise<void> {
    await this.require(uri);
    await this.services.store.deleteGraphs([uri]);
  }

  /** The assessments the caller may read, in id order. */
  async list(canRead: (uri: string) => boolean): Promise<string[]> {
    const rows = await select(this.services.store, assessmentQueries.all());
    return sortById(rows.map((r) => r.a.value).filter((a) => this.services.uris.isIn('assessment', a) && canRead(a)));
  }

  /** Every version of an assessment's series the caller may read, oldest first. */
  async versions(series: string, canRead: (uri: string) => boolean): Promise<string[]> {
    const rows = await select(this.services.store, assessmentQueries.versions(series));
    return sortById(rows.map((r) => r.a.value).filter((a) => canRead(a)));
  }

  /** The category, the side-by-side gap filling the caller may see (values taken out left out), for the report. */
  async evidence(a: Assessment, canRead: (uri: string) => boolean): Promise<{ category: Category; filling: GapFilling; profiles: string[] } | undefined> {
    const category = await this.categories.store.read(a.category);
    // an assessment shared without its category: the report without the category's evidence
    if (!category || !canRead(category.uri)) return undefined;
    // the profilers' classes and alerts of target and sources (profiles stored, or made on the worker pool)
    const profile = (c: string) => this.categories.profileOf(c).catch(() => undefined);
    const sources = category.members.filter((m) => m.included && m.role === 'source').map((m) => m.compound);
    const profiles = profileLines(await profile(category.target), await Promise.all(sources.map(profile)));
    return { category, filling: await this.categories.gapFilling(category, MATRIX_DESCRIPTORS[0].name, canRead, a.removed), profiles };
  }

  /** The assessment's data matrix: its category's, the values taken out left out of the cells (listed on their own). */
  async matrix(a: Assessment, collapse: CollapseRule, canRead: (uri: string) => boolean): Promise<DataMatrix | undefined> {
    const category = await this.categories.store.read(a.category);
    if (!category || !canRead(category.uri)) return undefined;
    return this.categories.matrix(category, collapse, canRead, a.removed);
  }

  /** The report as DocBook 5 (HTML and PDF are converted from it): what the reader may see, its plots drawn on the worker pool. */
  async docbook(a: Assessment, canRead: (uri: string) => boolean): Promise<string> {
    const context: AssessmentContext = { evidence: await this.evidence(a, canRead), versions: await this.versions(a.series, canRead) };
    const plots = assessmentPlots(context);
    const svgs = plots.length ? await this.services.workers.run<string[]>(PLOTS_MODULE, 'renderPlots', [plots]) : [];
    return toDocBook(assessmentDocument(a, context, svgs));
  }

  private async readableCategory(uri: string, canRead: (uri: string) => boolean): Promise<Category> {
    const found = await this.categories.store.read(uri.trim());
    if (!found || !canRead(found.uri)) throw notFound(`category: ${uri.slice(0, 200)} not found`);
    return found;
  }

  /** Each endpoint's gap fill by the method chosen (read-across unless chosen), from the side-by-side results. */
  private async gapFills(a: Assessment, category: Category, canRead: (uri: string) => boolean): Promise<GapFill[]> {
    const unknown = a.gapFills.filter((g) => !category.endpoints.includes(g.endpoint)).map((g) => g.endpoint);
    if (unknown.length) throw badRequest(`method, model or rationale for ${unknown.join(', ')}: not an endpoint of the category ${category.uri} (${category.endpoints.join(', ')})`);
    const filling = await this.categories.gapFilling(category, MATRIX_DESCRIPTORS[0].name, canRead, a.removed);
    return filling.endpoints.map((e) => {
      const chosen = a.gapFills.find((g) => g.endpoint === e.endpoint);
      return gapFillOf(this.services, e, chosen?.method ?? 'read-across', chosen?.model, chosen?.rationale ?? '');
    });
  }

  private async write(a: Assessment): Promise<void> {
    await this.services.store.replaceGraphs({ [a.uri]: assessmentQuads(a) });
  }
}

/** The gap fill of one endpoint by a method, from its side-by-side results (a reason when the method gives no value). */
export function gapFillOf(services: Pick<Services, 'uris'>, e: EndpointFilling, method: GapFillMethod, model: string | undefined, rationale: string): GapFill {
  const sources = (rows: EndpointFilling['sources']) =>
    rows.flatMap((r) => r.measured.map((v) => ({ compound: r.compound, feature: v.feature, dataset: v.dataset, value: v.value.value, similarity: r.similarity })));
  const base = { endpoint: e.endpoint, method, rationale, parameters: '', algorithm: '', sources: [] as GapFill['sources'] };
  switch (method) {
    case 'read-across': {
      const r = e.readAcross;
      const value = r.value === undefined ? undefined : String(r.value);
      const spread = r.weightedSd;
      return {
        ...base,
        value,
        ...(typeof r.value === 'number' && spread !== undefined ? { low: r.value - spread, high: r.value + spread } : {}),
        ...(value === undefined ? { reason: r.reason } : {}),
        algorithm: services.uris.item('algorithm', 'genra'),
        parameters: `k=${e.sources.length};similarity_threshold=0;weights=similarity to the target (every source of the category)`,
        sources: sources(e.sources.filter((s) => s.similarity > 0)),
      };
    }
    case 'trend': {
      const t = e.trend;
      return {
        ...base,
        ...(t.value === undefined ? { reason: t.reason } : { value: String(t.value), low: t.interval![0], high: t.interval![1] }),
        algorithm: services.uris.item('algorithm', 'mlr'),
        parameters: `descriptor=${t.descriptor};least squares over the category's sources;95 % prediction interval`,
        sources: sources(e.sources),
      };
    }
    case 'lowest':
    case 'highest': {
      const w = e.worstCase;
      const row = method === 'lowest' ? w.lowest : w.highest;
      if (e.kind === 'classes') return { ...base, ...(w.positive ? { value: w.positive.value } : { reason: w.reason }), sources: sources(e.sources.filter((s) => s.value === w.positive?.value)) };
      return { ...base, ...(row ? { value: String(row.value) } : { reason: w.reason ?? 'no source' }), sources: row ? sources([row]) : [] };
    }
    case 'qsar': {
      const q = e.qsar.find((x) => x.model === model) ?? (model === undefined ? e.qsar[0] : undefined);
      if (!q) return { ...base, reason: model ? `model ${model} is not a QSAR model of this endpoint you may read` : 'no QSAR model of this endpoint' };
      return { ...base, model: q.model, ...(q.value === undefined ? { reason: q.reason } : { value: q.value }), algorithm: q.model };
    }
  }
}

/**
 * The form fields of an assessment applied to it (400 naming a bad one): texts, the tolerable and
 * overall uncertainty (low, moderate, high), `method:{endpoint}` (read-across, trend, lowest,
 * highest, qsar) with `model:{endpoint}` and `rationale:{endpoint}`, `score:{element}` (1–5)
 * and `comment:{element}`, and `remove` ("{compound} {dataset}") with its `remark`.
 */
export function applyForm(a: Assessment, params: Params, elements: string[]): Assessment {
  const text = (name: string, current: string) => {
    const v = params.get(name);
    return v === undefined ? current : v.trim();
  };
  const grade = (name: string, current: UncertaintyGrade | undefined) => {
    const v = params.get(name)?.trim();
    if (v === undefined || v === '') return current;
    if (!UNCERTAINTY_GRADES.includes(v as UncertaintyGrade)) throw badRequest(`${name}: ${v.slice(0, 40)} is none of ${UNCERTAINTY_GRADES.join(', ')}`);
    return v as UncertaintyGrade;
  };
  const out: Assessment = {
    ...a,
    title: text('title', a.title) || a.title,
    purpose: text('purpose', a.purpose),
    regulatoryContext: text('regulatory_context', a.regulatoryContext),
    problemFormulation: text('problem_formulation', a.problemFormulation),
    tolerableUncertainty: grade('tolerable_uncertainty', a.tolerableUncertainty),
    hypothesis: {
      structural: text('structural_hypothesis', a.hypothesis.structural),
      mechanistic: text('mechanistic_hypothesis', a.hypothesis.mechanistic),
      metabolic: text('metabolic_hypothesis', a.hypothesis.metabolic),
    },
    overallUncertainty: grade('overall_uncertainty', a.overallUncertainty),
    conclusion: text('conclusion', a.conclusion),
    scores: a.scores.map((e) => ({ ...e })),
    gapFills: a.gapFills.map((g) => ({ ...g })),
    removed: [...a.removed],
  };
  for (const [name, value] of params.entries()) {
    const m = /^(score|comment|method|model|rationale):(.+)$/.exec(name);
    if (!m) continue;
    const [, field, key] = m;
    if (field === 'score' || field === 'comment') {
      if (!elements.includes(key)) throw badRequest(`${name}: ${key} is not an assessment element of this scenario (${elements.join(', ')})`);
      const e = out.scores.find((s) => s.element === key)!;
      if (field === 'comment') e.comment = value.trim();
      else if (value.trim() === '') e.score = undefined;
      else if (!/^[1-5]$/.test(value.trim())) throw badRequest(`${name}: a score is a whole number from 1 (not acceptable) to 5 (high confidence), not ${value.slice(0, 20)}`);
      else e.score = Number(value.trim());
      continue;
    }
    let g = out.gapFills.find((x) => x.endpoint === key);
    if (!g) {
      g = { endpoint: key, method: 'read-across', rationale: '', algorithm: '', parameters: '', sources: [] };
      out.gapFills.push(g);
    }
    if (field === 'method') {
      if (!GAP_FILL_METHODS.includes(value.trim() as GapFillMethod)) throw badRequest(`${name}: ${value.slice(0, 40)} is none of ${GAP_FILL_METHODS.join(', ')}`);
      g.method = value.trim() as GapFillMethod;
    } else if (field === 'model') g.model = value.trim() || undefined;
    else g.rationale = value.trim();
  }
  const remove = params.get('remove')?.trim();
  if (remove) {
    const [compound, dataset] = remove.split(/\s+/);
    if (!compound || !dataset) throw badRequest('remove: give "{compound URI} {dataset URI}" (and a remark)');
    const remark = params.get('remark')?.trim();
    if (!remark) throw badRequest('remark: say why the value is taken out (it is kept, marked, never deleted)');
    out.removed.push({ compound, dataset, remark });
  }
  return out;
}
