// Memory as users pay it: the API server's resident set (RSS, after full collections) measured in a child
// process while ConfigMaps of about 1 KB are created through HTTP, beside the JSON size of what is stored.
//   - RSS per stored object at 100k ConfigMaps ≤ 2× its JSON size (the series shows the cost as the store grows);
//   - watch history: N updates of a 0.9 MB object, each changing it, cost ≤ 1.1× the versions the history holds
//     (history entries share the stored objects: no second copy, no cache of encoded bytes per version);
//   - the same N updates changing only a label cost almost nothing (versions share unchanged parts).
//
//   BENCH_MEMORY_OBJECTS=100000 (default) BENCH_HISTORY_UPDATES=300

import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import type { MemorySample } from './child-server.ts';
import { formatLine, type Measurement, type Point } from './measurement.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const OBJECTS = Number(process.env.BENCH_MEMORY_OBJECTS ?? 100_000);
const UPDATES = Number(process.env.BENCH_HISTORY_UPDATES ?? 300);
const MiB = 1024 * 1024;

function data(i: number): Record<string, string> {
  const d: Record<string, string> = {};
  for (let k = 0; k < 8; k++) d[`key-${k}.properties`] = `value ${i}-${k} `.padEnd(96, String.fromCharCode(97 + ((i + k) % 26)));
  return d;
}

class Child {
  private constructor(
    private readonly proc: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<Child> {
    const proc = fork(join(HERE, 'child-server.ts'), [], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const url = await new Promise<string>((res, rej) => {
      proc.once('message', (m) => res((m as { url: string }).url));
      proc.once('exit', (c) => rej(new Error(`child server exited ${c}`)));
    });
    return new Child(proc, url);
  }

  measure(): Promise<MemorySample> {
    return new Promise((res) => {
      this.proc.once('message', (m) => res(m as MemorySample));
      this.proc.send('measure');
    });
  }

  async close(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.send('close');
    await exited;
  }
}

async function send(pool: Pool, method: string, path: string, body?: object): Promise<string> {
  const res = await pool.request({ method: method as 'POST', path, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
  return text;
}

async function objectsFigure(log: (s: string) => void): Promise<Measurement> {
  const child = await Child.start();
  const pool = new Pool(child.url, { connections: 16 });
  try {
    await send(pool, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    // Warm-up: the first thousands of requests grow the JIT's code, V8's young generation and the HTTP stack's
    // pools once; that is the cost of a running server, not of what it stores, so the baseline comes after it.
    await send(pool, 'POST', '/api/v1/namespaces', { metadata: { name: 'warm' } });
    for (let i = 0; i < 3000; i += 64) await Promise.all(Array.from({ length: 64 }, (_, k) => send(pool, 'POST', '/api/v1/namespaces/warm/configmaps', { metadata: { name: `w-${i + k}` }, data: data(i + k) })));
    await send(pool, 'DELETE', '/api/v1/namespaces/warm/configmaps');
    const base = await child.measure();
    const points: Point[] = [];
    let jsonBytes = 0;
    const checkpoints = [OBJECTS / 10, OBJECTS / 4, OBJECTS / 2, OBJECTS].map(Math.round);
    let made = 0;
    for (const upTo of checkpoints) {
      while (made < upTo) {
        const batch = [];
        for (let k = 0; k < 64 && made < upTo; k++, made++) batch.push(send(pool, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `cm-${made}`, labels: { app: 'bench' } }, data: data(made) }));
        for (const body of await Promise.all(batch)) jsonBytes += Buffer.byteLength(body);
      }
      const m = await child.measure();
      points.push({ x: made, y: (m.rss - base.rss) / made / (jsonBytes / made) });
      log(`  ${made} objects: RSS +${((m.rss - base.rss) / MiB).toFixed(0)} MiB (${((m.rss - base.rss) / made).toFixed(0)} B each, JSON ${(jsonBytes / made).toFixed(0)} B each), heap ${(m.heapUsed / MiB).toFixed(0)} MiB`);
    }
    const ratio = points[points.length - 1].y;
    return { name: `RSS per stored ConfigMap at ${OBJECTS} objects, as a multiple of its JSON (${(jsonBytes / OBJECTS).toFixed(0)} B)`, value: ratio, unit: 'x', target: '<= 2', ok: ratio <= 2, series: { xLabel: 'objects', yLabel: '× JSON', points } };
  } finally {
    await pool.close();
    await child.close();
  }
}

async function historyFigures(log: (s: string) => void): Promise<Measurement[]> {
  const child = await Child.start();
  const pool = new Pool(child.url, { connections: 4 });
  const big = (i: number) => `${i}:`.padEnd(900_000, String.fromCharCode(97 + (i % 26)));
  try {
    await send(pool, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    await send(pool, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'big' }, data: { big: big(0) } });
    await send(pool, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'labels' }, data: { big: big(0) } });
    const base = await child.measure();
    let size = 0;
    for (let i = 1; i <= UPDATES; i++) size += Buffer.byteLength(await send(pool, 'PUT', '/api/v1/namespaces/bench/configmaps/big', { metadata: { name: 'big' }, data: { big: big(i) } }));
    const afterChanging = await child.measure();
    for (let i = 1; i <= UPDATES; i++) await send(pool, 'PUT', '/api/v1/namespaces/bench/configmaps/labels', { metadata: { name: 'labels', labels: { i: String(i) } }, data: { big: big(0) } });
    const afterLabels = await child.measure();
    const changing = (afterChanging.rss - base.rss) / size;
    const labels = (afterLabels.rss - afterChanging.rss) / UPDATES;
    log(`  ${UPDATES} updates changing a 0.9 MB field: RSS +${((afterChanging.rss - base.rss) / MiB).toFixed(0)} MiB (heap +${((afterChanging.heapUsed - base.heapUsed) / MiB).toFixed(0)} MiB, external +${((afterChanging.external - base.external) / MiB).toFixed(0)} MiB) for ${(size / MiB).toFixed(0)} MiB of versions held`);
    log(`  ${UPDATES} updates changing a label only: RSS +${((afterLabels.rss - afterChanging.rss) / MiB).toFixed(1)} MiB`);
    return [
      { name: `watch history of ${UPDATES} updates of a 0.9 MB ConfigMap, RSS over the versions it holds`, value: changing, unit: 'x', target: '<= 1.1', ok: changing <= 1.1 },
      { name: `history of ${UPDATES} label-only updates of a 0.9 MB ConfigMap, RSS per update`, value: labels / 1024, unit: 'KiB', target: 'report only', ok: true },
    ];
  } finally {
    await pool.close();
    await child.close();
  }
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const results = [await objectsFigure(log), ...(await historyFigures(log))];
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
