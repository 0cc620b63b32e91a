import { badRequest } from '../core/errors.ts';
import { checkIri } from '../rdf/terms.ts';

/** `profile` values: IRIs of profilers' rules or classes, separated by spaces; 400 naming the parameter otherwise. */
export function profileTermsOf(given: string[]): string[] {
  return given
    .flatMap((v) => v.split(/\s+/))
    .filter(Boolean)
    .map((t) => {
      const iri = /^[a-z][a-z0-9+.-]*:\S+$/i.test(t) ? t : undefined;
      try {
        if (iri) return checkIri(iri);
      } catch {
        // not an IRI: said below
      }
      throw badRequest(`profile: ${t.slice(0, 80)} is not the IRI of a profiler's rule or class`);
    });
}
