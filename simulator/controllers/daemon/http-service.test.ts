import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttpService, type HttpService } from './http-service.ts';
import { DaemonMetrics } from '../../client/metrics.ts';

async function withService(opts: { profiling?: boolean; contention?: boolean }, fn: (svc: HttpService, metrics: DaemonMetrics) => Promise<void>) {
  const metrics = new DaemonMetrics({ processMetrics: false });
  const svc = await startHttpService({
    address: '127.0.0.1',
    port: 0,
    profiling: opts.profiling ?? true,
    contentionProfiling: opts.contention ?? false,
    metrics,
    configz: () => ({ componentconfig: { port: 10252, leaderElectLeaseDuration: '15s' } }),
  });
  try {
    await fn(svc, metrics);
  } finally {
    await svc.close();
  }
}

test('/healthz: ok, verbose, single checks, failure shape', async () => {
  await withService({}, async (svc) => {
    let r = await fetch(`${svc.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'ok');
    assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
    r = await fetch(`${svc.url}/healthz?verbose`);
    assert.equal(await r.text(), '[+]ping ok\nhealthz check passed\n');
    r = await fetch(`${svc.url}/healthz/ping`);
    assert.equal(await r.text(), 'ok');
    svc.addHealthCheck('leaderElection', () => {
      throw new Error('lease expired');
    });
    r = await fetch(`${svc.url}/healthz`);
    assert.equal(r.status, 500);
    assert.equal(await r.text(), '[+]ping ok\n[-]leaderElection failed: reason withheld\nhealthz check failed\n');
    r = await fetch(`${svc.url}/healthz/leaderElection`);
    assert.equal(r.status, 500);
    assert.equal(await r.text(), 'lease expired\n');
    r = await fetch(`${svc.url}/healthz/nope`);
    assert.equal(r.status, 404);
  });
});

test('/metrics is Prometheus text from the daemon registry', async () => {
  await withService({}, async (svc, metrics) => {
    metrics.apiRequests.inc({ verb: 'GET', code: '200' });
    metrics.leaderStatus.set({ name: 'kube-controller-manager' }, 1);
    const r = await fetch(`${svc.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await r.text();
    assert.match(text, /rest_client_requests_total\{verb="GET",code="200"\} 1/);
    assert.match(text, /leader_election_master_status\{name="kube-controller-manager"\} 1/);
    assert.match(text, /# TYPE workqueue_depth gauge/);
  });
});

test('/configz is JSON from the callback; unknown paths give Go 404 text', async () => {
  await withService({}, async (svc) => {
    let r = await fetch(`${svc.url}/configz`);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(await r.json(), { componentconfig: { port: 10252, leaderElectLeaseDuration: '15s' } });
    r = await fetch(`${svc.url}/nowhere`);
    assert.equal(r.status, 404);
    assert.equal(await r.text(), '404 page not found\n');
  });
});

test('pprof: CPU profile, heap snapshot head, block only with contention profiling', async () => {
  await withService({ contention: true }, async (svc) => {
    let r = await fetch(`${svc.url}/debug/pprof/profile?seconds=1`);
    assert.equal(r.status, 200);
    const profile = (await r.json()) as { nodes: unknown[]; startTime: number; endTime: number };
    assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0, 'Array.isArray(profile.nodes) && profile.nodes.length > 0');
    assert.ok(profile.endTime > profile.startTime, 'profile.endTime > profile.startTime');
    r = await fetch(`${svc.url}/debug/pprof/block`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /Node\.js has no lock-contention[\s\S]*monitorEventLoopDelay[\s\S]*p99:/);
    r = await fetch(`${svc.url}/debug/pprof/`);
    assert.match(await r.text(), /\/debug\/pprof\/block/);
  });
  await withService({}, async (svc) => {
    const r = await fetch(`${svc.url}/debug/pprof/block`);
    assert.equal(r.status, 404);
    await r.body?.cancel();
  });
});

test('heap snapshot streams a V8 snapshot', async () => {
  await withService({}, async (svc) => {
    const r = await fetch(`${svc.url}/debug/pprof/heap`);
    assert.equal(r.status, 200);
    const reader = r.body!.getReader();
    const { value } = await reader.read();
    assert.match(Buffer.from(value!).toString('utf8', 0, 64), /^\{"snapshot":/);
    await reader.cancel();
  });
});

test('with --profiling=false there is no /debug/pprof', async () => {
  await withService({ profiling: false }, async (svc) => {
    const r = await fetch(`${svc.url}/debug/pprof/profile?seconds=1`);
    assert.equal(r.status, 404);
    assert.equal(await r.text(), '404 page not found\n');
  });
});
