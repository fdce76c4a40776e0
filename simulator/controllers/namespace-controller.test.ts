import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeList, KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, podTemplate, type TestCluster } from '../testing/test-simulator.ts';
import { deletableNamespacedResources } from './namespace-controller.ts';
import type { ApiResource } from '../client/api-resources.ts';

let c: TestCluster;
before(async () => {
  c = await startTestCluster(['namespace']);
});
after(async () => {
  await c.close();
});

/** One object of every namespaced kind the simulator serves (both groups of the shared workload kinds). */
function objectsOfEveryKind(ns: string): Array<[string, Record<string, unknown>]> {
  const sel = (app: string) => ({ selector: { matchLabels: { app } }, template: podTemplate({ app }) });
  return [
    [`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'cm' }, data: { a: 'b' } }],
    [`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 'secret' }, data: {} }],
    [`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } }],
    [`/api/v1/namespaces/${ns}/endpoints`, { metadata: { name: 'svc' }, subsets: [] }],
    [`/api/v1/namespaces/${ns}/events`, { metadata: { name: 'ev' }, involvedObject: { kind: 'ConfigMap', name: 'cm', namespace: ns }, reason: 'R', message: 'm' }],
    [`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'pod' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }],
    [`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa' } }],
    [`/api/v1/namespaces/${ns}/replicationcontrollers`, { metadata: { name: 'rc' }, spec: { selector: { app: 'rc' }, template: podTemplate({ app: 'rc' }) } }],
    [`/apis/apps/v1/namespaces/${ns}/deployments`, { metadata: { name: 'deploy-apps' }, spec: sel('a') }],
    [`/apis/apps/v1/namespaces/${ns}/replicasets`, { metadata: { name: 'rs-apps' }, spec: sel('b') }],
    [`/apis/apps/v1/namespaces/${ns}/daemonsets`, { metadata: { name: 'ds-apps' }, spec: sel('c') }],
    [`/apis/extensions/v1beta1/namespaces/${ns}/deployments`, { metadata: { name: 'deploy-ext' }, spec: sel('d') }],
    [`/apis/extensions/v1beta1/namespaces/${ns}/replicasets`, { metadata: { name: 'rs-ext' }, spec: sel('e') }],
    [`/apis/extensions/v1beta1/namespaces/${ns}/daemonsets`, { metadata: { name: 'ds-ext' }, spec: sel('f') }],
    [`/apis/extensions/v1beta1/namespaces/${ns}/ingresses`, { metadata: { name: 'ing' }, spec: { backend: { serviceName: 'svc', servicePort: 80 } } }],
    [`/apis/batch/v1/namespaces/${ns}/jobs`, { metadata: { name: 'job' }, spec: { template: { ...podTemplate({ job: 'j' }), spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } }],
    [`/apis/batch/v1beta1/namespaces/${ns}/cronjobs`, { metadata: { name: 'cron' }, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } } } }],
  ];
}

/** Distinct objects in the namespace (the workload kinds of apps and extensions show the same objects). */
async function countIn(ns: string): Promise<number> {
  const uids = new Set<string>();
  for (const [path] of objectsOfEveryKind(ns)) for (const o of (await c.req<KubeList>('GET', path)).body.items ?? []) uids.add(o.metadata.uid!);
  return uids.size;
}

test('deleting a namespace deletes every object of every kind in it, then the namespace itself', async () => {
  const ns = 'every-kind';
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  for (const [path, body] of objectsOfEveryKind(ns)) {
    const res = await c.req('POST', path, body);
    assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
  }
  assert.equal(await countIn(ns), objectsOfEveryKind(ns).length);
  const del = await c.req<KubeObject>('DELETE', `/api/v1/namespaces/${ns}`, { propagationPolicy: 'Background' });
  assert.equal(del.status, 200);
  await eventually('the namespace to be gone', async () => (await c.req('GET', `/api/v1/namespaces/${ns}`)).status === 404);
  assert.equal(await countIn(ns), 0);
});

test('an object held by a finalizer keeps its namespace terminating until the finalizer goes', async () => {
  const ns = 'held';
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  await c.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'plain' } });
  const held = await c.req<KubeObject>('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
  assert.equal(held.status, 201);
  await c.req('DELETE', `/api/v1/namespaces/${ns}`);
  await eventually('the plain object to be deleted', async () => (await c.req('GET', `/api/v1/namespaces/${ns}/configmaps/plain`)).status === 404);
  const lingering = await eventually('the held object to be deleting', async () => {
    const r = await c.req<KubeObject>('GET', `/api/v1/namespaces/${ns}/configmaps/held`);
    return r.body.metadata.deletionTimestamp ? r.body : undefined;
  });
  const nsNow = await c.req<KubeObject>('GET', `/api/v1/namespaces/${ns}`);
  assert.equal(nsNow.status, 200, 'the namespace waits for its content');
  assert.equal((nsNow.body.status as { phase?: string }).phase, 'Terminating');
  assert.deepEqual((nsNow.body.spec as { finalizers?: string[] }).finalizers, ['kubernetes']);
  await c.req('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { metadata: { finalizers: null, resourceVersion: lingering.metadata.resourceVersion } }, 'application/merge-patch+json');
  await eventually('the namespace to be gone', async () => (await c.req('GET', `/api/v1/namespaces/${ns}`)).status === 404);
});

test('active namespaces and their content are left alone', async () => {
  const ns = 'active';
  assert.equal((await c.req('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  await c.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'stays' } });
  // A terminating namespace elsewhere makes the controller work; this one must not be touched meanwhile.
  await c.req('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
  await c.req('DELETE', '/api/v1/namespaces/other');
  await eventually('the other namespace to be gone', async () => (await c.req('GET', '/api/v1/namespaces/other')).status === 404);
  assert.equal((await c.req('GET', `/api/v1/namespaces/${ns}/configmaps/stays`)).status, 200);
  assert.equal((await c.req('GET', `/api/v1/namespaces/${ns}`)).status, 200);
});

test('the resources emptied are the namespaced ones that can be listed and deleted', () => {
  const r = (resource: string, namespaced: boolean, verbs: string[]): ApiResource => ({ group: '', version: 'v1', resource, kind: resource, namespaced, verbs });
  const picked = deletableNamespacedResources([
    r('configmaps', true, ['list', 'deletecollection', 'delete']),
    r('onebyone', true, ['list', 'delete']),
    r('nodes', false, ['list', 'deletecollection', 'delete']),
    r('reviews', true, ['create']),
    r('readonly', true, ['list', 'get']),
  ]);
  assert.deepEqual(picked.map((x) => x.resource), ['configmaps', 'onebyone']);
});
