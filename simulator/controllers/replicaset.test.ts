// ReplicaSet and ReplicationController controllers against a real simulator with simulated nodes.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, isReady, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { deletionRank } from './kit/claim.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['replicaset', 'replicationcontroller'] });
  api = new Api(env.url);
});
after(() => env.close());

const livePods = async (ns: string) => (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
const rsPath = (ns: string, name = '') => `/apis/apps/v1/namespaces/${ns}/replicasets${name ? `/${name}` : ''}`;
const status = (o: KubeObject | undefined) => (o?.status ?? {}) as Record<string, number | undefined>;

async function waitRS(ns: string, name: string, n: number, path = rsPath(ns, name)): Promise<KubeObject> {
  return eventually(`${name} with ${n} ready`, async () => {
    const rs = await api.get(path);
    const s = status(rs);
    return (
      (s.replicas ?? 0) === n && (s.readyReplicas ?? 0) === n && (s.availableReplicas ?? 0) === n && s.observedGeneration === rs?.metadata.generation && rs
    );
  });
}

test('deletion order: unscheduled before scheduled, not ready before ready, newer before older', () => {
  const pod = (name: string, nodeName: string | undefined, ready: boolean, created: string): KubeObject => ({
    metadata: { name, creationTimestamp: created },
    spec: nodeName ? { nodeName } : {},
    status: { phase: nodeName ? 'Running' : 'Pending', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: created }] },
  });
  const pods = [
    pod('old-ready', 'n', true, '2020-01-01T00:00:00Z'),
    pod('new-ready', 'n', true, '2020-01-02T00:00:00Z'),
    pod('unready', 'n', false, '2020-01-01T00:00:00Z'),
    pod('unscheduled', undefined, false, '2020-01-01T00:00:00Z'),
  ];
  assert.deepEqual(pods.sort(deletionRank).map((p) => p.metadata.name), ['unscheduled', 'unready', 'new-ready', 'old-ready']);
});

test('a ReplicaSet creates owned pods, replaces a deleted pod, and scale down removes pods', async () => {
  const ns = await api.namespace();
  await api.create(rsPath(ns), {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'rs' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'rs' } }, template: podTemplate({ app: 'rs' }) },
  });
  const rs = await waitRS(ns, 'rs', 3);
  assert.equal(status(rs).fullyLabeledReplicas, 3);
  const pods = await livePods(ns);
  assert.equal(pods.length, 3);
  for (const p of pods) {
    assert.ok(p.metadata.name?.startsWith('rs-'), "p.metadata.name?.startsWith('rs-')");
    assert.deepEqual(p.metadata.ownerReferences, [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
  }
  // Deleting a pod makes the ReplicaSet replace it.
  const victim = pods[0].metadata.name!;
  await api.delete(`/api/v1/namespaces/${ns}/pods/${victim}`);
  await eventually('replacement pod', async () => {
    const now = await livePods(ns);
    return now.length === 3 && !now.some((p) => p.metadata.name === victim) && now.every(isReady);
  });
  // Scale down.
  await api.patch(rsPath(ns, 'rs'), { spec: { replicas: 1 } });
  await waitRS(ns, 'rs', 1);
  await eventually('one pod left', async () => (await api.list(`/api/v1/namespaces/${ns}/pods`)).length === 1);
});

test('a ReplicaSet adopts a matching orphan and releases a pod whose labels stop matching', async () => {
  const ns = await api.namespace();
  await api.create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'orphan', labels: { app: 'adopt' } },
    spec: { containers: [{ name: 'main', image: 'nginx:1.13' }] },
  });
  // Running means the node has written its status: long after the daemon's pod watch saw the pod appear.
  await eventually('orphan running', async () => isReady((await api.get(`/api/v1/namespaces/${ns}/pods/orphan`))!));
  await api.create(rsPath(ns), {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'adopt' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'adopt' } }, template: podTemplate({ app: 'adopt' }) },
  });
  await waitRS(ns, 'adopt', 2);
  const orphan = await api.get(`/api/v1/namespaces/${ns}/pods/orphan`);
  assert.equal(orphan?.metadata.ownerReferences?.[0]?.name, 'adopt', 'the orphan was adopted');
  assert.equal((await livePods(ns)).length, 2, 'the adopted pod counts: only one more was made');
  await api.patch(`/api/v1/namespaces/${ns}/pods/orphan`, { metadata: { labels: { app: 'other' } } });
  await eventually('released and replaced', async () => {
    const o = await api.get(`/api/v1/namespaces/${ns}/pods/orphan`);
    return !o?.metadata.ownerReferences?.length && (await livePods(ns)).length === 3;
  });
});

test('a ReplicationController keeps its replicas with pods owned as v1 ReplicationController', async () => {
  const ns = await api.namespace();
  const path = `/api/v1/namespaces/${ns}/replicationcontrollers`;
  await api.create(path, {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'rc' },
    spec: { replicas: 2, selector: { app: 'rc' }, template: podTemplate({ app: 'rc' }) },
  });
  await waitRS(ns, 'rc', 2, `${path}/rc`);
  const pods = await livePods(ns);
  assert.equal(pods.length, 2);
  assert.deepEqual(
    pods.map((p) => [p.metadata.ownerReferences?.[0].apiVersion, p.metadata.ownerReferences?.[0].kind]),
    [
      ['v1', 'ReplicationController'],
      ['v1', 'ReplicationController'],
    ],
  );
  const scale = await api.get(`${path}/rc/scale`);
  await api.req('PUT', `${path}/rc/scale`, { ...scale, spec: { replicas: 0 } });
  await eventually('no pods', async () => (await api.list(`/api/v1/namespaces/${ns}/pods`)).length === 0);
});
