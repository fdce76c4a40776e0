// Runs generated hostile requests (requests.ts) against a simulator started in a child process and judges the
// answers: no 5xx, no hang (an answer or a close within HANG_MS), every error body a Status (JSON, YAML or
// protobuf, as negotiated), every object a write accepted still readable as protobuf, and afterwards the
// process alive, its RSS back within a bound, every collection listable as protobuf and a Job in another
// namespace completing. Used by `npm run fuzz` (index.ts) and, bounded, by fuzz.test.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { request } from 'undici';
import { decodeObject } from '../codec/protobuf.ts';
import { queryBool } from '../server/query-params.ts';
import { FUZZ_NS, hostileRequest, type FuzzRequest } from './requests.ts';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PB = 'application/vnd.kubernetes.protobuf';
/** An answer (or a close) must come within this; a slow sender is cut after the receive timeout (1 s here). */
const HANG_MS = 20_000;
/**
 * How long a request slower than HANG_MS is still waited for. Measured (seed 17, 2 cores at load average 13-22):
 * every request that passed HANG_MS was answered, late, while the whole process was saturated (a fuzz-made Job
 * of parallelism 1,276,401,776 keeps the in-process Job controller creating pods until the fuzz clears its
 * workloads; /healthz itself then took 5.7-18.7 s). So an answer after HANG_MS is a hang only when the server
 * was answering others meanwhile (`stuck`, below) or when none comes within LATE_LIMIT_MS.
 */
const LATE_LIMIT_MS = 120_000;
/** A late answer is the server's fault when no /healthz during its wait took more than this. */
const SATURATED_HEALTHZ_MS = 2_000;
/**
 * Valid fuzz workloads (a Job of parallelism 2^31-1 is valid) are deleted every this many requests: each keeps
 * the controllers creating pods at full speed until then, which measures the controllers, not request handling.
 */
const CLEAR_EVERY = 250;
/** A streaming answer (a watch) is read this long, then dropped. */
const STREAM_READ_MS = 1500;

export interface FuzzOptions {
  count: number;
  seed: number;
  /** Index of the first request (default 0): requests from..from+count-1 of the seed, exactly as a longer run sends them. */
  from?: number;
  concurrency?: number;
  /** Progress lines (every 10%). */
  log?: (line: string) => void;
}

export interface Failure {
  kind: '5xx' | 'hang' | 'non-Status' | 'protobuf-read';
  request: string;
  detail: string;
}

export interface FuzzReport {
  seed: number;
  count: number;
  byClass: Record<string, number>;
  byStatus: Record<string, number>;
  failures: Failure[];
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPeakMb: number;
  aliveAfter: boolean;
  listsAsProtobuf: boolean;
  jobCompletedAfterMs?: number;
  jobError?: string;
  durationMs: number;
  /** Per request class: how many, the slowest answer (or hang) in ms, how many took over 5 s. */
  latency: Record<string, { count: number; maxMs: number; over5s: number }>;
  /** The ten slowest requests of the run, with what they got. */
  slowest: Array<{ ms: number; request: string; answer: string }>;
  /** The slowest /healthz answer of the once-a-second probe during the run. */
  healthzMaxMs: number;
  /** Requests answered after HANG_MS while the server was saturated (its /healthz slow too): not hangs, listed. */
  late: string[];
  /** /healthz answers slower than 2 s: sent at (s into the run), took (ms). */
  healthzStalls: string[];
  /** The fuzzer's own event-loop stalls (over 1 s): while it is stalled, answers wait unread. */
  ownLoopMaxMs: number;
  ownLoopStalls: string[];
}

export interface ChildSimulator {
  url: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `tsx simulator` as a child process (controllers and 3 nodes, a 1 s receive timeout). */
export async function startChildSimulator(): Promise<ChildSimulator> {
  // FUZZ_SIM_NODE_ARGS: extra node options for the simulator only (e.g. `--cpu-prof --cpu-prof-dir=DIR` to see
  // where its time goes during a run).
  const nodeArgs = (process.env.FUZZ_SIM_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  // FUZZ_SIM_ARGS: extra simulator flags (e.g. `--daemon-arg=--x-api-qps=20` to see what the controllers' pace does).
  const simArgs = (process.env.FUZZ_SIM_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(REPO, 'simulator', 'index.ts'), '--port', '0', '--receive-timeout', '1s', '--kubeconfig-out', join(tmpdir(), `fuzz-${process.pid}-${Date.now()}.kubeconfig`), ...simArgs], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
    if (process.env.FUZZ_SIM_LOG) process.stderr.write(d);
  });
  child.on('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(`fuzz: the simulator exited (code ${code}, signal ${signal}): ${stderr.slice(-2000)}\n`);
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start within 60 s: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /API server listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited (${code}): ${stderr}`));
    });
  });
  child.stdout!.resume();
  return {
    url,
    pid: child.pid!,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : -1;
  } catch {
    return -1;
  }
}

function describe(r: FuzzRequest): string {
  if (r.raw) return `RAW ${JSON.stringify(r.raw.subarray(0, 120).toString('latin1'))}`;
  const body = r.body ? ` body(${r.body.length}B)=${JSON.stringify(r.body.subarray(0, 160).toString('utf8'))}` : '';
  return `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(r.headers)}${r.stallAfter !== undefined ? ` stall@${r.stallAfter}` : ''}${body}`;
}

/**
 * The one 5xx the real server gives to a client's input: a resourceVersion newer than the store's is waited for
 * 3 s, then answered 504 Timeout "Too large resource version" with retryAfterSeconds 1 (the watch cache's
 * waitUntilFreshAndBlock; wire-facts.md, the list table). Counted apart, never as a failure.
 */
function isTooLargeRv(answer: Answer): boolean {
  if (answer.status !== 504) return false;
  const s = statusOf(answer.contentType, answer.body);
  return s?.reason === 'Timeout' && /^Timeout: Too large resource version: \d+, current: \d+$/.test(s.message ?? '');
}

/** An error body read in the media type it came in, when it is a Status. */
function statusOf(contentType: string, body: Buffer): { reason?: string; message?: string } | undefined {
  try {
    let obj: unknown;
    if (contentType.startsWith(PB)) obj = decodeObject(body);
    else if (contentType.startsWith('application/yaml')) obj = yaml.load(body.toString('utf8'));
    else obj = JSON.parse(body.toString('utf8'));
    return !!obj && typeof obj === 'object' && (obj as { kind?: string }).kind === 'Status' ? (obj as { reason?: string; message?: string }) : undefined;
  } catch {
    return undefined;
  }
}

const isStatusBody = (contentType: string, body: Buffer): boolean => statusOf(contentType, body) !== undefined;

interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** A request that got neither an answer nor a close in time, and how far it got (the evidence for its cause). */
interface Hang {
  hang: true;
  /** What had happened when the time ran out: nothing back, the status line and headers only, part of the body. */
  phase: string;
}
const hang = (phase: string): Hang => ({ hang: true, phase });
const isHang = (a: unknown): a is Hang => typeof a === 'object' && a !== null && (a as Hang).hang === true;

/** Sends over a raw socket (malformed HTTP, slow senders); resolves with the parsed answer, or undefined on a close without one. */
function sendRaw(url: string, bytes: Buffer, keepOpen: boolean): Promise<Answer | undefined | Hang> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const sock = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (v: Answer | undefined | Hang) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => {
      const got = Buffer.concat(chunks);
      const unsent = sock.writableLength;
      finish(hang(`raw socket: ${sock.bytesWritten} bytes written${unsent ? ` (${unsent} still unsent: the server stopped reading)` : ''}, ${got.length} bytes back${got.length ? `: ${JSON.stringify(got.subarray(0, 80).toString('latin1'))}` : ''}`));
    }, LATE_LIMIT_MS);
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      const text = Buffer.concat(chunks);
      const head = text.indexOf('\r\n\r\n');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text.subarray(0, 20).toString('latin1'));
      if (!m || head < 0) return finish(undefined);
      const ct = /content-type:\s*([^\r\n]*)/i.exec(text.subarray(0, head).toString('latin1'))?.[1] ?? '';
      finish({ status: Number(m[1]), contentType: ct, body: text.subarray(head + 4) });
    });
    sock.write(bytes);
    if (!keepOpen) sock.end();
  });
}

async function sendHttp(url: string, r: FuzzRequest): Promise<Answer | Hang | 'client'> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), LATE_LIMIT_MS);
  let phase = 'no status line';
  try {
    const res = await request(url + r.path, { method: r.method as 'GET', headers: r.headers, body: r.body, signal: ac.signal, headersTimeout: LATE_LIMIT_MS, bodyTimeout: LATE_LIMIT_MS });
    phase = `status ${res.statusCode} and headers, then no end of the body`;
    const ct = String(res.headers['content-type'] ?? '');
    const chunks: Buffer[] = [];
    const streaming = ct.includes('stream=watch') || (res.statusCode === 200 && asksForWatch(r.path));
    const stop = streaming ? setTimeout(() => ac.abort(), STREAM_READ_MS) : undefined;
    try {
      for await (const c of res.body) chunks.push(c as Buffer);
    } catch (e) {
      if (!streaming) throw e;
    } finally {
      clearTimeout(stop);
    }
    return { status: res.statusCode, contentType: ct, body: Buffer.concat(chunks) };
  } catch (e) {
    if (ac.signal.aborted) return hang(phase);
    // undici refusing to send (a method or header it will not write) or a reset after a 4xx with close.
    void e;
    return 'client';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a path asks for a watch: a /watch/ path, or a `watch` parameter whose first value is true by the
 * server's own bool conversion (queryBool: false only for "0", "f" and "false" in any case; the empty value is
 * true). The fuzzer needs this only to know when to stop reading a stream, so it reads the query as the server
 * does. The 50k run of seed 17 had waited 120 s on `?watch=&exact=` read as "no watch".
 */
function asksForWatch(path: string): boolean {
  if (/\/watch\//.test(path)) return true;
  let v: string | null;
  try {
    v = new URL(path, 'http://fuzz').searchParams.get('watch');
  } catch {
    return false;
  }
  return queryBool(v ?? undefined) === true;
}

const OBJECT_PATH = /^(\/apis?\/(?:[^/]+\/)?v1(?:beta1)?\/namespaces\/[^/]+\/[a-z]+|\/api\/v1\/namespaces)(?:\/([^/?]+))?/;

export async function runFuzz(sim: ChildSimulator, opts: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const log = opts.log ?? (() => {});
  const report: FuzzReport = {
    seed: opts.seed, count: opts.count, byClass: {}, byStatus: {}, failures: [], rssBeforeMb: 0, rssAfterMb: 0, rssPeakMb: 0, aliveAfter: false,
    listsAsProtobuf: false, durationMs: 0, latency: {}, slowest: [], healthzMaxMs: 0, late: [], healthzStalls: [], ownLoopMaxMs: 0, ownLoopStalls: [],
  };
  const ns = await request(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: FUZZ_NS } }) });
  await ns.body.text();
  report.rssBeforeMb = rssMb(sim.pid);
  // Generated a chunk at a time (each from the seed and its index, so a run replays exactly): a whole run's
  // requests held at once would hold its oversized bodies too.
  const CHUNK = 100;
  const chunks = new Map<number, FuzzRequest[]>();
  const sampleAt = (i: number): FuzzRequest & { index: number } => {
    const c = Math.floor(i / CHUNK);
    let chunk = chunks.get(c);
    if (!chunk) {
      chunk = fc.sample(hostileRequest, { numRuns: CHUNK, seed: (opts.seed + c * 7919) | 0 });
      chunks.set(c, chunk);
      chunks.delete(c - 2);
    }
    return { ...chunk[i % CHUNK], index: i };
  };
  const count = (bucket: Record<string, number>, k: string) => (bucket[k] = (bucket[k] ?? 0) + 1);
  const fail = (kind: Failure['kind'], r: FuzzRequest & { index?: number }, detail: string) => {
    if (report.failures.length < 50) report.failures.push({ kind, request: `#${r.index} at ${((performance.now() - started) / 1000).toFixed(1)} s: ${describe(r)}`, detail: detail.slice(0, 400) });
    else report.failures.push({ kind, request: '', detail: '' });
  };
  const from = opts.from ?? 0;
  let next = from;
  let done = 0;
  // The server's own responsiveness through the run: a /healthz every second (a stalled event loop shows here
  // as a slow answer, whatever request caused it). Hangs are judged against it: a request that stays unanswered
  // while /healthz answers at once is the server's fault, not load.
  const health = startHealthMonitor(sim.url, started);
  const slowest: Array<{ ms: number; request: string; answer: string }> = [];
  const noteTime = (r: FuzzRequest, ms: number, answer: string) => {
    const c = (report.latency[r.cls] ??= { count: 0, maxMs: 0, over5s: 0 });
    c.count++;
    c.maxMs = Math.max(c.maxMs, Math.round(ms));
    if (ms > 5000) c.over5s++;
    if (slowest.length < 10 || ms > slowest[slowest.length - 1].ms) {
      slowest.push({ ms: Math.round(ms), request: describe(r).slice(0, 200), answer });
      slowest.sort((a, b) => b.ms - a.ms);
      slowest.length = Math.min(slowest.length, 10);
    }
  };
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= from + opts.count) return;
      const r = sampleAt(i);
      count(report.byClass, r.cls);
      let answer: Answer | undefined | Hang | 'client';
      const t0 = performance.now();
      if (r.raw) answer = await sendRaw(sim.url, r.raw, false);
      else if (r.stallAfter !== undefined) {
        const head = `${r.method} ${r.path} HTTP/1.1\r\nHost: fuzz\r\n${Object.entries(r.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}Content-Length: ${r.body!.length}\r\n\r\n`;
        answer = await sendRaw(sim.url, Buffer.concat([Buffer.from(head), r.body!.subarray(0, r.stallAfter)]), true);
      } else answer = await sendHttp(sim.url, r);
      const ms = performance.now() - t0;
      noteTime(r, ms, isHang(answer) ? 'hang' : answer === undefined ? 'closed' : answer === 'client' ? 'client-refused' : String(answer.status));
      const healthzDuring = ms > HANG_MS ? health.maxOverlapping(t0, t0 + ms) : 0;
      let hung = false;
      if (isHang(answer)) {
        hung = true;
        const probe = await healthzMs(sim.url);
        fail('hang', r, `no answer or close within ${LATE_LIMIT_MS} ms (${answer.phase}); slowest /healthz meanwhile ${healthzDuring} ms, one right after: ${probe}`);
      } else if (ms > HANG_MS) {
        // Late: a hang when the server answered /healthz promptly all along (this request was stuck, not queued
        // behind a saturated process); otherwise reported as late, with the evidence.
        if (healthzDuring <= SATURATED_HEALTHZ_MS) {
          hung = true;
          fail('hang', r, `answered only after ${Math.round(ms)} ms while /healthz answered within ${healthzDuring} ms throughout: stuck, not queued`);
        } else report.late.push(`#${r.index} ${Math.round(ms)} ms (slowest /healthz meanwhile ${healthzDuring} ms): ${describe(r).slice(0, 120)}`);
      }
      if (hung) count(report.byStatus, 'hang');
      else if (answer === 'client') count(report.byStatus, 'client-refused');
      else if (answer === undefined) count(report.byStatus, 'closed');
      else if (!isHang(answer)) {
        if (isTooLargeRv(answer)) count(report.byStatus, '504 too-large-rv');
        else count(report.byStatus, `${Math.floor(answer.status / 100)}xx`);
        if (answer.status >= 500 && !isTooLargeRv(answer)) fail('5xx', r, `${answer.status} ${answer.body.subarray(0, 300).toString('utf8')}`);
        else if (answer.status >= 400 && r.method !== 'HEAD' && !(answer.status === 404 && answer.contentType.startsWith('text/plain')) && !isStatusBody(answer.contentType, answer.body)) {
          fail('non-Status', r, `${answer.status} ${answer.contentType} ${answer.body.subarray(0, 200).toString('utf8')}`);
        }
        // What a write accepted must read back as protobuf (the encoder must hold what validation let in).
        if (answer.status >= 200 && answer.status < 300 && ['POST', 'PUT', 'PATCH'].includes(r.method) && answer.contentType.startsWith('application/json')) {
          await checkProtobufRead(sim.url, r, answer, fail);
        }
      }
      const n = ++done;
      // Valid workloads the fuzz made (a Deployment of 2^31-1 replicas is valid) are cleared now and then, so
      // that the run measures the server, not an ever-growing set of pods; the deletes are requests too.
      if (n % CLEAR_EVERY === 0) await clearFuzzWorkloads(sim.url);
      if (opts.count >= 10 && n % Math.ceil(opts.count / 10) === 0) log(`fuzz: ${n}/${opts.count} (rss ${rssMb(sim.pid)} MB, slowest /healthz so far ${health.maxMs} ms, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
      report.rssPeakMb = Math.max(report.rssPeakMb, rssMb(sim.pid));
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  } finally {
    health.stop();
  }
  report.healthzMaxMs = health.maxMs;
  report.healthzStalls = health.stalls;
  report.ownLoopMaxMs = health.ownMaxMs;
  report.ownLoopStalls = health.ownStalls;
  report.slowest = slowest;
  report.aliveAfter = sim.child.exitCode === null && (await healthy(sim.url));
  report.listsAsProtobuf = await everyListReadsAsProtobuf(sim.url);
  report.rssAfterMb = await settledRss(sim.pid);
  const job = await jobCompletes(sim.url);
  if (typeof job === 'number') report.jobCompletedAfterMs = job;
  else report.jobError = job;
  report.durationMs = Math.round(performance.now() - started);
  return report;
}

async function clearFuzzWorkloads(url: string): Promise<void> {
  for (const c of ['/apis/apps/v1/namespaces/fuzz/deployments', '/apis/apps/v1/namespaces/fuzz/replicasets', '/apis/batch/v1/namespaces/fuzz/jobs', '/apis/batch/v1beta1/namespaces/fuzz/cronjobs', '/api/v1/namespaces/fuzz/pods']) {
    const res = await request(url + c, { method: 'DELETE' }).catch(() => undefined);
    await res?.body.text();
  }
}

async function checkProtobufRead(url: string, r: FuzzRequest, answer: Answer, fail: (k: Failure['kind'], r: FuzzRequest, d: string) => void): Promise<void> {
  let obj: { metadata?: { name?: string } };
  try {
    obj = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return;
  }
  const m = OBJECT_PATH.exec(r.path.split('?')[0]);
  const name = obj.metadata?.name;
  if (!m || !name) return;
  const res = await request(`${url}${m[1]}/${encodeURIComponent(name)}`, { headers: { accept: PB } }).catch(() => undefined);
  if (!res) return;
  await res.body.arrayBuffer();
  if (res.statusCode >= 500) fail('protobuf-read', r, `GET ${m[1]}/${name} as protobuf: ${res.statusCode}`);
}

/** How long one /healthz takes (or that it did not answer within 10 s). */
async function healthzMs(url: string): Promise<string> {
  const t0 = performance.now();
  try {
    const res = await request(`${url}/healthz`, { headersTimeout: 10_000, bodyTimeout: 10_000 });
    await res.body.text();
    return `${res.statusCode} in ${Math.round(performance.now() - t0)} ms`;
  } catch (e) {
    return `no answer (${(e as Error).message}) after ${Math.round(performance.now() - t0)} ms`;
  }
}

/** A /healthz a second, one at a time, on its own connection: the server's responsiveness over the run. */
interface HealthMonitor {
  maxMs: number;
  stalls: string[];
  ownMaxMs: number;
  ownStalls: string[];
  maxOverlapping(from: number, to: number): number;
  stop(): void;
}

function startHealthMonitor(url: string, origin: number): HealthMonitor {
  /** Each /healthz: when it was sent and how long it took (the one in flight counts with its time so far). */
  const samples: Array<{ sent: number; ms: number }> = [];
  let inFlight: number | undefined;
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  let stopped = false;
  const state = {
    maxMs: 0,
    /** /healthz answers slower than 2 s: when they were sent (s into the run) and how long they took. */
    stalls: [] as string[],
    ownMaxMs: 0,
    ownStalls: [] as string[],
    /** The slowest /healthz whose wait overlapped [from, to] (performance.now() times). */
    maxOverlapping(from: number, to: number) {
      let max = inFlight !== undefined && inFlight <= to ? Math.round(performance.now() - inFlight) : 0;
      for (const s of samples) if (s.sent <= to && s.sent + s.ms >= from) max = Math.max(max, s.ms);
      return max;
    },
    stop() {
      stopped = true;
      loop.disable();
    },
  };
  void (async () => {
    while (!stopped) {
      const t0 = performance.now();
      inFlight = t0;
      try {
        const res = await request(`${url}/healthz`, { headersTimeout: 60_000, bodyTimeout: 60_000 });
        await res.body.text();
      } catch {
        // counted by its time like an answer
      }
      const ms = Math.round(performance.now() - t0);
      // This process's own event loop: a stall here delays every answer it reads (and fires its hang timers
      // first), so it is told apart from the server's.
      const ownMs = Math.round(loop.max / 1e6);
      loop.reset();
      state.ownMaxMs = Math.max(state.ownMaxMs, ownMs);
      if (ownMs > 1000 && state.ownStalls.length < 20) state.ownStalls.push(`${((t0 - origin) / 1000).toFixed(1)} s: ${ownMs} ms`);
      state.maxMs = Math.max(state.maxMs, ms);
      if (ms > 2000 && state.stalls.length < 20) state.stalls.push(`${((t0 - origin) / 1000).toFixed(1)} s: ${ms} ms`);
      inFlight = undefined;
      samples.push({ sent: t0, ms });
      if (samples.length > 900) samples.shift();
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  return state;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await request(`${url}/healthz`, { headersTimeout: 10_000 });
    await res.body.text();
    return res.statusCode === 200;
  } catch {
    return false;
  }
}

const COLLECTIONS = ['/api/v1/pods', '/api/v1/configmaps', '/api/v1/secrets', '/api/v1/services', '/api/v1/namespaces', '/api/v1/events', '/apis/apps/v1/deployments', '/apis/apps/v1/replicasets', '/apis/batch/v1/jobs', '/apis/batch/v1beta1/cronjobs'];

async function everyListReadsAsProtobuf(url: string): Promise<boolean> {
  for (const c of COLLECTIONS) {
    const res = await request(url + c, { headers: { accept: PB } });
    const body = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode !== 200) return false;
    decodeObject(body);
  }
  return true;
}

/** RSS once the process has had a few seconds to collect what the fuzz left. */
async function settledRss(pid: number): Promise<number> {
  let last = rssMb(pid);
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = rssMb(pid);
    if (Math.abs(now - last) < 5) return now;
    last = now;
  }
  return last;
}

/** A Job in a fresh namespace completes: the controllers and nodes still work after the fuzz. */
async function jobCompletes(url: string): Promise<number | string> {
  const ns = `after-fuzz-${Date.now().toString(36)}`;
  const post = async (path: string, body: unknown) => {
    const res = await request(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`POST ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  };
  const start = performance.now();
  try {
    await post('/api/v1/namespaces', { metadata: { name: ns } });
    await post(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      metadata: { name: 'after' },
      spec: { completions: 2, template: { metadata: { annotations: { 'simulator.cluster.local/run-seconds': '0.2' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
  } catch (e) {
    return (e as Error).message;
  }
  const deadline = start + 90_000;
  while (performance.now() < deadline) {
    const res = await request(`${url}/apis/batch/v1/namespaces/${ns}/jobs/after`);
    const job = JSON.parse(await res.body.text()) as { status?: { conditions?: Array<{ type: string; status: string }> } };
    if (job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) return Math.round(performance.now() - start);
    await new Promise((r) => setTimeout(r, 200));
  }
  return 'the Job did not complete within 90 s';
}

/** Summary lines: counts by status class and by request class, failures, the after-checks. */
export function formatReport(r: FuzzReport): string {
  const lines = [
    `fuzz: ${r.count} requests, seed ${r.seed}, ${(r.durationMs / 1000).toFixed(1)} s`,
    `by status: ${Object.entries(r.byStatus).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `by class: ${Object.entries(r.byClass).sort().map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `5xx: ${r.failures.filter((f) => f.kind === '5xx').length}, hangs: ${r.failures.filter((f) => f.kind === 'hang').length}, non-Status error bodies: ${r.failures.filter((f) => f.kind === 'non-Status').length}, writes not readable as protobuf: ${r.failures.filter((f) => f.kind === 'protobuf-read').length}`,
    `process alive: ${r.aliveAfter}; every list readable as protobuf: ${r.listsAsProtobuf}; RSS ${r.rssBeforeMb} MB before, ${r.rssPeakMb} MB peak, ${r.rssAfterMb} MB after`,
    r.jobCompletedAfterMs !== undefined ? `a Job created afterwards completed in ${(r.jobCompletedAfterMs / 1000).toFixed(1)} s` : `a Job created afterwards did NOT complete: ${r.jobError}`,
    `slowest answer by class (ms; late after ${HANG_MS}, hang after ${LATE_LIMIT_MS} or when late while /healthz was prompt): ${Object.entries(r.latency).sort().map(([k, v]) => `${k} ${v.maxMs}${v.over5s ? ` (${v.over5s} over 5 s)` : ''}`).join(', ')}; slowest /healthz during the run ${r.healthzMaxMs} ms${r.healthzStalls.length ? ` (over 2 s: ${r.healthzStalls.join(', ')})` : ''}; the fuzzer's own longest event-loop stall ${r.ownLoopMaxMs} ms${r.ownLoopStalls.length ? ` (over 1 s: ${r.ownLoopStalls.join(', ')})` : ''}`,
  ];
  if (r.late.length) lines.push(`late (answered after ${HANG_MS} ms while the server's own /healthz was slower than ${SATURATED_HEALTHZ_MS} ms, i.e. the process was saturated, not this request stuck): ${r.late.length}`, ...r.late.slice(0, 10).map((l) => `  late: ${l}`));
  for (const s of r.slowest.slice(0, 5)) lines.push(`  slow: ${s.ms} ms -> ${s.answer}: ${s.request}`);
  for (const f of r.failures.filter((x) => x.request).slice(0, 20)) lines.push(`  ${f.kind}: ${f.request}\n    -> ${f.detail}`);
  return lines.join('\n');
}

/** The verdict: 0 5xx, 0 hangs, 0 non-Status error bodies, alive, lists readable, RSS bound, the Job done. */
export function fuzzPassed(r: FuzzReport, rssBoundMb = 400): boolean {
  return r.failures.length === 0 && r.aliveAfter && r.listsAsProtobuf && r.jobCompletedAfterMs !== undefined && r.rssAfterMb <= r.rssBeforeMb + rssBoundMb;
}
