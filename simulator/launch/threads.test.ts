// startSimulator's second core: the controller daemon and the nodes run in a worker thread of their own (the daemon
// answers its /healthz while the API server's thread is blocked; with singleThread it cannot), a start that fails in
// that thread is a SimulatorStartError and hangs nothing, and the scheduler's and kubelets' client limits take effect
// (their request rates as the API server's request log sees them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { threadId } from 'node:worker_threads';
import { SimulatorStartError, startSimulator, type Simulator, type SimulatorOptions } from './index.ts';

/** The daemon's /healthz fetched by a child process while this thread waits for it synchronously (its event loop blocked). */
function healthzWhileBlocked(daemonUrl: string, timeoutMs: number): string {
  const script = `fetch(${JSON.stringify(`${daemonUrl}/healthz`)}).then((r) => r.text()).then((t) => process.stdout.write(t))`;
  return execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: timeoutMs });
}

test('the daemon and the nodes run in a worker thread: the daemon answers while the API server thread is blocked', async () => {
  const lines: string[] = [];
  const sim = await startSimulator({ nodes: 2, log: (l) => lines.push(l) });
  try {
    assert.equal(typeof sim.clientsThreadId, 'number');
    assert.notEqual(sim.clientsThreadId, threadId, 'not the API server thread');
    assert.deepEqual(sim.nodeNames, ['sim-node-0', 'sim-node-1']);
    assert.ok(sim.daemonUrl, 'the daemon runs');
    assert.ok(
      lines.some((l) => l.includes(`run in worker thread ${sim.clientsThreadId}, the API server in thread ${threadId}`)),
      `the log says where they run:\n${lines.slice(0, 20).join('\n')}`,
    );
    assert.ok(lines.some((l) => l.startsWith('controller-daemon] ')) && lines.some((l) => l.startsWith('nodes] ')), 'their log lines reach the log');
    assert.equal(healthzWhileBlocked(sim.daemonUrl, 30_000), 'ok');
    // The nodes are up and registered through the API.
    const nodes = (await (await fetch(`${sim.url}/api/v1/nodes`)).json()) as { items: unknown[] };
    assert.equal(nodes.items.length, 2);
  } finally {
    await sim.stop();
  }
});

test('singleThread: the daemon shares the API server thread, so a blocked thread blocks it too', async () => {
  const sim = await startSimulator({ nodes: 0, singleThread: true });
  try {
    assert.equal(sim.clientsThreadId, undefined);
    assert.ok(sim.daemonUrl, 'the daemon runs');
    assert.throws(() => healthzWhileBlocked(sim.daemonUrl!, 2_000), /ETIMEDOUT|timed out/i);
  } finally {
    await sim.stop();
  }
});

test('the kubelets in the worker thread read ended containers\' files from the API server thread (termination messages)', async () => {
  const sim = await startSimulator({ nodes: 1, noControllers: true });
  const pods = '/api/v1/namespaces/default/pods';
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sim.url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    type PodStatus = { phase?: string; containerStatuses?: { state?: { terminated?: { message?: string } } }[] };
    return { status: res.status, body: (await res.json()) as { status?: PodStatus } };
  };
  const until = async <T>(what: string, f: () => Promise<T | undefined>): Promise<T> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = await f();
      if (v !== undefined) return v;
      assert.ok(Date.now() < deadline, `${what} within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const message = (name: string) =>
    until(`${name} terminated`, async () => {
      const s = (await call('GET', `${pods}/${name}`)).body.status?.containerStatuses?.[0]?.state?.terminated;
      return s ? (s.message ?? '') : undefined;
    });
  try {
    // A file written by exec (served in the API server's thread) while the container ran.
    let r = await call('POST', pods, {
      metadata: { name: 'written', annotations: { 'simulator.cluster.local/run-seconds': '3' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await until('running', async () => ((await call('GET', `${pods}/written`)).body.status?.phase === 'Running' ? true : undefined));
    const url = `${sim.url.replace('http', 'ws')}${pods}/written/exec?command=sh&command=-c&command=${encodeURIComponent('echo "written by exec" > /dev/termination-log')}&stdout=true`;
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, 'v4.channel.k8s.io');
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    assert.equal(await message('written'), 'written by exec\n');
    // A configured file at a custom path.
    r = await call('POST', pods, {
      metadata: { name: 'custom', annotations: { 'simulator.cluster.local/files': JSON.stringify({ '/var/run/msg': 'from the file' }) } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', terminationMessagePath: '/var/run/msg' }] },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(await message('custom'), 'from the file');
  } finally {
    await sim.stop();
  }
});

test("a start that fails in the clients' thread is a SimulatorStartError and leaves nothing running", async () => {
  const started = Date.now();
  await assert.rejects(startSimulator({ nodes: 1, daemonArg: ['--no-such-flag'] }), (e) => e instanceof SimulatorStartError && /no-such-flag/.test(e.message));
  assert.ok(Date.now() - started < 60_000, 'the failed start ended in time');
});

/**
 * Requests of each user agent in the request log over `ms` from now, Events left out: the kubelet's and the
 * scheduler's events go through clients of their own with their own limits (the kubelet's --event-qps).
 */
async function requestsDuring(lines: string[], ms: number, action: () => Promise<unknown> = async () => {}): Promise<(agent: string) => number> {
  const from = lines.length;
  await action();
  await new Promise((r) => setTimeout(r, ms));
  const window = lines.slice(from).filter((l) => !/^httplog\] \w+ \S*\/events[/?: ]/.test(l));
  return (agent) => window.filter((l) => l.includes(`[${agent}`)).length;
}

async function createPods(sim: Simulator, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${sim.url}/api/v1/namespaces/default/pods`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }),
    });
    assert.equal(r.status, 201, await r.text());
  }
}

test('--scheduler-api-qps/--kubelet-api-qps: the scheduler and each kubelet are held to their limits (unlimited: far more)', async () => {
  const run = async (limits: Pick<SimulatorOptions, 'schedulerApiQps' | 'schedulerApiBurst' | 'kubeletApiQps' | 'kubeletApiBurst'>) => {
    const lines: string[] = [];
    // Heartbeats every 20 ms: 50 a second wanted from the one kubelet; 20 pods to bind at once for the scheduler.
    const sim = await startSimulator({ nodes: 1, noControllers: true, nodeStatusUpdateFrequency: '20ms', v: 3, log: (l) => lines.push(l), ...limits });
    try {
      const count = await requestsDuring(lines, 3_000, () => createPods(sim, 20));
      return { kubelet: count('kubelet/v1.9.0 (sim-node-0)'), scheduler: count('default-scheduler/') };
    } finally {
      await sim.stop();
    }
  };
  const limited = await run({ schedulerApiQps: 2, schedulerApiBurst: 1, kubeletApiQps: 2, kubeletApiBurst: 1 });
  const unlimited = await run({ schedulerApiQps: -1, kubeletApiQps: -1 });
  // 3 s at 2 a second plus the burst, with a generous margin for timers and the log's window.
  assert.ok(limited.kubelet <= 12, `kubelet at 2 qps: ${limited.kubelet} requests in 3 s`);
  assert.ok(limited.scheduler <= 12, `scheduler at 2 qps: ${limited.scheduler} requests in 3 s`);
  assert.ok(unlimited.kubelet >= 25, `kubelet unlimited: ${unlimited.kubelet} requests in 3 s`);
  assert.ok(unlimited.scheduler >= 20, `scheduler unlimited: ${unlimited.scheduler} requests in 3 s (a binding per pod)`);
});

test('client limits are checked like the other options', async () => {
  await assert.rejects(startSimulator({ schedulerApiQps: Number.NaN }), /--scheduler-api-qps/);
  await assert.rejects(startSimulator({ kubeletApiBurst: -1 }), /--kubelet-api-burst/);
});
