// DaemonSet controller: one pod per node, placed by the controller itself, following nodeSelector; its
// ControllerRevisions (what `kubectl rollout history|undo ds` read and apply).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { safeEncode } from './kit/history.ts';
import { Api, eventually, isReady, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['daemonset'], nodes: { count: 3 } });
  api = new Api(env.url);
});
after(() => env.close());

test('a DaemonSet runs one ready pod on every node and reports it in status', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate({ app: 'agent' }) },
  });
  const ds = await eventually('all scheduled and ready', async () => {
    const x = await api.get(`/apis/apps/v1/namespaces/${ns}/daemonsets/agent`);
    const s = (x?.status ?? {}) as Record<string, number>;
    return (
      s.desiredNumberScheduled === 3 && s.currentNumberScheduled === 3 && s.numberReady === 3 && s.numberAvailable === 3 && s.updatedNumberScheduled === 3 && x
    );
  });
  assert.equal((ds.status as Record<string, number>).numberMisscheduled, 0);
  const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
  assert.deepEqual(pods.map((p) => (p.spec as { nodeName: string }).nodeName).sort(), env.nodes.nodeNames.slice().sort());
  assert.ok(pods.every(isReady), 'pods.every(isReady)');
  assert.ok(pods.every((p) => p.metadata.labels?.['controller-revision-hash'] && p.metadata.labels?.['pod-template-generation']), "pods.every((p) => p.metadata.labels?.['controller-revision-hash'] && p.metadata.labels?.['pod-templ…");
});

test('a nodeSelector limits the nodes; a template change replaces the pods (RollingUpdate)', async () => {
  const ns = await api.namespace();
  const path = `/apis/apps/v1/namespaces/${ns}/daemonsets/one`;
  const template = podTemplate({ app: 'one' });
  (template.spec as Record<string, unknown>).nodeSelector = { 'kubernetes.io/hostname': env.nodes.nodeNames[1] };
  await api.create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'one' },
    spec: { selector: { matchLabels: { app: 'one' } }, template },
  });
  const first = await eventually('one pod on node 1', async () => {
    const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
    return pods.length === 1 && isReady(pods[0]) && pods[0];
  });
  assert.equal((first.spec as { nodeName: string }).nodeName, env.nodes.nodeNames[1]);
  await api.patch(path, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  await eventually('replaced with the new image', async () => {
    const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
    return (
      pods.length === 1 &&
      pods[0].metadata.uid !== first.metadata.uid &&
      (pods[0].spec as { containers: Array<{ image: string }> }).containers[0].image === 'nginx:1.14' &&
      isReady(pods[0])
    );
  });
});

test('ControllerRevisions: one per template, named and labelled as 1.9; going back reuses the old revision; pruned to revisionHistoryLimit', async () => {
  const ns = await api.namespace();
  const path = `/apis/apps/v1/namespaces/${ns}/daemonsets/hist`;
  const revisions = async () => (await api.list(`/apis/apps/v1/namespaces/${ns}/controllerrevisions`)).sort((a, b) => Number(a.revision) - Number(b.revision));
  const livePods = async () => (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
  const image = (p: KubeObject) => (p.spec as { containers: Array<{ image: string }> }).containers[0].image;
  const settled = (img: string) => eventually(`every pod runs ${img}`, async () => {
    const pods = await livePods();
    return pods.length === 3 && pods.every((p) => image(p) === img && isReady(p)) && pods;
  }, 60_000);
  const ds = await api.create<KubeObject>(`/apis/apps/v1/namespaces/${ns}/daemonsets`, {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'hist', annotations: { 'kubernetes.io/change-cause': 'first' } },
    spec: { revisionHistoryLimit: 1, selector: { matchLabels: { app: 'hist' } }, template: podTemplate({ app: 'hist' }) },
  });
  const first = await settled('nginx:1.13');
  const [r1] = await eventually('one revision', async () => {
    const rs = await revisions();
    return rs.length === 1 && rs;
  });
  const hash1 = first[0].metadata.labels!['controller-revision-hash'];
  assert.ok(first.every((p) => p.metadata.labels!['controller-revision-hash'] === hash1), "first.every((p) => p.metadata.labels!['controller-revision-hash'] === hash1)");
  assert.match(hash1, /^\d+$/, 'the pods carry the decimal template hash');
  assert.equal(r1.metadata.name, `hist-${safeEncode(hash1)}`);
  assert.deepEqual(r1.metadata.labels, { app: 'hist', 'controller-revision-hash': hash1 });
  assert.equal(r1.metadata.annotations?.['kubernetes.io/change-cause'], 'first');
  assert.equal(r1.revision, 1);
  assert.deepEqual(r1.metadata.ownerReferences?.map((o) => [o.kind, o.name, o.uid, o.controller]), [['DaemonSet', 'hist', ds.metadata.uid, true]]);
  const data = r1.data as { spec: { template: Record<string, unknown> } };
  assert.equal(data.spec.template.$patch, 'replace');
  assert.equal((data.spec.template.spec as { containers: Array<{ image: string }> }).containers[0].image, 'nginx:1.13');

  // A new template: revision 2, pods roll to its hash.
  await api.patch(
    path,
    {
      metadata: { annotations: { 'kubernetes.io/change-cause': 'second' } },
      spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } },
    },
    'application/strategic-merge-patch+json',
  );
  const second = await settled('nginx:1.14');
  const hash2 = second[0].metadata.labels!['controller-revision-hash'];
  assert.notEqual(hash2, hash1);
  const rs2 = await revisions();
  assert.deepEqual(rs2.map((r) => [r.metadata.name, r.revision]), [[r1.metadata.name, 1], [`hist-${safeEncode(hash2)}`, 2]]);
  assert.equal(rs2[1].metadata.annotations?.['kubernetes.io/change-cause'], 'second');

  // What `kubectl rollout undo` does: the old revision's data as a strategic merge patch. The old revision is reused
  // with the next number, and the pods go back to its hash.
  await api.patch(path, r1.data, 'application/strategic-merge-patch+json');
  const third = await settled('nginx:1.13');
  assert.ok(third.every((p) => p.metadata.labels!['controller-revision-hash'] === hash1), "third.every((p) => p.metadata.labels!['controller-revision-hash'] === hash1)");
  await eventually('revision 1 brought back as 3', async () => {
    const rs = await revisions();
    return JSON.stringify(rs.map((r) => [r.metadata.name, r.revision])) === JSON.stringify([[`hist-${safeEncode(hash2)}`, 2], [r1.metadata.name, 3]]);
  });
  // A third template: with revisionHistoryLimit 1, the oldest revision nobody runs goes once the pods moved.
  await api.patch(path, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.15' }] } } } }, 'application/strategic-merge-patch+json');
  await settled('nginx:1.15');
  await eventually('pruned to the current revision and one more', async () => {
    const rs = await revisions();
    return rs.length === 2 && rs[0].metadata.name === r1.metadata.name && rs[1].revision === 4;
  });
});
