import { dc } from '../rdf/namespaces.js';
import { propertyValue } from '../rdf/graph-values.js';
import type { TripleStore } from '../store/triple-store.js';

/** The titles (`dc:title`) of features stored here, by feature URI; features without one are left out. */
export async function featureTitles(store: TripleStore, features: string[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const f of features) {
    const title = propertyValue(await store.readGraph(f), f, dc('title'));
    if (title) titles.set(f, title);
  }
  return titles;
}

/** The other way round: feature URI by title (of features sharing a title, the last one). */
export async function featuresByTitle(store: TripleStore, features: string[]): Promise<Map<string, string>> {
  const byTitle = new Map<string, string>();
  for (const [f, title] of await featureTitles(store, features)) byTitle.set(title, f);
  return byTitle;
}
