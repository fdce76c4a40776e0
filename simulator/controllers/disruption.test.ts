// Disruption controller and pods/eviction: PDB status from the pods and their controllers; evictions beyond the
// budget are refused with 429; `kubectl drain` of a node evicts one pod at a time under maxUnavailable 1.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, isReady, podTemplate, recordWatch, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

const run = promisify(execFile);
let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['disruption', 'deployment', 'replicaset'], nodes: { count: 2 } });
  api = new Api(env.url);
});
after(() => env.close());

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }) },
});
const pdbOf = async (ns: string, name: string) =>
  ((await api.get(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets/${name}`))?.status ?? {}) as Record<string, unknown>;
const evict = (ns: string, pod: string) =>
  api.req('POST', `/api/v1/namespaces/${ns}/pods/${pod}/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: pod, namespace: ns } });

test('PDB status follows the pods; an eviction beyond the budget is 429, within it deletes the pod', async () => {
  const ns = await api.namespace('pdb');
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('web', 3));
  await api.create(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'web' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
  });
  const st = await eventually('budget computed', async () => {
    const s = await pdbOf(ns, 'web');
    return s.currentHealthy === 3 && s.disruptionsAllowed === 1 && s;
  });
  assert.deepEqual(
    { ...st, disruptedPods: undefined },
    { observedGeneration: 1, disruptedPods: undefined, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 },
  );
  const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
  const first = await evict(ns, pods[0].metadata.name!);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.equal((first.body as unknown as { status?: string }).status, 'Success');
  const second = await evict(ns, pods[1].metadata.name!);
  assert.equal(second.status, 429, JSON.stringify(second.body));
  assert.equal((second.body as unknown as { reason?: string }).reason, 'TooManyRequests');
  assert.equal((second.body as unknown as { message?: string }).message, "Cannot evict pod as it would violate the pod's disruption budget.");
  assert.equal((await api.get(`/api/v1/namespaces/${ns}/pods/${pods[1].metadata.name}`))?.metadata.deletionTimestamp, undefined);
  // The replacement becomes ready and the budget allows one disruption again.
  await eventually('budget restored', async () => {
    const s = await pdbOf(ns, 'web');
    return s.currentHealthy === 3 && s.disruptionsAllowed === 1;
  });
  assert.equal((await evict(ns, pods[1].metadata.name!)).status, 201);
  // minAvailable as a count: expectedPods is the number of selected pods.
  await api.create(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'min' },
    spec: { minAvailable: 3, selector: { matchLabels: { app: 'web' } } },
  });
  await eventually('minAvailable budget', async () => {
    const s = await pdbOf(ns, 'min');
    return s.expectedPods === 3 && s.desiredHealthy === 3 && s.disruptionsAllowed === 0 && s.currentHealthy === 3;
  });
  // Two budgets selecting one pod: the eviction subresource refuses (500, as 1.9).
  const p = (await api.list(`/api/v1/namespaces/${ns}/pods`)).find((x) => !x.metadata.deletionTimestamp)!;
  const both = await evict(ns, p.metadata.name!);
  assert.equal(both.status, 500);
  assert.match((both.body as unknown as { message: string }).message, /more than one PodDisruptionBudget/);
  assert.equal((await evict(ns, 'nosuch')).status, 404);
  await api.delete(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets/min`);
  await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
  await api.delete(`/api/v1/namespaces/${ns}/pods`);
});

test('kubectl drain with a PDB of maxUnavailable 1 evicts one pod at a time', async () => {
  const ns = await api.namespace('drain');
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('app', 4));
  await api.create(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'app' },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'app' } } },
  });
  // The node drained is the one holding most of the four pods (at least two of them on two nodes): which one that is
  // depends on where earlier tests left pods, since the scheduler favours the less loaded node.
  const { node, onNode } = await eventually('4 ready pods, the budget allowing 1', async () => {
    const pods = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((x) => !x.metadata.deletionTimestamp);
    const s = await pdbOf(ns, 'app');
    if (pods.length !== 4 || !pods.every(isReady) || s.disruptionsAllowed !== 1) return false;
    const byNode = new Map<string, KubeObject[]>();
    for (const x of pods) {
      const name = (x.spec as { nodeName?: string }).nodeName ?? '';
      byNode.set(name, [...(byNode.get(name) ?? []), x]);
    }
    const [most, here] = [...byNode].sort((a, b) => b[1].length - a[1].length)[0];
    return { node: most, onNode: here };
  }, 60_000);
  assert.ok(onNode.length >= 2, `${onNode.length} pods on ${node}`);
  const watch = await recordWatch(env.url, `/api/v1/namespaces/${ns}/pods`);
  const { stdout } = await run('kubectl', ['--server', env.url, 'drain', node, '--ignore-daemonsets', '--timeout=90s'], { timeout: 120_000 });
  watch.stop();
  assert.match(stdout, /drained/);
  // Replay the watch: at every eviction (first deletionTimestamp of a pod) no other pod may be unavailable.
  const state = new Map<string, KubeObject>();
  const evicted: string[] = [];
  for (const e of watch.events) {
    const name = e.object.metadata.name!;
    const wasDeleting = !!state.get(name)?.metadata.deletionTimestamp;
    if (e.type === 'DELETED') state.delete(name);
    else state.set(name, e.object);
    if (!wasDeleting && e.object.metadata.deletionTimestamp && onNode.some((p) => p.metadata.name === name)) {
      evicted.push(name);
      const healthyOthers = [...state.values()].filter((p) => p.metadata.name !== name && !p.metadata.deletionTimestamp && isReady(p)).length;
      assert.equal(healthyOthers, 3, `when ${name} was evicted only ${healthyOthers} other pods were healthy`);
    }
  }
  assert.deepEqual(evicted.sort(), onNode.map((p) => p.metadata.name).sort());
  const nodeObj = await api.get(`/api/v1/nodes/${node}`);
  assert.equal((nodeObj?.spec as { unschedulable?: boolean }).unschedulable, true);
  await api.patch(`/api/v1/nodes/${node}`, { spec: { unschedulable: null } });
});
