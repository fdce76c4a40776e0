// The identity, workload and autoscaling checks of the daemon-controllers suite fail when the daemon under test
// gets their row wrong: run with --daemon-cmd naming this project's daemon with chosen breaks
// (harness/testdata/broken-daemon.ts: a token key or signing CA of its own, a wrong JWS secret, dropped writes,
// distorted status, pods seen Ready too early), each check fails and its failure is charged to the row broken.
// That the same checks pass on the faithful daemon is shown by every suites run (`npx tsx suites`).
import { test, before, after } from 'node:test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type RunningSimulator } from '../simulator/cluster.ts';
import { runChecks, type EngineResult } from './harness/engine.ts';
import { DAEMON_CMD_ENV } from './cli/daemon-command.ts';
import { assertFailed } from './harness/testdata/proxy-checks.ts';

const BROKEN = join(dirname(fileURLToPath(import.meta.url)), 'harness', 'testdata', 'broken-daemon.ts');
let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  delete process.env[DAEMON_CMD_ENV];
  await sim.close();
});

async function runWithBrokenDaemon(breaks: string[], ids: string[]): Promise<EngineResult> {
  process.env[DAEMON_CMD_ENV] = `BROKEN_DAEMON=${breaks.join(',')} node --import tsx ${BROKEN}`;
  try {
    return await runChecks({
      connection: { url: sim.url },
      vendor: 'kubernetes',
      seed: 5,
      runs: 5,
      workers: 2,
      timeoutSeconds: 120,
      replayCommand: `npx tsx suites --target ${sim.url}`,
      grep: new RegExp(`^(${ids.map((i) => i.replace(/\./g, '\\.')).join('|')})$`),
    });
  } finally {
    delete process.env[DAEMON_CMD_ENV];
  }
}

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

test('a daemon that evicts at a rate of its own, or never judges a zone disrupted, fails the node eviction checks', async () => {
  const r = await runWithBrokenDaemon(['eviction-rate'], ['daemon-controllers.node-eviction-rate', 'daemon-controllers.node-zone-disruption']);
  assertFailed(r, 'daemon-controllers.node-eviction-rate', ['option.node-eviction-rate'], /evicted at/);
  assertFailed(r, 'daemon-controllers.node-zone-disruption', ['option.secondary-node-eviction-rate'], /secondary-node-eviction-rate=0\.5: evicted at/);
  const z = await runWithBrokenDaemon(['zone-disruption'], ['daemon-controllers.node-zone-disruption']);
  assertFailed(z, 'daemon-controllers.node-zone-disruption', ['option.large-cluster-size-threshold'], /nothing evicted/);
});

test('a daemon that looks at heartbeats every 5 s, or syncs load balancers one at a time or every 5 min, fails the node and cloud checks', async () => {
  const r = await runWithBrokenDaemon(['monitor-period', 'service-syncs'], ['daemon-controllers.node-lifecycle', 'daemon-controllers.cloud']);
  assertFailed(r, 'daemon-controllers.node-lifecycle', ['option.node-monitor-period'], /marked Unknown as far apart as their last heartbeats on none of/);
  assertFailed(r, 'daemon-controllers.cloud', ['option.concurrent-service-syncs'], /--concurrent-service-syncs=3: 3 load balancers/);
  const p = await runWithBrokenDaemon(['service-sync-period'], ['daemon-controllers.cloud']);
  assertFailed(p, 'daemon-controllers.cloud', ['option.service-sync-period'], /--service-sync-period=500ms: a Service waiting for a free address was tried/);
});
