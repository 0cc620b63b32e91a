import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, parseTurtle, waitForTask, type TestServer } from '../helpers.ts';
import { ShapeValidator } from '../../src/shacl/shape-validator.ts';

// What the server answers satisfies the SHACL shapes it publishes in shapes/ (the same shapes
// that every incoming resource is checked against).

let s: TestServer;
let shapes: ShapeValidator;
before(async () => {
  s = await startTestServer();
  shapes = await ShapeValidator.load(new URL('../../shapes', import.meta.url).pathname);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const turtle = async (uri: string) => {
  const r = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(r.status, 200, `${uri}: ${r.text.slice(0, 300)}`);
  return parseTurtle(r.text, uri);
};
async function task(path: string, params: Record<string, string>): Promise<string> {
  const r = await http(`${s.url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, `${path}: ${r.text.slice(0, 500)}`);
  return waitForTask(s, r.text.trim());
}

test('every resource the server answers satisfies its shape: compound, feature, dataset, algorithm, model, validation', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => `${'C'.repeat(i + 1)}O,${i},${(i * 7) % 5},${i * 2 + ((i * 3) % 4)}`);
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: `SMILES,x1,x2,y\n${rows.join('\n')}\n`, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const compound = (await http(`${local(dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const algorithm = `${s.base}/algorithm/mlr`;
  const model = await task('/algorithm/mlr', { dataset_uri: dataset, prediction_feature: features[2] });
  const validation = await task('/validation/training_test_split', { dataset_uri: dataset, algorithm_uri: algorithm, prediction_feature: features[2], random_seed: '2' });
  const resources: [string, string][] = [
    ['compound', compound],
    ['feature', features[0]],
    ['dataset', dataset],
    ['algorithm', algorithm],
    ['model', model],
    ['validation', validation],
  ];
  for (const [kind, uri] of resources) {
    const quads = await turtle(uri);
    assert.ok(
      quads.some((q) => q.subject.value === uri && q.predicate.value.endsWith('#type')),
      `${kind} ${uri} has no type: no shape would target it`,
    );
    await assert.doesNotReject(shapes.check(quads), `${kind} ${uri} does not satisfy its shape`);
  }
  // and the shapes do bite: the model without its algorithm is refused
  const model_ = (await turtle(model)).filter((q) => !q.predicate.value.endsWith('#algorithm'));
  await assert.rejects(shapes.check(model_), /exactly one ot:algorithm/);
});
