import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, ownerRef, podTemplate, type TestCluster } from '../testing/test-simulator.ts';
import { startSimulator } from '../cluster.ts';
import { startDaemon } from './daemon/daemon.ts';

let c: TestCluster;
let n = 0;
before(async () => {
  c = await startTestCluster(['garbagecollector']);
});
after(async () => {
  await c.close();
});

async function namespace(): Promise<string> {
  const name = `gc-${++n}`;
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
  return name;
}

async function configMap(ns: string, name: string, meta: Record<string, unknown> = {}): Promise<KubeObject> {
  const res = await c.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { k: 'v' } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const cmPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;
const exists = async (path: string) => (await c.req('GET', path)).status === 200;
const gone = (path: string) => eventually(`${path} to be gone`, async () => !(await exists(path)));

test('Background: dependents of a deleted owner are deleted, across kinds', async () => {
  const ns = await namespace();
  const owner = await configMap(ns, 'owner');
  await configMap(ns, 'dep', { ownerReferences: [ownerRef(owner)] });
  const secret = await c.req('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'dep-secret', ownerReferences: [ownerRef(owner)] }, data: {} });
  assert.equal(secret.status, 201);
  const keep = await configMap(ns, 'unrelated');
  assert.equal((await c.req('DELETE', cmPath(ns, 'owner'), { propagationPolicy: 'Background' })).status, 200);
  await gone(cmPath(ns, 'dep'));
  await gone(`/api/v1/namespaces/${ns}/secrets/dep-secret`);
  assert.ok(await exists(cmPath(ns, keep.metadata.name!)), 'an object without owners stays');
});

test('Background through shared storage: a ReplicaSet created in extensions owned by an apps/v1 Deployment goes with it', async () => {
  const ns = await namespace();
  const d = await c.req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
  });
  assert.equal(d.status, 201);
  const rs = await c.req('POST', `/apis/extensions/v1beta1/namespaces/${ns}/replicasets`, {
    metadata: { name: 'web-1', ownerReferences: [ownerRef(d.body, { controller: true, blockOwnerDeletion: true })] },
    spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
  });
  assert.equal(rs.status, 201, JSON.stringify(rs.body));
  assert.equal((await c.req('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { propagationPolicy: 'Background' })).status, 200);
  await gone(`/apis/apps/v1/namespaces/${ns}/replicasets/web-1`);
});

test('Foreground: dependents go first, the owner waits for those with blockOwnerDeletion, then goes', async () => {
  const ns = await namespace();
  const owner = await configMap(ns, 'owner');
  // The blocking dependent carries a finalizer of its own, so it lingers until the test lets it go.
  await configMap(ns, 'blocker', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
  await configMap(ns, 'free', { ownerReferences: [ownerRef(owner)] });
  const res = await c.req('DELETE', cmPath(ns, 'owner'), { propagationPolicy: 'Foreground' });
  assert.equal(res.status, 200);
  assert.ok(res.body.metadata.finalizers?.includes('foregroundDeletion'), "res.body.metadata.finalizers?.includes('foregroundDeletion')");
  await gone(cmPath(ns, 'free'));
  const blocker = await eventually('the blocking dependent to be deleting', async () => {
    const r = await c.req('GET', cmPath(ns, 'blocker'));
    return r.body.metadata.deletionTimestamp ? r.body : undefined;
  });
  // Still held: the owner cannot go before its blocking dependent.
  const held = await c.req('GET', cmPath(ns, 'owner'));
  assert.equal(held.status, 200);
  assert.deepEqual(held.body.metadata.finalizers, ['foregroundDeletion']);
  const released = await c.req('PATCH', cmPath(ns, 'blocker'), { metadata: { finalizers: null, resourceVersion: blocker.metadata.resourceVersion } }, 'application/merge-patch+json');
  assert.equal(released.status, 200);
  await gone(cmPath(ns, 'blocker'));
  await gone(cmPath(ns, 'owner'));
});

test('Foreground down a chain: a blocking dependent with dependents of its own is deleted in the foreground too', async () => {
  const ns = await namespace();
  const a = await configMap(ns, 'a');
  const b = await configMap(ns, 'b', { ownerReferences: [ownerRef(a, { blockOwnerDeletion: true })] });
  await configMap(ns, 'c', { ownerReferences: [ownerRef(b, { blockOwnerDeletion: true })], finalizers: ['example.com/hold'] });
  assert.equal((await c.req('DELETE', cmPath(ns, 'a'), { propagationPolicy: 'Foreground' })).status, 200);
  const bDeleting = await eventually('b to be deleting in the foreground', async () => {
    const r = await c.req('GET', cmPath(ns, 'b'));
    return r.body.metadata.deletionTimestamp ? r.body : undefined;
  });
  assert.deepEqual(bDeleting.metadata.finalizers, ['foregroundDeletion']);
  const cNow = await eventually('c to be deleting', async () => {
    const r = await c.req('GET', cmPath(ns, 'c'));
    return r.body.metadata.deletionTimestamp ? r.body : undefined;
  });
  assert.ok(await exists(cmPath(ns, 'a')), 'a waits for b, which waits for c');
  await c.req('PATCH', cmPath(ns, 'c'), { metadata: { finalizers: null, resourceVersion: cNow.metadata.resourceVersion } }, 'application/merge-patch+json');
  await gone(cmPath(ns, 'c'));
  await gone(cmPath(ns, 'b'));
  await gone(cmPath(ns, 'a'));
});

test('Orphan: dependents lose the reference to the owner and stay; the orphan finalizer goes and so does the owner', async () => {
  const ns = await namespace();
  const owner = await configMap(ns, 'owner');
  const other = await configMap(ns, 'other-owner');
  await configMap(ns, 'only', { ownerReferences: [ownerRef(owner)] });
  await configMap(ns, 'shared', { ownerReferences: [ownerRef(owner), ownerRef(other)] });
  const res = await c.req('DELETE', cmPath(ns, 'owner'), { propagationPolicy: 'Orphan' });
  assert.equal(res.status, 200);
  assert.ok(res.body.metadata.finalizers?.includes('orphan'), "res.body.metadata.finalizers?.includes('orphan')");
  await gone(cmPath(ns, 'owner'));
  const only = await c.req('GET', cmPath(ns, 'only'));
  assert.equal(only.status, 200);
  assert.equal(only.body.metadata.ownerReferences, undefined);
  const shared = await c.req('GET', cmPath(ns, 'shared'));
  assert.equal(shared.status, 200);
  assert.deepEqual(shared.body.metadata.ownerReferences?.map((r) => r.uid), [other.metadata.uid]);
});

test('a live owner keeps its dependents; a reference to an owner that does not exist (or was replaced) is garbage', async () => {
  const ns = await namespace();
  const owner = await configMap(ns, 'owner');
  await configMap(ns, 'kept', { ownerReferences: [ownerRef(owner)] });
  await configMap(ns, 'no-owner', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000001' }] });
  // Same name as the live owner, other uid: the owner it meant is gone.
  await configMap(ns, 'stale', { ownerReferences: [{ ...ownerRef(owner), uid: '00000000-0000-0000-0000-000000000002' }] });
  await gone(cmPath(ns, 'no-owner'));
  await gone(cmPath(ns, 'stale'));
  assert.ok(await exists(cmPath(ns, 'kept')), "await exists(cmPath(ns, 'kept'))");
  assert.ok(await exists(cmPath(ns, 'owner')), "await exists(cmPath(ns, 'owner'))");
});

test('dependents whose owner went while no collector ran are collected when one starts', async () => {
  const sim = await startSimulator();
  try {
    const req = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(sim.url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      return { status: r.status, body: (await r.json()) as KubeObject };
    };
    const owner = await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } });
    await req('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'orphaned-dep', ownerReferences: [ownerRef(owner.body)] } });
    assert.equal((await req('DELETE', '/api/v1/namespaces/default/configmaps/owner')).status, 200);
    assert.equal((await req('GET', '/api/v1/namespaces/default/configmaps/orphaned-dep')).status, 200, 'nothing collects without a collector');
    const daemon = await startDaemon(['--master', sim.url, '--leader-elect=false', '--address=127.0.0.1', '--port=0', '--controllers=garbagecollector'], { log: () => {} });
    try {
      await eventually('the dependent to be collected', async () => (await req('GET', '/api/v1/namespaces/default/configmaps/orphaned-dep')).status === 404);
    } finally {
      await daemon.close();
    }
  } finally {
    await sim.close();
  }
});
