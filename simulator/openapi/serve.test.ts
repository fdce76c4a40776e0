import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { Registry } from '../api/registry.ts';
import { buildDocuments } from './documents.ts';

const V2_PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('serving /openapi/v2 and /openapi/v3', () => {
  let sim: RunningSimulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(async () => {
    await sim?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(sim.url + path, { headers, redirect: 'manual' });

  it('the v3 index points at documents that are served with immutable caching under their hash', async () => {
    const res = await get('/openapi/v3');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.match(res.headers.get('etag') ?? '', /^"[0-9A-F]{128}"$/);
    const index = (await res.json()) as { paths: Record<string, { serverRelativeURL: string }> };
    const url = index.paths['apis/apps/v1'].serverRelativeURL;
    const hash = new URL(url, sim.url).searchParams.get('hash')!;
    const doc = await get(url);
    assert.equal(doc.status, 200);
    assert.equal(doc.headers.get('cache-control'), 'public, immutable');
    assert.ok(doc.headers.get('expires'), "doc.headers.get('expires')");
    assert.equal(doc.headers.get('etag'), `"${hash}"`);
    const body = (await doc.json()) as { components: { schemas: Record<string, unknown> } };
    assert.ok(body.components.schemas['io.k8s.api.apps.v1.Deployment'], "body.components.schemas['io.k8s.api.apps.v1.Deployment']");
    // Without a hash: the same document, no immutable caching.
    const plain = await get('/openapi/v3/apis/apps/v1');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('cache-control'), null);
    await plain.arrayBuffer();
  });

  it('a stale hash redirects to the current one; If-None-Match answers 304; unknown documents 404', async () => {
    const stale = await get('/openapi/v3/api/v1?hash=0000');
    assert.equal(stale.status, 301);
    assert.match(stale.headers.get('location') ?? '', /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
    await stale.arrayBuffer();
    const first = await get('/openapi/v3/api/v1');
    const etag = first.headers.get('etag')!;
    await first.arrayBuffer();
    const again = await get('/openapi/v3/api/v1', { 'If-None-Match': etag });
    assert.equal(again.status, 304);
    const missing = await get('/openapi/v3/apis/nope/v1');
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
  });

  it('v2 as JSON, as the protobuf kubectl asks for, and 406 for anything else', async () => {
    const json = await get('/openapi/v2', { Accept: 'application/json' });
    assert.equal(json.status, 200);
    assert.equal(json.headers.get('content-type'), 'application/json');
    const doc = (await json.json()) as { swagger: string; definitions: Record<string, unknown> };
    assert.equal(doc.swagger, '2.0');
    assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap'], "doc.definitions['io.k8s.api.core.v1.ConfigMap']");
    const pb = await get('/openapi/v2', { Accept: V2_PB });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers.get('content-type'), 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    assert.equal(pb.headers.get('etag'), json.headers.get('etag'));
    const bytes = Buffer.from(await pb.arrayBuffer());
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '\n\x032.0');
    const none = await get('/openapi/v2', { Accept: 'text/html' });
    assert.equal(none.status, 406);
    await none.arrayBuffer();
    const notModified = await get('/openapi/v2', { Accept: 'application/json', 'If-None-Match': json.headers.get('etag')! });
    assert.equal(notModified.status, 304);
  });

  it('the operations\' schemes say how this server is reached (plain HTTP here; https is the default of a secure server)', async () => {
    const res = await fetch(`${sim.url}/openapi/v2`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { paths: Record<string, Record<string, { schemes?: string[] }>> };
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((op) => op && typeof op === 'object' && 'schemes' in op));
    assert.ok(ops.length > 100, 'ops.length > 100');
    assert.ok(ops.every((op) => op.schemes?.length === 1 && op.schemes[0] === 'http'), 'every operation says http');
    const secure = buildDocuments(new Registry(), { protobufMediaType: 'application/vnd.kubernetes.protobuf' });
    assert.match(secure.v2.json.toString('utf8'), /"schemes":\["https"\]/);
  });

  it('only GET and HEAD', async () => {
    const res = await fetch(sim.url + '/openapi/v3', { method: 'POST', body: '{}' });
    assert.equal(res.status, 405);
    await res.arrayBuffer();
    const head = await fetch(sim.url + '/openapi/v3/api/v1', { method: 'HEAD' });
    assert.equal(head.status, 200);
  });
});
