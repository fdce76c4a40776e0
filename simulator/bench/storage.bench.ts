// Storage benchmarks: chunk cost against store size, memory per object, watch fan-out.
//
// Run: node --expose-gc --import tsx simulator/bench/storage.bench.ts
// (without --expose-gc the memory figure includes garbage and is only an upper bound).

import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../api/meta.ts';
import { MemoryStore } from '../storage/memory.ts';
import type { Measurement } from './measurement.ts';


const PREFIX = '/registry/configmaps/';
const CHUNK = 500;

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

/** A ConfigMap of about 1 KB of JSON whose strings are unique to it (no sharing flatters the memory figure). */
function configMap(i: number): KubeObject {
  const data: Record<string, string> = {};
  for (let k = 0; k < 8; k++) data[`key-${k}.properties`] = `value ${i}-${k} `.padEnd(96, String.fromCharCode(97 + ((i + k) % 26)));
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: `ns-${i % 10}`,
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
      creationTimestamp: '2018-01-01T00:00:00Z',
      labels: { app: `app-${i % 100}`, tier: 'bench' },
    },
    data,
  };
}

function keyOf(i: number): string {
  return `${PREFIX}ns-${i % 10}/cm-${String(i).padStart(7, '0')}`;
}

async function fill(store: MemoryStore, n: number): Promise<number> {
  let jsonBytes = 0;
  for (let i = 0; i < n; i++) {
    const obj = configMap(i);
    jsonBytes += Buffer.byteLength(JSON.stringify(obj));
    await store.create(keyOf(i), obj);
  }
  return jsonBytes;
}

/** Median time of one chunk read, starting at spread-out keys, at a fixed revision (as paging does). */
async function chunkTimeMs(store: MemoryStore): Promise<number> {
  const revision = store.currentRevision();
  const times: number[] = [];
  const keys = (await store.list(PREFIX, { revision })).items.map((i) => i.key);
  const READS_PER_SAMPLE = 10; // a single chunk takes tens of microseconds: time several per sample
  for (let sample = 0; sample < 120; sample++) {
    const t0 = performance.now();
    for (let r = 0; r < READS_PER_SAMPLE; r++) {
      // Start anywhere a full chunk still follows, so both sizes read exactly CHUNK items.
      const startKey = keys[((sample * READS_PER_SAMPLE + r) * 7919) % (keys.length - CHUNK)];
      const page = await store.list(PREFIX, { revision, startKey, limit: CHUNK });
      if (page.items.length !== CHUNK) throw new Error(`bench: chunk of ${page.items.length}, expected ${CHUNK}`);
    }
    const t1 = performance.now();
    if (sample >= 20) times.push((t1 - t0) / READS_PER_SAMPLE); // the first samples warm up the JIT
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

function line(m: Measurement): string {
  return `${m.ok ? 'PASS' : 'FAIL'}  ${m.name}: ${m.value.toFixed(2)} ${m.unit} (target ${m.target})`;
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const results: Measurement[] = [];
  const report = (m: Measurement) => {
    results.push(m);
    log(line(m));
  };

  // Memory: the store's heap growth for 100k ConfigMaps against their JSON size.
  const big = new MemoryStore();
  gc();
  const before = process.memoryUsage().heapUsed;
  const jsonBytes = await fill(big, 100_000);
  gc();
  const after = process.memoryUsage().heapUsed;
  const ratio = (after - before) / jsonBytes;
  report({
    name: `memory of 100k ConfigMaps (${(jsonBytes / 1e5).toFixed(0)} B JSON each, ${((after - before) / 1e5).toFixed(0)} B heap each${(globalThis as { gc?: unknown }).gc ? '' : ', no --expose-gc: upper bound'})`,
    value: ratio,
    unit: 'x JSON size',
    target: '<= 3x',
    ok: ratio <= 3,
  });

  // Chunk cost: 500 items at 1k objects vs at 100k objects.
  const small = new MemoryStore();
  await fill(small, 1_000);
  const tSmall = await chunkTimeMs(small);
  const tBig = await chunkTimeMs(big);
  report({
    name: `list chunk of ${CHUNK}: ${tSmall.toFixed(3)} ms at 1k objects, ${tBig.toFixed(3)} ms at 100k`,
    value: tBig / tSmall,
    unit: 'x',
    target: '<= 2x',
    ok: tBig / tSmall <= 2,
  });
  await big.close();
  await small.close();

  // Watch fan-out: 1,000 watchers, 1,000 writes; every watcher sees every event.
  const store = new MemoryStore();
  let delivered = 0;
  for (let w = 0; w < 1000; w++) store.watch(PREFIX, { onEvent: () => void delivered++ });
  const t0 = performance.now();
  for (let i = 0; i < 1000; i++) await store.create(keyOf(i), configMap(i));
  const seconds = (performance.now() - t0) / 1000;
  if (delivered !== 1_000_000) throw new Error(`bench: ${delivered} events delivered, expected 1000000`);
  const perSecond = delivered / seconds;
  report({
    name: `1,000 watchers x 1,000 writes: ${delivered} events in ${(seconds * 1000).toFixed(0)} ms`,
    value: perSecond / 1e6,
    unit: 'M events/s',
    target: '>= 1 M events/s',
    ok: perSecond >= 1e6,
  });
  await store.close();
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await run();
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}
