// Termination messages through the API (spec 8.1): what a container leaves in state.terminated.message /
// lastState.terminated.message — the annotation, the file exec wrote, a configured file at a custom
// terminationMessagePath, the last 4096 bytes, FallbackToLogsOnError's last 80 lines / 2048 bytes, and the
// pod's 12 KiB shared by its containers.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { eventually } from '../testing/test-simulator.ts';

type Json = Record<string, any>;
const PODS = '/api/v1/namespaces/default/pods';

describe('termination messages of simulated containers', () => {
  let sim: RunningSimulator;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(sim.url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const pod = async (name: string, annotations: Record<string, string>, containers: Json[], restartPolicy = 'Never') => {
    const r = await call('POST', PODS, { metadata: { name, annotations }, spec: { restartPolicy, containers } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  /** The container statuses once every container has a terminated state (or lastState with `last`). */
  const ended = (name: string, last = false) =>
    eventually(`${name} terminated`, async () => {
      const p = (await call('GET', `${PODS}/${name}`)).body;
      const statuses = (p.status?.containerStatuses ?? []) as Json[];
      return statuses.length > 0 && statuses.every((s) => (last ? s.lastState : s.state)?.terminated) && statuses;
    }, 20_000);

  before(async () => {
    sim = await startSimulator({ controllers: false, nodes: { count: 1, startMs: 50, batchRunMs: 300, restartBackoffMs: 60_000, log: () => {} } });
  });
  after(async () => sim?.close());

  test('the annotation is what the container writes as it ends; no message when it writes nothing', async () => {
    await pod('annotated', { 'simulator.cluster.local/termination-message': 'all done\n' }, [{ name: 'c', image: 'busybox' }]);
    await pod('silent', {}, [{ name: 'c', image: 'busybox' }]);
    const [a] = await ended('annotated');
    assert.equal(a.state.terminated.message, 'all done\n');
    assert.equal(a.state.terminated.exitCode, 0);
    const [s] = await ended('silent');
    assert.equal('message' in s.state.terminated, false);
  });

  test('what exec wrote to /dev/termination-log while it ran', async () => {
    await pod('written', { 'simulator.cluster.local/run-seconds': '3' }, [{ name: 'c', image: 'busybox' }]);
    await eventually('running', async () => (await call('GET', `${PODS}/written`)).body.status?.phase === 'Running', 10_000);
    const url = `${sim.url.replace('http', 'ws')}${PODS}/written/exec?command=sh&command=-c&command=${encodeURIComponent('echo "written by exec" > /dev/termination-log')}&stdout=true`;
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, 'v4.channel.k8s.io');
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    const [c] = await ended('written');
    assert.equal(c.state.terminated.message, 'written by exec\n');
  });

  test('a custom terminationMessagePath with a configured file; the last 4096 bytes of a longer one', async () => {
    const long = `${'x'.repeat(1000)}${'y'.repeat(4096)}`;
    await pod('custom', { 'simulator.cluster.local/files': JSON.stringify({ '/var/run/msg': 'from the file' }) }, [{ name: 'c', image: 'busybox', terminationMessagePath: '/var/run/msg' }]);
    await pod('long', { 'simulator.cluster.local/termination-message': long }, [{ name: 'c', image: 'busybox' }]);
    assert.equal((await ended('custom'))[0].state.terminated.message, 'from the file');
    assert.equal((await ended('long'))[0].state.terminated.message, 'y'.repeat(4096));
  });

  test('FallbackToLogsOnError: the last 80 lines of the log, at most 2048 bytes, only for a failure without a message', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
    const wide = Array.from({ length: 100 }, (_, i) => `${String(i + 1).padStart(3, '0')} ${'w'.repeat(60)}`).join('\n');
    const fallback = { name: 'c', image: 'busybox', terminationMessagePolicy: 'FallbackToLogsOnError' };
    await pod('fails', { 'simulator.cluster.local/exit-code': '2', 'simulator.cluster.local/log': lines }, [fallback]);
    await pod('fails-wide', { 'simulator.cluster.local/exit-code': '2', 'simulator.cluster.local/log': wide }, [fallback]);
    await pod('succeeds', { 'simulator.cluster.local/log': lines }, [fallback]);
    await pod('fails-file-policy', { 'simulator.cluster.local/exit-code': '2', 'simulator.cluster.local/log': lines }, [{ name: 'c', image: 'busybox' }]);
    await pod('fails-with-message', { 'simulator.cluster.local/exit-code': '2', 'simulator.cluster.local/log': lines, 'simulator.cluster.local/termination-message': 'own words' }, [fallback]);
    const [f] = await ended('fails');
    assert.equal(f.state.terminated.exitCode, 2);
    assert.equal(f.state.terminated.message, Array.from({ length: 80 }, (_, i) => `line ${i + 21}\n`).join(''));
    const wideMessage = (await ended('fails-wide'))[0].state.terminated.message as string;
    assert.equal(Buffer.byteLength(wideMessage), 2048);
    assert.ok(wideMessage.endsWith(`100 ${'w'.repeat(60)}\n`), wideMessage.slice(-80));
    assert.equal('message' in (await ended('succeeds'))[0].state.terminated, false);
    assert.equal('message' in (await ended('fails-file-policy'))[0].state.terminated, false);
    assert.equal((await ended('fails-with-message'))[0].state.terminated.message, 'own words');
  });

  test('12 KiB per pod: four containers of 4096 bytes each keep their first 3072', async () => {
    const containers = ['a', 'b', 'c', 'd'].map((name) => ({ name, image: 'busybox' }));
    const annotations = Object.fromEntries(containers.map((c) => [`simulator.cluster.local/termination-message.${c.name}`, `${c.name}:${'m'.repeat(4093)}\n`]));
    await pod('four', annotations, containers);
    const statuses = await ended('four');
    for (const s of statuses) assert.ok(s.state.terminated.message === `${s.name}:${'m'.repeat(3070)}`, `${s.name}: ${s.state.terminated.message.length} characters from ${s.state.terminated.message.slice(0, 3)}`);
    await pod('one-long', { 'simulator.cluster.local/termination-message': 'z'.repeat(4096) }, [{ name: 'c', image: 'busybox' }]);
    assert.equal((await ended('one-long'))[0].state.terminated.message.length, 4096, 'one container keeps its whole 4096');
  });

  test('a restarted container keeps its message in lastState.terminated', async () => {
    await pod('crashes', { 'simulator.cluster.local/run-seconds': '0.3', 'simulator.cluster.local/exit-code': '1', 'simulator.cluster.local/termination-message': 'crashed: out of cheese' }, [{ name: 'c', image: 'busybox' }], 'Always');
    const [c] = await ended('crashes', true);
    assert.equal(c.lastState.terminated.message, 'crashed: out of cheese');
    assert.equal(c.lastState.terminated.exitCode, 1);
    assert.equal(c.state.waiting.reason, 'CrashLoopBackOff');
  });
});
