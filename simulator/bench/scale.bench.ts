// Scale, after kwok's measure ("1k nodes and 100k pods"): simulated nodes and pods made by Deployments, all in one
// process with the memory store, as `npx tsx simulator --nodes N` runs them: the API server, the controller daemon
// (deployment and replicaset controllers) and the simulated kubelets and scheduler, talking HTTP. Client rate
// limits are raised (kubelets and scheduler unlimited, the daemon at 100k qps) and the two controllers sync 50
// objects at once (the 1.9 default is 5), since the limits of a real cluster's clients would set the pace here,
// not the simulator.
//
// The nodes post no kubelet or scheduler events (kwok's nodes post none; BENCH_SCALE_EVENTS=1 turns them on), and
// the daemon talks JSON (BENCH_SCALE_PROTOBUF=1: protobuf, its default).
//
// The daemon and the nodes run in a worker thread (scale-clients.ts), the API server in the main thread: two cores,
// as a real cluster's components are separate processes (BENCH_SCALE_THREADS=1: all in one thread, as
// `npx tsx simulator --nodes N` runs them).
//
// Reported: time from the first Deployment create until every pod is Running (counted from a store watch in this
// process, not by listing), the API's p99 latency of a GET and a LIST (limit=500) probed every 100 ms meanwhile
// (from a thread of its own, scale-probe.ts), the process's peak RSS, and `kubectl get pods -A --chunk-size=500`
// over all the pods.
//
//   npm run bench:scale                                 1,000 nodes, 100,000 pods through 1,000 Deployments
//   npm run bench -- scale                              the small variant (BENCH_SCALE_* below)
//   BENCH_SCALE_NODES=200 BENCH_SCALE_PODS=20000 BENCH_SCALE_DEPLOYMENTS=200 npm run bench -- scale

import { execFile } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { Pool } from 'undici';
import { clientConfigYaml, startSimulator } from '../cluster.ts';
import { formatLine, percentile, startThreadProfile, threadCpuSeconds, type Measurement } from './measurement.ts';
import type { ScaleClientsInit } from './scale-clients.ts';
import type { ScaleProbeInit } from './scale-probe.ts';
import { tsxWorker } from './tsx-worker.ts';

const NODES = Number(process.env.BENCH_SCALE_NODES ?? 50);
const PODS = Number(process.env.BENCH_SCALE_PODS ?? 2000);
const DEPLOYMENTS = Number(process.env.BENCH_SCALE_DEPLOYMENTS ?? 20);
const NAMESPACES = Math.max(1, Math.min(100, Math.ceil(DEPLOYMENTS / 10)));
const DEADLINE_MS = Number(process.env.BENCH_SCALE_DEADLINE_MS ?? 600_000);
// Kubelet and scheduler events off by default, as kwok's nodes post none (BENCH_SCALE_EVENTS=1: on, six per pod).
const EVENTS = process.env.BENCH_SCALE_EVENTS === '1';
// The daemon's wire format: JSON by default here (JSON.parse is native; protobuf decoding in JS cost a tenth of a
// run's CPU); BENCH_SCALE_PROTOBUF=1 keeps the daemon's own default, protobuf as the real controller manager.
const DAEMON_WIRE = process.env.BENCH_SCALE_PROTOBUF === '1' ? [] : ['--x-api-content-type=application/json'];
const THREADS = process.env.BENCH_SCALE_THREADS === '1' ? 1 : 2;
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
// BENCH_SCALE_PROFILE=dir: a CPU profile of each thread over the measured window (first create → all Running),
// written as dir/scale-server.cpuprofile and dir/scale-clients.cpuprofile.
const PROFILE_DIR = process.env.BENCH_SCALE_PROFILE;
const GC_KINDS: Record<number, string> = { 1: 'scavenges', 2: 'minor mark-compacts', 4: 'mark-compacts', 8: 'incremental marking steps', 16: 'weak callback passes' };
const KUBECTL_TIMEOUT_MS = Number(process.env.BENCH_SCALE_KUBECTL_TIMEOUT_MS ?? 600_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// HTTP requests the API server received (node's http diagnostics channel: counts every request, whatever handles it).
let requestCount = 0;
diagnostics.subscribe('http.server.request.start', () => requestCount++);

function deployment(name: string, replicas: number): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx:1.13' }] } } },
  };
}

/** The daemon and nodes in a worker thread (scale-clients.ts); resolves once both have started. */
async function startClientsThread(init: ScaleClientsInit): Promise<Worker> {
  // A young generation of 96 MB (V8's default is 16-32): the clients allocate a decoded object per watch event and
  // request, short-lived, and collected them in 40% of their thread's CPU with the default (1,000 nodes,
  // 10,000 pods: 6.4 s of 16.0 s; 4.3 s of 13.7 s with 96 MB).
  const young = Number(process.env.BENCH_SCALE_YOUNG_MB ?? 96);
  const worker = tsxWorker(new URL('./scale-clients.ts', import.meta.url).href, { workerData: { scaleClients: init }, resourceLimits: { maxYoungGenerationSizeMb: young } });
  await new Promise<void>((resolveReady, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the clients' thread exited (${code}) before starting`)));
    worker.once('message', () => resolveReady());
  });
  return worker;
}

/** The latency probes (scale-probe.ts) in a thread of their own, ready to probe every 100 ms once told 'go'. */
async function startProber(url: string): Promise<Worker> {
  const init: ScaleProbeInit = { url, getPath: '/api/v1/namespaces/scale-0', listPath: '/api/v1/namespaces/scale-0/pods?limit=500', intervalMs: 100 };
  const prober = tsxWorker(new URL('./scale-probe.ts', import.meta.url).href, { workerData: { scaleProbe: init } });
  await new Promise<void>((r, reject) => {
    prober.once('error', reject);
    prober.once('message', () => r());
  });
  return prober;
}

/** Stops the probes (after `afterMs` more) and answers their latencies. */
async function stopProber(prober: Worker, afterMs = 0): Promise<{ gets: number[]; lists: number[] }> {
  if (afterMs) await sleep(afterMs);
  const r = await askThread<{ gets: number[]; lists: number[] }>(prober, 'stop');
  await prober.terminate();
  return r;
}

/** Posts a message to a thread of this bench (clients, probes) and resolves with its answer. */
function askThread<T>(worker: Worker, message: unknown): Promise<T> {
  worker.postMessage(message);
  return new Promise((r) => worker.once('message', (m: T) => r(m)));
}

function clientsThreadCpu(worker: Worker): Promise<number> {
  worker.postMessage('cpu');
  return new Promise((r) => worker.once('message', (m: { cpuSeconds: number }) => r(m.cpuSeconds)));
}

async function stopClientsThread(worker: Worker): Promise<void> {
  worker.postMessage('close');
  await Promise.race([new Promise((r) => worker.once('message', r)), sleep(10_000)]);
  await worker.terminate();
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const label = `${NODES} nodes, ${PODS} pods via ${DEPLOYMENTS} Deployments${EVENTS ? ', with kubelet events' : ''}`;
  const rssPeak = { v: process.memoryUsage.rss() };
  const sampler = setInterval(() => (rssPeak.v = Math.max(rssPeak.v, process.memoryUsage.rss())), 250);
  const t0 = performance.now();
  const clients: ScaleClientsInit = {
    url: '',
    controllers: ['deployment', 'replicaset'],
    controllerArgs: [...DAEMON_WIRE, '--x-api-qps=100000', '--x-api-burst=100000', '--concurrent-deployment-syncs=50', '--concurrent-replicaset-syncs=50'],
    nodes: { count: NODES, startMs: 200, kubeletQps: -1, schedulerQps: -1, schedulerWorkers: 32, events: EVENTS },
  };
  const sim =
    THREADS === 1
      ? await startSimulator({ watchHistoryEvents: 10_000, ...clients, nodes: { ...clients.nodes, log: () => {} } })
      : await startSimulator({ watchHistoryEvents: 10_000 });
  const worker = THREADS === 2 ? await startClientsThread({ ...clients, url: sim.url }) : undefined;
  log(`${NODES} nodes registered and the daemon started in ${((performance.now() - t0) / 1000).toFixed(1)} s (${THREADS === 2 ? 'in a worker thread' : 'in the server\'s thread'})`);
  const pool = new Pool(sim.url, { connections: 16 });
  const json = { 'content-type': 'application/json' };
  const call = async (method: 'GET' | 'POST', path: string, body?: object) => {
    const res = await pool.request({ method, path, headers: body ? json : {}, body: body ? JSON.stringify(body) : undefined });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  const kubeDir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  // Pods Running, counted from the store's own watch (listing 100k pods to count them would be the load).
  const running = new Set<string>();
  const watch = sim.ctx.store.watch('/registry/pods/', {
    fromRevision: sim.ctx.store.currentRevision(),
    onEvent: (ev) => {
      const phase = (ev.object.status as { phase?: string } | undefined)?.phase;
      if (ev.type !== 'DELETED' && phase === 'Running') running.add(ev.key);
      else running.delete(ev.key);
    },
  });
  try {
    for (let n = 0; n < NAMESPACES; n++) await call('POST', '/api/v1/namespaces', { metadata: { name: `scale-${n}` } });
    const perDeployment = Math.floor(PODS / DEPLOYMENTS);
    // Probes: a GET of one object and a LIST chunk, every 100 ms while the pods come up, from a thread of their own,
    // started before anything is measured (its start is this bench's, not the cluster's) and probing from the window's
    // opening.
    const prober = await startProber(sim.url);
    let stopServerProfile: (() => Promise<void>) | undefined;
    if (PROFILE_DIR) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      stopServerProfile = await startThreadProfile(join(PROFILE_DIR, 'scale-server.cpuprofile'));
      if (worker) await askThread(worker, { profile: join(resolve(PROFILE_DIR), 'scale-clients.cpuprofile') });
    }
    // Why a probe waits: the server thread's event-loop delay and its garbage collector's pauses meanwhile.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const gcPauses: number[] = [];
    // Long pauses by kind (perf_hooks: 1 minor = scavenge, 4 major = mark-compact, 8 incremental marking step, 16 weak callbacks).
    const gcLongByKind = new Map<number, number>();
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        gcPauses.push(e.duration);
        const kind = (e as { detail?: { kind?: number } }).detail?.kind ?? 0;
        if (e.duration >= 20) gcLongByKind.set(kind, (gcLongByKind.get(kind) ?? 0) + 1);
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const fair0 = { ...(sim.ctx.fairQueue?.stats ?? { immediate: 0, queued: 0, drains: 0, maxWaiting: 0 }) };
    const requests0 = requestCount;
    const hub0 = { ...sim.ctx.hub.stats };
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    const serverCpu0 = threadCpuSeconds();
    const clientsCpu0 = worker ? await clientsThreadCpu(worker) : 0;
    await askThread(prober, 'go');
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < DEPLOYMENTS) {
          const i = next++;
          const replicas = perDeployment + (i < PODS - perDeployment * DEPLOYMENTS ? 1 : 0);
          await call('POST', `/apis/apps/v1/namespaces/scale-${i % NAMESPACES}/deployments`, deployment(`d${i}`, replicas));
        }
      }),
    );
    log(`${DEPLOYMENTS} Deployments created in ${((performance.now() - start) / 1000).toFixed(1)} s`);
    let lastLog = performance.now();
    while (running.size < PODS && performance.now() - start < DEADLINE_MS) {
      await sleep(250);
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`  ${((lastLog - start) / 1000).toFixed(0)} s: ${running.size}/${PODS} pods Running, RSS ${(process.memoryUsage.rss() / 2 ** 20).toFixed(0)} MiB`);
      }
    }
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const serverCpu = threadCpuSeconds() - serverCpu0;
    const clientsCpu = worker ? (await clientsThreadCpu(worker)) - clientsCpu0 : Number.NaN;
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const requests = requestCount - requests0;
    loopDelay.disable();
    const fair = sim.ctx.fairQueue ? { ...sim.ctx.fairQueue.stats } : undefined;
    gcObserver.disconnect();
    const hub = sim.ctx.hub.stats;
    if (stopServerProfile) {
      await stopServerProfile();
      if (worker) await askThread(worker, 'profile-stop');
      log(`CPU profiles of the window written to ${PROFILE_DIR}/scale-{server,clients}.cpuprofile`);
    }
    const { gets, lists } = await stopProber(prober);
    rssPeak.v = Math.max(rssPeak.v, process.memoryUsage.rss());
    const runningAtEnd = running.size;
    const allRunning = runningAtEnd >= PODS;
    // CPU time says what the work costs whatever else the machine runs meanwhile (the wall time does not).
    log(`${runningAtEnd}/${PODS} pods Running ${seconds.toFixed(1)} s after the first Deployment create; CPU ${cpuSeconds.toFixed(1)} s (${((cpuSeconds / Math.max(1, runningAtEnd)) * 1000).toFixed(2)} ms per pod Running), load average ${loadavg()[0].toFixed(1)}`);
    // Each thread's own CPU: on two unloaded cores the busier thread bounds the time to all Running, whatever the
    // machine ran beside this run.
    const busiest = Math.max(serverCpu, Number.isNaN(clientsCpu) ? 0 : clientsCpu);
    log(
      `CPU by thread: API server (main thread) ${serverCpu.toFixed(1)} s${worker ? `, daemon and nodes (worker thread) ${clientsCpu.toFixed(1)} s` : ' (daemon and nodes included)'}` +
        `; the busier thread: ${busiest.toFixed(1)} s, ${((busiest / Math.max(1, runningAtEnd)) * 1000).toFixed(2)} ms per pod`,
    );

    log(
      `HTTP requests meanwhile: ${requests} (${(requests / Math.max(1, runningAtEnd)).toFixed(2)} per pod); watch frames delivered ${hub.deliveries - hub0.deliveries} in ${hub.writes - hub0.writes} socket writes, ${hub.encodings - hub0.encodings} encodings`,
    );

    if (fair)
      log(
        `per-client queues (server/fair-queue.ts): ${fair.immediate - fair0.immediate} requests answered at once, ${fair.queued - fair0.queued} waited for a later pass ` +
          `(${fair.drains - fair0.drains} passes served queues; at most ${fair.maxWaiting} waiting at once)`,
      );
    // The same probes once the cluster is quiet: what a probe costs by itself.
    const quietProber = await startProber(sim.url);
    await askThread(quietProber, 'go');
    const quiet = await stopProber(quietProber, 2000);
    log(`the same probes on the quiet cluster afterwards: GET p50 ${percentile(quiet.gets, 0.5).toFixed(1)} ms, LIST p50 ${percentile(quiet.lists, 0.5).toFixed(1)} ms`);
    const gcLong = gcPauses.filter((d) => d >= 20);
    // The histogram holds the timer's whole interval (10 ms): how late it fired is the rest.
    const late = (ns: number) => Math.max(0, ns / 1e6 - 10).toFixed(0);
    const spread = (xs: number[]) => [0.5, 0.9, 0.99, 1].map((p) => percentile(xs, p).toFixed(1)).join(' / ');
    log(`probes meanwhile, p50 / p90 / p99 / max: GET ${spread(gets)} ms; LIST ${spread(lists)} ms`);
    log(
      `server thread meanwhile: event-loop delay p50 ${late(loopDelay.percentile(50))} ms, p99 ${late(loopDelay.percentile(99))} ms, max ${late(loopDelay.max)} ms; ` +
        `GC ${gcPauses.length} pauses, ${(gcPauses.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s in all, ${gcLong.length} of them >= 20 ms (longest ${Math.max(0, ...gcPauses).toFixed(0)} ms; ` +
        `${[...gcLongByKind].map(([k, n]) => `${n} ${GC_KINDS[k] ?? `kind ${k}`}`).join(', ') || 'none'})`,
    );

    // kubectl over every pod, in chunks of 500 (its table printing included).
    const kubeconfig = join(kubeDir, 'kubeconfig');
    writeFileSync(kubeconfig, clientConfigYaml(sim.url));
    const k0 = performance.now();
    // Bounded, so that a machine too busy for kubectl still gets its table (a timeout is reported as such).
    const kubectlOut = await new Promise<string>((res) =>
      execFile(KUBECTL, ['--kubeconfig', kubeconfig, 'get', 'pods', '-A', '--chunk-size=500', '--no-headers'], { maxBuffer: 1 << 30, timeout: KUBECTL_TIMEOUT_MS }, (err, stdout) => {
        if (err) log(`kubectl: ${err.message.split('\n')[0]}`);
        res(err ? '' : stdout);
      }),
    );
    const kubectlSeconds = (performance.now() - k0) / 1000;
    const kubectlLines = kubectlOut.split('\n').filter((l) => l.trim()).length;
    log(`kubectl get pods -A --chunk-size=500: ${kubectlLines} pods in ${kubectlSeconds.toFixed(1)} s`);

    const getP99 = percentile(gets, 0.99);
    const listP99 = percentile(lists, 0.99);
    const rssGb = rssPeak.v / 2 ** 30;
    const results: Measurement[] = [
      { name: `${label}: time from the first create to all pods Running (${runningAtEnd}/${PODS} at the end)`, value: seconds, unit: 's', target: '<= 120, all Running', ok: allRunning && seconds <= 120 },
      {
        name: `${label}: CPU of the busiest thread until all Running (bounds the time on 2 unloaded cores; ${THREADS} thread${THREADS > 1 ? 's' : ''})`,
        value: busiest,
        unit: 's',
        target: 'report only',
        ok: true,
      },
      { name: `${label}: API p99 GET latency meanwhile (${gets.length} probes)`, value: getP99, unit: 'ms', target: '<= 50', ok: getP99 <= 50 },
      { name: `${label}: API p99 LIST (limit=500) latency meanwhile (${lists.length} probes)`, value: listP99, unit: 'ms', target: '<= 50', ok: listP99 <= 50 },
      { name: `${label}: peak RSS of the process (API server, daemon, nodes)`, value: rssGb, unit: 'GiB', target: '<= 3', ok: rssGb <= 3 },
      { name: `kubectl get pods -A --chunk-size=500 over ${kubectlLines} pods`, value: kubectlSeconds, unit: 's', target: 'report only (every pod listed)', ok: kubectlLines >= runningAtEnd && kubectlLines > 0 },
    ];
    for (const m of results) log(formatLine(m));
    return results;
  } finally {
    clearInterval(sampler);
    watch.stop();
    await pool.close();
    if (worker) await stopClientsThread(worker);
    await sim.close();
    rmSync(kubeDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await run();
  process.exitCode = results.every((m) => m.ok) ? 0 : 1;
}
