import { isIdentifierHeader } from '../dataset/column-roles.ts';
import type { FeatureRecord } from '../feature/feature-record.ts';

/**
 * What the training form offers as the feature to predict: the dataset's own columns first
 * (those of its upload), the descriptors calculated here after them, and the one chosen unless
 * the person changes it. The default is the endpoint declared at upload (a column with an
 * endpoint term, a species or a test guideline); else the only own class or number column that
 * is not an identifier, of the kind the learner learns; else nothing, and the person chooses
 * (never the first column, which is most often an identifier).
 */

/** Is a feature one of the dataset's own columns (not calculated by an algorithm of this service)? */
export const isOwnColumn = (f: FeatureRecord) => !f.source?.includes('/algorithm/');

const declaredEndpoint = (f: FeatureRecord) => f.sameAs.length > 0 || Boolean(f.species) || Boolean(f.protocol);

export function targetChoice(features: FeatureRecord[], task?: 'regression' | 'classification'): { ordered: FeatureRecord[]; chosen?: string } {
  const own = features.filter(isOwnColumn);
  const ordered = [...own, ...features.filter((f) => !isOwnColumn(f))];
  const suits = (f: FeatureRecord) => (task === 'regression' ? f.numeric : task === 'classification' ? f.nominal : f.numeric || f.nominal);
  const declared = own.filter((f) => declaredEndpoint(f) && suits(f));
  if (declared.length) return { ordered, chosen: declared[0].uri };
  const values = own.filter((f) => suits(f) && !isIdentifierHeader(f.title ?? ''));
  return { ordered, chosen: values.length === 1 ? values[0].uri : undefined };
}
