// DaemonSet controller: one pod per node, placed by the controller itself, following nodeSelector.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
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
  await api.create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: podTemplate({ app: 'agent' }) } });
  const ds = await eventually('all scheduled and ready', async () => {
    const x = await api.get(`/apis/apps/v1/namespaces/${ns}/daemonsets/agent`);
    const s = (x?.status ?? {}) as Record<string, number>;
    return s.desiredNumberScheduled === 3 && s.currentNumberScheduled === 3 && s.numberReady === 3 && s.numberAvailable === 3 && s.updatedNumberScheduled === 3 && x;
  });
  assert.equal((ds.status as Record<string, number>).numberMisscheduled, 0);
  const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
  assert.deepEqual(pods.map((p) => (p.spec as { nodeName: string }).nodeName).sort(), env.nodes.nodeNames.slice().sort());
  assert.ok(pods.every(isReady));
  assert.ok(pods.every((p) => p.metadata.labels?.['controller-revision-hash'] && p.metadata.labels?.['pod-template-generation']));
});

test('a nodeSelector limits the nodes; a template change replaces the pods (RollingUpdate)', async () => {
  const ns = await api.namespace();
  const path = `/apis/apps/v1/namespaces/${ns}/daemonsets/one`;
  const template = podTemplate({ app: 'one' });
  (template.spec as Record<string, unknown>).nodeSelector = { 'kubernetes.io/hostname': env.nodes.nodeNames[1] };
  await api.create(`/apis/apps/v1/namespaces/${ns}/daemonsets`, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'one' }, spec: { selector: { matchLabels: { app: 'one' } }, template } });
  const first = await eventually('one pod on node 1', async () => {
    const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
    return pods.length === 1 && isReady(pods[0]) && pods[0];
  });
  assert.equal((first.spec as { nodeName: string }).nodeName, env.nodes.nodeNames[1]);
  await api.patch(path, { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  await eventually('replaced with the new image', async () => {
    const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
    return pods.length === 1 && pods[0].metadata.uid !== first.metadata.uid && (pods[0].spec as { containers: Array<{ image: string }> }).containers[0].image === 'nginx:1.14' && isReady(pods[0]);
  });
});
