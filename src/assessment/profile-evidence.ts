import type { Profile } from '../profiler/profile.ts';

/**
 * What the profilers say of a category (an assessment's evidence of similarity): per profiler
 * that decides a class, the target's class and how many sources share it; per profiler of alerts,
 * the target's alerts and how many sources carry any of them or other alerts.
 */
export function profileLines(target: Profile | undefined, sources: (Profile | undefined)[]): string[] {
  if (!target) return ['The target has no profile (its structure cannot be profiled).'];
  const known = sources.filter((p): p is Profile => !!p);
  return target.results
    .filter((r) => r.profiler.decision === 'first' || r.profiler.label.toLowerCase().includes('alert') || r.profiler.label.toLowerCase().includes('benigni'))
    .map((r) => {
      const of = (p: Profile) => p.results.find((x) => x.profiler.iri === r.profiler.iri);
      if (r.profiler.decision === 'first') {
        const shared = known.filter((p) => of(p)?.category?.iri === r.category?.iri).length;
        return `${r.profiler.label}: the target is ${r.category?.label ?? r.category?.iri ?? 'unclassified'}; ${shared} of ${known.length} source(s) share it.`;
      }
      const mine = new Set(r.matched.map((m) => m.iri));
      const sharing = known.filter((p) => of(p)?.matched.some((m) => mine.has(m.iri))).length;
      const other = known.filter((p) => of(p)?.matched.some((m) => !mine.has(m.iri))).length;
      return `${r.profiler.label}: the target carries ${mine.size ? r.matched.map((m) => m.identifier ?? m.label).join(', ') : 'no alert'}; ${sharing} of ${known.length} source(s) carry one of its alerts, ${other} an alert it lacks.`;
    });
}
