import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeList, KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, type TestCluster } from '../testing/test-simulator.ts';

let c: TestCluster;
before(async () => {
  c = await startTestCluster(['serviceaccount']);
});
after(async () => {
  await c.close();
});

const saPath = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts/default`;

test('every namespace, old or new, gets a default service account', async () => {
  for (const ns of ['default', 'kube-system', 'kube-public']) {
    await eventually(`default account in ${ns}`, async () => (await c.req('GET', saPath(ns))).status === 200);
  }
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'fresh' } })).status, 201);
  await eventually('default account in a new namespace', async () => (await c.req('GET', saPath('fresh'))).status === 200);
});

test('a deleted default service account is created again', async () => {
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'recreate' } })).status, 201);
  const first = await eventually('the first account', async () => {
    const r = await c.req<KubeObject>('GET', saPath('recreate'));
    return r.status === 200 ? r.body : undefined;
  });
  assert.equal((await c.req('DELETE', saPath('recreate'))).status, 200);
  const second = await eventually('a new account', async () => {
    const r = await c.req<KubeObject>('GET', saPath('recreate'));
    return r.status === 200 && r.body.metadata.uid !== first.metadata.uid ? r.body : undefined;
  });
  assert.notEqual(second.metadata.uid, first.metadata.uid);
  // Other accounts are nobody's business but their owners'.
  const list = await c.req<KubeList>('GET', '/api/v1/namespaces/recreate/serviceaccounts');
  assert.deepEqual(list.body.items.map((i) => i.metadata.name), ['default']);
});

test('a terminating namespace does not get its account back', async () => {
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'ending' } })).status, 201);
  await eventually('the account', async () => (await c.req('GET', saPath('ending'))).status === 200);
  // No namespace controller runs here, so the namespace stays terminating with its content.
  await c.req('DELETE', '/api/v1/namespaces/ending');
  await c.req('DELETE', saPath('ending'));
  // Give the controller the chance to (wrongly) act: an active namespace gets its account back in well under this.
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'probe' } })).status, 201);
  await eventually('the probe namespace account', async () => (await c.req('GET', saPath('probe'))).status === 200);
  assert.equal((await c.req('GET', saPath('ending'))).status, 404);
});
