// StatefulSet controller: ordered creation, rolling update from the highest ordinal down (asserted from a pod
// watch), partition, OnDelete, Parallel, scale down in reverse order, ControllerRevision history and rollback.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, isReady, podTemplate, recordWatch, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['statefulset'], nodes: { count: 2 } });
  api = new Api(env.url);
});
after(() => env.close());

const sts = (name: string, replicas: number, extra: Record<string, unknown> = {}, image = 'nginx:1.13', annotations?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: { replicas, serviceName: name, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }, { image, annotations }), ...extra },
});
const imageOf = (p: KubeObject) => (p.spec as { containers: Array<{ image: string }> }).containers[0].image;
const live = async (ns: string) => (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
const statusOf = async (ns: string, name: string) => ((await api.get(`/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`))?.status ?? {}) as Record<string, unknown>;

/** Index of the first event matching. */
function firstIndex(events: Array<{ type: string; object: KubeObject }>, fn: (e: { type: string; object: KubeObject }) => boolean): number {
  return events.findIndex(fn);
}

test('a StatefulSet of 3 comes up in order, then rolls an image change from the highest ordinal down', async () => {
  const ns = await api.namespace('sts');
  const watch = await recordWatch(env.url, `/api/v1/namespaces/${ns}/pods`);
  await api.create(`/apis/apps/v1/namespaces/${ns}/statefulsets`, sts('web', 3));
  await eventually('3 ready pods', async () => {
    const pods = await live(ns);
    return pods.length === 3 && pods.every(isReady) && pods;
  });
  const ev = watch.events;
  const added = ev.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name);
  assert.deepEqual(added, ['web-0', 'web-1', 'web-2']);
  // Each pod is made only after the previous one is Ready (OrderedReady).
  for (const [prev, next] of [['web-0', 'web-1'], ['web-1', 'web-2']]) {
    const readyAt = firstIndex(ev, (e) => e.object.metadata.name === prev && isReady(e.object));
    const addedAt = firstIndex(ev, (e) => e.type === 'ADDED' && e.object.metadata.name === next);
    assert.ok(readyAt >= 0 && readyAt < addedAt, `${next} created (event ${addedAt}) before ${prev} was ready (event ${readyAt})`);
  }
  const pod0 = (await live(ns)).find((p) => p.metadata.name === 'web-0')!;
  assert.equal((pod0.spec as { hostname?: string }).hostname, 'web-0');
  assert.equal((pod0.spec as { subdomain?: string }).subdomain, 'web');
  assert.equal(pod0.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'web-0');

  const before = ev.length;
  await api.patch(`/apis/apps/v1/namespaces/${ns}/statefulsets/web`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  const st = await eventually('rolled out', async () => {
    const s = await statusOf(ns, 'web');
    const pods = await live(ns);
    return pods.length === 3 && pods.every((p) => imageOf(p) === 'nginx:1.14' && isReady(p)) && s.currentRevision === s.updateRevision && s.updatedReplicas === 3 && s;
  }, 40_000);
  watch.stop();
  const roll = ev.slice(before);
  // The order old pods were taken down in: first deletion (deletionTimestamp set or DELETED) per name.
  const order: string[] = [];
  for (const e of roll) {
    const n = e.object.metadata.name!;
    if ((e.type === 'DELETED' || e.object.metadata.deletionTimestamp) && imageOf(e.object) === 'nginx:1.13' && !order.includes(n)) order.push(n);
  }
  assert.deepEqual(order, ['web-2', 'web-1', 'web-0']);
  // Each next old pod goes only after the replacement of the previous one is Ready.
  for (const [prev, next] of [['web-2', 'web-1'], ['web-1', 'web-0']]) {
    const readyAt = firstIndex(roll, (e) => e.object.metadata.name === prev && imageOf(e.object) === 'nginx:1.14' && isReady(e.object));
    const goneAt = firstIndex(roll, (e) => e.object.metadata.name === next && (e.type === 'DELETED' || !!e.object.metadata.deletionTimestamp));
    assert.ok(readyAt >= 0 && readyAt < goneAt, `${next} taken down before the new ${prev} was ready`);
  }
  assert.equal(st.readyReplicas, 3);
  assert.equal(st.observedGeneration, 2);
  const revs = await api.list(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`);
  assert.deepEqual(revs.map((r) => r.revision).sort(), [1, 2]);
  assert.ok(revs.every((r) => r.metadata.ownerReferences?.[0]?.kind === 'StatefulSet' && r.metadata.labels?.app === 'web'), "revs.every((r) => r.metadata.ownerReferences?.[0]?.kind === 'StatefulSet' && r.metadata.labels?.app…");
  assert.equal(revs.find((r) => r.revision === 2)!.metadata.name, st.updateRevision);
});

test('a partition keeps lower ordinals at the current revision; scaling down removes the highest ordinal first', async () => {
  const ns = await api.namespace('sts');
  await api.create(`/apis/apps/v1/namespaces/${ns}/statefulsets`, sts('db', 3, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }));
  await eventually('3 ready', async () => (await live(ns)).filter(isReady).length === 3);
  await api.patch(`/apis/apps/v1/namespaces/${ns}/statefulsets/db`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  await eventually('db-2 updated', async () => {
    const pods = await live(ns);
    const by = Object.fromEntries(pods.map((p) => [p.metadata.name, p]));
    return pods.length === 3 && by['db-2'] && imageOf(by['db-2']) === 'nginx:1.14' && isReady(by['db-2']) && imageOf(by['db-0']) === 'nginx:1.13' && imageOf(by['db-1']) === 'nginx:1.13';
  }, 30_000);
  const s = await eventually('status', async () => {
    const x = await statusOf(ns, 'db');
    return x.updatedReplicas === 1 && x.currentReplicas === 2 && x;
  });
  assert.notEqual(s.currentRevision, s.updateRevision);
  const watch = await recordWatch(env.url, `/api/v1/namespaces/${ns}/pods`);
  await api.patch(`/apis/apps/v1/namespaces/${ns}/statefulsets/db/scale`, { spec: { replicas: 1 } });
  await eventually('one left', async () => {
    const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
    return pods.length === 1 && pods[0].metadata.name === 'db-0';
  }, 30_000);
  // The list can show the deletion before the watch stream has delivered its event (a loaded CI machine did).
  await eventually('both deletions watched', async () => watch.events.filter((e) => e.type === 'DELETED').length >= 2, 10_000);
  watch.stop();
  const deleted = watch.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
  assert.deepEqual(deleted, ['db-2', 'db-1']);
});

test('Parallel makes every pod at once; OnDelete updates a pod only when it is deleted', async () => {
  const ns = await api.namespace('sts');
  const watch = await recordWatch(env.url, `/api/v1/namespaces/${ns}/pods`);
  // Ready a second after start, as a real container's probe would be: the controller's creates are paced by its
  // client's QPS (50 ms each once the burst is spent), and a test kubelet could otherwise make par-0 Ready
  // before par-2 is even sent, which would make Parallel and OrderedReady indistinguishable in the watch.
  const slowReady = { 'simulator.cluster.local/ready-after-seconds': '1' };
  await api.create(`/apis/apps/v1/namespaces/${ns}/statefulsets`, sts('par', 3, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'OnDelete' } }, 'nginx:1.13', slowReady));
  await eventually('3 ready', async () => (await live(ns)).filter(isReady).length === 3);
  watch.stop();
  // All three were created before any became Ready.
  const ev = watch.events;
  const lastAdded = Math.max(...['par-0', 'par-1', 'par-2'].map((n) => firstIndex(ev, (e) => e.type === 'ADDED' && e.object.metadata.name === n)));
  const firstReady = firstIndex(ev, (e) => isReady(e.object));
  assert.ok(lastAdded < firstReady, `Parallel waited for a pod to be ready: ${ev.map((e) => `${e.type} ${e.object.metadata.name} ready=${isReady(e.object)}`).join(', ')}`);
  await api.patch(`/apis/apps/v1/namespaces/${ns}/statefulsets/par`, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  await eventually('update revision observed', async () => (await statusOf(ns, 'par')).observedGeneration === 2);
  await new Promise((r) => setTimeout(r, 500));
  assert.ok((await live(ns)).every((p) => imageOf(p) === 'nginx:1.13'), 'OnDelete replaced pods by itself');
  await api.delete(`/api/v1/namespaces/${ns}/pods/par-1`);
  await eventually('par-1 back with the new image', async () => {
    const p = (await live(ns)).find((x) => x.metadata.name === 'par-1');
    return p && imageOf(p) === 'nginx:1.14' && isReady(p);
  });
  assert.equal(imageOf((await live(ns)).find((x) => x.metadata.name === 'par-0')!), 'nginx:1.13');
});
