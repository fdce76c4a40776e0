// The identity, workload and autoscaling checks of the daemon-controllers suite fail when the daemon under test
// gets their row wrong: run with --daemon-cmd naming this project's daemon with chosen breaks
// (harness/testdata/broken-daemon.ts: a token key or signing CA of its own, a wrong JWS secret, dropped writes,
// distorted status, pods seen Ready too early), each check fails and its failure is charged to the row broken.
// That the same checks pass on the faithful daemon is shown by every suites run (`npx tsx suites`).
import { test, after } from 'node:test';
import { assertFailed } from './harness/testdata/proxy-checks.ts';
import { closeBrokenDaemonTarget, runWithBrokenDaemon } from './harness/testdata/run-broken-daemon.ts';

after(closeBrokenDaemonTarget);

test('a daemon with its own token key, signing CA and JWS secret, and one that never aggregates, fails the matching checks', async () => {
  const r = await runWithBrokenDaemon(['sa-key', 'jws', 'signing-ca', 'aggregation'], [
    'daemon-controllers.serviceaccount-token', 'daemon-controllers.bootstrap-tokens', 'daemon-controllers.certificates', 'daemon-controllers.clusterrole-aggregation',
  ]);
  assertFailed(r, 'daemon-controllers.serviceaccount-token', ['option.service-account-private-key-file'], /does not verify with the public key/);
  assertFailed(r, 'daemon-controllers.bootstrap-tokens', ['controller.bootstrapsigner'], /does not verify with the token secret/);
  assertFailed(r, 'daemon-controllers.certificates', ['option.cluster-signing-cert-file'], /verifies against the CA/);
  assertFailed(r, 'daemon-controllers.clusterrole-aggregation', ['controller.clusterrole-aggregation'], /got the rules of both matching roles/);
});

test('a daemon that keeps expired tokens, never approves, sees pods Ready too early, or misreports budgets, autoscalers and quotas fails the matching checks', async () => {
  const r = await runWithBrokenDaemon(['tokencleaner', 'csr-approve', 'sts-order', 'pdb-status', 'hpa-status', 'quota-status'], [
    'daemon-controllers.bootstrap-tokens', 'daemon-controllers.certificates', 'daemon-controllers.statefulset', 'daemon-controllers.disruption', 'daemon-controllers.horizontalpodautoscaling',
    'daemon-controllers.resourcequota',
  ]);
  assertFailed(r, 'daemon-controllers.bootstrap-tokens', ['controller.tokencleaner'], /expired bootstrap token Secret/);
  assertFailed(r, 'daemon-controllers.certificates', ['controller.csrapproving'], /was approved/);
  assertFailed(r, 'daemon-controllers.statefulset', ['controller.statefulset'], /must wait for web-0|may exist/);
  assertFailed(r, 'daemon-controllers.disruption', ['controller.disruption'], /disruptionsAllowed 1/);
  assertFailed(r, 'daemon-controllers.horizontalpodautoscaling', ['controller.horizontalpodautoscaling'], /status was written/);
  assertFailed(r, 'daemon-controllers.resourcequota', ['controller.resourcequota'], /status\.hard = spec\.hard/);
});

test('a daemon that miscomputes recycler deadlines or never protects claims fails the matching checks', async () => {
  const r = await runWithBrokenDaemon(['recycle-deadline', 'pvc-protection'], ['daemon-controllers.volume-recycling', 'daemon-controllers.pvc-protection']);
  assertFailed(r, 'daemon-controllers.volume-recycling', ['option.pv-recycler-minimum-timeout-hostpath'], /activeDeadlineSeconds 10 \(got 11\)/);
  assertFailed(r, 'daemon-controllers.pvc-protection', ['controller.pvc-protection', 'gate.PVCProtection'], /pvc-protection finalizer/);
});
