// The chunking, watch and deletion suites fail when they should and only then: against the simulator behind a
// proxy that breaks one rule at a time, the matching check fails and names the rule; behind a proxy that
// behaves differently in a way the spec allows (ignores limit, answers a too-old watch with an ERROR event),
// the checks pass. The simulator runs with a small history window so the 410 checks run instead of skipping.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSimulator } from '../simulator/cluster.ts';
import { runChecks, type CheckOutcome, type EngineResult } from './harness/engine.ts';
import { startBreakingProxy, type ProxyBreaks, type RunningProxy } from './harness/testdata/breaking-proxy.ts';

let sim: RunningSimulator;
const proxies: RunningProxy[] = [];

before(async () => {
  // 300 changes, and an age window too short to keep more: 3000 churn writes push any revision out.
  sim = await startSimulator({ watchHistoryEvents: 300, watchHistoryAgeMs: 1 });
});
after(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await sim.close();
});

async function runAgainst(breaks: ProxyBreaks, ids: string[]): Promise<EngineResult> {
  const proxy = await startBreakingProxy(sim.url, breaks);
  proxies.push(proxy);
  return runChecks({
    connection: { url: proxy.url },
    vendor: 'kubernetes',
    seed: 11,
    runs: 10,
    workers: 3,
    timeoutSeconds: 60,
    replayCommand: `npx tsx suites --target ${proxy.url}`,
    grep: new RegExp(`^(${ids.map((i) => i.replace(/\./g, '\\.')).join('|')})$`),
  });
}

function outcome(result: EngineResult, id: string): CheckOutcome {
  const found = result.checks.find((c) => c.id === id);
  assert.ok(found, `check ${id} was not run`);
  return found;
}

function assertPassed(result: EngineResult, ids: string[]): void {
  for (const id of ids) {
    const o = outcome(result, id);
    assert.equal(o.status, 'passed', `${id}: ${o.status} ${o.message ?? o.reason ?? ''}`);
  }
}

/** The check failed, and its failure is charged to at least one of `rows`. */
function assertFailed(result: EngineResult, id: string, rows: string[], message?: RegExp): CheckOutcome {
  const o = outcome(result, id);
  assert.equal(o.status, 'failed', `${id} should fail: ${o.status} ${o.reason ?? ''}`);
  const failed = o.evidence?.failedRows ?? o.rows;
  assert.ok(rows.some((r) => failed.includes(r)), `${id}: failure charged to ${JSON.stringify(failed)}, expected one of ${rows.join(', ')}; message: ${o.message}`);
  if (message) assert.match(o.message ?? '', message);
  assert.match(o.evidence?.replayCommand ?? '', /--replay '/);
  return o;
}

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
