import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArgumentError, ServiceClient, ServiceError } from '../../src/mcp/service-client.ts';

test("the MCP tools' client sends the caller's token to this process only: URIs that would leave it are refused before any request", async () => {
  // nothing listens on port 1: a request that were sent would fail otherwise than with ServiceError
  const client = new ServiceClient('http://127.0.0.1:1', 'http://localhost:8080', 'secret-token');
  for (const target of ['http://localhost:8080@evil.example/x', 'http://localhost:8080.evil.example/', 'http://localhost:80801/x', 'evil.example/x'])
    await assert.rejects(client.request('GET', target), (e) => e instanceof ServiceError && e.status === 400 && /not a URI of this service/.test(e.message), target);
  // a URI of the service maps to this process (the connection then fails: nothing listens)
  await assert.rejects(client.request('GET', 'http://localhost:8080/model/1'), (e) => !(e instanceof ServiceError));
  assert.throws(
    () => client.uriArgument('model', 'http://localhost:8080/dataset/1', 'model'),
    (e) => e instanceof ArgumentError && e.argument === 'model',
  );
  assert.throws(() => client.uriArgument('uri', 'http://localhost:8080/model/1 x'), ArgumentError);
  assert.equal(client.uriArgument('uri', 'http://localhost:8080/model/1'), 'http://localhost:8080/model/1');
});
