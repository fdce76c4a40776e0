// The scheduler's write: POST pods/<name>/binding (and the bindings resource) binds a pod to a node.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { httpCall } from '../testing/http.ts';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
});

const call = (method: string, path: string, body?: unknown) => httpCall(sim.url, method, path, body);

const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });
const PODS = '/api/v1/namespaces/default/pods';

test('pods/binding sets spec.nodeName and PodScheduled in one write and answers a Success Status', async () => {
  assert.equal((await call('POST', PODS, pod('b1'))).status, 201);
  const before = await call('GET', `${PODS}/b1`);
  const r = await call('POST', `${PODS}/b1/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'b1' }, target: { kind: 'Node', name: 'node-a' } });
  assert.equal(r.status, 201);
  assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const after = await call('GET', `${PODS}/b1`);
  assert.equal(after.body.spec.nodeName, 'node-a');
  assert.equal(after.body.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled').status, 'True');
  assert.equal(Number(after.body.metadata.resourceVersion), Number(before.body.metadata.resourceVersion) + 1, 'one write');
});

test('binding a bound pod is 409; a missing pod 404; a wrong name 400; no target 422', async () => {
  await call('POST', PODS, pod('b2'));
  assert.equal((await call('POST', `${PODS}/b2/binding`, { target: { name: 'node-a' } })).status, 201);
  const again = await call('POST', `${PODS}/b2/binding`, { target: { name: 'node-b' } });
  assert.equal(again.status, 409);
  assert.match(again.body.message, /already assigned to node "node-a"/);
  assert.equal((await call('POST', `${PODS}/nope/binding`, { target: { name: 'node-a' } })).status, 404);
  await call('POST', PODS, pod('b3'));
  assert.equal((await call('POST', `${PODS}/b3/binding`, { metadata: { name: 'other' }, target: { name: 'n' } })).status, 400);
  const noTarget = await call('POST', `${PODS}/b3/binding`, { metadata: { name: 'b3' } });
  assert.equal(noTarget.status, 422);
  assert.equal(noTarget.body.details.causes[0].field, 'target.name');
  assert.equal((await call('GET', `${PODS}/b3/binding`)).status, 405);
});

test('the bindings resource binds the pod named in metadata.name; discovery lists both', async () => {
  await call('POST', PODS, pod('b4'));
  const r = await call('POST', '/api/v1/namespaces/default/bindings', { metadata: { name: 'b4' }, target: { name: 'node-c' } });
  assert.equal(r.status, 201);
  assert.equal((await call('GET', `${PODS}/b4`)).body.spec.nodeName, 'node-c');
  const disc = await call('GET', '/api/v1');
  const names = disc.body.resources.filter((x: { kind: string }) => x.kind === 'Binding').map((x: { name: string; verbs: string[] }) => `${x.name}:${x.verbs.join(',')}`);
  assert.deepEqual(names, ['bindings:create', 'pods/binding:create']);
});
