import type { GraphRestriction, GraphScope } from '../store/triple-store.ts';

/**
 * The published scope that `/ontology` queries (DESIGN.md): the bundled vocabularies plus the
 * resources registered with POST /ontology (local ones in place, remote ones harvested).
 * Sub-graphs such as a dataset's entries are never in it: only the exact graph names are.
 */
export class PublishedScope implements GraphScope {
  readonly includesDefaultGraph = false;
  private readonly vocabularies = new Set<string>();
  private readonly registered = new Map<string, { remote: boolean }>();

  allows(graphIri: string): boolean {
    return this.vocabularies.has(graphIri) || this.registered.has(graphIri);
  }

  restriction(): GraphRestriction {
    return { allow: [...this.vocabularies, ...this.registered.keys()] };
  }

  addVocabulary(graphIri: string): void {
    this.vocabularies.add(graphIri);
  }

  register(uri: string, remote: boolean): void {
    this.registered.set(uri, { remote });
  }

  deregister(uri: string): boolean {
    return this.registered.delete(uri);
  }

  isRegistered(uri: string): boolean {
    return this.registered.has(uri);
  }

  remoteUris(): string[] {
    return [...this.registered].filter(([, r]) => r.remote).map(([u]) => u);
  }

  registeredUris(): string[] {
    return [...this.registered.keys()];
  }

  vocabularyGraphs(): string[] {
    return [...this.vocabularies];
  }
}
