// Deployment controller against a real simulator with simulated nodes: availability, rolling update limits,
// history limit, scaling through /scale, Recreate, pausing, progress deadline.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, isReady, phaseOf, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { HASH_LABEL, REVISION, resolveFenceposts } from './deployment.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['deployment', 'replicaset'] });
  api = new Api(env.url);
});
after(() => env.close());

const deployment = (name: string, replicas: number, extra: Record<string, unknown> = {}, image = 'nginx:1.13', annotations?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }, { image, annotations }), ...extra },
});

interface DStatus {
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  observedGeneration?: number;
  conditions?: Array<{ type: string; status: string; reason?: string }>;
}
const st = (d: KubeObject | undefined) => (d?.status ?? {}) as DStatus;
const cond = (d: KubeObject | undefined, type: string) => st(d).conditions?.find((c) => c.type === type);
const dPath = (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
const livePods = async (ns: string) => (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);

async function waitAvailable(ns: string, name: string, replicas: number): Promise<KubeObject> {
  return eventually(`deployment ${name} available with ${replicas}`, async () => {
    const d = await api.get(dPath(ns, name));
    const s = st(d);
    return s.availableReplicas === replicas && s.updatedReplicas === replicas && s.replicas === replicas && s.observedGeneration === d?.metadata.generation && cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable' && d;
  });
}

test('resolveFenceposts rounds maxSurge up and maxUnavailable down; both 0 means 1 unavailable', () => {
  assert.deepEqual(resolveFenceposts({ replicas: 10 }), { maxSurge: 3, maxUnavailable: 2 });
  assert.deepEqual(resolveFenceposts({ replicas: 3, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' } } }), { maxSurge: 0, maxUnavailable: 1 });
  assert.deepEqual(resolveFenceposts({ replicas: 4, strategy: { rollingUpdate: { maxSurge: '50%', maxUnavailable: 0 } } }), { maxSurge: 2, maxUnavailable: 0 });
});

test('a Deployment of 3 replicas becomes available with 3 Running, Ready pods in one ReplicaSet', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('web', 3));
  const d = await waitAvailable(ns, 'web', 3);
  assert.equal(cond(d, 'Available')?.status, 'True');
  assert.equal(cond(d, 'Available')?.reason, 'MinimumReplicasAvailable');
  assert.equal(d.metadata.annotations?.[REVISION], '1');
  const rss = await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`);
  assert.equal(rss.length, 1);
  const rs = rss[0];
  const hash = rs.metadata.labels?.[HASH_LABEL];
  assert.ok(hash && /^\d+$/.test(hash), 'pod-template-hash is a decimal number');
  assert.equal(rs.metadata.name, `web-${hash}`);
  assert.equal(rs.metadata.annotations?.[REVISION], '1');
  assert.deepEqual(rs.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [['Deployment', 'web', true, true]]);
  const pods = await livePods(ns);
  assert.equal(pods.length, 3);
  for (const p of pods) {
    assert.equal(phaseOf(p), 'Running');
    assert.ok(isReady(p), 'isReady(p)');
    assert.equal(p.metadata.labels?.[HASH_LABEL], hash);
    assert.equal(p.metadata.ownerReferences?.[0].name, rs.metadata.name);
    assert.equal(p.metadata.ownerReferences?.[0].controller, true);
  }
});

test('an image change rolls out a new ReplicaSet within maxSurge/maxUnavailable and keeps revisionHistoryLimit old ones', async () => {
  const ns = await api.namespace();
  const name = 'roll';
  // Pods get ready 0.3 s after starting, so that the rollout has observable intermediate steps.
  const ann = { 'simulator.cluster.local/ready-after-seconds': '0.3' };
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment(name, 4, { revisionHistoryLimit: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } }, 'nginx:1.13', ann));
  await waitAvailable(ns, name, 4);
  // Watch pod counts while rolling: never more than 4 + 1 pods, never fewer than 4 - 1 ready.
  const violations: string[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const pods = await livePods(ns);
      if (pods.length > 5) violations.push(`${pods.length} pods`);
      const ready = pods.filter(isReady).length;
      if (ready < 3) violations.push(`${ready} ready`);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  for (const [i, image] of ['nginx:1.14', 'nginx:1.15'].entries()) {
    await api.patch(dPath(ns, name), { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } }, 'application/strategic-merge-patch+json');
    const d = await waitAvailable(ns, name, 4);
    assert.equal(d.metadata.annotations?.[REVISION], String(i + 2));
  }
  sampling = false;
  await sampler;
  assert.deepEqual(violations, []);
  const rss = await eventually('old ReplicaSets pruned to the history limit', async () => {
    const list = await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`);
    return list.length === 2 && list;
  });
  const revisions = rss.map((rs) => rs.metadata.annotations?.[REVISION]).sort();
  assert.deepEqual(revisions, ['2', '3'], 'revision 1 was deleted, 2 kept as history');
  const pods = await livePods(ns);
  assert.equal(pods.length, 4);
  for (const p of pods) assert.equal((p.spec as { containers: Array<{ image: string }> }).containers[0].image, 'nginx:1.15');
});

test('scale through /scale changes the pod count, up and down', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('sc', 2));
  await waitAvailable(ns, 'sc', 2);
  for (const n of [5, 1]) {
    const scale = await api.get(`${dPath(ns, 'sc')}/scale`);
    const r = await api.req('PUT', `${dPath(ns, 'sc')}/scale`, { ...scale, spec: { replicas: n } });
    assert.equal(r.status, 200);
    await waitAvailable(ns, 'sc', n);
    await eventually(`${n} live pods`, async () => (await livePods(ns)).length === n);
  }
});

test('Recreate scales the old ReplicaSet to 0 before the new one gets pods', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('rec', 2, { strategy: { type: 'Recreate' } }));
  await waitAvailable(ns, 'rec', 2);
  let mixed = false;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const images = new Set((await livePods(ns)).map((p) => (p.spec as { containers: Array<{ image: string }> }).containers[0].image));
      if (images.size > 1) mixed = true;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await api.patch(dPath(ns, 'rec'), { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.14' }] } } } }, 'application/strategic-merge-patch+json');
  await eventually('recreated', async () => {
    const d = await waitAvailable(ns, 'rec', 2);
    return d.metadata.annotations?.[REVISION] === '2';
  });
  sampling = false;
  await sampler;
  assert.equal(mixed, false, 'old and new pods never ran together');
});

test('a paused Deployment does not roll out; resuming does', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('pz', 1, { paused: true }));
  const d = await eventually('paused condition', async () => {
    const x = await api.get(dPath(ns, 'pz'));
    return cond(x, 'Progressing')?.reason === 'DeploymentPaused' && x;
  });
  assert.equal(cond(d, 'Progressing')?.status, 'Unknown');
  assert.equal((await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`)).length, 0, 'no ReplicaSet while paused');
  await api.patch(dPath(ns, 'pz'), { spec: { paused: false } });
  await waitAvailable(ns, 'pz', 1);
});

test('a rollout that cannot progress gets Progressing=False with reason ProgressDeadlineExceeded', async () => {
  const ns = await api.namespace();
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deployment('stuck', 2, { progressDeadlineSeconds: 1 }, 'nginx:1.13', { 'simulator.cluster.local/never-ready': 'true' }));
  const d = await eventually('deadline exceeded', async () => {
    const x = await api.get(dPath(ns, 'stuck'));
    return cond(x, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && x;
  });
  assert.equal(cond(d, 'Progressing')?.status, 'False');
  assert.equal(cond(d, 'Available')?.status, 'False');
  assert.equal(st(d).unavailableReplicas, 2);
});
