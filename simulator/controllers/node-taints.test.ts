// Taints of the node controller, observed through the API: the NoExecute taint manager
// (--enable-taint-manager on and off) honouring tolerations and tolerationSeconds; TaintBasedEvictions
// (unreachable taint on a failed node instead of direct eviction, removed when it is back); TaintNodesByCondition
// (NoSchedule taints following node conditions).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { eventually, phaseOf } from '../testing/workload-test-env.ts';
import { boundPod, startNodeEnv, whenSeen, type NodeEnv } from '../testing/node-test-env.ts';

const taints = (n: KubeObject | undefined) => ((n?.spec as { taints?: Array<{ key: string; effect: string; timeAdded?: string }> } | undefined)?.taints ?? []);
const gone = (p: KubeObject | undefined) => p === undefined || p.metadata.deletionTimestamp !== undefined;
const FOREVER = { tolerations: [{ operator: 'Exists', effect: 'NoExecute' }] };
const forSeconds = (key: string, s: number) => ({ tolerations: [{ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s }] });

async function withEnv(flags: string[], fn: (env: NodeEnv) => Promise<void>, count = 2): Promise<void> {
  const env = await startNodeEnv(['node'], ['--node-monitor-period=100ms', ...flags], { count });
  try {
    await fn(env);
  } finally {
    await env.close();
  }
}

async function threePods(env: NodeEnv, key: string): Promise<string> {
  const ns = await env.api.namespace('taint');
  await env.api.create(`/api/v1/namespaces/${ns}/pods`, boundPod('plain', 'sim-node-0'));
  await env.api.create(`/api/v1/namespaces/${ns}/pods`, boundPod('for-2s', 'sim-node-0', forSeconds(key, 2)));
  await env.api.create(`/api/v1/namespaces/${ns}/pods`, boundPod('forever', 'sim-node-0', FOREVER));
  await eventually('running', async () => (await env.api.list(`/api/v1/namespaces/${ns}/pods`)).every((p) => phaseOf(p) === 'Running'));
  return ns;
}

test('--enable-taint-manager: NoExecute taints evict pods that do not tolerate them, after tolerationSeconds, never when tolerated for ever', async () => {
  await withEnv(['--enable-taint-manager=true'], async (env) => {
    const ns = await threePods(env, 'dedicated');
    const t0 = Date.now();
    await env.api.patch('/api/v1/nodes/sim-node-0', { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } });
    const plainAt = await whenSeen('plain evicted', async () => gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/plain`)));
    const twoAt = await whenSeen('for-2s evicted', async () => gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/for-2s`)));
    assert.ok(plainAt - t0 < 1_500, `not tolerated: evicted after ${plainAt - t0} ms`);
    assert.ok(twoAt - t0 >= 1_800 && twoAt - t0 < 4_500, `tolerationSeconds 2: evicted after ${twoAt - t0} ms`);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await env.api.get(`/api/v1/namespaces/${ns}/pods/forever`))?.metadata.deletionTimestamp, undefined, 'tolerated for ever: kept');
  });
  await withEnv(['--enable-taint-manager=false'], async (env) => {
    const ns = await threePods(env, 'dedicated');
    await env.api.patch('/api/v1/nodes/sim-node-0', { spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] } });
    await new Promise((r) => setTimeout(r, 3_000));
    for (const p of ['plain', 'for-2s', 'forever']) assert.ok(!gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/${p}`)), `${p} kept without the taint manager`);
  });
});

test('TaintBasedEvictions: a failed node is tainted unreachable:NoExecute (untainted when back) and the taint manager evicts', async () => {
  const flags = ['--node-monitor-grace-period=2s', '--pod-eviction-timeout=1h'];
  await withEnv([...flags, '--feature-gates=TaintBasedEvictions=true'], async (env) => {
    const ns = await threePods(env, 'node.alpha.kubernetes.io/unreachable');
    await env.nodes.setNodeState('sim-node-0', 'stopped');
    await eventually('tainted', async () => taints(await env.api.get('/api/v1/nodes/sim-node-0')).some((t) => t.key === 'node.alpha.kubernetes.io/unreachable' && t.effect === 'NoExecute' && t.timeAdded));
    await eventually('plain and for-2s evicted', async () => gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/plain`)) && gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/for-2s`)), 10_000);
    assert.ok(!gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/forever`)), 'a pod tolerating the taint for ever stays');
    await env.nodes.setNodeState('sim-node-0', 'ready');
    await eventually('untainted', async () => taints(await env.api.get('/api/v1/nodes/sim-node-0')).length === 0);
  });
  // Gate off (its default): no taint; with a 1 h eviction timeout nothing is evicted.
  await withEnv(flags, async (env) => {
    const ns = await threePods(env, 'node.alpha.kubernetes.io/unreachable');
    await env.nodes.setNodeState('sim-node-0', 'stopped');
    await eventually('Unknown', async () => ((await env.api.get('/api/v1/nodes/sim-node-0'))?.status as { conditions: Array<{ type: string; status: string }> }).conditions.some((c) => c.type === 'Ready' && c.status === 'Unknown'));
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(taints(await env.api.get('/api/v1/nodes/sim-node-0')), []);
    assert.ok(!gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/plain`)), '!gone(await env.api.get(`/api/v1/namespaces/${ns}/pods/plain`))');
  });
});

test('TaintNodesByCondition: NoSchedule taints follow MemoryPressure (gate on), none with the gate off', async () => {
  const setPressure = (env: NodeEnv, status: string) =>
    env.api.patch('/api/v1/nodes/bare/status', { status: { conditions: [{ type: 'MemoryPressure', status, reason: 'Test', message: 'set by the test', lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } });
  await withEnv(['--feature-gates=TaintNodesByCondition=true'], async (env) => {
    await env.api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
    await setPressure(env, 'True');
    await eventually('memory-pressure taint', async () => taints(await env.api.get('/api/v1/nodes/bare')).some((t) => t.key === 'node.kubernetes.io/memory-pressure' && t.effect === 'NoSchedule'));
    await setPressure(env, 'False');
    await eventually('taint removed', async () => taints(await env.api.get('/api/v1/nodes/bare')).length === 0);
  }, 1);
  await withEnv([], async (env) => {
    await env.api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bare' } });
    await setPressure(env, 'True');
    await new Promise((r) => setTimeout(r, 1_500));
    assert.deepEqual(taints(await env.api.get('/api/v1/nodes/bare')), []);
  }, 1);
});
