// The node controller against a real simulator with simulated nodes: a failed node goes Unknown after the
// grace period, its pods go unready and are evicted after --pod-eviction-timeout and recreated elsewhere by
// their ReplicaSet; two values of each period give measurably different times; --node-monitor-period shows in
// when markings happen; the startup grace applies to nodes that never posted status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { eventually, isReady, phaseOf, podTemplate } from '../testing/workload-test-env.ts';
import { boundPod, conditionOf, readyStatus, startNodeEnv, whenSeen } from '../testing/node-test-env.ts';

const nodePath = (n: string) => `/api/v1/nodes/${n}`;

test('a failed node: Unknown after the grace period, pods unready, evicted after the eviction timeout, replaced on other nodes (6 nodes, 2 zones)', async () => {
  const grace = 2_000;
  const timeout = 4_000;
  const env = await startNodeEnv(['node', 'replicaset'], ['--node-monitor-period=200ms', `--node-monitor-grace-period=${grace}ms`, `--pod-eviction-timeout=${timeout}ms`], { count: 6, zones: 2 });
  try {
    const { api } = env;
    const ns = await api.namespace('evict');
    await api.create(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' },
      spec: { replicas: 6, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
    });
    const pods = await eventually('6 running', async () => {
      const l = await api.list(`/api/v1/namespaces/${ns}/pods`);
      return l.length === 6 && l.every((p) => phaseOf(p) === 'Running' && isReady(p)) && l;
    });
    const victim = (pods[0].spec as { nodeName: string }).nodeName;
    const victims = pods.filter((p) => (p.spec as { nodeName: string }).nodeName === victim).map((p) => p.metadata.name);
    const t0 = Date.now();
    await env.nodes.setNodeState(victim, 'stopped');
    const unknownAt = await whenSeen('node Unknown', async () => readyStatus(await api.get(nodePath(victim))) === 'Unknown');
    const node = await api.get(nodePath(victim));
    assert.equal(conditionOf(node, 'Ready')?.reason, 'NodeStatusUnknown');
    assert.equal(conditionOf(node, 'Ready')?.message, 'Kubelet stopped posting node status.');
    assert.equal(conditionOf(node, 'MemoryPressure')?.status, 'Unknown');
    // The grace period runs from the last heartbeat the controller saw, not from t0: heartbeats go every 100 ms
    // but queue behind other writes on a loaded machine (1,692 ms seen in CI), so allow half a second before.
    assert.ok(unknownAt - t0 >= grace - 500, `Unknown after ${unknownAt - t0} ms, more than 500 ms before the ${grace} ms grace period`);
    await eventually('its pods are not Ready', async () => {
      const l = await Promise.all(victims.map((n) => api.get(`/api/v1/namespaces/${ns}/pods/${n}`)));
      return l.every((p) => conditionOf(p, 'Ready')?.status === 'False');
    });
    const evictedAt = await whenSeen('pods evicted', async () => {
      const l = await Promise.all(victims.map((n) => api.get(`/api/v1/namespaces/${ns}/pods/${n}`)));
      return l.every((p) => p?.metadata.deletionTimestamp !== undefined);
    });
    // Unknown nodes are evicted once --pod-eviction-timeout has passed since their last heartbeat.
    const after = evictedAt - t0;
    assert.ok(after >= timeout - 300 && after <= timeout + 4_000, `evicted ${after} ms after the failure; expected about ${timeout} ms`);
    const lost = await api.get(`/api/v1/namespaces/${ns}/pods/${victims[0]}`);
    assert.equal((lost?.status as { reason?: string }).reason, 'NodeLost');
    await eventually('6 running again on the other nodes', async () => {
      const l = (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => !p.metadata.deletionTimestamp);
      return l.length === 6 && l.every((p) => phaseOf(p) === 'Running' && (p.spec as { nodeName: string }).nodeName !== victim);
    });
    const events = await api.list(`/api/v1/namespaces/${ns}/events`);
    assert.ok(events.some((e) => (e as KubeObject & { reason?: string }).reason === 'NodeControllerEviction'), 'NodeControllerEviction events on the pods');
    // Back: heartbeats resume, Ready again; the evicted pods are confirmed gone by the kubelet.
    await env.nodes.setNodeState(victim, 'ready');
    await eventually('Ready again', async () => readyStatus(await api.get(nodePath(victim))) === 'True');
    await eventually('old pods gone', async () => (await Promise.all(victims.map((n) => api.get(`/api/v1/namespaces/${ns}/pods/${n}`)))).every((p) => p === undefined));
  } finally {
    await env.close();
  }
});

/** Fails one kubelet and adds a node that never posts status; returns when each went Unknown and when the pod was evicted. */
async function measure(flags: string[]): Promise<{ unknownMs: number; neverUpdatedMs: number; evictMs: number }> {
  const env = await startNodeEnv(['node'], ['--node-monitor-period=100ms', ...flags], { count: 2 });
  try {
    const { api } = env;
    const ns = await api.namespace('grace');
    await api.create(`/api/v1/namespaces/${ns}/pods`, boundPod('p', 'sim-node-0'));
    await eventually('running', async () => phaseOf((await api.get(`/api/v1/namespaces/${ns}/pods/p`))!) === 'Running');
    const t0 = Date.now();
    await env.nodes.setNodeState('sim-node-0', 'stopped');
    await api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'silent' } });
    const [unknownAt, neverAt, evictAt] = await Promise.all([
      whenSeen('Unknown', async () => readyStatus(await api.get(nodePath('sim-node-0'))) === 'Unknown'),
      whenSeen('NeverUpdated', async () => conditionOf(await api.get(nodePath('silent')), 'Ready')?.reason === 'NodeStatusNeverUpdated'),
      whenSeen('evicted', async () => (await api.get(`/api/v1/namespaces/${ns}/pods/p`))?.metadata.deletionTimestamp !== undefined),
    ]);
    return { unknownMs: unknownAt - t0, neverUpdatedMs: neverAt - t0, evictMs: evictAt - t0 };
  } finally {
    await env.close();
  }
}

test('--node-monitor-grace-period, --node-startup-grace-period and --pod-eviction-timeout: two values each, measured', async (t) => {
  // Heartbeat times have whole seconds: a grace period must exceed 1 s plus the heartbeat interval.
  const a = await measure(['--node-monitor-grace-period=2s', '--node-startup-grace-period=4s', '--pod-eviction-timeout=1s']);
  const b = await measure(['--node-monitor-grace-period=5s', '--node-startup-grace-period=1s', '--pod-eviction-timeout=7s']);
  t.diagnostic(`grace 2s/startup 4s/timeout 1s: ${JSON.stringify(a)}; grace 5s/startup 1s/timeout 7s: ${JSON.stringify(b)}`);
  assert.ok(a.unknownMs >= 1_700 && a.unknownMs < 4_000, `grace 2s: Unknown after ${a.unknownMs} ms`);
  assert.ok(b.unknownMs >= 4_700 && b.unknownMs < 7_500, `grace 5s: Unknown after ${b.unknownMs} ms`);
  // creationTimestamp has whole seconds: the startup grace may end up to 1 s early.
  assert.ok(a.neverUpdatedMs >= 2_800 && a.neverUpdatedMs < 6_500, `startup grace 4s: NodeStatusNeverUpdated after ${a.neverUpdatedMs} ms`);
  assert.ok(b.neverUpdatedMs < 2_500 && b.neverUpdatedMs < a.neverUpdatedMs - 1_000, `startup grace 1s: NodeStatusNeverUpdated after ${b.neverUpdatedMs} ms`);
  // An Unknown node is evicted once the timeout has passed since its last heartbeat (and it was seen Unknown).
  assert.ok(a.evictMs < 4_500, `eviction timeout 1s: evicted after ${a.evictMs} ms`);
  assert.ok(b.evictMs >= 6_700 && b.evictMs < 10_500, `eviction timeout 7s: evicted after ${b.evictMs} ms`);
});

/** Fails two nodes 2.5 s apart; returns how far apart the controller marked them Unknown. */
async function markingGap(period: string): Promise<{ marks: number; failures: number }> {
  const env = await startNodeEnv(['node'], [`--node-monitor-period=${period}`, '--node-monitor-grace-period=1500ms', '--pod-eviction-timeout=1h'], { count: 3 });
  try {
    const { api } = env;
    await env.nodes.setNodeState('sim-node-0', 'stopped');
    const failed0 = Date.now();
    const a = whenSeen('0 Unknown', async () => readyStatus(await api.get(nodePath('sim-node-0'))) === 'Unknown', 20_000, 25);
    await new Promise((r) => setTimeout(r, 2_500));
    await env.nodes.setNodeState('sim-node-1', 'stopped');
    // The failures' real distance: a loaded machine runs the 2.5 s timer late.
    const failures = Date.now() - failed0;
    const b = await whenSeen('1 Unknown', async () => readyStatus(await api.get(nodePath('sim-node-1'))) === 'Unknown', 20_000, 25);
    return { marks: b - (await a), failures };
  } finally {
    await env.close();
  }
}

test('--node-monitor-period: markings follow failures closely with a short period and fall on the passes of a long one', async () => {
  const fast = await markingGap('100ms');
  const slow = await markingGap('5s');
  // Each node's last heartbeat (whole seconds) is seen up to 1 s before it fails, and each marking is seen by a
  // poll every 25 ms that a loaded machine may run late: the failures' distance +- 1.5 s.
  assert.ok(
    Math.abs(fast.marks - fast.failures) < 1_500,
    `period 100ms: failures ${fast.failures} ms apart marked ${fast.marks} ms apart`,
  );
  // With passes 5 s apart the two markings fall on the same pass (gap ~0) or on consecutive ones (~5 s).
  assert.ok(slow.marks < 800 || slow.marks > 4_200, `period 5s: failures ${slow.failures} ms apart marked ${slow.marks} ms apart`);
});
