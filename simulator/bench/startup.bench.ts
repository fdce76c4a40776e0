// Start time, from process start (spawn) to the first answer of GET /api. Goals, each a ratio to a bare Fastify
// server answering /api started the same way, median of RUNS pairs started back to back, which first alternating:
//   - the installed command, `node bin/cluster-simulator.mjs` (the package's build, made first), against
//     `node bare.mjs PORT` under plain node: <= 1.2 x;
//   - `npx tsx simulator` typed as a user does (npx, then tsx's command, then node with tsx's loader: three processes
//     before a line of the simulator runs) against `npx tsx bare.mjs PORT`: <= 1.0 x.
// Each of the two also runs on until its banner, printed once the daemon and nodes are up behind the first answer.
// Reported beside them: `node --import tsx simulator` and the sources (SIMULATOR_COMPILED=0, the first start after an
// edit), tsx's own start (`node --import tsx -e ''` and plain `node -e ''`), and `npx tsx suites` → its first finished
// check. `npx tsx simulator` runs a compiled build of itself when one matches the sources (simulator/compiled.ts): the
// bench makes it first and starts it once untimed until it has written V8's code cache of its chunks, as the first
// start of a build does for every later one; so does `npx tsx suites` (suites/harness/compile.ts). Processes started
// with START_TIMING=1 print when they started (performance.timeOrigin), so that a start is also timed from the
// serving node process's own start, leaving out npx and tsx's command before it.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { formatLine, median, pairedRatio, ratioMeasurement, type Measurement, type Pair } from './measurement.ts';
import { freePort } from '../testing/ports.ts';
import { codeCacheFileOf, compiledEntry } from '../compiled.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

function spawnNode(args: string[], env: Record<string, string> = {}, command = process.execPath) {
  // Its own process group, so that killing it also ends what it started (npx starts tsx, tsx starts node).
  return spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, NODE_OPTIONS: '', START_TIMING: '1', ...env } });
}

/** `node --import tsx simulator` on that port: the compiled command, as tsx's command starts it. */
const simulatorArgs = (port: number) => ['--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--kubeconfig-out', '/dev/null'];

/** `suites` with one quick check against its embedded simulator, reports into that directory. */
const suitesArgs = (reports: string) => ['suites', '--suite', 'crud', '--grep', '^crud\\.not-found$', '--report-dir', reports];

/** Epoch milliseconds now, on the clock of a child's performance.timeOrigin. */
const epochNow = () => performance.timeOrigin + performance.now();

/** The line a timed process prints with START_TIMING=1 (simulator/index.ts, suites/index.ts, the bare servers). */
const START_LINE = /start-timing: process started at ([\d.]+)/;
const START_TIMING_CODE = "if (process.env.START_TIMING === '1') process.stderr.write(`start-timing: process started at ${performance.timeOrigin}\\n`);";

/** A start timed two ways: from spawn (the command's start) and from the serving node process's own start. */
interface StartTime {
  fromSpawn: number;
  /** NaN for a process that prints no start-timing line (the installed command, the bare server under plain node). */
  fromProcess: number;
  /** From spawn to the line `afterAnswer` waited for on stdout (the simulator's banner: daemon and nodes up). */
  toLine?: number;
}

/** Reads the serving process's start from its stderr; the last 2000 characters kept for an error message. */
function watchStderr(child: ReturnType<typeof spawnNode>): { origin(): number | undefined; tail(): string } {
  let err = '';
  let origin: number | undefined;
  child.stderr.on('data', (b: Buffer) => {
    err = (err + b.toString()).slice(-4000);
    origin ??= Number(START_LINE.exec(err)?.[1]) || undefined;
  });
  return { origin: () => origin, tail: () => err.slice(-2000) };
}

function startTime(t0: number, origin: number | undefined): StartTime {
  return { fromSpawn: performance.now() - t0, fromProcess: origin === undefined ? Number.NaN : epochNow() - origin };
}

/** npx from this node's installation (the one a user's shell finds beside node). */
const NPX = join(dirname(process.execPath), 'npx');

/** Spawns a server on a known port and times process start → its first 200 from /api (polled every 2 ms). */
/**
 * One untimed start of the compiled command that runs until V8's code cache of its entry chunk is written (a few
 * seconds after a start: simulator/compiled.ts), as the first start of a new build does for every later one.
 */
async function warmCodeCache(): Promise<void> {
  const entry = compiledEntry();
  if (!entry) throw new Error('no compiled build of the simulator after building it');
  const port = await freePort();
  const child = spawnNode(simulatorArgs(port));
  child.stdout.resume();
  child.stderr.resume();
  try {
    const deadline = Date.now() + 30_000;
    while (!existsSync(codeCacheFileOf(entry))) {
      if (Date.now() > deadline) throw new Error(`no code cache ${codeCacheFileOf(entry)} 30 s after a start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    killGroup(child.pid);
  }
}

/**
 * Spawns a server on a free port and times process start → its first 200 from /api (polled every 2 ms); with
 * `afterAnswer`, also → the first stdout line matching it (the process then runs on until it comes, 60 s at most).
 */
async function timeToFirstAnswer(args: (port: number) => string[], env?: Record<string, string>, command?: string, afterAnswer?: RegExp): Promise<StartTime> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawnNode(args(port), env, command);
  let exited: string | undefined;
  const err = watchStderr(child);
  let out = '';
  let lineAt: number | undefined;
  child.stdout.on('data', (b: Buffer) => {
    out = (out + b.toString()).slice(-4000);
    if (afterAnswer && lineAt === undefined && afterAnswer.test(out)) lineAt = performance.now() - t0;
  });
  child.on('exit', (code) => (exited = `exited ${code} before answering: ${err.tail()}`));
  try {
    for (;;) {
      if (exited) throw new Error(exited);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api`);
        await r.arrayBuffer();
        if (r.ok) {
          const time = startTime(t0, err.origin());
          if (afterAnswer) {
            const deadline = Date.now() + 60_000;
            while (lineAt === undefined && !exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
            time.toLine = lineAt ?? Number.NaN;
          }
          return time;
        }
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
async function timeToFirstCheck(): Promise<StartTime> {
  const reports = mkdtempSync(join(tmpdir(), 'bench-suites-'));
  const t0 = performance.now();
  const child = spawnNode(['tsx', ...suitesArgs(reports)], {}, NPX);
  let out = '';
  const err = watchStderr(child);
  try {
    return await new Promise<StartTime>((resolveTime, reject) => {
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (/^(ok|FAIL|skip) /m.test(out)) resolveTime(startTime(t0, err.origin()));
      });
      child.on('exit', (code) => reject(new Error(`suites exited ${code} before a check finished: ${out.slice(-500)} ${err.tail()}`)));
    });
  } finally {
    killGroup(child.pid);
    rmSync(reports, { recursive: true, force: true });
  }
}

/** The bare server as a file for `npx tsx FILE PORT` (tsx's command takes a file). */
const BARE_FROM_ARGV = `${START_TIMING_CODE} import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });`;

const BARE = (port: number) => `${START_TIMING_CODE} import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: ${port}, host: '127.0.0.1' });`;

/**
 * The build `npx tsx suites` runs once it exists, with its catalog file (suites/harness/compile.ts, catalog.ts): made
 * now, as the first run after a change makes them, so that every timed run finds them.
 */
async function warmSuitesBuild(): Promise<void> {
  const [{ compileSuites }, { CATALOG_FILE }] = await Promise.all([import('../../suites/harness/engine.ts'), import('../../suites/harness/catalog.ts')]);
  const compiled = await compileSuites();
  if (!compiled) throw new Error('the suites could not be compiled');
  const catalog = join(dirname(compiled['suites-cli']), CATALOG_FILE);
  // Written in the background by a process compileSuites started (when it was not there yet).
  const deadline = Date.now() + 120_000;
  while (!existsSync(catalog) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // One whole run of the timed command, untimed: it writes V8's code cache of the build's CommonJS chunks when it
  // exits (simulator/compiled.ts), as any earlier run has; the timed runs are stopped before they exit.
  const reports = mkdtempSync(join(tmpdir(), 'bench-suites-'));
  try {
    await timeToExit(['--import', 'tsx', ...suitesArgs(reports)]);
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

const fromSpawn = (xs: StartTime[]) => median(xs.map((x) => x.fromSpawn));
const fromProcess = (xs: StartTime[]) => median(xs.map((x) => x.fromProcess));

/** The start of `measured` as a ratio to `reference`'s: RUNS pairs started back to back, which first alternating. */
async function pairedStarts(measured: () => Promise<StartTime>, reference: () => Promise<StartTime>): Promise<{ median: Pair; measured: StartTime[] }> {
  const kept: StartTime[] = [];
  const { median } = await pairedRatio(
    RUNS,
    async () => {
      const t = await measured();
      kept.push(t);
      return t.fromSpawn;
    },
    async () => (await reference()).fromSpawn,
  );
  return { median, measured: kept };
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  // The compiled build `npx tsx simulator` uses once it exists (simulator/compiled.ts): made now, as any start
  // after the sources changed would have it made, so that every timed start below finds it.
  await timeToExit([join('scripts', 'build-simulator.mjs')]);
  await warmCodeCache();
  // The installed command runs the package's build (dist/, `npm run build`): made now from this checkout.
  await timeToExit([join('scripts', 'build-package.mjs')]);
  await warmSuitesBuild();
  // Inside the checkout (under node_modules/.cache), so that its import of fastify resolves as the simulator's does.
  const bareFile = join(REPO, 'node_modules', '.cache', 'bench-start', 'bare.mjs');
  mkdirSync(dirname(bareFile), { recursive: true });
  writeFileSync(bareFile, BARE_FROM_ARGV);
  const BANNER = /^controller daemon: /m;
  try {
    // The goals: each command against a bare Fastify server started the same way, paired.
    const installed = await pairedStarts(
      () => timeToFirstAnswer((port) => [join('bin', 'cluster-simulator.mjs'), '--port', String(port), '--kubeconfig-out', '/dev/null'], {}, undefined, BANNER),
      () => timeToFirstAnswer((port) => [bareFile, String(port)]),
    );
    log(`installed command (node bin/cluster-simulator.mjs) vs bare Fastify (node bare.mjs): ${installed.median.measured.toFixed(0)} vs ${installed.median.reference.toFixed(0)} ms`);
    // The commands as a user types them: npx (npm's own start and its look-up of tsx), tsx's command (which starts
    // node again with its loader), then the program.
    const npx = await pairedStarts(
      () => timeToFirstAnswer((port) => ['tsx', 'simulator', '--port', String(port), '--kubeconfig-out', '/dev/null'], {}, NPX, BANNER),
      () => timeToFirstAnswer((port) => ['tsx', bareFile, String(port)], {}, NPX),
    );
    log(`npx tsx simulator vs npx tsx bare.mjs: ${npx.median.measured.toFixed(0)} vs ${npx.median.reference.toFixed(0)} ms`);
    // What the tools and the sources cost, for the README's "where start-up goes" (report only).
    const sources: StartTime[] = [];
    const sim: StartTime[] = [];
    const bare: StartTime[] = [];
    const tsx: number[] = [];
    const plain: number[] = [];
    const suites: StartTime[] = [];
    for (let i = 0; i < RUNS; i++) {
      plain.push(await timeToExit(['-e', '']));
      tsx.push(await timeToExit(['--import', 'tsx', '-e', '']));
      bare.push(await timeToFirstAnswer((port) => ['--import', 'tsx', '--input-type=module', '-e', BARE(port)]));
      sim.push(await timeToFirstAnswer(simulatorArgs));
      sources.push(await timeToFirstAnswer(simulatorArgs, { SIMULATOR_COMPILED: '0' }));
      suites.push(await timeToFirstCheck());
    }
    const s = fromSpawn(sim);
    const b = fromSpawn(bare);
    const p = median(plain);
    const q = fromSpawn(suites);
    const banner = (xs: StartTime[]) => median(xs.map((x) => x.toLine ?? Number.NaN));
    const results: Measurement[] = [
      ratioMeasurement(
        `installed command (node bin/cluster-simulator.mjs, the package's build) → first /api answer, vs a bare Fastify server under plain node (median of ${RUNS} pairs)`,
        installed.median,
        { atMost: 1.2 },
        { unit: 'ms', referenceLabel: 'bare Fastify, node FILE' },
      ),
      ratioMeasurement(
        `npx tsx simulator, typed as a user does → first /api answer, vs a bare Fastify server through npx tsx (median of ${RUNS} pairs)`,
        npx.median,
        { atMost: 1.0 },
        { unit: 'ms', referenceLabel: 'bare Fastify, npx tsx FILE' },
      ),
      {
        name: `npx tsx simulator: process start → the banner, the daemon and the nodes up behind the first answer (median of ${RUNS}; first answer ${fromSpawn(npx.measured).toFixed(0)} ms)`,
        value: banner(npx.measured),
        unit: 'ms',
        target: 'report only',
        ok: true,
      },
      {
        name: `the installed command: process start → the banner (daemon and nodes up; first answer ${fromSpawn(installed.measured).toFixed(0)} ms)`,
        value: banner(installed.measured),
        unit: 'ms',
        target: 'report only',
        ok: true,
      },
      {
        name: `npx tsx simulator from the serving node process's own start (npx and tsx's command before it left out) to first /api answer`,
        value: fromProcess(npx.measured),
        unit: 'ms',
        target: 'report only',
        ok: true,
      },
      { name: `the same without npx: node --import tsx simulator (bare Fastify through tsx ${b.toFixed(0)} ms)`, value: s, unit: 'ms', target: 'report only', ok: true },
      { name: `the same from the sources, without the compiled build (SIMULATOR_COMPILED=0; the first start after a change)`, value: fromSpawn(sources), unit: 'ms', target: 'report only', ok: true },
      { name: `tsx's own start: node --import tsx -e '' (plain node -e '' ${p.toFixed(0)} ms)`, value: median(tsx), unit: 'ms', target: 'report only', ok: true },
      { name: `npx tsx suites: process start to its first finished check (median of ${RUNS}; from its own node process's start ${fromProcess(suites).toFixed(0)} ms)`, value: q, unit: 'ms', target: 'report only', ok: true },
    ];
    for (const m of results) log(formatLine(m));
    return results;
  } finally {
    rmSync(dirname(bareFile), { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
