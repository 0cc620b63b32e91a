import type { Category } from '../read-across/category-codec.ts';
import type { EndpointFilling, GapFilling } from '../read-across/gap-filling.ts';
import type { Assessment } from './assessment-codec.ts';
import type { EvidenceKind } from './raaf.ts';

const n3 = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : Number(v.toPrecision(3)).toString());

/**
 * What the data say of one kind of evidence, in sentences the assessor reads beside an
 * assessment element: computed, never a score (scores are the assessor's).
 */
export function evidenceFor(kind: EvidenceKind, a: Assessment, category: Category, filling: GapFilling): string[] {
  const members = category.members.filter((m) => m.included);
  const sources = members.filter((m) => m.role === 'source');
  const per = (f: (e: EndpointFilling) => string) => filling.endpoints.map((e) => `${e.endpoint}: ${f(e)}`);
  switch (kind) {
    case 'identity':
      return [`The target ${a.target} and ${members.length - 1} other member(s) are compounds of this service, each with a structure (SMILES, InChI and InChIKey on its page).`];
    case 'similarity': {
      const sims = sources.map((m) => m.similarity ?? 0);
      const left = category.members.filter((m) => !m.included).length;
      return [
        `${sources.length} source(s) with Tanimoto similarity to the target (Morgan, radius 2, 2048 bits) from ${n3(Math.min(...sims))} to ${n3(Math.max(...sims))}, mean ${n3(sims.reduce((x, y) => x + y, 0) / Math.max(1, sims.length))}; the category's rule: similarity ≥ ${category.similarityThreshold}${category.smarts ? `, holding ${category.smarts}` : ''}.`,
        `${left} of the nearest compounds with data were left out, each with the reason (the category's page).`,
      ];
    }
    case 'properties':
      return per((e) => {
        const values = e.sources.map((s) => s.descriptor).filter((v): v is number => v !== undefined);
        return `${filling.descriptor} of the sources from ${n3(Math.min(...values))} to ${n3(Math.max(...values))}; the target's ${n3(e.trend.at)}${e.trend.interpolated === false ? ' (outside their range)' : ''}`;
      });
    case 'data':
      return per((e) => {
        const values = e.sources.flatMap((s) => s.measured);
        const datasets = new Set(values.map((v) => v.dataset));
        return `${values.length} measured value(s) of ${e.sources.length} source(s) from ${datasets.size} dataset(s) (${[...datasets].join(', ')})${a.removed.length ? `; ${a.removed.length} value(s) taken out (annex)` : ''}`;
      });
    case 'consistency':
      return per((e) => e.consistency.text);
    case 'trend':
      return per((e) =>
        e.trend.value === undefined
          ? (e.trend.reason ?? 'no trend')
          : `n = ${e.trend.n}, R² = ${n3(e.trend.rSquare)}, slope ${n3(e.trend.slope)} (p = ${n3(e.trend.pSlope)}); at the target ${n3(e.trend.value)} [${n3(e.trend.interval?.[0])}, ${n3(e.trend.interval?.[1])}]${e.trend.interpolated ? '' : ', an extrapolation'}`,
      );
    case 'gap-filling':
      return a.gapFills.map(
        (g) =>
          `${g.endpoint}: ${g.method}${g.value === undefined ? ` gives no value (${g.reason ?? ''})` : ` gives ${g.value}${g.low === undefined ? '' : ` [${n3(g.low)}, ${n3(g.high)}]`}`}, derived from ${g.sources.length} measured value(s)`,
      );
    case 'domain':
      return per((e) => {
        const ra = e.readAcross;
        const qsar = e.qsar.map((q) => `${q.title}: ${q.value === undefined ? 'not predicted' : q.inside === undefined ? q.value : `${q.value}, ${q.inside ? 'inside' : 'outside'} its domain`}`);
        return `read-across from sources of similarity ≥ ${n3(ra.minSimilarity)} (mean ${n3(ra.meanSimilarity)})${qsar.length ? `; ${qsar.join('; ')}` : '; no QSAR model of this endpoint'}`;
      });
  }
}
