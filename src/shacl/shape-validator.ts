import type * as RDF from '@rdfjs/types';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import { Validator } from 'shacl-engine';
import { DataFactory } from 'rdf-data-factory';
import rdfDataset from '@rdfjs/dataset';
import { badRequest } from '../core/errors.ts';

/** The term factory shacl-engine builds its report with: RDF/JS terms plus datasets. */
class ReportFactory extends DataFactory {
  dataset(quads?: RDF.Quad[]) {
    return rdfDataset.dataset(quads);
  }
}
const factory = new ReportFactory();

/** Validates every incoming resource against the SHACL shapes in `shapes/`. */
export class ShapeValidator {
  private readonly validator: Validator;
  private constructor(validator: Validator) {
    this.validator = validator;
  }

  /** The validators read, by directory: a server restarted in the same process (the tests) reads its shapes once. */
  private static readonly loaded = new Map<string, Promise<ShapeValidator>>();

  /** The shapes of `directory` (read once per process: they change only with a new version, that is, a new process). */
  static load(directory: string): Promise<ShapeValidator> {
    let loading = ShapeValidator.loaded.get(directory);
    if (!loading) {
      loading = ShapeValidator.read(directory);
      ShapeValidator.loaded.set(directory, loading);
      loading.catch(() => ShapeValidator.loaded.delete(directory));
    }
    return loading;
  }

  private static async read(directory: string): Promise<ShapeValidator> {
    const shapes = rdfDataset.dataset();
    for (const file of (await readdir(directory)).filter((f) => f.endsWith('.ttl')).sort()) {
      const text = await readFile(join(directory, file), 'utf8');
      for (const q of new Parser({ baseIRI: `file:///shapes/${file}` }).parse(text)) shapes.add(q);
    }
    return new ShapeValidator(new Validator(shapes, { factory }));
  }

  /** The quads, once they satisfy every shape that targets them (else the 400 of `check`). */
  async checked(quads: RDF.Quad[]): Promise<RDF.Quad[]> {
    await this.check(quads);
    return quads;
  }

  /**
   * Throw a 400 naming each broken constraint (its sh:message, path and focus node); what a shape
   * says with `sh:severity sh:Warning` (or `sh:Info`) does not refuse the resource: those are
   * answered, in the same words, for the caller to pass on.
   */
  async check(quads: RDF.Quad[]): Promise<string[]> {
    const report = await this.validator.validate({ dataset: rdfDataset.dataset(quads) });
    if (report.conforms) return [];
    const results = report.results as any[];
    const isViolation = (r: any) => (r.severity?.value ?? SH_VIOLATION) === SH_VIOLATION;
    const problems = results.filter(isViolation).map(describe);
    if (!problems.length) return results.filter((r) => /#(Warning|Info)$/.test(r.severity?.value ?? '')).map(describe);
    throw badRequest(`the resource does not satisfy its shape: ${problems.join(' | ')}`, problems.join('\n'));
  }
}

const SH_VIOLATION = 'http://www.w3.org/ns/shacl#Violation';

/** One result of a SHACL report in words: its sh:message, path and focus node. */
function describe(r: any): string {
  const message = (r.message ?? []).map((m: RDF.Term) => m.value).join('; ');
  const constraint = r.constraintComponent?.value?.split('#').pop() ?? 'constraint';
  const path = r.path?.[0]?.predicates?.map((p: RDF.Term) => p.value).join('/') ?? '';
  const focus = r.focusNode?.termType === 'NamedNode' ? `<${r.focusNode.value}>` : 'a blank node';
  return `${message || 'shape violated'} [${constraint}${path ? ` on <${path}>` : ''} at ${focus}]`;
}
