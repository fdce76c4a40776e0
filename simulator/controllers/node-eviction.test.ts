// Eviction rates of the node controller, measured through the API (when each failed node's pods got their
// deletionTimestamp): --node-eviction-rate (two rates, evictions per second within tolerance), one bucket per
// zone, --secondary-node-eviction-rate in a partially disrupted zone above --large-cluster-size-threshold (0 at
// or below it), --unhealthy-zone-threshold deciding "partially disrupted", and no evictions at all when every
// zone is fully disrupted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, phaseOf } from '../testing/workload-test-env.ts';
import { boundPod, startNodeEnv, whenSeen, type NodeEnv } from '../testing/node-test-env.ts';

/** One pod on each node; fails `failed` nodes at once; returns when each failed node's pod was evicted (ms after the failure, -1 = not within waitMs). */
async function evictions(env: NodeEnv, failed: string[], waitMs: number, all = env.nodes.nodeNames): Promise<number[]> {
  const { api } = env;
  const ns = await api.namespace('rate');
  for (const n of all) await api.create(`/api/v1/namespaces/${ns}/pods`, boundPod(`p-${n}`, n));
  await eventually('running', async () => (await api.list(`/api/v1/namespaces/${ns}/pods`)).every((p) => phaseOf(p) === 'Running'));
  const t0 = Date.now();
  await Promise.all(failed.map((n) => env.nodes.setNodeState(n, 'stopped')));
  return Promise.all(
    failed.map((n) =>
      whenSeen(`pod on ${n} evicted`, async () => (await api.get(`/api/v1/namespaces/${ns}/pods/p-${n}`))?.metadata.deletionTimestamp !== undefined, waitMs, 25).then(
        (t) => t - t0,
        () => -1,
      ),
    ),
  );
}

// Heartbeat times have whole seconds, so a grace period must exceed 1 s plus the heartbeat interval.
const FAST = ['--node-monitor-period=100ms', '--node-monitor-grace-period=2s', '--pod-eviction-timeout=2500ms'];
const span = (times: number[]) => Math.max(...times) - Math.min(...times);

async function withEnv<T>(flags: string[], count: number, zones: number, fn: (env: NodeEnv) => Promise<T>): Promise<T> {
  const env = await startNodeEnv(['node'], [...FAST, ...flags], { count, zones });
  try {
    return await fn(env);
  } finally {
    await env.close();
  }
}

test('--node-eviction-rate: 3 failed nodes of 8 are evicted at the given nodes per second (0.4 and 4)', async (t) => {
  const failed = ['sim-node-1', 'sim-node-3', 'sim-node-5'];
  const slow = await withEnv(['--node-eviction-rate=0.4'], 8, 0, (env) => evictions(env, failed, 20_000));
  const fast = await withEnv(['--node-eviction-rate=4'], 8, 0, (env) => evictions(env, failed, 20_000));
  assert.ok(slow.every((t) => t > 0) && fast.every((t) => t > 0), `all evicted (${slow} / ${fast})`);
  // 3 nodes through a bucket of burst 1: the first at once, then one per 1/rate seconds.
  const slowRate = 2 / (span(slow) / 1000);
  const fastRate = 2 / (span(fast) / 1000);
  t.diagnostic(`rate 0.4: evicted ${slow.join(', ')} ms after the failure = ${slowRate.toFixed(2)}/s; rate 4: ${fast.join(', ')} ms = ${fastRate.toFixed(2)}/s`);
  // Tolerance: the nodes' last heartbeats (whole seconds) may be seen up to ~1 s apart.
  assert.ok(slowRate > 0.28 && slowRate < 0.56, `rate 0.4: measured ${slowRate.toFixed(2)} evictions/s (${slow.join(', ')} ms)`);
  assert.ok(span(fast) < 2_200, `rate 4: 3 nodes within ${span(fast)} ms (${fast.join(', ')} ms)`);
  assert.ok(fastRate > 1.8 * slowRate, `rate 4 (${fastRate.toFixed(2)}/s) faster than rate 0.4 (${slowRate.toFixed(2)}/s)`);
});

test('each zone has its own eviction bucket', async () => {
  // Zones a and b (node i in zone i mod 2): one failure in each, at 0.2 nodes/s: both go at once, not 5 s apart.
  const times = await withEnv(['--node-eviction-rate=0.2'], 6, 2, (env) => evictions(env, ['sim-node-0', 'sim-node-1'], 15_000));
  assert.ok(times.every((t) => t > 0), `both evicted: ${times}`);
  assert.ok(span(times) < 2_000, `one per zone bucket: ${times.join(', ')} ms`);
});

test('--unhealthy-zone-threshold, --large-cluster-size-threshold and --secondary-node-eviction-rate in a partially disrupted zone', async () => {
  const failed = ['sim-node-0', 'sim-node-1', 'sim-node-2'];
  // 3 of 4 not ready (0.75 >= 0.55, more than 2): partial disruption; 4 nodes <= 50: secondary rate treated as 0.
  const none = await withEnv(['--node-eviction-rate=100', '--secondary-node-eviction-rate=100'], 4, 0, (env) => evictions(env, failed, 7_000));
  assert.deepEqual(none, [-1, -1, -1], 'no eviction in a small partially disrupted zone');
  // A threshold above 0.75: the zone is "Normal", the primary rate applies.
  const normal = await withEnv(['--node-eviction-rate=100', '--unhealthy-zone-threshold=0.9'], 4, 0, (env) => evictions(env, failed, 10_000));
  assert.ok(normal.every((t) => t > 0), `--unhealthy-zone-threshold=0.9: evicted (${normal})`);
  // Large cluster threshold 3 < 4 nodes: the secondary rate (1/s) applies instead of the primary 100/s.
  const secondary = await withEnv(['--node-eviction-rate=100', '--secondary-node-eviction-rate=1', '--large-cluster-size-threshold=3'], 4, 0, (env) => evictions(env, failed, 15_000));
  assert.ok(secondary.every((t) => t > 0), `secondary rate: evicted (${secondary})`);
  const rate = 2 / (span(secondary) / 1000);
  assert.ok(rate > 0.6 && rate < 1.6, `secondary rate 1: measured ${rate.toFixed(2)} evictions/s (${secondary.join(', ')} ms)`);
});

test('a fully disrupted cluster evicts nothing; once a node is back, the others are evicted after the timeout again', async () => {
  await withEnv(['--node-eviction-rate=100'], 3, 0, async (env) => {
    const all = env.nodes.nodeNames;
    const times = await evictions(env, all, 6_000);
    assert.deepEqual(times, [-1, -1, -1], 'every node down: master disruption mode, no eviction');
    await env.nodes.setNodeState('sim-node-0', 'ready');
    const ns = (await env.api.list('/api/v1/namespaces')).map((n) => n.metadata.name).find((n) => n?.startsWith('rate-'))!;
    await eventually('the two still down are evicted', async () => {
      const pods = await env.api.list(`/api/v1/namespaces/${ns}/pods`);
      return ['sim-node-1', 'sim-node-2'].every((n) => pods.find((p) => p.metadata.name === `p-${n}`)?.metadata.deletionTimestamp);
    }, 15_000);
    const kept = await env.api.get(`/api/v1/namespaces/${ns}/pods/p-sim-node-0`);
    assert.equal(kept?.metadata.deletionTimestamp, undefined, 'the revived node keeps its pod');
  });
});
