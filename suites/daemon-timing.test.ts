// The timing checks of the daemon-controllers suite (node eviction rates and zone disruption, the node monitor
// period, load balancer concurrency and resync) judge by witnesses a loaded machine cannot move (nodes failed
// before the daemon starts, the server's deletionTimestamps, the service controller's event times, fresh node
// pairs measured again): these tests show each of them still failing on a daemon that ignores its option
// (harness/testdata/broken-daemon.ts with --daemon-cmd). A file of its own: each daemon run takes minutes on a
// busy machine. That the same checks pass on the faithful daemon is shown by every suites run.
import { test, after } from 'node:test';
import { assertFailed } from './harness/testdata/proxy-checks.ts';
import { closeBrokenDaemonTarget, runWithBrokenDaemon } from './harness/testdata/run-broken-daemon.ts';

after(closeBrokenDaemonTarget);

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
