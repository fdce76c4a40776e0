// EtcdStore benchmarks against a throw-away etcd (etcd-test-server.ts): write and read latency, a chunk's cost
// against the store's size (plain and through a selective filter), and how fast a write reaches another store's
// watch (the path of a write through one simulator to a watcher of another), and creates per second through the
// whole API server on etcd (HTTP creates, 64 in flight) against the etcd client's own puts of the same bytes with
// as many in flight, in the same run (goal: >= 0.6 of the client's rate), and a list of 500 ConfigMaps through the API
// server against the etcd client's range read of the same keys (goal: within 1.5 x its time), both paired.
//
// Run: node --import tsx simulator/bench/etcd.bench.ts (also `run()` for npm run bench). Without etcd: skipped.

import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { KubeObject } from '../api/meta.ts';
import { EtcdStore, type EtcdCallCounts } from '../storage/etcd.ts';
import { findEtcd, startEtcd } from '../testing/etcd-test-server.ts';
import { Etcd3 } from 'etcd3';
import { Pool } from 'undici';
import { startSimulator } from '../cluster.ts';
import { pairedRatio, ratioMeasurement, type Measurement } from './measurement.ts';


const CHUNK = 500;

/** What the simulator worker of createsAgainstPuts posts back. */
interface WorkerMessage {
  op: string;
  url?: string;
  calls?: EtcdCallCounts;
}

function configMap(i: number): KubeObject {
  const data: Record<string, string> = {};
  for (let k = 0; k < 8; k++) data[`key-${k}.properties`] = `value ${i}-${k} `.padEnd(96, 'x');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench', uid: `uid-${i}`, labels: { app: `app-${i % 100}` } },
    data,
  };
}

/** Writes n objects under prefix with `parallel` writes in flight (etcd batches the fsyncs of concurrent writes). */
async function fill(store: EtcdStore, prefix: string, n: number, parallel = 64): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      await store.create(`${prefix}cm-${String(i).padStart(7, '0')}`, configMap(i));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

async function timePerOp(n: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op(i);
  return (performance.now() - t0) / n;
}

/** Median time of a middle chunk (several runs, after a warm-up). */
async function chunkMs(store: EtcdStore, prefix: string, n: number, filter?: (o: KubeObject) => boolean): Promise<number> {
  const startKey = `${prefix}cm-${String(Math.floor(n / 2)).padStart(7, '0')}`;
  const times: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    const res = await store.list(prefix, { limit: filter ? 5 : CHUNK, startKey, filter });
    times.push(performance.now() - t0);
    if (res.items.length === 0) throw new Error('empty chunk');
  }
  times.sort((a, b) => a - b);
  return times[3];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** n requests with `parallel` in flight; answers per second. */
async function rate(n: number, parallel: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** Pairs of creates and puts measured back to back (the median pair's ratio is the figure). */
const ROUNDS = 5;
/** The objects of the list compared with the etcd client's range read. */
const LIST = 500;

/**
 * HTTP creates of ConfigMaps through a simulator whose store is etcd, against etcd3's own puts of the bytes the
 * store writes for them (same size, same parallelism, same etcd), paired: the median ratio of ROUNDS pairs. The
 * simulator runs in a worker thread (as in api.bench.ts), so the HTTP load generator does not share its event loop:
 * the creates measure the API server, the puts the etcd client, each on its own thread.
 */
async function createsAgainstPuts(etcdUrl: string, log: (s: string) => void): Promise<Measurement[]> {
  const N = Number(process.env.BENCH_ETCD_CREATES ?? 2000);
  const PARALLEL = 64;
  // Loader hooks (tsx) are per thread: a small JS entry registers tsx in the worker, then loads this module.
  const entry = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); });`;
  const worker = new Worker(entry, { eval: true, workerData: { etcdUrl } });
  const messages: WorkerMessage[] = [];
  const waiters: Array<(m: WorkerMessage) => void> = [];
  worker.on('message', (m) => (waiters.length ? waiters.shift()!(m) : messages.push(m)));
  const failure = new Promise<never>((_, reject) => worker.once('error', reject));
  const next = () => new Promise<WorkerMessage>((resolve) => (messages.length ? resolve(messages.shift()!) : waiters.push(resolve)));
  const receive = () => Promise.race([failure, next()]);
  const ready = await receive();
  if (ready.op !== 'ready' || !ready.url) throw new Error('bench: the simulator worker did not start');
  const pool = new Pool(ready.url, { connections: PARALLEL });
  const client = new Etcd3({ hosts: etcdUrl });
  try {
    const post = async (path: string, body: object) => {
      const res = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
      return text;
    };
    await post('/api/v1/namespaces', { metadata: { name: 'bench' } });
    const body = (round: number, i: number) => ({ metadata: { name: `r${round}-cm-${i}` }, data: configMap(i).data });
    // The bytes etcd holds for one such object, as the store wrote them.
    await post('/api/v1/namespaces/bench/configmaps', body(9, 0));
    const stored = await client.get('/registry/configmaps/bench/r9-cm-0').buffer();
    if (!stored) throw new Error('bench: the created ConfigMap is not in etcd under /registry/configmaps/bench/');
    // What the creates cost in etcd calls, counted by the serving store (EtcdStore.callCounts()).
    const calls = async () => {
      worker.postMessage({ op: 'calls' });
      const m = await receive();
      if (m.op !== 'calls' || !m.calls) throw new Error('bench: the simulator worker did not report its etcd calls');
      return m.calls;
    };
    const before = await calls();
    // Paired (measurement.ts pairedRatio): the etcd client's own puts moved between 3,800 and 6,100/s within ten
    // minutes on this machine (2026-11-27).
    const { median, pairs } = await pairedRatio(
      ROUNDS,
      (round) => rate(N, PARALLEL, (i) => post('/api/v1/namespaces/bench/configmaps', body(round, i))),
      (round) => rate(N, PARALLEL, (i) => client.put(`/bench-puts/r${round}/cm-${i}`).value(stored).exec()),
    );
    const { measured: creates, reference: puts } = median;
    log(`pairs (creates/s vs puts/s): ${pairs.map((x) => `${x.measured.toFixed(0)} vs ${x.reference.toFixed(0)}`).join(', ')}`);
    const after = await calls();
    const per = (k: keyof EtcdCallCounts) => ((after[k] - before[k]) / (ROUNDS * N)).toFixed(2);
    log(`through etcd: ${creates.toFixed(0)} HTTP creates/s vs etcd3 client ${puts.toFixed(0)} puts/s of the same ${stored.length} bytes (${PARALLEL} in flight each)`);
    log(`etcd calls per HTTP create: ${per('txn')} txn, ${per('range')} range, ${per('compact')} compact (one put per etcd3 put)`);
    // A list of 500 through the API server (GET of a namespace's 500 ConfigMaps, JSON) against the etcd client's own
    // range read of the same 500 keys, one after another, each side timed per call (ms): the ratio is the list's time
    // over the range read's.
    await post('/api/v1/namespaces', { metadata: { name: 'list' } });
    await rate(LIST, PARALLEL, (i) => post('/api/v1/namespaces/list/configmaps', { metadata: { name: `cm-${i}` }, data: configMap(i).data }));
    const listOnce = async () => {
      const res = await pool.request({ method: 'GET', path: '/api/v1/namespaces/list/configmaps', headers: { accept: 'application/json' } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode} ${text.slice(0, 200)}`);
      return text;
    };
    const listed = (JSON.parse(await listOnce()) as { items: unknown[] }).items.length;
    if (listed !== LIST) throw new Error(`bench: the list has ${listed} items, not ${LIST}`);
    const rangeOnce = () => client.getAll().prefix('/registry/configmaps/list/').buffers();
    if (Object.keys(await rangeOnce()).length !== LIST) throw new Error(`bench: the range read has not ${LIST} keys`);
    const perCall = async (n: number, op: () => Promise<unknown>) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await op();
      return (performance.now() - t0) / n;
    };
    await perCall(10, listOnce);
    await perCall(10, rangeOnce);
    const lists = await pairedRatio(ROUNDS, () => perCall(40, listOnce), () => perCall(40, rangeOnce));
    log(`list of ${LIST} through the API server vs the etcd client's range read, ms per call: ${lists.pairs.map((x) => `${x.measured.toFixed(2)} vs ${x.reference.toFixed(2)}`).join(', ')}`);
    return [
      ratioMeasurement(
        `creates/s through the API server on etcd vs the etcd client's own puts of the same bytes (${PARALLEL} in flight; median of ${ROUNDS} pairs)`,
        median,
        { atLeast: 0.6 },
        { unit: '/s', referenceLabel: 'etcd3 puts' },
      ),
      ratioMeasurement(
        `a list of ${LIST} ConfigMaps through the API server on etcd (JSON) vs the etcd client's range read of the same keys, time per call (median of ${ROUNDS} pairs)`,
        lists.median,
        { atMost: 1.5 },
        { unit: 'ms', referenceLabel: 'etcd3 range read' },
      ),
    ];
  } finally {
    await pool.close();
    client.close();
    worker.postMessage({ op: 'close' });
    await Promise.race([receive().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    await worker.terminate();
  }
}

/** The worker side: a simulator on an EtcdStore, closed when the main thread says so. */
async function serveOnEtcd(etcdUrl: string): Promise<void> {
  const store = new EtcdStore({ servers: [etcdUrl], compactIntervalMs: 0 });
  await store.ready();
  const sim = await startSimulator({ store });
  parentPort!.on('message', async (m: { op: string }) => {
    if (m.op === 'calls') parentPort!.postMessage({ op: 'calls', calls: store.callCounts() });
    if (m.op !== 'close') return;
    await sim.close();
    parentPort!.postMessage({ op: 'closed' });
  });
  parentPort!.postMessage({ op: 'ready', url: sim.url });
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  if (!findEtcd()) {
    log('etcd is not installed: skipped');
    return [];
  }
  const etcd = await startEtcd();
  const a = new EtcdStore({ servers: [etcd.url], compactIntervalMs: 0 });
  const b = new EtcdStore({ servers: [etcd.url], compactIntervalMs: 0 });
  const out: Measurement[] = [];
  const report = (m: Measurement) => {
    out.push(m);
    log(`${m.ok ? 'PASS' : 'FAIL'} ${m.name}: ${m.value.toFixed(2)} ${m.unit} (target ${m.target})`);
  };
  try {
    await Promise.all([a.ready(), b.ready()]);
    const create = await timePerOp(200, (i) => a.create(`/registry/configmaps/lat/cm-${i}`, configMap(i)));
    const get = await timePerOp(200, (i) => a.get(`/registry/configmaps/lat/cm-${i}`));
    const update = await timePerOp(200, (i) => a.guaranteedUpdate(`/registry/configmaps/lat/cm-${i}`, (cur) => ({ ...cur!.value, data: { n: String(i) } })));
    log(`sequential: create ${create.toFixed(2)} ms, get ${get.toFixed(2)} ms, guaranteedUpdate ${update.toFixed(2)} ms (one etcd fsync per write)`);
    const t0 = performance.now();
    await fill(a, '/registry/configmaps/small/', 1000);
    const parallelRate = 1000 / ((performance.now() - t0) / 1000);
    log(`64 writers in parallel: ${parallelRate.toFixed(0)} creates/s`);
    await fill(a, '/registry/configmaps/big/', 20_000);
    const small = await chunkMs(a, '/registry/configmaps/small/', 1000);
    const big = await chunkMs(a, '/registry/configmaps/big/', 20_000);
    report({ name: `chunk of ${CHUNK} at 20k vs 1k objects`, value: big / small, unit: 'x', target: '<= 2', ok: big / small <= 2 });
    log(`chunk of ${CHUNK}: ${small.toFixed(1)} ms at 1k, ${big.toFixed(1)} ms at 20k`);
    // 1 object in 100 matches: the store reads on in growing pages until 5 match.
    const sparse = await chunkMs(a, '/registry/configmaps/big/', 20_000, (o) => (o.metadata.labels as Record<string, string>).app === 'app-7');
    report({ name: 'filtered chunk (5 matches, 1 in 100 match) at 20k objects', value: sparse, unit: 'ms', target: '<= 250', ok: sparse <= 250 });

    // A write through A reaching a watch through B.
    const sent = new Map<string, number>(); // by key: an event can arrive before the write's own answer
    const delays: number[] = [];
    let done: () => void = () => undefined;
    const all = new Promise<void>((r) => (done = r));
    const N = 300;
    b.watch('/registry/configmaps/w/', {
      onEvent: (e) => {
        const at = sent.get(e.key);
        if (at !== undefined) delays.push(performance.now() - at);
        if (delays.length === N) done();
      },
    });
    await new Promise((r) => setTimeout(r, 100)); // let the watch reach etcd
    for (let i = 0; i < N; i++) {
      const key = `/registry/configmaps/w/cm-${i}`;
      sent.set(key, performance.now());
      await a.create(key, configMap(i));
    }
    await Promise.race([all, new Promise((r) => setTimeout(r, 10_000))]);
    delays.sort((x, y) => x - y);
    const p50 = percentile(delays, 0.5);
    const p99 = percentile(delays, 0.99);
    for (const m of await createsAgainstPuts(etcd.url, log)) report(m);
    log(`write through A -> event at B's watch: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${delays.length}/${N} seen)`);
    report({ name: 'write-to-watch latency across stores, p99', value: p99, unit: 'ms', target: '<= 50', ok: delays.length === N && p99 <= 50 });
  } finally {
    await a.close();
    await b.close();
    await etcd.stop();
  }
  return out;
}

if (!isMainThread) {
  await serveOnEtcd((workerData as { etcdUrl: string }).etcdUrl);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const res = await run();
  process.exitCode = res.every((m) => m.ok) ? 0 : 1;
}
