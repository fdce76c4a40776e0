// Custom resources as 1.9 serves them: discovery with the accepted singular name, short names, categories and verbs;
// no protobuf (a protobuf body 415, a protobuf-only Accept 406); /scale with status.labelSelector.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from './start.ts';
import { encodeObject } from '../codec/protobuf.ts';

type Json = Record<string, any>;
let server: RunningApiServer;
const PB = 'application/vnd.kubernetes.protobuf';
const W = '/apis/w3k.example.com/v1/namespaces/default/widgets';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const r = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text.startsWith('{') ? (JSON.parse(text) as Json) : {} };
}

before(async () => {
  server = await startApiServer();
  const crd = await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', {
    metadata: { name: 'widgets.w3k.example.com' },
    spec: {
      group: 'w3k.example.com', version: 'v1', scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all', 'gadgets'] },
      subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    },
  });
  assert.equal(crd.status, 201, JSON.stringify(crd.body));
  const end = Date.now() + 10_000;
  while ((await call('GET', '/apis/w3k.example.com/v1')).status !== 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
});
after(async () => server.close());

test('discovery: the accepted singular name, short names, categories, every verb', async () => {
  const list = (await call('GET', '/apis/w3k.example.com/v1')).body;
  const byName = new Map((list.resources as Json[]).map((r) => [r.name, r]));
  assert.deepEqual(byName.get('widgets'), {
    name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['wd'], categories: ['all', 'gadgets'],
  });
  assert.ok(byName.has('widgets/status') && byName.has('widgets/scale'), 'subresources listed');
});

test('no protobuf: a protobuf body is 415, a protobuf-only Accept 406, protobuf-then-JSON answers JSON', async () => {
  const pb = encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  const body = await call('POST', W, pb, { 'content-type': PB });
  assert.equal(body.status, 415, JSON.stringify(body.body));
  assert.equal(body.body.reason, 'UnsupportedMediaType');
  assert.equal((await call('POST', W, { apiVersion: 'w3k.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 2 } })).status, 201);
  const only = await call('GET', `${W}/w1`, undefined, { accept: PB });
  assert.equal(only.status, 406, JSON.stringify(only.body));
  const either = await call('GET', `${W}/w1`, undefined, { accept: `${PB}, application/json` });
  assert.equal(either.status, 200);
  assert.equal(either.body.kind, 'Widget');
});

test('/scale reads spec.replicas, status.replicas and the label selector from the paths the CRD names', async () => {
  const st = await call('PUT', `${W}/w1/status`, { apiVersion: 'w3k.example.com/v1', kind: 'Widget', metadata: { name: 'w1', resourceVersion: (await call('GET', `${W}/w1`)).body.metadata.resourceVersion }, spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=w1' } });
  assert.equal(st.status, 200, JSON.stringify(st.body));
  const scale = await call('GET', `${W}/w1/scale`);
  assert.equal(scale.status, 200, JSON.stringify(scale.body));
  assert.equal(scale.body.apiVersion, 'autoscaling/v1');
  assert.deepEqual(scale.body.spec, { replicas: 2 });
  assert.deepEqual(scale.body.status, { replicas: 1, selector: 'app=w1' });
});
