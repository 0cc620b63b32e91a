import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type * as RDF from '@rdfjs/types';
import type { ITestResult, ITestSuiteConfig } from 'rdf-test-suite/lib/TestSuiteRunner.js';
import type { IQueryResult } from 'rdf-test-suite/lib/testcase/sparql/IQueryEngine.js';

/**
 * rdf-test-suite (CommonJS), loaded with two fixes for running it offline against the local
 * copy of the W3C tests:
 *
 * - its GeneralizedN3StreamParser monkey-patches n3's Parser#_readPredicate (blank-node
 *   predicates, needed only by the JSON-LD suites); with n3 2.13 that patch crashes on
 *   `[ ... ]` blank nodes in the SPARQL manifests, so the original method is put back;
 * - a file mapped through urlToFileMapping has no Content-Type, and `.rdf` is missing from
 *   its extension table, so the RDF/XML data of the subquery tests would not load.
 */
const require = createRequire(import.meta.url);

const n3 = require('n3') as { Parser: { prototype: Record<string, unknown> } };
const originalReadPredicate = n3.Parser.prototype._readPredicate;

interface TestSuiteRunnerClass {
  new (): {
    runManifest(manifestUrl: string, handler: unknown, config: ITestSuiteConfig): Promise<ITestResult[]>;
  };
}
interface QueryEvaluationHandler {
  parseSparqlResults(type: 'json' | 'xml', data: NodeJS.ReadableStream): Promise<IQueryResult>;
}
interface QueryResultQuadsClass {
  new (quads: RDF.Quad[]): IQueryResult;
}

export const { TestSuiteRunner } = require('rdf-test-suite/lib/TestSuiteRunner') as { TestSuiteRunner: TestSuiteRunnerClass };
export const { TestCaseQueryEvaluationHandler } = require('rdf-test-suite/lib/testcase/sparql/TestCaseQueryEvaluation') as {
  TestCaseQueryEvaluationHandler: QueryEvaluationHandler;
};
export const { QueryResultQuads } = require('rdf-test-suite/lib/testcase/sparql/QueryResultQuads') as { QueryResultQuads: QueryResultQuadsClass };
const { Util } = require('rdf-test-suite/lib/Util') as { Util: { extensionToContentType: Record<string, string> } };

// Loading the runner has applied the patch by now (ManifestLoader pulls in Util and the parser).
n3.Parser.prototype._readPredicate = originalReadPredicate;
Util.extensionToContentType.rdf ??= 'application/rdf+xml';

export type { ITestResult, IQueryResult };
export type ResultStream = Readable;
