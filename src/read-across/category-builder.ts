import { badRequest } from '../core/errors.ts';
import type { AnalogueSearch } from './analogue-search.ts';
import type { Category, CategoryMember } from './category-codec.ts';
import { withinRanges, type DescriptorRange } from './descriptor-values.ts';
import { carrying } from './profile-filter.ts';

/** The most members (target, sources and members added by hand) one category holds. */
export const MAX_CATEGORY_MEMBERS = 500;
/** Per endpoint, how many of the nearest compounds left out are listed with the reason. */
const EXCLUDED_LISTED = 25;

export interface CategoryRequest {
  target: string;
  endpoints: string[];
  similarityThreshold: number;
  maxSources: number;
  smarts?: string;
  /** Descriptors within a range of the target's (log P ± 1). */
  ranges: DescriptorRange[];
  /** Profilers' rules or classes every source carries (IRIs). */
  profile?: string[];
  /** Subdivide this category: only its members may be sources. */
  parent?: Category;
  /** Compounds added by hand, with or without data (AMBIT's "member"). */
  members: string[];
  title?: string;
  canRead: (uri: string) => boolean;
}

/**
 * A category around a target (issue 56): for each endpoint, the compounds with measured values
 * the caller may read, most similar first; those at or above the similarity threshold that hold
 * the substructure (and, in a subcategory, belong to the parent) are its sources, up to
 * `maxSources` per endpoint; the nearest others are listed as left out, each with the reason.
 */
export async function buildCategory(search: AnalogueSearch, request: CategoryRequest): Promise<Omit<Category, 'uri' | 'date'>> {
  const members = new Map<string, CategoryMember>([
    [request.target, { compound: request.target, role: 'target', included: true, similarity: 1, sourceFor: [], reason: 'the substance whose data gap is filled' }],
  ]);
  const excluded = new Map<string, CategoryMember>();
  const allowed = request.parent && new Set(request.parent.members.filter((m) => m.included).map((m) => m.compound));
  const holds = `${request.smarts === undefined ? '' : `, holds ${request.smarts}`}${request.ranges.map((r) => `, ${r.name} within ±${r.delta} of the target's`).join('')}${(request.profile ?? []).map((t) => `, carries ${t}`).join('')}`;
  for (const endpoint of request.endpoints) {
    const { candidates } = await search.ranked(request.target, endpoint, request.canRead);
    const left: CategoryMember[] = [];
    const out = (c: { compound: string; similarity: number }, reason: string) => left.push({ compound: c.compound, role: 'source', included: false, similarity: c.similarity, sourceFor: [], reason });
    // each test keeps what passes and says why of what does not
    const keep = <T extends { compound: string; similarity: number }>(items: T[], passes: (c: T) => boolean, why: (c: T) => string) =>
      items.filter((c) => {
        if (passes(c)) return true;
        out(c, why(c));
        return false;
      });
    const inParent = keep(
      candidates,
      (c) => !allowed || allowed.has(c.compound),
      () => `not a member of the parent category ${request.parent!.uri}`,
    );
    const similar = keep(
      inParent,
      (c) => c.similarity >= request.similarityThreshold,
      (c) => `similarity ${c.similarity.toFixed(3)} < ${request.similarityThreshold}`,
    );
    const holding = request.smarts === undefined ? similar : await search.holding(similar, request.smarts);
    if (request.smarts !== undefined) for (const c of similar) if (!holding.includes(c)) out(c, `lacks the substructure ${request.smarts}`);
    const { kept: ranged, out: outOfRange } = await withinRanges(search.describe, request.target, holding, request.ranges);
    for (const c of holding) if (outOfRange.has(c.compound)) out(c, outOfRange.get(c.compound)!);
    const { kept: inRange, out: unprofiled } = await carrying(search.profileOf, ranged, request.profile ?? []);
    for (const c of ranged) if (unprofiled.has(c.compound)) out(c, unprofiled.get(c.compound)!);
    inRange.slice(request.maxSources).forEach((c) => out(c, `beyond the ${request.maxSources} most similar sources of ${endpoint}`));
    for (const c of inRange.slice(0, request.maxSources)) {
      const known = members.get(c.compound);
      if (known) known.sourceFor.push(endpoint);
      else {
        const datasets = new Set(c.values.map((v) => v.dataset)).size;
        members.set(c.compound, {
          compound: c.compound,
          role: 'source',
          included: true,
          similarity: c.similarity,
          sourceFor: [endpoint],
          reason: `similarity ${c.similarity.toFixed(3)} ≥ ${request.similarityThreshold}${holds}; measured in ${datasets} dataset(s)`,
        });
      }
    }
    // the nearest left out, in the ranking's order
    for (const m of left.sort((a, b) => (b.similarity ?? 0) - (a.similarity ?? 0)).slice(0, EXCLUDED_LISTED)) if (!members.has(m.compound) && !excluded.has(m.compound)) excluded.set(m.compound, m);
  }
  const added = request.members.filter((m) => !members.has(m));
  const similarity = search.similarities(request.target, added);
  added.forEach((compound, i) => {
    if (similarity[i] === undefined) throw badRequest(`member: ${compound} is not a compound with a structure`);
    members.set(compound, { compound, role: 'member', included: true, similarity: similarity[i], sourceFor: [], reason: 'added by hand' });
    excluded.delete(compound);
  });
  if (members.size > MAX_CATEGORY_MEMBERS)
    throw badRequest(`the category would hold ${members.size} members, over the limit of ${MAX_CATEGORY_MEMBERS}: raise similarity_threshold, lower max_sources, or add a substructure`);
  return {
    title: request.title ?? `Category around ${request.target}: similarity ≥ ${request.similarityThreshold}${holds} (${request.endpoints.length} endpoint${request.endpoints.length === 1 ? '' : 's'})`,
    target: request.target,
    endpoints: request.endpoints,
    similarityThreshold: request.similarityThreshold,
    maxSources: request.maxSources,
    ...(request.smarts === undefined ? {} : { smarts: request.smarts }),
    ...(request.parent ? { parent: request.parent.uri } : {}),
    members: [...members.values(), ...excluded.values()],
  };
}
