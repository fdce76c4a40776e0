// Start time, from process start (spawn) to:
//   - the first answer of GET /api for `npx tsx simulator` typed as a user does (npx, then tsx's command, then
//     node with tsx's loader: three processes before a line of the simulator runs), beside a bare Fastify server
//     answering /api started the same way: the floor any Node HTTP server started with `npx tsx` pays;
//   - the same two through `node --import tsx` (without npx and tsx's command), to show what the tools cost;
//   - the first finished check of `npx tsx suites` (one quick check against its embedded simulator);
//   - `node --import tsx -e ''` and plain `node -e ''`: what registering tsx alone costs (its loader thread),
//     so the table shows how much of a start is tsx's rather than ours.
// `npx tsx simulator` runs a compiled build of itself when one matches the sources (simulator/compiled.ts); the
// bench makes it first, and times a start from the sources too (SIMULATOR_COMPILED=0), as after an edit.
// Median of 5 each, alternated so that a disturbance of the machine hits every side alike. Goals: the simulator
// answers within 500 ms on 2 unloaded cores, the suites reach their first check within 1 s.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatLine, median, type Measurement } from './measurement.ts';
import { freePort } from '../testing/ports.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

function spawnNode(args: string[], env: Record<string, string> = {}, command = process.execPath) {
  // Its own process group, so that killing it also ends what it started (npx starts tsx, tsx starts node).
  return spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, NODE_OPTIONS: '', ...env } });
}

/** npx from this node's installation (the one a user's shell finds beside node). */
const NPX = join(dirname(process.execPath), 'npx');

/** Spawns a server on a known port and times process start → its first 200 from /api (polled every 2 ms). */
async function timeToFirstAnswer(args: (port: number) => string[], env?: Record<string, string>, command?: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnNode(args(port), env, command);
  let exited: string | undefined;
  let err = '';
  child.stdout.resume();
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
    killGroup(child.pid);
  }
}

function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Process start → exit of a process that does nothing (after its start-up). */
async function timeToExit(args: string[]): Promise<number> {
  const t0 = performance.now();
  const child = spawnNode(args);
  child.stdout.resume();
  child.stderr.resume();
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited ${code}`);
  return performance.now() - t0;
}

/** `npx tsx suites`, typed as a user does → its first finished check on stdout. */
async function timeToFirstCheck(): Promise<number> {
  const reports = mkdtempSync(join(tmpdir(), 'bench-suites-'));
  const t0 = performance.now();
  const child = spawnNode(['tsx', 'suites', '--suite', 'crud', '--grep', '^crud\\.not-found$', '--report-dir', reports], {}, NPX);
  let out = '';
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  try {
    return await new Promise<number>((resolveTime, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (/^(ok|FAIL|skip) /m.test(out)) resolveTime(performance.now() - t0);
      });
      child.on('exit', (code) => reject(new Error(`suites exited ${code} before a check finished: ${out.slice(-500)} ${err}`)));
    });
  } finally {
    killGroup(child.pid);
    rmSync(reports, { recursive: true, force: true });
  }
}

/** The bare server as a file for `npx tsx FILE PORT` (tsx's command takes a file). */
const BARE_FROM_ARGV = `import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });`;

const BARE = (port: number) => `import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: ${port}, host: '127.0.0.1' });`;

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  // The compiled build `npx tsx simulator` uses once it exists (simulator/compiled.ts): made now, as any start
  // after the sources changed would have it made, so that every timed start below finds it.
  await timeToExit([join('scripts', 'build-simulator.mjs')]);
  // Inside the checkout (under node_modules/.cache), so that its import of fastify resolves as the simulator's does.
  const bareFile = join(REPO, 'node_modules', '.cache', 'bench-start', 'bare.mjs');
  mkdirSync(dirname(bareFile), { recursive: true });
  writeFileSync(bareFile, BARE_FROM_ARGV);
  const npxSim: number[] = [];
  const npxBare: number[] = [];
  const sources: number[] = [];
  const sim: number[] = [];
  const bare: number[] = [];
  const tsx: number[] = [];
  const plain: number[] = [];
  const suites: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    plain.push(await timeToExit(['-e', '']));
    tsx.push(await timeToExit(['--import', 'tsx', '-e', '']));
    bare.push(await timeToFirstAnswer((port) => ['--import', 'tsx', '--input-type=module', '-e', BARE(port)]));
    sim.push(await timeToFirstAnswer((port) => ['--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--kubeconfig-out', '/dev/null']));
    sources.push(
      await timeToFirstAnswer((port) => ['--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--kubeconfig-out', '/dev/null'], { SIMULATOR_COMPILED: '0' }),
    );
    suites.push(await timeToFirstCheck());
    // The commands as a user types them: npx (npm's own start and its look-up of tsx), tsx's command (which starts
    // node again with its loader), then the program.
    npxSim.push(await timeToFirstAnswer((port) => ['tsx', 'simulator', '--port', String(port), '--kubeconfig-out', '/dev/null'], {}, NPX));
    npxBare.push(await timeToFirstAnswer((port) => ['tsx', bareFile, String(port)], {}, NPX));
  }
  rmSync(dirname(bareFile), { recursive: true, force: true });
  const ns = median(npxSim);
  const nb = median(npxBare);
  const s = median(sim);
  const b = median(bare);
  const t = median(tsx);
  const p = median(plain);
  const q = median(suites);
  const results: Measurement[] = [
    {
      name: `npx tsx simulator, typed as a user does: process start to first /api answer (median of ${RUNS}; a bare Fastify server the same way ${nb.toFixed(0)} ms)`,
      value: ns,
      unit: 'ms',
      target: '<= 500',
      ok: ns <= 500,
    },
    { name: 'start time through npx, simulator / bare Fastify server', value: ns / nb, unit: 'x', target: 'report only', ok: true },
    { name: `the same without npx: node --import tsx simulator (bare Fastify through tsx ${b.toFixed(0)} ms)`, value: s, unit: 'ms', target: 'report only', ok: true },
    { name: 'start time, simulator / bare Fastify server (both through node --import tsx)', value: s / b, unit: 'x', target: 'report only', ok: true },
    { name: `the same from the sources, without the compiled build (SIMULATOR_COMPILED=0; the first start after a change)`, value: median(sources), unit: 'ms', target: 'report only', ok: true },
    { name: `tsx's own start: node --import tsx -e '' (plain node -e '' ${p.toFixed(0)} ms)`, value: t, unit: 'ms', target: 'report only', ok: true },
    { name: `npx tsx suites: process start to its first finished check (median of ${RUNS})`, value: q, unit: 'ms', target: '<= 1000', ok: q <= 1000 },
  ];
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
