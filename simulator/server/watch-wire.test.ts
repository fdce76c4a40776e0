// The watch stream's bytes on the connection (spec 4.9, wire-facts): frames written straight to the socket
// (handlers/watch.ts) must still be a well-formed chunked body: every chunk's size line matches its bytes, events
// arrive in order, the closing chunk ends the body, and the connection then serves its next request. Read here
// over a raw TCP socket, as a strict HTTP/1.1 client would, on a kept-alive connection (a list then a watch, as
// kubectl get -w and informers do) and with both requests pipelined in one write.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../cluster.ts';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
});

/** One raw connection and everything it has received so far. */
function connect(port: number): Promise<{ sock: net.Socket; bytes: () => Buffer }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    const sock = net.connect(port, '127.0.0.1', () => resolve({ sock, bytes: () => Buffer.concat(parts) }));
    sock.on('data', (b) => parts.push(b));
    sock.on('error', reject);
  });
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  /** The body: for a chunked one, its chunks' bytes in order. */
  chunks: Buffer[];
  /** Where the next response starts, or -1 while this one is incomplete. */
  end: number;
}

/** Parses one HTTP/1.1 response from `buf` at `at`, strictly: a chunk whose size line does not match fails. */
function parseResponse(buf: Buffer, at: number): Parsed {
  const headEnd = buf.indexOf('\r\n\r\n', at);
  if (headEnd < 0) return { status: 0, headers: {}, chunks: [], end: -1 };
  const lines = buf.subarray(at, headEnd).toString('latin1').split('\r\n');
  const status = Number(lines[0].split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  let pos = headEnd + 4;
  const chunks: Buffer[] = [];
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length']);
    if (buf.length < pos + n) return { status, headers, chunks, end: -1 };
    return { status, headers, chunks: [buf.subarray(pos, pos + n)], end: pos + n };
  }
  assert.equal(headers['transfer-encoding'], 'chunked', `a body framed as chunks: ${lines.join(' | ')}`);
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', pos);
    if (lineEnd < 0) return { status, headers, chunks, end: -1 };
    const sizeLine = buf.subarray(pos, lineEnd).toString('latin1');
    assert.match(sizeLine, /^[0-9a-f]+$/, `a chunk size line at byte ${pos}: ${JSON.stringify(sizeLine)}`);
    const size = parseInt(sizeLine, 16);
    const dataEnd = lineEnd + 2 + size;
    if (buf.length < dataEnd + 2) return { status, headers, chunks, end: -1 };
    assert.equal(buf.subarray(dataEnd, dataEnd + 2).toString('latin1'), '\r\n', `chunk of ${size} bytes at byte ${pos} ends with CRLF`);
    if (size === 0) return { status, headers, chunks, end: dataEnd + 2 };
    chunks.push(buf.subarray(lineEnd + 2, dataEnd));
    pos = dataEnd + 2;
  }
}

/** Parses `count` consecutive responses once they have all arrived (polling, with a deadline). */
async function responses(bytes: () => Buffer, count: number, what: string, ms = 15_000): Promise<Parsed[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const buf = bytes();
    const out: Parsed[] = [];
    let at = 0;
    while (out.length < count) {
      const r = parseResponse(buf, at);
      if (r.end < 0) break;
      out.push(r);
      at = r.end;
    }
    if (out.length === count) {
      assert.equal(at, buf.length, `nothing after the last of ${count} responses (${what})`);
      return out;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} responses (${what}); got ${out.length}: ${buf.toString('latin1').slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: sim\r\nAccept: application/json\r\n\r\n`;

async function namespace(name: string): Promise<string> {
  const res = await request(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name } }) });
  assert.equal(res.statusCode, 201, await res.body.text());
  return name;
}

async function createConfigMaps(ns: string, names: string[]): Promise<void> {
  for (const name of names) {
    const res = await request(`${sim.url}/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name } }) });
    assert.equal(res.statusCode, 201, await res.body.text());
  }
}

/** The watch events in a chunked body: each chunk one JSON event ending in a newline. */
function events(body: Parsed): Array<{ type: string; name: string; rv: number }> {
  return body.chunks.map((c) => {
    const text = c.toString('utf8');
    assert.ok(text.endsWith('\n'), `one event per chunk, newline-terminated: ${JSON.stringify(text)}`);
    const ev = JSON.parse(text) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
    return { type: ev.type, name: ev.object.metadata.name, rv: Number(ev.object.metadata.resourceVersion) };
  });
}

/** Waits until the server has sent a response's headers (a watch is open from then on). */
async function headersSent(bytes: () => Buffer): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!bytes().includes('\r\n\r\n')) {
    if (Date.now() > deadline) throw new Error('the watch never answered');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function port(): number {
  return Number(new URL(sim.url).port);
}

test('a watch after a list on one kept-alive connection: well-formed chunks in order, the closing chunk, then the next request answered', async () => {
  const ns = await namespace('wire-keepalive');
  await createConfigMaps(ns, ['before']);
  const { sock, bytes } = await connect(port());
  try {
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps`));
    const [list] = await responses(bytes, 1, 'the list');
    assert.equal(list.status, 200);
    const rv = (JSON.parse(list.chunks.map((c) => c.toString()).join('')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    // The watch ends by itself after 2 s (timeoutSeconds), writing the closing chunk.
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=2`));
    const names = ['a', 'b', 'c', 'd', 'e'];
    await createConfigMaps(ns, names);
    const [, watch] = await responses(bytes, 2, 'the list and the watch, ended by its timeout');
    assert.equal(watch.status, 200);
    const evs = events(watch);
    assert.deepEqual(
      evs.map((e) => `${e.type} ${e.name}`),
      names.map((n) => `ADDED ${n}`),
    );
    assert.ok(
      evs.every((e, i) => i === 0 || e.rv > evs[i - 1].rv),
      'resourceVersions increase',
    );
    // The connection is still good for another request.
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps/a`));
    const [, , after] = await responses(bytes, 3, 'a GET after the watch ended');
    assert.equal(after.status, 200);
    assert.equal((JSON.parse(after.chunks[0].toString()) as { metadata: { name: string } }).metadata.name, 'a');
  } finally {
    sock.destroy();
  }
});

test('a watch pipelined behind a list in one write: both answered in order, the watch well-formed', async () => {
  const ns = await namespace('wire-pipelined');
  await createConfigMaps(ns, ['x']);
  const { sock, bytes } = await connect(port());
  try {
    // The watch's response waits behind the list's on the connection (it cannot own the socket yet).
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps`) + get(`/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=2`));
    await createConfigMaps(ns, ['y', 'z']);
    const [list, watch] = await responses(bytes, 2, 'a pipelined list and watch');
    assert.equal(list.status, 200);
    assert.equal(watch.status, 200);
    const evs = events(watch).map((e) => `${e.type} ${e.name}`);
    // Without a resourceVersion: ADDED for what exists when the watch starts (by name), then the rest as they
    // come; either way each once, in this order.
    assert.deepEqual(evs, ['ADDED x', 'ADDED y', 'ADDED z']);
  } finally {
    sock.destroy();
  }
});

test('changes made in one turn of the event loop reach a watcher in one write, in order, and a watch ending by its timeout delivers what was queued', async () => {
  const ns = await namespace('wire-batched');
  const { sock, bytes } = await connect(port());
  try {
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=2`));
    await headersSent(bytes);
    const hub = sim.ctx.hub.stats;
    const before = { deliveries: hub.deliveries, writes: hub.writes };
    const names = ['m1', 'm2', 'm3', 'm4', 'm5'];
    // Written to the store side by side: their events all come within this turn.
    await Promise.all(names.map((name) => sim.ctx.store.create(`/registry/configmaps/${ns}/${name}`, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: ns } })));
    const [watch] = await responses(bytes, 1, 'the watch, ended by its timeout');
    assert.deepEqual(
      events(watch).map((e) => `${e.type} ${e.name}`),
      names.map((n) => `ADDED ${n}`),
    );
    assert.equal(hub.deliveries - before.deliveries, 5, 'five frames handed to the one watcher');
    assert.equal(hub.writes - before.writes, 1, 'in one socket write');
  } finally {
    sock.destroy();
  }
});

test('a watcher reading slower than events come: its frames wait while the socket drains and go out together, all of them, in order', async () => {
  const ns = await namespace('wire-slow');
  const { sock, bytes } = await connect(port());
  try {
    sock.write(get(`/api/v1/namespaces/${ns}/configmaps?watch=true&timeoutSeconds=30`));
    await headersSent(bytes);
    // The client stops reading: the kernel's buffers fill (a few MB on loopback), then the server's socket.
    sock.pause();
    const hub = sim.ctx.hub.stats;
    const before = { deliveries: hub.deliveries, writes: hub.writes, cutOff: hub.cutOff };
    const count = 500;
    const value = 'x'.repeat(32 * 1024); // 500 x 32 KiB = 16 MiB in all, under the 16 MiB cut-off once the kernel holds its part
    for (let i = 0; i < count; i++) {
      await sim.ctx.store.create(`/registry/configmaps/${ns}/s${i}`, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `s${i}`, namespace: ns }, data: { v: value } });
      // Each change in its own turn of the event loop (the pump runs before this callback).
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(hub.deliveries - before.deliveries, count, 'every change handed to the watcher');
    assert.equal(hub.cutOff, before.cutOff, 'not cut off');
    sock.resume();
    const all = () => {
      const r = parseResponse(bytes(), 0);
      return r.chunks.length;
    };
    const until = Date.now() + 30_000;
    while (all() < count) {
      if (Date.now() > until) throw new Error(`only ${all()} of ${count} events arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const evs = events(parseResponse(bytes(), 0));
    assert.deepEqual(
      evs.map((e) => e.name),
      Array.from({ length: count }, (_, i) => `s${i}`),
    );
    const writes = hub.writes - before.writes;
    assert.ok(writes <= count / 2, `the frames that waited for the socket to drain went out together: ${writes} writes for ${count} frames`);
  } finally {
    sock.destroy();
  }
});
