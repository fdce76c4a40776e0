// Simulated nodes against a real simulator: Node registration, scheduling, the pod life cycle stages and
// the annotations that steer them, restarts, graceful deletion.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { startNodes, type NodesHandle } from './index.ts';
import { podBehaviour } from './annotations.ts';
import { RESTART_COUNT_CAP } from './pod-status.ts';
import { Api, eventually, isReady, phaseOf } from '../testing/workload-test-env.ts';

let sim: RunningSimulator;
let nodes: NodesHandle;
let api: Api;
before(async () => {
  sim = await startSimulator();
  nodes = await startNodes(sim.url, {
    count: 2,
    startMs: 30,
    batchRunMs: 100,
    stopMs: 20,
    restartBackoffMs: 20,
    maxRestartBackoffMs: 40,
    schedulerRetryMs: 100,
    shape: { pods: 4 },
    log: () => {},
  });
  api = new Api(sim.url);
});
after(async () => {
  await nodes.close();
  await sim.close();
});

interface ContainerStatus {
  state: Record<string, { exitCode?: number; reason?: string }>;
  lastState: Record<string, { exitCode?: number }>;
  ready: boolean;
  restartCount: number;
  containerID?: string;
  imageID?: string;
}
const cs = (p: KubeObject | undefined) => ((p?.status as { containerStatuses?: ContainerStatus[] } | undefined)?.containerStatuses ?? [])[0];
const mkPod = (ns: string, name: string, opts: { restartPolicy?: string; annotations?: Record<string, string>; extra?: Record<string, unknown> } = {}) =>
  api.create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, annotations: opts.annotations },
    spec: { restartPolicy: opts.restartPolicy ?? 'Always', containers: [{ name: 'main', image: 'nginx:1.13' }], ...opts.extra },
  });
const podAt = (ns: string, name: string) => api.get(`/api/v1/namespaces/${ns}/pods/${name}`);

test('annotations: defaults, run-seconds, exit-code, fail-after-seconds, ready-after-seconds', () => {
  const d = { startMs: 10, batchRunMs: 500 };
  const pod = (restartPolicy: string, annotations: Record<string, string> = {}): KubeObject => ({ metadata: { annotations }, spec: { restartPolicy } });
  assert.deepEqual(podBehaviour(pod('Always'), d), { startMs: 10, readyAfterMs: 0, runMs: undefined, exitCode: 0 });
  assert.equal(podBehaviour(pod('Never'), d).runMs, 500);
  assert.deepEqual(podBehaviour(pod('Always', { 'simulator.cluster.local/fail-after-seconds': '2' }), d), {
    startMs: 10,
    readyAfterMs: 0,
    runMs: 2000,
    exitCode: 1,
  });
  assert.equal(podBehaviour(pod('Never', { 'simulator.cluster.local/exit-code': '3', 'simulator.cluster.local/run-seconds': '0.2' }), d).exitCode, 3);
  assert.equal(podBehaviour(pod('Never', { 'simulator.cluster.local/ready-after-seconds': '1.5' }), d).readyAfterMs, 1500);
  assert.equal(podBehaviour(pod('Never', { 'simulator.cluster.local/run-seconds': 'soon' }), d).runMs, 500, 'unparseable values are ignored');
});

test('nodes register Ready with capacity, nodeInfo and addresses, without a pod CIDR', async () => {
  const list = await api.list('/api/v1/nodes');
  assert.deepEqual(list.map((n) => n.metadata.name).sort(), nodes.nodeNames);
  for (const n of list) {
    const status = n.status as {
      conditions: Array<{ type: string; status: string; reason: string }>;
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      nodeInfo: Record<string, string>;
      addresses: Array<{ type: string }>;
    };
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.reason, 'KubeletReady');
    assert.equal(status.capacity.pods, '4');
    assert.ok(status.allocatable.cpu && status.allocatable.memory, 'status.allocatable.cpu && status.allocatable.memory');
    assert.equal(status.nodeInfo.kubeletVersion, 'v1.9.0');
    assert.deepEqual(status.addresses.map((a) => a.type), ['InternalIP', 'Hostname']);
    assert.equal((n.spec as { podCIDR?: string }).podCIDR, undefined, 'like a real kubelet, the node IPAM sets spec.podCIDR, not the node');
  }
});

test('a pod is bound, then Running and Ready with container status, IPs and conditions', async () => {
  const ns = await api.namespace('nodes');
  await mkPod(ns, 'web');
  const p = await eventually('running', async () => {
    const x = await podAt(ns, 'web');
    return phaseOf(x!) === 'Running' && isReady(x!) && x;
  });
  const spec = p.spec as { nodeName: string };
  const status = p.status as { podIP: string; hostIP: string; startTime: string; conditions: Array<{ type: string; status: string }> };
  assert.ok(nodes.nodeNames.includes(spec.nodeName), 'nodes.nodeNames.includes(spec.nodeName)');
  assert.match(status.podIP, /^10\./);
  assert.match(status.hostIP, /^172\.16\./);
  assert.ok(status.startTime, 'status.startTime');
  assert.deepEqual(status.conditions.map((c) => [c.type, c.status]), [['Initialized', 'True'], ['Ready', 'True'], ['PodScheduled', 'True']]);
  const c = cs(p);
  assert.ok(c.state.running, 'c.state.running');
  assert.equal(c.ready, true);
  assert.equal(c.restartCount, 0);
  assert.match(c.containerID!, /^sim:\/\/[0-9a-f]{64}$/);
  assert.match(c.imageID!, /^docker-pullable:\/\/nginx@sha256:/);
});

test('batch pods end Succeeded or Failed with the annotated exit code', async () => {
  const ns = await api.namespace('nodes');
  await mkPod(ns, 'ok', { restartPolicy: 'Never' });
  await mkPod(ns, 'bad', { restartPolicy: 'Never', annotations: { 'simulator.cluster.local/exit-code': '3' } });
  const ok = await eventually('succeeded', async () => phaseOf((await podAt(ns, 'ok'))!) === 'Succeeded' && podAt(ns, 'ok'));
  const bad = await eventually('failed', async () => phaseOf((await podAt(ns, 'bad'))!) === 'Failed' && podAt(ns, 'bad'));
  assert.equal(cs(ok).state.terminated.exitCode, 0);
  assert.equal(cs(ok).state.terminated.reason, 'Completed');
  assert.equal(cs(bad).state.terminated.exitCode, 3);
  assert.equal(cs(bad).state.terminated.reason, 'Error');
});

test('a crashing container is restarted in place; restartCount shows at most 5', async () => {
  const ns = await api.namespace('nodes');
  await mkPod(ns, 'crash', { annotations: { 'simulator.cluster.local/fail-after-seconds': '0.02' } });
  await mkPod(ns, 'retry', { restartPolicy: 'OnFailure', annotations: { 'simulator.cluster.local/fail-after-seconds': '0.02' } });
  const p = await eventually('restarted many times', async () => {
    const x = await podAt(ns, 'crash');
    return cs(x)?.restartCount === RESTART_COUNT_CAP && x;
  });
  assert.equal(phaseOf(p), 'Running', 'restartPolicy Always: the pod stays Running');
  assert.equal(cs(p).lastState.terminated.exitCode, 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(cs(await podAt(ns, 'crash')).restartCount, RESTART_COUNT_CAP, 'capped');
  await eventually('OnFailure restarts too', async () => (cs(await podAt(ns, 'retry'))?.restartCount ?? 0) >= 2);
});

test('graceful deletion: the kubelet confirms with a grace-0 delete after the containers stop', async () => {
  const ns = await api.namespace('nodes');
  await mkPod(ns, 'bye', { extra: { terminationGracePeriodSeconds: 30 } });
  await eventually('running', async () => phaseOf((await podAt(ns, 'bye'))!) === 'Running');
  const r = await api.req('DELETE', `/api/v1/namespaces/${ns}/pods/bye`);
  assert.equal(r.status, 200);
  assert.ok((r.body as KubeObject).metadata.deletionTimestamp, 'the delete is graceful');
  await eventually('gone well before 30 s', async () => (await podAt(ns, 'bye')) === undefined, 5_000);
});

test('activeDeadlineSeconds: the pod fails with reason DeadlineExceeded', async () => {
  const ns = await api.namespace('nodes');
  await mkPod(ns, 'late', { extra: { activeDeadlineSeconds: 1 } });
  const p = await eventually('deadline', async () => phaseOf((await podAt(ns, 'late'))!) === 'Failed' && podAt(ns, 'late'));
  assert.equal((p!.status as { reason: string }).reason, 'DeadlineExceeded');
});

test('a thousand pods that fit nowhere do not hold up a pod that fits (the scheduler at its default 50 qps)', async () => {
  const ns = await api.namespace('flood');
  // What a Job of parallelism 2^31-1 with a node selector no node has makes: pods the scheduler can never bind.
  // Before, each took a status write and an event from the scheduler's 50 qps, ahead of the bindings.
  const stuck = 1200;
  for (let i = 0; i < stuck; i += 50)
    await Promise.all(Array.from({ length: Math.min(50, stuck - i) }, (_, j) => mkPod(ns, `stuck-${i + j}`, { extra: { nodeSelector: { pool: 'none' } } })));
  await mkPod(ns, 'fits');
  await eventually('the pod that fits Running', async () => phaseOf((await podAt(ns, 'fits'))!) === 'Running', 15_000);
  // The stuck pods still get their condition, and wait (1 s, 2 s, ... 60 s) instead of being tried every second.
  const cond = await eventually('a stuck pod marked Unschedulable', async () => {
    const x = await podAt(ns, `stuck-${stuck - 1}`);
    return ((x?.status as { conditions?: Array<{ type: string; reason?: string; message?: string }> }).conditions ?? []).find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
  });
  assert.match(cond.message!, /^0\/2 nodes are available: 2 node\(s\) didn't match node selector\.$/);
  assert.ok(nodes.scheduler!.waiting >= stuck, `${nodes.scheduler!.waiting} pods waiting`);
  await api.req('DELETE', `/api/v1/namespaces/${ns}/pods?gracePeriodSeconds=0`);
  await eventually('the flood gone', async () => nodes.scheduler!.waiting === 0 && nodes.activePods() < 8);
});

test('a pod that fits nowhere is Unschedulable until room appears', async () => {
  const ns = await api.namespace('nodes');
  // 2 nodes x 4 pods; others tests may hold some: fill up, then one more.
  const before = nodes.activePods();
  const fill = 2 * 4 - before;
  for (let i = 0; i < fill; i++) await mkPod(ns, `fill-${i}`);
  await mkPod(ns, 'extra');
  const p = await eventually('unschedulable', async () => {
    const x = await podAt(ns, 'extra');
    const c = ((x?.status as { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> }).conditions ?? []).find(
      (c) => c.type === 'PodScheduled',
    );
    return c?.reason === 'Unschedulable' && c;
  });
  assert.equal(p.status, 'False');
  assert.match(p.message!, /^0\/2 nodes are available: 2 Insufficient pods\.$/);
  await api.req('DELETE', `/api/v1/namespaces/${ns}/pods/fill-0?gracePeriodSeconds=0`);
  await eventually('scheduled once room appeared', async () => phaseOf((await podAt(ns, 'extra'))!) === 'Running');
});

test('events: false posts no kubelet events (as kwok nodes); the default nodes post them', async () => {
  const own = await startSimulator();
  const quiet = await startNodes(own.url, { count: 1, namePrefix: 'quiet-', startMs: 10, scheduler: false, events: false, log: () => {} });
  const loud = await startNodes(own.url, { count: 1, namePrefix: 'loud-', startMs: 10, scheduler: false, log: () => {} });
  try {
    const ownApi = new Api(own.url);
    const ns = await ownApi.namespace('events');
    const pod = (name: string, nodeName: string) =>
      ownApi.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'main', image: 'nginx:1.13' }] } });
    await pod('on-quiet', 'quiet-0');
    await pod('on-loud', 'loud-0');
    const reasonsOf = async (name: string) =>
      (await ownApi.list(`/api/v1/namespaces/${ns}/events`)).filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name).map((e) => (e as { reason?: string }).reason);
    await eventually('both running', async () => phaseOf((await ownApi.get(`/api/v1/namespaces/${ns}/pods/on-quiet`))!) === 'Running' && phaseOf((await ownApi.get(`/api/v1/namespaces/${ns}/pods/on-loud`))!) === 'Running');
    await eventually('the default kubelet posted Started', async () => (await reasonsOf('on-loud')).includes('Started'));
    assert.deepEqual(await reasonsOf('on-quiet'), []);
  } finally {
    await quiet.close();
    await loud.close();
    await own.close();
  }
});
