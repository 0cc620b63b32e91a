import fc from 'fast-check';
import assert from 'node:assert/strict';
import { form, http, type TestServer } from '../helpers.ts';
import { mutated } from './mutations.ts';
import type { FuzzRequest, FuzzTarget } from './fuzz-targets.ts';

/**
 * PUTs of a task's state that does not follow (issue 54): tasks that other services run
 * (`POST /task`), ended as Completed, Cancelled and Error, and one Running, get every state
 * (spelled right, in another case, mutated), by the path (`/task/{id}/{state}`) or the field
 * `hasStatus` or both, with what may go with a state (a result URI, a progress, an error report
 * as fields, YAML or RDF), well-formed or not. An ended task takes nothing (the Ruby clients'
 * `pid` changes nothing); every answer is 2xx, or 4xx with an error report and nothing written.
 */
export interface ClientTaskFixtures {
  /** Tasks that ended: Completed, Cancelled, Error. */
  ended: string[];
  /** A task still Running (a fuzzed input may end it: then it is one more ended task). */
  running: string;
}

/** The tasks the target puts to: made through the interface, as another service makes them. */
export async function prepareClientTasks(s: TestServer): Promise<ClientTaskFixtures> {
  const make = async () => (await http(`${s.url}/task`, { method: 'POST', body: form({ title: 'fuzzed' }), accept: 'text/uri-list' })).text.trim();
  const end = async (fields: Record<string, string>) => {
    const uri = await make();
    const r = await http(uri.replace(s.base, s.url), { method: 'PUT', body: form(fields) });
    assert.equal(r.status, 200, r.text);
    return uri;
  };
  const ended = [
    await end({ hasStatus: 'Completed', resultURI: `${s.base}/dataset/1` }),
    await end({ hasStatus: 'Cancelled' }),
    await end({ hasStatus: 'Error', message: 'failed', statusCode: '500' }),
  ];
  return { ended, running: await make() };
}

const STATES = ['Queued', 'Running', 'Completed', 'Cancelled', 'Error', 'completed', 'ERROR', 'pid', 'Finished', ''];
const RESULTS = ['http://other.example/model/1', 'https://other.example/dataset/2', 'dataset/1', 'ftp://other.example/x', 'http://a b', 'javascript:alert(1)', 'http://', ''];
const PERCENTS = ['0', '50', '100', '-1', '101', 'NaN', '1e400', '0x10', ''];
const STATUS_CODES = ['400', '404', '500', '599', '200', '600', '-1', 'abc', '4e2', ''];
const YAML_REPORTS = [
  '--- !ruby/object:OpenTox::ErrorReport\nhttp_code: 422\nerrorType: OpenTox::BadRequestError\nmessage: bad\nactor: http://other.example/a\n',
  'a: &x [1, 2]\nb: *x\n',
  '- a\n- b\n',
  'message: [unclosed',
];

/** The fields that may go with a state, each given or not. */
const extras: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      resultURI: fc.oneof(fc.constantFrom(...RESULTS), mutated(RESULTS.slice(0, 2))),
      percentageCompleted: fc.constantFrom(...PERCENTS),
      message: mutated(['the learner failed']),
      statusCode: fc.constantFrom(...STATUS_CODES),
      actor: fc.constantFrom('http://other.example/algorithm/svm', 'not a uri', ''),
      errorReport: fc.oneof(fc.constantFrom(...YAML_REPORTS), mutated(YAML_REPORTS)),
      description: mutated(['fold 3 of 5']),
    },
    { requiredKeys: [] },
  )
  .map((r) => Object.fromEntries(Object.entries(r).filter((e): e is [string, string] => e[1] !== undefined)));

const turtleOf = (state: string, fields: Record<string, string>) =>
  `@prefix ot: <http://www.opentox.org/api/1.1#> . <> ot:hasStatus ${JSON.stringify(state)}${fields.resultURI ? ` ; ot:resultURI ${JSON.stringify(fields.resultURI)}` : ''}${fields.message ? ` ; ot:error <#e> . <#e> a ot:ErrorReport ; ot:message ${JSON.stringify(fields.message)} ; ot:statusCode ${JSON.stringify(fields.statusCode ?? '500')}` : ''} .`;

/** The fuzz target: PUTs of states to tasks that ended (and one that runs). */
export function taskStatePuts(tasks: ClientTaskFixtures, base: string): FuzzTarget {
  const paths = [...tasks.ended, tasks.ended[0], tasks.running].map((uri) => uri.slice(base.length));
  return {
    name: 'task PUT in a state that does not follow',
    input: fc
      .tuple(fc.constantFrom(...paths), fc.oneof(fc.constantFrom(...STATES), mutated(STATES.slice(0, 5))), fc.constantFrom('path', 'field', 'both'), extras, fc.constantFrom('form', 'turtle'))
      .map(([path, state, style, fields, syntax]): FuzzRequest => {
        const target = style === 'field' ? path : `${path}/${encodeURIComponent(state.replace(/\p{Cs}/gu, '?'))}`;
        const given = style === 'path' ? fields : { ...fields, hasStatus: state };
        return syntax === 'form'
          ? { method: 'PUT', path: target, contentType: 'application/x-www-form-urlencoded', body: form(given).toString() }
          : { method: 'PUT', path: target, contentType: 'text/turtle', body: turtleOf(state, fields) };
      }),
  };
}
