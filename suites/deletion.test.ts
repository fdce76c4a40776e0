// The deletion suite fails when it should (split from list-watch-deletion.test.ts to keep each file short).
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

const DELETION = ['deletion.status-body-and-options', 'deletion.options-exclusive-and-invalid', 'deletion.finalizers', 'deletion.preconditions', 'deletion.collection-selector', 'deletion.collection-stays-in-namespace'];


test('a faithful proxy: every deletion check passes', async () => {
  const result = await runAgainst({}, DELETION);
  assertPassed(result, DELETION);
});

test('broken: a delete that ignores finalizers fails the finalizer check', async () => {
  const result = await runAgainst({ ignoreFinalizers: true }, ['deletion.finalizers']);
  assertFailed(result, 'deletion.finalizers', ['field.ObjectMeta.finalizers'], /gone although it has finalizers/);
});

test('broken: a collection delete that ignores the label selector fails the collection check', async () => {
  const result = await runAgainst({ collectionDeleteIgnoresSelector: true }, ['deletion.collection-selector']);
  assertFailed(result, 'deletion.collection-selector', ['endpoint.core.configmaps.namespaced.deletecollection'], /does not match the selector and was deleted/);
});

test('broken: a namespaced collection delete that reaches into other namespaces fails the namespace check', async () => {
  const result = await runAgainst({ collectionDeleteCrossesNamespaces: true }, ['deletion.collection-stays-in-namespace']);
  assertFailed(result, 'deletion.collection-stays-in-namespace', ['endpoint.core.configmaps.namespaced.deletecollection'], /of another namespace .*was deleted/);
});
