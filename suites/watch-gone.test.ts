// The 410 check: a too-old watch may be answered as HTTP 410 or as 200 with one ERROR event carrying a 410
// Status (both are what real servers do) and the recovery must work after either; an ERROR event with another
// code, or a 410 without a Status body, fails it. The simulator runs with a small history window by count so
// the check runs instead of skipping. (Split from list-watch-deletion.test.ts to keep each file's run short.)
import { test, before, after } from 'node:test';
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
