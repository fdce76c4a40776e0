// SPDY/3.1 framing (spdy.ts) against frames captured from another implementation (node-spdy's parser tests: a
// SYN_STREAM with `:method GET` and `:path /`, and an empty SYN_REPLY, both with header blocks compressed with
// the SPDY/3 dictionary), then a session driven by a client written from the draft.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import zlib from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.ts';
import { controlFrame, dataFrame, decodeHeaderBlock, encodeHeaderBlock, FLAG_FIN, FrameReader, FrameType, SpdySession, type SpdyStream } from './spdy.ts';

const CAPTURED_SYN_STREAM = '800300010000002c0000000100000000000078f9e3c6a7c202e50e507ab442a45a77d7105006b32a4804974d8cfa00000000ffff';
const CAPTURED_SYN_REPLY = '80030002000000140000000178f9e3c6a7c202a6230600000000ffff';

test('the dictionary is the one of the SPDY/3 draft (length and Adler-32 carried by every zlib header of SPDY/3)', () => {
  assert.equal(SPDY3_DICTIONARY.length, 1423);
  // The dictionary id in a zlib header made with it: bytes 2..5 of the stream.
  const z = zlib.deflateSync(Buffer.from('x'), { dictionary: SPDY3_DICTIONARY });
  assert.equal(z.subarray(2, 6).toString('hex'), 'e3c6a7c2');
  assert.equal(Buffer.from(CAPTURED_SYN_STREAM, 'hex').subarray(20, 24).toString('hex'), 'e3c6a7c2');
});

test('captured frames: split across reads, headers inflated with the shared dictionary', () => {
  const bytes = Buffer.concat([Buffer.from(CAPTURED_SYN_STREAM, 'hex'), Buffer.from(CAPTURED_SYN_REPLY, 'hex')]);
  const reader = new FrameReader();
  const frames = [...reader.push(bytes.subarray(0, 13)), ...reader.push(bytes.subarray(13, 50)), ...reader.push(bytes.subarray(50))];
  const seen = frames.map((f) => [f.control, f.type, f.flags, f.payload.length]);
  assert.deepEqual(seen, [[true, FrameType.SYN_STREAM, 0, 44], [true, FrameType.SYN_REPLY, 0, 20]]);
  assert.equal(frames[0].payload.readUInt32BE(0), 1, 'stream id');
  // Each capture is the first block of its own zlib stream.
  const syn = zlib.inflateSync(frames[0].payload.subarray(10), { dictionary: SPDY3_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const headers = decodeHeaderBlock(syn);
  assert.deepEqual(headers[':method'], ['GET']);
  assert.deepEqual(headers[':path'], ['/']);
  const reply = zlib.inflateSync(frames[1].payload.subarray(4), { dictionary: SPDY3_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  assert.deepEqual(decodeHeaderBlock(reply), {});
});

test('header blocks: several values of one name travel NUL-joined', () => {
  const block = encodeHeaderBlock({ 'x-stream-protocol-version': ['v4.channel.k8s.io', 'v3.channel.k8s.io'], streamtype: ['stdout'] });
  assert.deepEqual(decodeHeaderBlock(block), { 'x-stream-protocol-version': ['v4.channel.k8s.io', 'v3.channel.k8s.io'], streamtype: ['stdout'] });
  assert.throws(() => decodeHeaderBlock(block.subarray(0, 10)), /truncated/);
});

/** A client end written from the draft: one zlib stream for its header blocks, frames read with FrameReader. */
async function connectedPair(onStream: (s: SpdyStream) => void) {
  const server = net.createServer((sock) => new SpdySession(sock, Buffer.alloc(0), { onStream, maxStreams: 2 }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sock = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await new Promise((r) => sock.once('connect', r));
  const deflate = zlib.createDeflate({ dictionary: SPDY3_DICTIONARY });
  const inflate = zlib.createInflate({ dictionary: SPDY3_DICTIONARY });
  const block = (z: zlib.Deflate | zlib.Inflate, input: Buffer) =>
    new Promise<Buffer>((resolve) => {
      z.write(input);
      z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        const out: Buffer[] = [];
        for (let c = z.read() as Buffer | null; c; c = z.read() as Buffer | null) out.push(c);
        resolve(Buffer.concat(out));
      });
    });
  const reader = new FrameReader();
  const received: Array<{ type: string; id: number; flags: number; data?: string; headers?: object; status?: number }> = [];
  let chain = Promise.resolve();
  sock.on('data', (c: Buffer) => {
    for (const f of reader.push(c)) {
      chain = chain.then(async () => {
        if (!f.control) received.push({ type: 'DATA', id: f.streamId, flags: f.flags, data: f.payload.toString() });
        else if (f.type === FrameType.SYN_REPLY) received.push({ type: 'SYN_REPLY', id: f.payload.readUInt32BE(0), flags: f.flags, headers: decodeHeaderBlock(await block(inflate, f.payload.subarray(4))) });
        else if (f.type === FrameType.RST_STREAM) received.push({ type: 'RST_STREAM', id: f.payload.readUInt32BE(0), flags: 0, status: f.payload.readUInt32BE(4) });
        else if (f.type === FrameType.PING) received.push({ type: 'PING', id: f.payload.readUInt32BE(0), flags: 0 });
        else if (f.type === FrameType.GOAWAY) received.push({ type: 'GOAWAY', id: f.payload.readUInt32BE(0), flags: 0 });
      });
    }
  });
  const synStream = async (id: number, headers: Record<string, string[]>, flags = 0) => {
    const head = Buffer.alloc(10);
    head.writeUInt32BE(id, 0);
    sock.write(controlFrame(FrameType.SYN_STREAM, flags, Buffer.concat([head, await block(deflate, encodeHeaderBlock(headers))])));
  };
  const close = () => {
    sock.destroy();
    server.close();
  };
  return { sock, synStream, received, close };
}

test('a session: streams accepted in order, data both ways, FIN, PING echoed, a stream beyond the limit refused, GOAWAY', async () => {
  const streams: SpdyStream[] = [];
  const c = await connectedPair((s) => {
    streams.push(s);
    void s.reply();
    if (s.header('streamtype') === 'stdin') s.on('data', (d: Buffer) => streams.find((x) => x.header('streamtype') === 'stdout')?.write(d));
  });
  try {
    await c.synStream(1, { streamtype: ['stdout'] });
    await c.synStream(3, { streamtype: ['stdin'] });
    await c.synStream(5, { streamtype: ['extra'] });
    c.sock.write(dataFrame(3, 0, Buffer.from('echo me')));
    c.sock.write(controlFrame(FrameType.PING, 0, Buffer.from([0, 0, 0, 7])));
    const until = async (pred: () => boolean) => {
      for (let i = 0; i < 200 && !pred(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(pred(), JSON.stringify(c.received));
    };
    await until(() => c.received.some((f) => f.type === 'DATA' && f.data === 'echo me'));
    const replies = c.received.filter((f) => f.type === 'SYN_REPLY');
    assert.deepEqual(replies.map((f) => [f.id, f.headers]), [[1, {}], [3, {}]]);
    assert.deepEqual(c.received.find((f) => f.type === 'RST_STREAM'), { type: 'RST_STREAM', id: 5, flags: 0, status: 3 }, 'REFUSED_STREAM beyond maxStreams');
    assert.ok(c.received.some((f) => f.type === 'PING' && f.id === 7), 'PING echoed');
    const firstData = c.received.findIndex((f) => f.type === 'DATA');
    assert.ok(firstData > c.received.findIndex((f) => f.type === 'SYN_REPLY' && f.id === 1), 'data after its stream was accepted');
    streams[0].end();
    await until(() => c.received.some((f) => f.type === 'DATA' && f.id === 1 && (f.flags & FLAG_FIN) !== 0));
    streams[0].session.goAway();
    await until(() => c.received.some((f) => f.type === 'GOAWAY'));
    assert.equal(c.received.find((f) => f.type === 'GOAWAY')!.id, 5, 'the last stream id seen');
  } finally {
    c.close();
  }
});

test('a peer that keeps windows: sends stop at the window and go on after WINDOW_UPDATE', async () => {
  let stream: SpdyStream | undefined;
  const c = await connectedPair((s) => {
    stream = s;
    void s.reply();
  });
  try {
    const settings = Buffer.alloc(12);
    settings.writeUInt32BE(1, 0);
    settings.writeUInt32BE(7, 4); // SETTINGS_INITIAL_WINDOW_SIZE
    settings.writeUInt32BE(1000, 8);
    c.sock.write(controlFrame(FrameType.SETTINGS, 0, settings));
    await c.synStream(1, { streamtype: ['stdout'] });
    for (let i = 0; i < 100 && !stream; i++) await new Promise((r) => setTimeout(r, 10));
    stream!.write(Buffer.alloc(3000, 'a'));
    const bytes = () => c.received.filter((f) => f.type === 'DATA').reduce((n, f) => n + f.data!.length, 0);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(bytes(), 1000, 'no more than the window');
    const wu = Buffer.alloc(8);
    wu.writeUInt32BE(1, 0);
    wu.writeUInt32BE(5000, 4);
    c.sock.write(controlFrame(FrameType.WINDOW_UPDATE, 0, wu));
    for (let i = 0; i < 200 && bytes() < 3000; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(bytes(), 3000);
  } finally {
    c.close();
  }
});
