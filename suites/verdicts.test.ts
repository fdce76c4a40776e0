// Verdicts on broken and varied clusters (issue 39 item 7), the quick part run by `npm test`: a cluster whose
// deployment controller is switched off fails the workload check naming that controller (it used to skip and the
// run passed); a server that holds its watch answers until they end fails one check naming 4.3.2 within 30 s and
// the run goes on (it used to stall for minutes); a cluster behind a proxy that answers creates with 202 and adds
// an annotation to every object it returns passes the workload checks. The whole set, every controller of the
// spec in turn and every proxy case, is `npm run suites:verify` (suites/verify/).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER, assertFailed, assertPassed, closeTargets, outcome, runOnSimulator, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { acceptedAndAnnotated } from './harness/testdata/variations.ts';

after(closeTargets);

test('the deployment controller switched off: the workload check FAILS naming the deployment controller (not skipped)', async () => {
  const result = await runOnSimulator(CLUSTER(['--controllers=*,-deployment']), ['workloads.deployment-becomes-available'], { runs: 2 });
  assertFailed(result, 'workloads.deployment-becomes-available', /^deployment controller: nothing moved: no ReplicaSet appeared/);
});

test('watch answers held until the watch ends: one failure naming 4.3.2 within 30 s, the other watch checks stop at once', async () => {
  const ids = ['watch.path.core.configmaps.namespaced.watch', 'watch.path.apps.deployments.namespaced.watch', 'watch.timeout-seconds'];
  const started = Date.now();
  const result = await runThroughProxy({ bufferWatches: true }, ids, { runs: 2 });
  const seconds = (Date.now() - started) / 1000;
  const failed = result.checks.filter((c) => c.status === 'failed');
  assert.ok(failed.length >= 1, JSON.stringify(result.checks.map((c) => [c.id, c.status, c.message ?? c.reason])));
  for (const f of failed) assert.match(f.message ?? '', /^4\.3\.2: the watch GET .* had sent no response headers/);
  for (const c of result.checks.filter((c) => c.status !== 'failed')) assert.equal(c.status, 'skipped', `${c.id}: ${c.status}`);
  assert.ok(seconds < 45, `the run took ${seconds} s`);
  assert.ok(failed.every((f) => f.durationMs < 30_000), JSON.stringify(failed.map((f) => f.durationMs)));
  assert.ok(outcome(result, ids[0]), 'the first watch check ran');
});

test('creates answered 202 and an annotation added to every object: the workload checks pass', async () => {
  const ids = ['workloads.deployment-becomes-available', 'workloads.job-completes'];
  const result = await runThroughProxy(acceptedAndAnnotated, ids, { runs: 2, simulator: CLUSTER() });
  assertPassed(result, ids);
});
