// The chunking, watch and deletion suites fail when they should and only then: against the simulator behind a
// proxy that breaks one rule at a time, the matching check fails and names the rule; behind a proxy that
// behaves differently in a way the spec allows (ignores limit, answers a too-old watch with an ERROR event),
// the checks pass. The simulator runs with a small history window so the 410 checks run instead of skipping.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSimulator } from '../simulator/cluster.ts';
import type { EngineResult } from './harness/engine.ts';
import type { ProxyBreaks } from './harness/testdata/breaking-proxy.ts';
import { assertFailed, assertPassed, closeProxies, runAgainst as runProxied } from './harness/testdata/proxy-checks.ts';

let sim: RunningSimulator;

before(async () => {
  // 300 changes, and an age window too short to keep more: 3000 churn writes push any revision out.
  sim = await startSimulator({ watchHistoryEvents: 300, watchHistoryAgeMs: 1 });
});
after(async () => {
  await closeProxies();
  await sim.close();
});

const runAgainst = (breaks: ProxyBreaks, ids: string[]): Promise<EngineResult> => runProxied(sim.url, breaks, ids);

const CHUNKING = ['chunking.snapshot-under-writes', 'chunking.token-with-other-query', 'chunking.expired-token-410-recovery'];
const WATCH = ['watch.model-commands', 'watch.gone-410-recovery', 'watch.path.core.configmaps.namespaced.watch', 'watch.protobuf-stream', 'watch.limit-ignored'];

test('a faithful proxy: every chunking and watch check passes, and the 410 checks run (not skipped)', async () => {
  const result = await runAgainst({}, [...CHUNKING, ...WATCH]);
  assertPassed(result, [...CHUNKING, ...WATCH]);
});

test('allowed: a server that ignores limit and returns whole lists passes the chunking checks', async () => {
  const result = await runAgainst({ ignoreLimit: true }, ['chunking.snapshot-under-writes', 'chunking.token-with-other-query']);
  assertPassed(result, ['chunking.snapshot-under-writes', 'chunking.token-with-other-query']);
});

test('broken: chunks after the first served from the latest state fail the snapshot check', async () => {
  const result = await runAgainst({ chunksFromLatest: true }, ['chunking.snapshot-under-writes']);
  assertFailed(result, 'chunking.snapshot-under-writes', ['rule.chunking.consistent-snapshot']);
});

test('broken: a dropped watch event fails the model-based watch check', async () => {
  const result = await runAgainst({ dropWatchEvent: true }, ['watch.model-commands']);
  const o = assertFailed(result, 'watch.model-commands', ['rule.events.order-after-rv']);
  assert.ok(o.evidence?.counterexample, 'no counterexample');
});

test('broken: two watch events swapped fail the model-based watch check', async () => {
  const result = await runAgainst({ reorderWatchEvents: true }, ['watch.model-commands']);
  // A swap shows as events out of order, or (for two changes of one object) as the wrong type first.
  assertFailed(result, 'watch.model-commands', ['rule.events.order-after-rv', 'rule.events.create-is-add', 'rule.events.update-is-modification', 'rule.events.delete-is-removal']);
});
