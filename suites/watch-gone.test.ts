// The 410 check: a too-old watch may be answered as HTTP 410 or as 200 with one ERROR event carrying a 410
// Status (both are what real servers do) and the recovery must work after either; an ERROR event with another
// code, or a 410 without a Status body, fails it. The simulator runs with a small history window by count so
// the check runs instead of skipping. (Split from list-watch-deletion.test.ts to keep each file's run short.)
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

test('allowed: a too-old watch answered as 200 with an ERROR event (instead of HTTP 410) passes the 410 check', async () => {
  const result = await runAgainst({ watchGoneAsErrorEvent: true }, ['watch.gone-410-recovery', 'watch.model-commands']);
  assertPassed(result, ['watch.gone-410-recovery', 'watch.model-commands']);
});

test('broken: a too-old watch answered with a 500 ERROR event, or a 410 without a Status, fails the 410 checks', async () => {
  const asError = await runAgainst({ watchGoneAsInternalError: true }, ['watch.gone-410-recovery']);
  // A 200 stream whose first event is an ERROR that is not a 410 is not a "gone": the check names it.
  assertFailed(asError, 'watch.gone-410-recovery', ['rule.watch.gone-410', 'error.410', 'rule.events.order-after-rv'], /ERROR event|410/);
  const bare = await runAgainst({ watchGoneWithoutStatus: true }, ['watch.gone-410-recovery']);
  assertFailed(bare, 'watch.gone-410-recovery', ['rule.watch.gone-410', 'error.410'], /no Status body|kind/);
});
