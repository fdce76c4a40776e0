// A client process of the watch fan-out bench (watch.bench.ts): opens N HTTP watches (one connection each, as N
// informers on N machines would) on one collection from a resourceVersion, and counts what arrives. Events are not
// JSON-parsed nor even decoded (a client process would otherwise be the bottleneck, not the server): each frame's
// "resourceVersion" (order) and the writer's send time stamped in data.sent (latency) are found in the bytes. Talks to the parent over IPC:
//   parent → {url, path, watchers, events}; child → {op:'ready'} once every watch has its headers,
//   then {op:'done', received, outOfOrder, histogram} once every watch saw `events` events (or {op:'error'}).

import net from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

interface Job {
  url: string;
  path: string;
  watchers: number;
  events: number;
}

/** Latency histogram: 0.1 ms buckets up to 60 s (the last bucket holds anything slower). */
export const BUCKET_MS = 0.1;
export const BUCKETS = 600_000;

const RV = Buffer.from('"resourceVersion":"');
const SENT = Buffer.from('"sent":"');
const NL = 10;

/** The decimal number in `buf` from `at` up to the next '"' (digits and one '.'). */
function numberAt(buf: Buffer, at: number): number {
  let n = 0;
  let scale = 0;
  for (let i = at; i < buf.length; i++) {
    const c = buf[i];
    if (c === 46) scale = 1;
    else if (c >= 48 && c <= 57) {
      n = n * 10 + (c - 48);
      if (scale) scale *= 10;
    } else break;
  }
  return scale ? n / scale : n;
}

function run(job: Job): void {
  // CPU from the moment every watch is open (the events' part, not the connects').
  let cpu0 = process.cpuUsage();
  const cpuMs = () => {
    const c = process.cpuUsage(cpu0);
    return (c.user + c.system) / 1000;
  };
  const target = new URL(job.url);
  const requestBytes = Buffer.from(`GET ${job.path} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: application/json\r\n\r\n`, 'latin1');
  const histogram = new Uint32Array(BUCKETS);
  let received = 0;
  let outOfOrder = 0;
  let ready = 0;
  let finished = 0;
  const now = () => performance.timeOrigin + performance.now();
  const send = (m: object) => process.send!(m);
  // Connections are opened a batch at a time (each batch once the previous one has its headers): thousands of
  // simultaneous connects overflow the server's listen backlog and come back as ECONNRESET.
  const BATCH = 250;
  let opened = 0;
  const openBatch = () => {
    const until = Math.min(job.watchers, opened + BATCH);
    for (; opened < until; opened++) open();
  };
  // Plain TCP: the request written by hand, the status line checked, then the body read as bytes. The chunked
  // framing needs no parsing for what is counted (a chunk's size line holds no resourceVersion), and skipping
  // node's HTTP parser and response stream halves a client's CPU per event, which the server shares the machine with.
  //
  // One read buffer for every connection of this process (net's `onread`): a read lands in it and is scanned in
  // place, with no Buffer allocated per read and no stream machinery ('data' events) between the socket and the
  // scan. Every byte of every frame is still read from the kernel and scanned; only a frame cut by the end of a
  // read is copied out (into that watcher's `tail`) until the rest arrives.
  const readBuffer = Buffer.allocUnsafe(256 * 1024);
  const open = () => {
    let headers = true;
    let last = 0;
    let count = 0;
    let tail: Buffer | undefined;
    const onRead = (nread: number, into: Buffer): boolean => {
      let buf = into.subarray(0, nread);
      if (tail) {
        buf = Buffer.concat([tail, buf]);
        tail = undefined;
      }
      if (headers) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) {
          tail = Buffer.from(buf);
          return true;
        }
        const status = buf.subarray(0, buf.indexOf('\r\n')).toString('latin1');
        if (!/^HTTP\/1\.1 200 /.test(status)) {
          send({ op: 'error', message: `watch answered ${status}` });
          sock.destroy();
          return false;
        }
        headers = false;
        buf = buf.subarray(end + 4);
        if (++ready === job.watchers) {
          cpu0 = process.cpuUsage();
          send({ op: 'ready' });
        } else if (ready === opened) openBatch();
      }
      // Frames are read from the bytes (no UTF-8 decoding, no JSON parse): a newline ends each one; in it, the
      // object's resourceVersion (order) and the writer's send time (latency).
      const t = now();
      let start = 0;
      for (let nl = buf.indexOf(NL, start); nl >= 0; nl = buf.indexOf(NL, start)) {
        const rvAt = buf.indexOf(RV, start);
        if (rvAt >= 0 && rvAt < nl) {
          const sentAt = buf.indexOf(SENT, rvAt);
          if (sentAt >= 0 && sentAt < nl) {
            const rv = numberAt(buf, rvAt + RV.length);
            if (rv <= last) outOfOrder++;
            last = rv;
            const ms = t - numberAt(buf, sentAt + SENT.length);
            histogram[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))]++;
            received++;
            count++;
          }
        }
        start = nl + 1;
      }
      // What follows the last whole frame is the start of the next one: copied, since the read buffer is reused.
      if (start < buf.length) tail = Buffer.from(buf.subarray(start));
      if (count === job.events) {
        sock.destroy();
        if (++finished === job.watchers) send({ op: 'done', received, outOfOrder, cpuMs: cpuMs(), histogram: Buffer.from(histogram.buffer).toString('base64') });
        return false;
      }
      return true;
    };
    const options = { port: Number(target.port), host: target.hostname, noDelay: true, onread: { buffer: readBuffer, callback: onRead } };
    const sock = net.connect(options, () => sock.write(requestBytes));
    sock.on('error', (e) => send({ op: 'error', message: e.message }));
    sock.on('close', () => {
      if (count < job.events && !headers) send({ op: 'error', message: `a watch ended after ${count} of ${job.events} events` });
    });
  };
  openBatch();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.once('message', (job: Job) => run(job));
  // The bench process gone (killed, crashed): nothing left to report to.
  process.once('disconnect', () => process.exit(0));
}
