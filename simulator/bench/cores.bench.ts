// Two cores in what users run: the command (`node --import tsx simulator`, what `npx tsx simulator` runs) with the
// scheduler's, kubelets' and daemon's client limits raised as the root README says for scale tests, pinned with
// taskset to one core and to two, in pairs (which first alternating): time from the first Deployment create to every
// pod Running. The API server keeps its thread and the daemon and nodes run in a worker thread of their own
// (simulator/cluster-clients-thread.ts), so on two cores the time should fall by the share of the clients' work;
// goal: the 1-core time at least 1.6 x the 2-core time (median of the pairs' ratios).
//
// Sizes: BENCH_CORES_NODES (200), BENCH_CORES_PODS (5,000), BENCH_CORES_DEPLOYMENTS (50), BENCH_CORES_PAIRS (5);
// BENCH_CORES_SINGLE=1 adds one run with --single-thread on two cores, for comparison. Needs taskset (util-linux)
// and two cores; skipped otherwise.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { formatLine, pairedRatio, ratioMeasurement, type Measurement } from './measurement.ts';
import { freePort } from '../testing/ports.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODES = Number(process.env.BENCH_CORES_NODES ?? 200);
const PODS = Number(process.env.BENCH_CORES_PODS ?? 5000);
const DEPLOYMENTS = Number(process.env.BENCH_CORES_DEPLOYMENTS ?? 50);
const PAIRS = Number(process.env.BENCH_CORES_PAIRS ?? 5);
const DEADLINE_MS = Number(process.env.BENCH_CORES_DEADLINE_MS ?? 300_000);

/** The command line a scale test uses (root README, "Scale tests"). */
const SCALE_FLAGS = [
  '--scheduler-api-qps=-1',
  '--kubelet-api-qps=-1',
  '--daemon-arg=--x-api-qps=100000',
  '--daemon-arg=--x-api-burst=100000',
  '--daemon-arg=--concurrent-deployment-syncs=50',
  '--daemon-arg=--concurrent-replicaset-syncs=50',
];

function deployment(name: string, replicas: number): object {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
}

interface CoresRun {
  seconds: number;
  running: number;
  /** CPU of the whole process (all its threads), from /proc, over the run. */
  cpuSeconds: number;
}

/** utime + stime of a process, all its threads (seconds; taskset execs node, so its pid is node's). */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Counts pods Running from a watch of every pod in the namespace (JSON lines), until `want` or the deadline. */
async function waitRunning(url: string, ns: string, want: number, deadline: number): Promise<number> {
  const running = new Set<string>();
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), Math.max(0, deadline - performance.now()));
  try {
    const res = await fetch(`${url}/api/v1/namespaces/${ns}/pods?watch=1`, { signal: ctrl.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string }; status?: { phase?: string } } };
        if (ev.type !== 'DELETED' && ev.object.status?.phase === 'Running') running.add(ev.object.metadata.name);
        else running.delete(ev.object.metadata.name);
      }
      if (running.size >= want) break;
    }
  } catch (e) {
    if (!ctrl.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    ctrl.abort();
  }
  return running.size;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(t);
}

/** One run of the command pinned to `cpuList` (taskset -c), e.g. "0" or "0,1". */
async function runPinned(cpuList: string, extra: string[] = []): Promise<CoresRun> {
  const port = await freePort();
  const args = ['-c', cpuList, process.execPath, '--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--nodes', String(NODES), '--kubeconfig-out', '/dev/null', ...SCALE_FLAGS, ...extra];
  const child = spawn('taskset', args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-3000)));
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 8 });
  try {
    const up = performance.now() + 120_000;
    while (!/^controller daemon: /m.test(out)) {
      if (child.exitCode !== null || performance.now() > up) throw new Error(`the simulator did not come up (taskset -c ${cpuList}): ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = `http://127.0.0.1:${port}`;
    const post = async (path: string, body: object) => {
      const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    };
    await post('/api/v1/namespaces', { metadata: { name: 'cores' } });
    const cpu0 = processCpu(child.pid!);
    const t0 = performance.now();
    const counted = waitRunning(url, 'cores', PODS, t0 + DEADLINE_MS);
    const per = Math.floor(PODS / DEPLOYMENTS);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < DEPLOYMENTS) {
          const i = next++;
          await post('/apis/apps/v1/namespaces/cores/deployments', deployment(`d${i}`, per + (i < PODS - per * DEPLOYMENTS ? 1 : 0)));
        }
      }),
    );
    const running = await counted;
    return { seconds: (performance.now() - t0) / 1000, running, cpuSeconds: processCpu(child.pid!) - cpu0 };
  } finally {
    await pool.close();
    await stopChild(child);
  }
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  if (cpus().length < 2 || spawnSync('taskset', ['-c', '0', 'true']).status !== 0) {
    log('taskset or a second core is missing: skipped');
    return [];
  }
  const label = `${NODES} nodes, ${PODS} pods via ${DEPLOYMENTS} Deployments through the command`;
  const runs: Array<{ cores: number } & CoresRun> = [];
  const timed = (cores: number) => async () => {
    const r = await runPinned(cores === 1 ? '0' : '0,1');
    runs.push({ cores, ...r });
    log(`${cores} core${cores > 1 ? 's' : ''}: ${r.running}/${PODS} Running in ${r.seconds.toFixed(1)} s, CPU ${r.cpuSeconds.toFixed(1)} s, load average ${loadavg()[0].toFixed(1)}`);
    if (r.running < PODS) throw new Error(`${cores} core(s): only ${r.running} of ${PODS} pods Running after ${(DEADLINE_MS / 1000).toFixed(0)} s`);
    return r.seconds;
  };
  // measured / reference = the 1-core time over the 2-core time: how much faster two cores are.
  const { median } = await pairedRatio(PAIRS, timed(1), timed(2));
  const results: Measurement[] = [
    ratioMeasurement(`${label}: time to all Running pinned to 1 core vs 2 cores (taskset; median of ${PAIRS} pairs)`, median, { atLeast: 1.6 }, { unit: 's', referenceLabel: '2 cores' }),
  ];
  if (process.env.BENCH_CORES_SINGLE === '1') {
    const single = await runPinned('0,1', ['--single-thread']);
    log(`2 cores, --single-thread: ${single.running}/${PODS} Running in ${single.seconds.toFixed(1)} s, CPU ${single.cpuSeconds.toFixed(1)} s`);
    results.push({ name: `${label}: 2 cores with --single-thread (one run)`, value: single.seconds, unit: 's', target: 'report only', ok: true });
  }
  const two = runs.filter((r) => r.cores === 2).map((r) => r.seconds);
  results.push({ name: `${label}: time to all Running on 2 cores (each run: ${two.map((x) => x.toFixed(1)).join(', ')} s)`, value: median.reference, unit: 's', target: 'report only', ok: true });
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await run();
  process.exitCode = results.every((m) => m.ok) ? 0 : 1;
}
