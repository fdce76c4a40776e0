// Start time: from process start to the first answer of GET /api, for `npx tsx simulator` (controllers and nodes
// starting behind it) and, beside it in the same run, for a bare Fastify server answering /api — the floor any
// Node HTTP server started through tsx pays. Median of 5 each. Goal: the simulator answers within 500 ms on 2
// unloaded cores; the ratio to the bare server shows how much of that is ours.

import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatLine, median, type Measurement } from './measurement.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Spawns a server on a known port and times process start → its first 200 from /api (polled every 2 ms). */
async function timeToFirstAnswer(args: (port: number) => string[]): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args(port), { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let exited: string | undefined;
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  child.on('exit', (code) => (exited = `exited ${code} before answering: ${err}`));
  try {
    for (;;) {
      if (exited) throw new Error(exited);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api`);
        await r.arrayBuffer();
        if (r.ok) return performance.now() - t0;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    child.kill('SIGKILL');
  }
}

const BARE = (port: number) => `import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: ${port}, host: '127.0.0.1' });`;

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const sim: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    // Alternate, so that a disturbance of the machine hits both sides alike.
    bare.push(await timeToFirstAnswer((port) => ['--import', 'tsx', '--input-type=module', '-e', BARE(port)]));
    sim.push(await timeToFirstAnswer((port) => ['--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--kubeconfig-out', '/dev/null']));
  }
  const s = median(sim);
  const b = median(bare);
  const results: Measurement[] = [
    { name: `npx tsx simulator: process start to first /api answer (median of ${RUNS}; bare Fastify through tsx ${b.toFixed(0)} ms)`, value: s, unit: 'ms', target: '<= 500', ok: s <= 500 },
    { name: 'start time, simulator / bare Fastify server', value: s / b, unit: 'x', target: 'report only', ok: true },
  ];
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
