import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FakeApi } from '../../testing/fake-api.ts';
import { startDaemon, DaemonExit, type DaemonHandle } from './daemon.ts';
import { UsageError } from '../config/options.ts';
import type { ControllerPlan } from './registry.ts';
import type { ControllerContext } from '../kit/controller.ts';

// The fake API speaks JSON only; the option is the daemon's own switch for it.
const FAST_ELECTION = ['--x-api-content-type=application/json', '--leader-elect-lease-duration=1s', '--leader-elect-renew-deadline=600ms', '--leader-elect-retry-period=150ms'];

/** A controller plan that records when it runs and stops. */
function probe() {
  const events: Array<{ what: 'run' | 'stop'; at: number }> = [];
  let ctx: ControllerContext | undefined;
  const plan: ControllerPlan = {
    create: () => ({
      name: 'probe',
      run: async (c) => {
        ctx = c;
        events.push({ what: 'run', at: performance.now() });
        await new Promise<void>((r) => c.signal.addEventListener('abort', () => r(), { once: true }));
        events.push({ what: 'stop', at: performance.now() });
      },
    }),
  };
  return { plan, events, ctx: () => ctx };
}

const until = async (cond: () => boolean, timeoutMs: number) => {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
};

async function withApi(fn: (api: FakeApi) => Promise<void>) {
  const api = new FakeApi();
  await api.start();
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

const quiet = () => {};

test('a daemon serves its endpoints, leads, starts enabled controllers and reports the others', async () => {
  await withApi(async (api) => {
    const p = probe();
    const d = await startDaemon(
      ['--master', api.url, '--address=127.0.0.1', '--port=0', '--controllers=namespace,deployment,route,cronjob,service,garbagecollector', '--enable-garbage-collector=false', ...FAST_ELECTION],
      { log: quiet, plans: { namespace: p.plan, deployment: p.plan } },
    );
    try {
      assert.ok(await until(() => p.events.length >= 2, 5000), 'both probe controllers ran');
      assert.equal(d.isLeader(), true);
      let r = await fetch(`${d.url}/healthz`);
      assert.equal(await r.text(), 'ok');
      r = await fetch(`${d.url}/configz`);
      const cfg = (await r.json()) as Record<string, Record<string, unknown>>;
      assert.equal(Object.keys(cfg.componentconfig).length, 79);
      assert.equal(cfg.componentconfig.leaderElectRenewDeadline, '600ms');
      assert.equal((cfg.featureGates.APIListChunking as { enabled: boolean }).enabled, true);
      const status = (cfg.controllers as { status: Record<string, { state: string; reason?: string }> }).status;
      assert.equal(status.namespace.state, 'running');
      assert.equal(status.deployment.state, 'running');
      assert.equal(status.cronjob.state, 'not started');
      assert.match(status.cronjob.reason!, /does not serve batch\/v1beta1 cronjobs/);
      assert.match(status.route.reason!, /--allocate-node-cidrs/);
      assert.match(status.service.reason!, /no --cloud-provider/);
      assert.match(status.garbagecollector.reason!, /--enable-garbage-collector is false/);
      assert.equal((cfg.leaderElection as { isLeader: boolean }).isLeader, true);
      assert.deepEqual((cfg.controllers as { enabled: string[] }).enabled, ['cronjob', 'deployment', 'garbagecollector', 'namespace', 'route', 'service']);
      const metrics = await (await fetch(`${d.url}/metrics`)).text();
      assert.match(metrics, /leader_election_master_status\{name="kube-controller-manager"\} 1/);
      assert.match(metrics, /controller_running\{controller="namespace"\} 1/);
      assert.match(metrics, /rest_client_requests_total\{verb="GET",code="200"\} \d+/);
      assert.ok(api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager'), 'the lock was taken');
      assert.ok(p.ctx()!.informers, 'controllers get the shared informers');
    } finally {
      await d.close();
    }
    assert.deepEqual(await d.done, { reason: 'closed' });
    assert.equal(p.events.filter((e) => e.what === 'stop').length, 2, 'controllers were told to stop');
  });
});

test('two daemons: only the leader runs controllers; closing it hands over', async () => {
  await withApi(async (api) => {
    const pa = probe();
    const pb = probe();
    const args = ['--master', api.url, '--address=127.0.0.1', '--port=0', '--controllers=namespace', ...FAST_ELECTION];
    const a = await startDaemon(args, { log: quiet, plans: { namespace: pa.plan }, identity: 'a' });
    let b: DaemonHandle | undefined;
    try {
      assert.ok(await until(() => pa.events.length === 1, 5000), 'await until(() => pa.events.length === 1, 5000)');
      b = await startDaemon(args, { log: quiet, plans: { namespace: pb.plan }, identity: 'b' });
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(pb.events.length, 0, 'the follower runs no loop');
      assert.equal(b.isLeader(), false);
      const closedAt = performance.now();
      await a.close();
      assert.ok(await until(() => pb.events.length === 1, 4000), 'the follower took over');
      assert.ok(performance.now() - closedAt < 1000 + 150 * 2.2 + 1500, 'performance.now() - closedAt < 1000 + 150 * 2.2 + 1500');
    } finally {
      await a.close();
      await b?.close();
    }
  });
});

test('without --leader-elect controllers start at once, spaced by --controller-start-interval', async () => {
  await withApi(async (api) => {
    const p = probe();
    const d = await startDaemon(['--master', api.url, '--address=127.0.0.1', '--port=0', '--leader-elect=false', '--x-api-content-type=application/json', '--controllers=namespace,job', '--controller-start-interval=200ms'], {
      log: quiet,
      plans: { namespace: p.plan, job: p.plan },
    });
    try {
      assert.ok(await until(() => p.events.length === 2, 3000), 'await until(() => p.events.length === 2, 3000)');
      const gap = p.events[1].at - p.events[0].at;
      assert.ok(gap >= 190, `second controller started ${gap} ms after the first`);
      assert.equal(api.stored('/api/v1/endpoints', 'kube-system', 'kube-controller-manager'), undefined, 'no lock without --leader-elect');
    } finally {
      await d.close();
    }
  });
});

test('close() waits for the control loops to return, and for no longer than its grace for one that ignores its signal', async () => {
  await withApi(async (api) => {
    const finished: string[] = [];
    const lines: string[] = [];
    // A loop that takes a moment to wind down after its signal, and one that never returns.
    const slow: ControllerPlan = {
      create: () => ({
        name: 'slow',
        run: async (c) => {
          await new Promise<void>((r) => c.signal.addEventListener('abort', () => r(), { once: true }));
          await new Promise((r) => setTimeout(r, 300));
          finished.push('namespace');
        },
      }),
    };
    const stubborn: ControllerPlan = { create: () => ({ name: 'stubborn', run: () => new Promise<void>(() => {}) }) };
    const d = await startDaemon(['--master', api.url, '--address=127.0.0.1', '--port=0', '--leader-elect=false', '--x-api-content-type=application/json', '--controllers=namespace,job'], {
      log: (line) => lines.push(line),
      plans: { namespace: slow, job: stubborn },
    });
    assert.ok(await until(() => d.controllerStates().namespace?.state === 'running' && d.controllerStates().job?.state === 'running', 5000), 'both loops started');
    const t0 = performance.now();
    await d.close();
    const took = performance.now() - t0;
    assert.deepEqual(finished, ['namespace'], 'the slow loop had returned when close() resolved');
    assert.ok(took < 5000 + 5000, `close() took ${Math.round(took)} ms (grace 5000 ms)`);
    const late = lines.filter((l) => l.startsWith('closing: controllers still running'));
    assert.equal(late.length, 1, lines.join('\n'));
    assert.match(late[0], /: job$/);
    assert.deepEqual(await d.done, { reason: 'closed' });
  });
});

test('losing leadership stops the daemon', async () => {
  await withApi(async (api) => {
    const p = probe();
    const d = await startDaemon(['--master', api.url, '--address=127.0.0.1', '--port=0', '--controllers=namespace', ...FAST_ELECTION], { log: quiet, plans: { namespace: p.plan } });
    try {
      assert.ok(await until(() => p.events.length === 1, 5000), 'await until(() => p.events.length === 1, 5000)');
      api.unavailable = true;
      assert.deepEqual(await d.done, { reason: 'leadership lost' });
      assert.equal(p.events.at(-1)?.what, 'stop');
    } finally {
      await d.close();
    }
  });
});

test('bad command lines and help/version never start anything', async () => {
  await assert.rejects(startDaemon(['--port=abc'], { log: quiet }), (e: unknown) => e instanceof UsageError && /"--port" flag: expected an int32/.test(e.message));
  await assert.rejects(startDaemon(['--version'], { log: quiet }), (e: unknown) => e instanceof DaemonExit && e.text === 'Kubernetes v1.9.0\n');
  await assert.rejects(startDaemon(['--help'], { log: quiet }), (e: unknown) => e instanceof DaemonExit && /--x-api-qps float32/.test(e.text) && /AllAlpha=true\|false/.test(e.text));
  await assert.rejects(startDaemon(['--port=0'], { log: quiet }), /neither --xconfig nor --master/);
});

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const entry = fileURLToPath(new URL('../index.ts', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the command line: exit 2 with one line for bad input, 0 for --version', async () => {
  const [bad, unknown, version] = await Promise.all([runCli(['--port', 'abc']), runCli(['--nope']), runCli(['--version=true'])]);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /invalid argument "abc" for "--port" flag: expected an int32/);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown flag: --nope/);
  assert.equal(version.code, 0);
  assert.equal(version.stdout, 'Kubernetes v1.9.0\n');
});
