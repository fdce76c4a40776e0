import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeApi } from '../testing/fake-api.ts';
import { ApiClient } from './api-client.ts';
import { DaemonMetrics } from './metrics.ts';
import { LeaderElector, LEADER_ANNOTATION, parseRecord, serializeRecord, rfc3339Seconds, type LockType } from './leader-election.ts';

const LEASE = 1000;
const RENEW = 600;
const RETRY = 150;

async function setup(lockType: LockType = 'endpoints') {
  const api = new FakeApi();
  const url = await api.start();
  const clients: ApiClient[] = [];
  const elector = async (identity: string, metrics?: DaemonMetrics) => {
    const client = await ApiClient.create({ server: url }, { qps: -1, burst: 1, contentType: 'application/json', codec: null, maxRetries: 0 });
    clients.push(client);
    return new LeaderElector({ client, lockType, identity, leaseDurationMs: LEASE, renewDeadlineMs: RENEW, retryPeriodMs: RETRY, metrics });
  };
  const cleanup = async () => {
    for (const c of clients) await c.close();
    await api.close();
  };
  return { api, elector, cleanup };
}

const until = async (cond: () => boolean, timeoutMs: number) => {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
};

test('the record is Go-shaped: key order, whole-second UTC times', () => {
  const r = { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: rfc3339Seconds(Date.UTC(2018, 0, 1, 0, 0, 0, 700)), renewTime: '2018-01-01T00:00:10Z', leaderTransitions: 0 };
  assert.equal(serializeRecord(r), '{"holderIdentity":"a","leaseDurationSeconds":15,"acquireTime":"2018-01-01T00:00:00Z","renewTime":"2018-01-01T00:00:10Z","leaderTransitions":0}');
  assert.deepEqual(parseRecord(serializeRecord(r)), r);
  assert.equal(parseRecord('not json').holderIdentity, '');
  assert.equal(parseRecord(undefined).leaderTransitions, 0);
});

test('two electors: exactly one leads; the lock holds the record; stopping the leader hands over in time', async () => {
  const { api, elector, cleanup } = await setup('endpoints');
  try {
    const metrics = new DaemonMetrics({ processMetrics: false });
    const a = await elector('daemon-a', metrics);
    const b = await elector('daemon-b');
    const stopA = new AbortController();
    const stopB = new AbortController();
    const started: string[] = [];
    const runA = a.run(stopA.signal, { onStartedLeading: () => started.push('a') });
    await until(() => a.isLeader, 3000);
    const runB = b.run(stopB.signal, { onStartedLeading: () => started.push('b') });
    assert.ok(a.isLeader, 'the first elector leads');

    // Over several lease durations the follower never leads while the leader renews.
    let overlaps = 0;
    const watchStart = performance.now();
    while (performance.now() - watchStart < 2 * LEASE) {
      if (a.isLeader && b.isLeader) overlaps++;
      if (b.isLeader) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(overlaps, 0);
    assert.equal(b.isLeader, false);
    assert.deepEqual(started, ['a']);

    const lock = api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager');
    assert.ok(lock, 'the endpoints lock exists in kube-system');
    const raw = lock.metadata.annotations![LEADER_ANNOTATION];
    assert.match(raw, /^\{"holderIdentity":"daemon-a","leaseDurationSeconds":1,"acquireTime":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ","renewTime":"[^"]+","leaderTransitions":0\}$/);
    assert.match(await metrics.text(), /leader_election_master_status\{name="kube-controller-manager"\} 1/);

    const stoppedAt = performance.now();
    stopA.abort();
    assert.equal(await runA, 'stopped');
    assert.match(await metrics.text(), /leader_election_master_status\{name="kube-controller-manager"\} 0/);
    const tookOver = await until(() => b.isLeader, LEASE + RETRY * 2.2 + 1500);
    const elapsed = performance.now() - stoppedAt;
    assert.ok(tookOver, 'the follower took over');
    // Never before the lease of the last renewal ran out; within lease + a jittered retry (+ slack for a busy host).
    assert.ok(elapsed >= LEASE - RETRY - 50, `took over after ${elapsed} ms, before the lease expired`);
    assert.deepEqual(started, ['a', 'b']);
    const after = parseRecord(api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager')!.metadata.annotations![LEADER_ANNOTATION]);
    assert.equal(after.holderIdentity, 'daemon-b');
    assert.equal(after.leaderTransitions, 1);
    stopB.abort();
    assert.equal(await runB, 'stopped');
  } finally {
    await cleanup();
  }
});

test('configmaps lock; a renewing leader keeps acquireTime and transitions', async () => {
  const { api, elector, cleanup } = await setup('configmaps');
  try {
    const a = await elector('only');
    const stop = new AbortController();
    const run = a.run(stop.signal, { onStartedLeading: () => {} });
    await until(() => a.isLeader, 3000);
    const first = parseRecord(api.stored('/api/v1/configmaps', 'kube-system', 'kube-controller-manager')!.metadata.annotations![LEADER_ANNOTATION]);
    const rv1 = api.stored('/api/v1/configmaps', 'kube-system', 'kube-controller-manager')!.metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, RETRY * 3));
    const later = api.stored('/api/v1/configmaps', 'kube-system', 'kube-controller-manager')!;
    assert.notEqual(later.metadata.resourceVersion, rv1, 'the leader renews');
    const rec = parseRecord(later.metadata.annotations![LEADER_ANNOTATION]);
    assert.equal(rec.acquireTime, first.acquireTime);
    assert.equal(rec.leaderTransitions, 0);
    assert.equal(api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager'), undefined);
    stop.abort();
    await run;
  } finally {
    await cleanup();
  }
});

test('a leader that cannot renew within the deadline stops leading and its loops are told', async () => {
  const { api, elector, cleanup } = await setup();
  try {
    const a = await elector('flaky');
    let loopSignal: AbortSignal | undefined;
    let stoppedCalls = 0;
    const run = a.run(new AbortController().signal, { onStartedLeading: (s) => (loopSignal = s), onStoppedLeading: () => stoppedCalls++ });
    await until(() => a.isLeader, 3000);
    api.unavailable = true;
    const lostAt = performance.now();
    assert.equal(await run, 'lost');
    const elapsed = performance.now() - lostAt;
    assert.ok(elapsed >= RENEW - RETRY, `lost after ${elapsed} ms, before the renew deadline`);
    assert.ok(elapsed < RENEW + 2000, `lost after ${elapsed} ms`);
    assert.equal(loopSignal?.aborted, true);
    assert.equal(stoppedCalls, 1);
    assert.equal(a.isLeader, false);
  } finally {
    await cleanup();
  }
});

test('a lock held by someone else is respected until the lease runs out unobserved', async () => {
  const { api, elector, cleanup } = await setup();
  try {
    const record = { holderIdentity: 'ghost', leaseDurationSeconds: 1, acquireTime: rfc3339Seconds(Date.now()), renewTime: rfc3339Seconds(Date.now()), leaderTransitions: 4 };
    api.put('/api/v1/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kube-controller-manager', namespace: 'kube-system', annotations: { [LEADER_ANNOTATION]: serializeRecord(record) } } });
    const b = await elector('newcomer');
    const ac = new AbortController();
    const first = await b.tryAcquireOrRenew(ac.signal);
    assert.equal(first, false, 'a fresh record of another holder blocks');
    const start = performance.now();
    const run = b.run(ac.signal, { onStartedLeading: () => {} });
    assert.ok(await until(() => b.isLeader, LEASE + 2000), 'await until(() => b.isLeader, LEASE + 2000)');
    assert.ok(performance.now() - start >= LEASE - RETRY - 50, 'performance.now() - start >= LEASE - RETRY - 50');
    const rec = parseRecord(api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager')!.metadata.annotations![LEADER_ANNOTATION]);
    assert.equal(rec.leaderTransitions, 5);
    ac.abort();
    await run;
  } finally {
    await cleanup();
  }
});
