// The deletion suite fails when it should (split from list-watch-deletion.test.ts to keep each file short).
// The chunking, watch and deletion suites fail when they should and only then: against the simulator behind a
// proxy that breaks one rule at a time, the matching check fails and names the rule; behind a proxy that
// behaves differently in a way the spec allows (ignores limit, answers a too-old watch with an ERROR event),
// the checks pass. The simulator runs with a small history window so the 410 checks run instead of skipping.
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
