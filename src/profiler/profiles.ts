import type { Services } from '../core/services.ts';
import { badRequest, notFound } from '../core/errors.ts';
import { readGraphs, selectUris } from '../store/query-helpers.ts';
import { structureFrom } from '../compound/compound-codec.ts';
import { profilersFrom, type Profiler } from './profiler-rules.ts';
import { decide, profileFrom, profileGraphOf, profileQuads, type Profile } from './profile.ts';
import { profilerQueries } from './profiler-queries.ts';
import type { RulePatterns } from './rule-matching.ts';

const MATCHING_MODULE = new URL('./rule-matching.ts', import.meta.url).href;

/**
 * Compounds' profiles (issue 56): the rule sets read from the store (the vocabularies loaded at
 * start from ontology/profilers-*.ttl), each compound's rules matched on the worker pool, and
 * the profile kept in the graph `{compound}/profile`. A stored profile is used while it was made
 * from the compound's structure by the current version of every profiler; otherwise it is
 * computed again and replaces the stored one.
 */
export class Profiles {
  private loaded?: Promise<Profiler[]>;
  private readonly services: Pick<Services, 'store' | 'workers'>;
  constructor(services: Pick<Services, 'store' | 'workers'>) {
    this.services = services;
  }

  /** The profilers, by label (read once: the vocabularies change only when the server starts). */
  profilers(): Promise<Profiler[]> {
    this.loaded ??= (async () => {
      const graphs = await selectUris(this.services.store, profilerQueries.ruleSetGraphs(), 'g');
      return profilersFrom(await readGraphs(this.services.store, graphs));
    })();
    this.loaded.catch(() => (this.loaded = undefined));
    return this.loaded;
  }

  /** A compound's profile: stored, or computed now (and stored). 404 for an unknown compound, 400 for one without a structure. */
  async profileOf(compound: string, signal?: AbortSignal, options: { keep?: boolean } = {}): Promise<Profile> {
    const [graph, stored] = await Promise.all([this.services.store.readGraph(compound), this.services.store.readGraph(profileGraphOf(compound))]);
    if (!graph.length) throw notFound(`compound ${compound} not found`);
    const smiles = structureFrom(graph, compound)?.smiles;
    if (!smiles) throw badRequest(`compound ${compound} has no structure to profile`);
    const profilers = await this.profilers();
    const current = stored.length ? profileFrom(stored, compound, smiles, profilers) : undefined;
    if (current) return current;
    const profile = await this.compute(compound, smiles, profilers, signal);
    // kept unless the caller only reads (a search, a filter: a refused request writes nothing)
    if (options.keep !== false) await this.services.store.replaceGraphs({ [profileGraphOf(compound)]: profileQuads(profile) });
    return profile;
  }

  /** Every profiler's rules matched on the worker pool, and decided. */
  private async compute(compound: string, smiles: string, profilers: Profiler[], signal?: AbortSignal): Promise<Profile> {
    const patterns: RulePatterns[] = profilers.flatMap((p) => p.rules.map((r) => ({ smarts: r.smarts, unless: r.unless })));
    const [matches] = await this.services.workers.run<(boolean[] | null)[]>(MATCHING_MODULE, 'matchRules', [[smiles], patterns], signal);
    if (!matches) throw badRequest(`the structure of ${compound} cannot be read by RDKit: it has no profile`);
    let at = 0;
    const results = profilers.map((p) => {
      const own = matches.slice(at, at + p.rules.length);
      at += p.rules.length;
      return decide(p, own);
    });
    return { compound, smiles, created: new Date(), results };
  }
}
