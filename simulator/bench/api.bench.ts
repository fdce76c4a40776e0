// API server benchmarks over HTTP:
//   - GET of one ConfigMap, create, and strategic merge PATCH throughput, each as a ratio to a bare Fastify route
//     answering the same bytes in the same run, the median of 5 pairs measured back to back (goals: GET >= 0.8,
//     create >= 0.5, PATCH >= 0.4 of the bare route);
//   - the cost of one list chunk (limit=500) at 1k vs 100k ConfigMaps (goal: within 1.5x).
// The servers run in a worker thread so the load generator (undici Pool, keep-alive, many requests in flight) does
// not share their event loop.
//
// Run: node --import tsx simulator/bench/api.bench.ts   (or npm run bench)

import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort } from 'node:worker_threads';
import { tsxWorker } from './tsx-worker.ts';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { pairedRatio, type Measurement, type Pair } from './measurement.ts';


const NS = 'bench';
const CONNECTIONS = 32;
const IN_FLIGHT = 128;

/** A strategic merge patch changing one key of the ConfigMap's data (the i-th value). */
const PATCH = (i: number) => JSON.stringify({ data: { 'key-0.properties': `patched ${i}` } });

/** About 1 KB of ConfigMap data, like the storage benchmark's objects. */
function data(i: number): Record<string, string> {
  const d: Record<string, string> = {};
  for (let k = 0; k < 8; k++) d[`key-${k}.properties`] = `value ${i}-${k} `.padEnd(96, String.fromCharCode(97 + ((i + k) % 26)));
  return d;
}

// ---------------------------------------------------------------- servers (worker thread)

type ToWorker = { op: 'fill'; namespace: string; from: number; to: number } | { op: 'close' };
type FromWorker = { op: 'ready'; simUrl: string; bareUrl: string; getBody: string; createBody: string; patchBody: string } | { op: 'filled' } | { op: 'closed' };

async function serve(): Promise<void> {
  const { startSimulator } = await import('../cluster.ts');
  const { default: Fastify } = await import('fastify');
  const { objectKey } = await import('../api/registry.ts');
  const { toStored } = await import('../server/registry/system-meta.ts');
  const sim = await startSimulator({ watchHistoryEvents: 1000 });
  const json = { 'content-type': 'application/json' };
  const post = async (path: string, body: object) => {
    const res = await fetch(sim.url + path, { method: 'POST', headers: json, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`bench setup: POST ${path}: ${res.status} ${text}`);
    return text;
  };
  for (const ns of [NS, 'small', 'big']) await post('/api/v1/namespaces', { metadata: { name: ns } });
  const createBody = await post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'cm', labels: { app: 'bench' } }, data: data(0) });
  const getBody = await (await fetch(`${sim.url}/api/v1/namespaces/${NS}/configmaps/cm`)).text();
  // The object the PATCH bench changes, and its answer to one patch (what the bare route answers).
  await post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'patched', labels: { app: 'bench' } }, data: data(1) });
  const patchRes = await fetch(`${sim.url}/api/v1/namespaces/${NS}/configmaps/patched`, { method: 'PATCH', headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: PATCH(0) });
  const patchBody = await patchRes.text();
  if (patchRes.status !== 200) throw new Error(`bench setup: PATCH: ${patchRes.status} ${patchBody}`);
  const template = JSON.parse(createBody);

  // The bare route: same bytes, same Content-Type, no work.
  const bare = Fastify({ logger: false });
  bare.removeAllContentTypeParsers();
  bare.addContentTypeParser('*', { parseAs: 'buffer' }, (_r, b, done) => done(null, b));
  const getBytes = Buffer.from(getBody);
  const createBytes = Buffer.from(createBody);
  const patchBytes = Buffer.from(patchBody);
  bare.get('/api/v1/namespaces/:ns/configmaps/:name', (_req, reply) => reply.header('Content-Type', 'application/json').send(getBytes));
  bare.post('/api/v1/namespaces/:ns/configmaps', (_req, reply) => reply.code(201).header('Content-Type', 'application/json').send(createBytes));
  bare.patch('/api/v1/namespaces/:ns/configmaps/:name', (_req, reply) => reply.header('Content-Type', 'application/json').send(patchBytes));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const bareUrl = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

  const def = sim.ctx.registry.lookup('', 'v1', 'configmaps')!;
  parentPort!.on('message', async (m: ToWorker) => {
    if (m.op === 'fill') {
      // Bulk data goes straight into the store, shaped exactly like objects created over HTTP.
      for (let i = m.from; i < m.to; i++) {
        const name = `cm-${String(i).padStart(6, '0')}`;
        const obj = {
          ...template,
          metadata: { ...template.metadata, name, namespace: m.namespace, selfLink: `/api/v1/namespaces/${m.namespace}/configmaps/${name}`, uid: crypto.randomUUID() },
          data: data(i),
        };
        await sim.ctx.store.create(objectKey(def, m.namespace, name), toStored(def, obj));
      }
      parentPort!.postMessage({ op: 'filled' } satisfies FromWorker);
    } else {
      await bare.close();
      await sim.close();
      parentPort!.postMessage({ op: 'closed' } satisfies FromWorker);
    }
  });
  parentPort!.postMessage({ op: 'ready', simUrl: sim.url, bareUrl, getBody, createBody, patchBody } satisfies FromWorker);
}

// ---------------------------------------------------------------- load generator (main thread)

/** Requests per second with IN_FLIGHT requests outstanding over a keep-alive pool. */
async function throughput(url: string, total: number, make: (i: number) => { method: 'GET' | 'POST' | 'PATCH'; path: string; body?: string; contentType?: string; status: number }): Promise<number> {
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 });
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const r = make(next++);
      const res = await pool.request({ method: r.method, path: r.path, body: r.body, headers: r.body ? { 'content-type': r.contentType ?? 'application/json' } : {} });
      await res.body.dump();
      if (res.statusCode !== r.status) throw new Error(`bench: ${r.method} ${r.path} answered ${res.statusCode}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  return total / seconds;
}

/** The simulator's throughput as a ratio to the bare route's, paired (measurement.ts pairedRatio), 5 pairs. */
async function simVsBare(simUrl: string, bareUrl: string, total: number, make: Parameters<typeof throughput>[2]): Promise<Pair> {
  return (await pairedRatio(5, () => throughput(simUrl, total, make), () => throughput(bareUrl, total, make))).median;
}

/** Median time of one request, measured sequentially (latency, not throughput). */
async function latencyMs(url: string, path: string, runs: number): Promise<number> {
  const pool = new Pool(url, { connections: 1 });
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'GET', path });
    await res.body.dump({ limit: 64 << 20 });
    if (res.statusCode !== 200) throw new Error(`bench: GET ${path} answered ${res.statusCode}`);
    times.push(performance.now() - t0);
  }
  await pool.close();
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

function line(m: Measurement): string {
  const v = m.value >= 100 ? m.value.toFixed(0) : m.value.toFixed(2);
  return `${m.ok ? 'ok  ' : 'MISS'} ${m.name}: ${v} ${m.unit} (target ${m.target})`;
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const results: Measurement[] = [];
  const report = (m: Measurement) => {
    results.push(m);
    log(line(m));
  };
  const worker = tsxWorker(import.meta.url);
  const messages: FromWorker[] = [];
  const waiters: Array<(m: FromWorker) => void> = [];
  worker.on('message', (m: FromWorker) => (waiters.length ? waiters.shift()!(m) : messages.push(m)));
  const failure = new Promise<never>((_, reject) => worker.once('error', reject));
  const receive = () => Promise.race([failure, new Promise<FromWorker>((resolve) => (messages.length ? resolve(messages.shift()!) : waiters.push(resolve)))]);
  try {
    const ready = await receive();
    if (ready.op !== 'ready') throw new Error('bench: worker did not start');
    const { simUrl, bareUrl } = ready;

    // GET one ConfigMap.
    const getPath = `/api/v1/namespaces/${NS}/configmaps/cm`;
    const get = () => ({ method: 'GET' as const, path: getPath, status: 200 });
    await throughput(simUrl, 5000, get); // warm-up (JIT)
    await throughput(bareUrl, 5000, get);
    const g = await simVsBare(simUrl, bareUrl, 20_000, get);
    report({
      name: `GET one ConfigMap (${ready.getBody.length} B): ${g.measured.toFixed(0)} req/s vs bare Fastify ${g.reference.toFixed(0)} req/s (median of 5 pairs)`,
      value: g.ratio,
      unit: 'x bare route',
      target: '>= 0.8',
      ok: g.ratio >= 0.8,
    });

    // Create.
    let seq = 0;
    const body = (i: number) => JSON.stringify({ metadata: { name: `c-${i}`, labels: { app: 'bench' } }, data: data(i) });
    const create = () => {
      const i = seq++;
      return { method: 'POST' as const, path: `/api/v1/namespaces/${NS}/configmaps`, body: body(i), status: 201 };
    };
    await throughput(simUrl, 2000, create);
    await throughput(bareUrl, 2000, create);
    const c = await simVsBare(simUrl, bareUrl, 10_000, create);
    report({
      name: `create ConfigMap: ${c.measured.toFixed(0)} req/s vs bare Fastify ${c.reference.toFixed(0)} req/s (median of 5 pairs)`,
      value: c.ratio,
      unit: 'x bare route',
      target: '>= 0.5',
      ok: c.ratio >= 0.5,
    });

    // Strategic merge PATCH of one ConfigMap (one key of its data), every patch a new resourceVersion.
    let pseq = 1;
    const patchPath = `/api/v1/namespaces/${NS}/configmaps/patched`;
    const patch = () => ({ method: 'PATCH' as const, path: patchPath, body: PATCH(pseq++), contentType: 'application/strategic-merge-patch+json', status: 200 });
    await throughput(simUrl, 2000, patch);
    await throughput(bareUrl, 2000, patch);
    const pr = await simVsBare(simUrl, bareUrl, 10_000, patch);
    report({
      name: `strategic merge PATCH of one ConfigMap: ${pr.measured.toFixed(0)} req/s vs bare Fastify ${pr.reference.toFixed(0)} req/s (median of 5 pairs)`,
      value: pr.ratio,
      unit: 'x bare route',
      target: '>= 0.4',
      ok: pr.ratio >= 0.4,
    });

    // List chunk: 500 items of a namespace holding 1k vs 100k ConfigMaps.
    const fill = async (namespace: string, from: number, to: number) => {
      worker.postMessage({ op: 'fill', namespace, from, to } satisfies ToWorker);
      const m = await receive();
      if (m.op !== 'filled') throw new Error('bench: fill failed');
    };
    await fill('small', 0, 1_000);
    await fill('big', 0, 100_000);
    const chunk = (ns: string) => `/api/v1/namespaces/${ns}/configmaps?limit=500`;
    await latencyMs(simUrl, chunk('small'), 30);
    await latencyMs(simUrl, chunk('big'), 30);
    const small = await latencyMs(simUrl, chunk('small'), 200);
    const big = await latencyMs(simUrl, chunk('big'), 200);
    report({
      name: `list chunk of 500 over HTTP: ${small.toFixed(2)} ms at 1k ConfigMaps, ${big.toFixed(2)} ms at 100k (median)`,
      value: big / small,
      unit: 'x',
      target: '<= 1.5x',
      ok: big / small <= 1.5,
    });
  } finally {
    worker.postMessage({ op: 'close' } satisfies ToWorker);
    await Promise.race([receive().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
    await worker.terminate();
  }
  return results;
}

if (!isMainThread) {
  await serve();
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run();
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}
