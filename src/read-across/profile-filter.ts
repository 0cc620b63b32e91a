import type { Profile } from '../profiler/profile.ts';

/** A compound's profile (the profiler component's: stored, or computed on the worker pool). */
export type ProfileOf = (compound: string) => Promise<Profile>;

/** Every rule a profile matched and every class it assigned (IRIs). */
export function profileTerms(profile: Profile): Set<string> {
  return new Set(profile.results.flatMap((r) => [...r.matched.map((m) => m.iri), ...(r.category ? [r.category.iri] : [])]));
}

/**
 * The candidates whose profiles carry every one of the terms (profilers' rules or classes, e.g. a
 * Benigni–Bossa alert or a Verhaar class); the others with the reason. A compound whose profile
 * cannot be made is out.
 */
export async function carrying<T extends { compound: string }>(profileOf: ProfileOf, ranked: T[], terms: string[]): Promise<{ kept: T[]; out: Map<string, string> }> {
  if (!terms.length) return { kept: ranked, out: new Map() };
  const out = new Map<string, string>();
  const kept: T[] = [];
  for (const c of ranked) {
    const found = await profileOf(c.compound)
      .then(profileTerms)
      .catch(() => undefined);
    const missing = found ? terms.filter((t) => !found.has(t)) : terms;
    if (missing.length) out.set(c.compound, found ? `its profile lacks ${missing.join(', ')}` : 'it has no profile');
    else kept.push(c);
  }
  return { kept, out };
}
