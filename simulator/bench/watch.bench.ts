// Watch fan-out over HTTP, as the real watch cache serves it: N watchers on one collection, M writes. Every watcher
// must receive every event in order; reported are the p99 delivery latency (write sent → event read by a watcher),
// events/s delivered, encodings per event (one per wire format in use, however many watchers), and the API
// server's RSS growth while it serves them.
//
// The watchers are real HTTP clients on separate processes (watch-clients.ts, up to 5,000 connections each), as
// informers on other machines would be: the server's event loop does not share its CPU with N stream parsers in
// its own process. The server and the writer (sequential creates, each stamped with its send time) run in this
// process. Sizes: BENCH_WATCHERS (default 10,000) and BENCH_WRITES (default 1,000); a tenth of the watchers is
// measured first, for the chart of cost over watcher count. Then the same clients watch a bare Node server (no
// framework, no store) that writes each event's pre-framed chunk to every connection: its p99 and CPU per
// delivery are this machine's floor for the same work (bareRound), drawn beside the simulator's in the chart. The
// goal is the ratio of the two p99s, paired: BENCH_WATCH_PAIRS (5) rounds of each at the full watcher count with
// BENCH_WATCH_PAIR_WRITES (200) events, back to back, which first alternating (median pair; <= 1.1).

import { fork, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import net from 'node:net';
import inspector from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { startSimulator } from '../cluster.ts';
import { formatLine, pairedRatio, ratioMeasurement, type Measurement } from './measurement.ts';
import { httpChunk } from '../server/watch-hub.ts';
import { BUCKET_MS, BUCKETS } from './watch-clients.ts';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 10_000);
const WRITES = Number(process.env.BENCH_WRITES ?? 1000);
/** Writers creating side by side (1: one create at a time, each sent once the last is answered). */
const WRITERS = Math.max(1, Number(process.env.BENCH_WATCH_WRITERS ?? 1));
const PER_PROCESS = Number(process.env.BENCH_WATCH_PER_PROCESS ?? 5000);
const PROFILE = process.env.BENCH_WATCH_PROFILE;
/** Pairs of the goal's ratio (simulator vs bare server at WATCHERS), and the events of each of their rounds. */
const PAIRS = Number(process.env.BENCH_WATCH_PAIRS ?? 5);
const PAIR_WRITES = Number(process.env.BENCH_WATCH_PAIR_WRITES ?? 200);

/** A CPU profile of this process from now until stop(file). */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((ok, fail) => session.post(method, params ?? {}, (err, res) => (err ? fail(err) : ok(res))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = (await post('Profiler.stop')) as { profile: object };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
const HERE = dirname(fileURLToPath(import.meta.url));

interface Round {
  watchers: number;
  received: number;
  outOfOrder: number;
  p99: number;
  seconds: number;
  encodingsPerEvent: number;
  rssGrowthMb: number;
}

type ChildMessage = { op: 'ready' } | { op: 'done'; received: number; outOfOrder: number; cpuMs: number; histogram: string } | { op: 'error'; message: string };

function percentileOf(hist: Uint32Array, total: number, p: number): number {
  const want = Math.ceil(total * p);
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i];
    if (seen >= want) return (i + 1) * BUCKET_MS;
  }
  return Infinity;
}


interface ClientResult {
  received: number;
  outOfOrder: number;
  cpuMs: number;
  histogram: Uint32Array;
}

/** Client processes (watch-clients.ts), each with its share of the watchers, watching `path` on `url`. */
interface Clients {
  children: ChildProcess[];
  ready: Promise<unknown>;
  done: Promise<ClientResult[]>;
}

function startClients(url: string, path: string, watchers: number, writes: number): Clients {
  const children: ChildProcess[] = [];
  const ready: Promise<void>[] = [];
  const done: Promise<ClientResult>[] = [];
  for (let left = watchers; left > 0; left -= PER_PROCESS) {
    const n = Math.min(PER_PROCESS, left);
    const child = fork(join(HERE, 'watch-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    const failed = new Promise<never>((_, reject) => {
      child.on('message', (m: ChildMessage) => m.op === 'error' && reject(new Error(`watch client: ${m.message}`)));
      child.on('exit', (code) => code && reject(new Error(`watch client exited ${code}`)));
    });
    failed.catch(() => undefined);
    ready.push(Promise.race([failed, new Promise<void>((r) => child.on('message', (m: ChildMessage) => m.op === 'ready' && r()))]));
    done.push(
      Promise.race([
        failed,
        new Promise<ClientResult>((r) =>
          child.on('message', (m: ChildMessage) => {
            if (m.op !== 'done') return;
            const b = Buffer.from(m.histogram, 'base64');
            r({ received: m.received, outOfOrder: m.outOfOrder, cpuMs: m.cpuMs, histogram: new Uint32Array(b.buffer, b.byteOffset, BUCKETS) });
          }),
        ),
      ]),
    );
    child.send({ url, path, watchers: n, events: writes });
  }
  const all = { children, ready: Promise.all(ready), done: Promise.all(done) };
  // Awaited later; a failure before then must not be an unhandled rejection.
  all.ready.catch(() => undefined);
  all.done.catch(() => undefined);
  return all;
}

function summarize(results: ClientResult[]): { hist: Uint32Array; received: number; outOfOrder: number; clientCpuMs: number } {
  const hist = new Uint32Array(BUCKETS);
  let received = 0;
  let outOfOrder = 0;
  let clientCpuMs = 0;
  for (const r of results) {
    clientCpuMs += r.cpuMs;
    received += r.received;
    outOfOrder += r.outOfOrder;
    for (let i = 0; i < BUCKETS; i++) hist[i] += r.histogram[i];
  }
  return { hist, received, outOfOrder, clientCpuMs };
}

interface BareRound {
  watchers: number;
  p50: number;
  p99: number;
  seconds: number;
  serverUs: number;
  clientUs: number;
}

/**
 * The reference: a bare Node server (net, no HTTP framework, no store) that answers the same client processes'
 * watch requests with chunked headers and then, event after event, writes one pre-framed chunk of the same shape
 * and size as the simulator's ConfigMap ADDED frame to every connection (one socket write each), the next event a
 * turn of the event loop after the last (as the simulator's next create comes after its answer). Its p99 is the
 * floor of this machine for one event at a time to N loopback TCP watchers: what the server's fan-out costs
 * beyond it is the simulator's share.
 */
async function bareRound(watchers: number, writes: number, log: (s: string) => void): Promise<BareRound> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((sock) => {
    sock.setNoDelay(true);
    let seen = '';
    const onData = (b: Buffer) => {
      seen += b.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      sock.off('data', onData);
      sock.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-cache, private\r\nTransfer-Encoding: chunked\r\n\r\n');
      sockets.push(sock);
    };
    sock.on('data', onData);
    sock.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 4096, r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const clients = startClients(url, '/api/v1/namespaces/bench/configmaps?watch=true&resourceVersion=1', watchers, writes);
  try {
    await clients.ready;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < writes; i++) {
      const sent = String(performance.timeOrigin + performance.now());
      const name = `cm-${i}`;
      const object = {
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name, namespace: 'bench', selfLink: `/api/v1/namespaces/bench/configmaps/${name}`, uid: randomUUID(), resourceVersion: String(i + 2), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
        data: { sent },
      };
      const chunk = httpChunk(Buffer.from(`${JSON.stringify({ type: 'ADDED', object })}\n`));
      for (let k = 0; k < sockets.length; k++) sockets[k].write(chunk);
      await new Promise((r) => setImmediate(r));
    }
    const results = await clients.done;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const { hist, received, outOfOrder, clientCpuMs } = summarize(results);
    if (received !== watchers * writes || outOfOrder) throw new Error(`bare server: ${received}/${watchers * writes} events, ${outOfOrder} out of order`);
    const out: BareRound = {
      watchers,
      p50: percentileOf(hist, received, 0.5),
      p99: percentileOf(hist, received, 0.99),
      seconds,
      serverUs: (cpu.user + cpu.system) / received,
      clientUs: (clientCpuMs * 1000) / received,
    };
    log(
      `bare Node server, same clients: ${watchers} watchers x ${writes} events in ${seconds.toFixed(1)} s = ${(received / seconds).toFixed(0)} events/s, p50 ${out.p50.toFixed(1)} ms, p99 ${out.p99.toFixed(1)} ms; ` +
        `CPU per delivery: server ${out.serverUs.toFixed(1)} µs (system ${(cpu.system / received).toFixed(1)}), clients ${out.clientUs.toFixed(1)} µs; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    return out;
  } finally {
    for (const c of clients.children) c.kill('SIGKILL');
    for (const sock of sockets) sock.destroy();
    await new Promise((r) => server.close(r));
  }
}

async function round(watchers: number, writes: number, log: (s: string) => void): Promise<Round> {
  const sim = await startSimulator();
  const agent = new Agent({ connections: Math.max(8, WRITERS) });
  const children: ChildProcess[] = [];
  try {
    const ns = 'bench';
    await request(`${sim.url}/api/v1/namespaces`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: ns } }) }).then((r) => r.body.text());
    const list = (await request(`${sim.url}/api/v1/namespaces/${ns}/configmaps`, { dispatcher: agent }).then((r) => r.body.json())) as { metadata: { resourceVersion: string } };
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`;
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 100);

    const clients = startClients(sim.url, path, watchers, writes);
    children.push(...clients.children);
    await clients.ready;
    const open = sim.ctx.hub.stats.open;
    if (open < watchers) throw new Error(`only ${open} of ${watchers} watches open`);

    const encodingsBefore = sim.ctx.hub.stats.encodings;
    const writesBefore = sim.ctx.hub.stats.writes;
    const passesBefore = { n: sim.ctx.hub.stats.passes, ms: sim.ctx.hub.stats.passMs };
    sim.ctx.hub.stats.longestPassMs = 0;
    // BENCH_WATCH_PROFILE=file.cpuprofile: the server process's CPU profile of the events (not the connects), for
    // the largest round.
    const profiler = PROFILE && watchers === WATCHERS ? await startProfile() : undefined;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // WRITERS sequential writers side by side (each sends its next create once its last one is answered).
    let next = 0;
    const writer = async () => {
      for (let i = next++; i < writes; i = next++) {
        const sent = String(performance.timeOrigin + performance.now());
        const res = await request(`${sim.url}/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { sent } }) });
        await res.body.text();
        if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}`);
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    const results = await clients.done;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (profiler) await profiler.stop(PROFILE!);
    const socketWrites = sim.ctx.hub.stats.writes - writesBefore;
    const passes = sim.ctx.hub.stats.passes - passesBefore.n;
    const passMs = sim.ctx.hub.stats.passMs - passesBefore.ms;
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    const { hist, received, outOfOrder, clientCpuMs } = summarize(results);
    const out: Round = {
      watchers,
      received,
      outOfOrder,
      p99: percentileOf(hist, received, 0.99),
      seconds,
      encodingsPerEvent: (sim.ctx.hub.stats.encodings - encodingsBefore) / writes,
      rssGrowthMb: (rssPeak - rssBefore) / 2 ** 20,
    };
    log(
      `${watchers} watchers x ${writes} writes (${WRITERS} writer${WRITERS > 1 ? 's' : ''}): ${received}/${watchers * writes} events (${outOfOrder} out of order) in ${seconds.toFixed(1)} s = ` +
        `${(received / seconds).toFixed(0)} events/s, p50 ${percentileOf(hist, received, 0.5).toFixed(1)} ms, p99 ${out.p99.toFixed(1)} ms, ` +
        `${out.encodingsPerEvent.toFixed(2)} encodings/event, server RSS +${out.rssGrowthMb.toFixed(0)} MiB, ${(received / socketWrites).toFixed(2)} frames per socket write; CPU per delivery: server ${((cpu.user + cpu.system) / received).toFixed(1)} µs ` +
        `(with the writer), clients ${((clientCpuMs * 1000) / received).toFixed(1)} µs; ` +
        `the server's passes over the watchers: ${passes}, ${(passMs / passes).toFixed(1)} ms on average, longest ${sim.ctx.hub.stats.longestPassMs.toFixed(1)} ms; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    return out;
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await agent.close();
    await sim.close();
  }
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  const sizes = [...new Set([Math.max(1, Math.round(WATCHERS / 10)), WATCHERS])];
  const rounds: Round[] = [];
  for (const n of sizes) rounds.push(await round(n, WRITES, log));
  const r = rounds[rounds.length - 1];
  // BENCH_WATCH_BARE=0 leaves the reference out (a quicker run while iterating).
  const withBare = process.env.BENCH_WATCH_BARE !== '0';
  const bares: BareRound[] = [];
  if (withBare) for (const n of sizes) bares.push(await bareRound(n, WRITES, log));
  const bare = bares[bares.length - 1];
  // The goal, paired (measurement.ts pairedRatio): PAIRS rounds of the simulator and of the bare server at the full
  // watcher count, PAIR_WRITES events each, back to back, which first alternating; the median pair's p99 ratio.
  const paired = withBare
    ? await pairedRatio(
        PAIRS,
        async () => (await round(WATCHERS, PAIR_WRITES, log)).p99,
        async () => (await bareRound(WATCHERS, PAIR_WRITES, log)).p99,
      )
    : undefined;
  const expected = r.watchers * WRITES;
  const series = (yLabel: string, y: (x: Round) => number) => ({ xLabel: 'watchers', yLabel, points: rounds.map((x) => ({ x: x.watchers, y: y(x) })) });
  const results: Measurement[] = [
    {
      name: `${r.watchers} HTTP watchers x ${WRITES} events: delivered, in order (${r.received}/${expected}, ${r.outOfOrder} out of order)`,
      value: r.received / expected,
      unit: 'of events',
      target: 'all, in order',
      ok: r.received === expected && r.outOfOrder === 0,
    },
    {
      name: `${r.watchers} HTTP watchers x ${WRITES} events: p99 delivery latency${bare ? ` (the bare Node server the same way ${bare.p99.toFixed(0)} ms)` : ''}`,
      value: r.p99,
      unit: 'ms',
      target: 'report only (the goal is its ratio to the bare server)',
      ok: true,
      series: { ...series('p99 ms', (x) => x.p99), ...(bares.length ? { reference: bares.map((b, i) => ({ x: sizes[i], y: b.p99 })), referenceLabel: 'bare Node server' } : {}) },
    },
    { name: `${r.watchers} HTTP watchers: events delivered per second`, value: r.received / r.seconds, unit: 'events/s', target: 'report only', ok: true, series: series('events/s', (x) => x.received / x.seconds) },
    { name: 'encodings per event (one wire format in use)', value: r.encodingsPerEvent, unit: 'x', target: '1.00', ok: Math.abs(r.encodingsPerEvent - 1) < 1e-9 },
    {
      name: `API server RSS growth serving ${r.watchers} watchers x ${WRITES} events (${((r.rssGrowthMb * 1024) / r.watchers).toFixed(1)} KiB per watcher)`,
      value: r.rssGrowthMb,
      unit: 'MiB',
      target: '<= 1024 (100 KiB per watcher at 10k)',
      ok: r.rssGrowthMb <= 1024,
      series: series('RSS MiB', (x) => x.rssGrowthMb),
    },
  ];
  if (paired)
    results.push(
      ratioMeasurement(
        `${WATCHERS} watchers x ${PAIR_WRITES} events: p99 delivery vs a bare Node server writing the same frames to the same clients (median of ${PAIRS} pairs; bare server CPU per delivery ${bare!.serverUs.toFixed(1)} µs)`,
        paired.median,
        { atMost: 1.1 },
        { unit: 'ms', referenceLabel: 'bare Node server' },
      ),
    );
  for (const m of results) log(formatLine(m));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
