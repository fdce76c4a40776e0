// The server end of a SPDY/3.1 session, as the kubelet's streaming server speaks it to client-go (moby/spdystream)
// after `Upgrade: SPDY/3.1`: the client opens every stream (SYN_STREAM with a `streamType` header), the server
// accepts each with an empty SYN_REPLY, both sides send DATA frames and half-close with FIN; PING is echoed,
// GOAWAY ends the session, RST_STREAM aborts one stream. Written here because no maintained SPDY library runs on
// node 20 (node-spdy is unmaintained and breaks on current node); the frame layout is that of the SPDY/3 draft
// (https://www.chromium.org/spdy/spdy-protocol/spdy-protocol-draft3-1/), tested in spdy.test.ts against frames
// captured from another implementation.
//
// Header blocks are compressed with one zlib stream per direction for the whole session, primed with the SPDY/3
// dictionary; every block ends with a sync flush. Frames are handled strictly in order (a header block is
// inflated asynchronously), so data never overtakes the SYN_STREAM of its stream.
//
// Flow control: each stream is a node Duplex; what it receives is pushed as it comes and its writes complete when
// the socket took them (TCP back-pressure reaches the writer). The send window of SPDY/3.1 (64 KiB per stream and
// per session) is honoured once the peer shows that it keeps windows (it sends WINDOW_UPDATE or an initial window
// in SETTINGS): spdystream keeps none and never sends WINDOW_UPDATE, so a server waiting for one would stall it.

import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import { SPDY3_DICTIONARY } from './spdy-dictionary.ts';

export const FrameType = { SYN_STREAM: 1, SYN_REPLY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, HEADERS: 8, WINDOW_UPDATE: 9 } as const;
export const FLAG_FIN = 0x01;
/** RST_STREAM status codes used here. */
export const RstStatus = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6, FLOW_CONTROL_ERROR: 7 } as const;

const VERSION = 3;
const MAX_DATA = 16 * 1024;
const INITIAL_WINDOW = 64 * 1024;
/** Header blocks larger than this (decompressed) end the session: no client sends so much. */
const MAX_HEADER_BLOCK = 256 * 1024;
const MAX_FRAME = 16 * 1024 * 1024;
/** How long after a stream's FIN its data is still taken (SpdyStream.receive). */
const FIN_GRACE_MS = 20;

export type Headers = Record<string, string[]>;

/** One frame as read from the wire. */
export interface RawFrame {
  control: boolean;
  /** Control frames: the type; data frames: 0. */
  type: number;
  /** Data frames: the stream. */
  streamId: number;
  flags: number;
  payload: Buffer;
}

/** Splits a byte stream into SPDY frames; keeps what is incomplete for the next chunk. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): RawFrame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: RawFrame[] = [];
    while (this.buf.length >= 8) {
      const len = this.buf.readUIntBE(5, 3);
      if (len > MAX_FRAME) throw new Error(`SPDY frame of ${len} bytes`);
      if (this.buf.length < 8 + len) break;
      const first = this.buf.readUInt32BE(0);
      const control = (first & 0x80000000) !== 0;
      if (control && ((first >>> 16) & 0x7fff) !== VERSION) throw new Error(`SPDY version ${(first >>> 16) & 0x7fff} is not supported`);
      out.push({
        control,
        type: control ? first & 0xffff : 0,
        streamId: control ? 0 : first & 0x7fffffff,
        flags: this.buf[4],
        payload: this.buf.subarray(8, 8 + len),
      });
      this.buf = this.buf.subarray(8 + len);
    }
    return out;
  }
}

export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | VERSION, 0);
  head.writeUInt16BE(type, 2);
  head[4] = flags;
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head[4] = flags;
  head.writeUIntBE(data.length, 5, 3);
  return Buffer.concat([head, data]);
}

/** An uncompressed SPDY/3 name/value block: count, then length-prefixed names and values (values joined by NUL). */
export function encodeHeaderBlock(headers: Headers): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [u32(entries.length)];
  for (const [name, values] of entries) {
    const n = Buffer.from(name.toLowerCase());
    const v = Buffer.from(values.join('\0'));
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): Headers {
  const headers: Headers = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > block.length) throw new Error('truncated SPDY header block');
  };
  need(4);
  const count = block.readUInt32BE(at);
  at += 4;
  for (let i = 0; i < count; i++) {
    need(4);
    const nl = block.readUInt32BE(at);
    at += 4;
    need(nl);
    const name = block.subarray(at, at + nl).toString('latin1').toLowerCase();
    at += nl;
    need(4);
    const vl = block.readUInt32BE(at);
    at += 4;
    need(vl);
    const values = block.subarray(at, at + vl).toString('utf8').split('\0');
    at += vl;
    (headers[name] ??= []).push(...values);
  }
  return headers;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** One direction's zlib stream, primed with the dictionary; each call is one header block, sync-flushed. */
class HeaderZlib {
  private readonly z: zlib.Inflate | zlib.Deflate;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(kind: 'inflate' | 'deflate') {
    this.z = kind === 'inflate' ? zlib.createInflate({ dictionary: SPDY3_DICTIONARY }) : zlib.createDeflate({ dictionary: SPDY3_DICTIONARY });
    this.z.on('error', () => {});
  }

  run(input: Buffer): Promise<Buffer> {
    // The stream stays paused: its output is pulled with read() once the flush is done (the output of a write
    // is pushed before its callback runs), so no block's bytes can arrive after it was taken as complete.
    const next = this.chain.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          const fail = (e: Error) => reject(e);
          this.z.once('error', fail);
          this.z.write(input);
          this.z.flush(zlib.constants.Z_SYNC_FLUSH, () => {
            this.z.off('error', fail);
            const chunks: Buffer[] = [];
            let size = 0;
            for (let c = this.z.read() as Buffer | null; c !== null; c = this.z.read() as Buffer | null) {
              size += c.length;
              chunks.push(c);
            }
            if (size > MAX_HEADER_BLOCK) reject(new Error('SPDY header block too large'));
            else resolve(Buffer.concat(chunks));
          });
        }),
    );
    this.chain = next.catch(() => {});
    return next;
  }

  /** Settles once every block asked for so far is done. */
  idle(): Promise<unknown> {
    return this.chain;
  }

  close(): void {
    this.z.destroy();
  }
}

/** One stream of a session: reads what the peer sends on it, writes DATA frames; end() sends FIN. */
export class SpdyStream extends Duplex {
  /** Bytes this end may still send before a WINDOW_UPDATE (only counted when the peer keeps windows). */
  sendWindow: number;
  remoteClosed = false;
  /** The SYN_REPLY on its way: DATA frames of this stream wait for it (a peer drops data before the reply). */
  private replied: Promise<void> | undefined;
  private waiting: Array<() => void> = [];

  constructor(
    readonly session: SpdySession,
    readonly id: number,
    readonly headers: Headers,
  ) {
    super({ allowHalfOpen: true });
    this.sendWindow = session.initialWindow;
  }

  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()]?.[0];
  }

  /** Accepts the stream (SYN_REPLY), as spdystream's stream.SendReply. */
  reply(headers: Headers = {}, fin = false): Promise<void> {
    this.replied ??= this.session.sendSynReply(this.id, headers, fin);
    return this.replied;
  }

  /** Aborts the stream (RST_STREAM). */
  reset(status: number = RstStatus.CANCEL): void {
    if (this.destroyed) return;
    this.session.sendRst(this.id, status);
    this.destroy();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    void this.sendData(chunk, 0).then(() => cb(), cb);
  }

  override _final(cb: (err?: Error | null) => void): void {
    void this.sendData(Buffer.alloc(0), FLAG_FIN).then(() => cb(), cb);
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.session.forget(this.id);
    for (const w of this.waiting.splice(0)) w();
    cb(err);
  }

  /**
   * The peer's data for this stream. Its FIN ends what is read a moment later, not at once: spdystream (kubectl
   * 1.20) sometimes puts a stream's last DATA frame on the wire just after the FIN that closes it (its writer and
   * its closer race), which lost piped stdin in 1 `exec -i` of 12 (the data came 0.1 ms after the FIN); data that
   * follows within FIN_GRACE_MS is still delivered.
   */
  receive(data: Buffer, fin: boolean): void {
    if (data.length && !this.readableEnded && !this.endPushed) this.push(data);
    if (fin && !this.remoteClosed) {
      this.remoteClosed = true;
      const t = setTimeout(() => {
        this.endPushed = true;
        this.push(null);
      }, FIN_GRACE_MS);
      t.unref();
    }
  }

  private endPushed = false;

  windowUpdate(delta: number): void {
    this.sendWindow += delta;
    for (const w of this.waiting.splice(0)) w();
  }

  private async sendData(chunk: Buffer, flags: number): Promise<void> {
    await this.replied;
    let at = 0;
    do {
      if (this.destroyed || this.session.closed) throw new Error('stream closed');
      let room = Math.min(MAX_DATA, chunk.length - at);
      if (this.session.peerKeepsWindows && room > 0) {
        while (Math.min(this.sendWindow, this.session.sendWindow) <= 0) {
          await new Promise<void>((r) => {
            this.waiting.push(r);
            this.session.waiters.add(r);
          });
          if (this.destroyed || this.session.closed) throw new Error('stream closed');
        }
        room = Math.min(room, this.sendWindow, this.session.sendWindow);
        this.sendWindow -= room;
        this.session.sendWindow -= room;
      }
      const piece = chunk.subarray(at, at + room);
      at += room;
      await this.session.write(dataFrame(this.id, at >= chunk.length ? flags : 0, piece));
    } while (at < chunk.length);
  }
}

export interface SpdySessionOptions {
  /** A new stream from the peer; the handler replies (or resets) it. */
  onStream: (stream: SpdyStream) => void;
  /** Most streams open at once; beyond it a SYN_STREAM is refused (RST_STREAM REFUSED_STREAM). */
  maxStreams?: number;
}

export class SpdySession {
  readonly streams = new Map<number, SpdyStream>();
  closed = false;
  peerKeepsWindows = false;
  initialWindow = INITIAL_WINDOW;
  sendWindow = INITIAL_WINDOW;
  readonly waiters = new Set<() => void>();
  private readonly reader = new FrameReader();
  private readonly inflate = new HeaderZlib('inflate');
  private readonly deflate = new HeaderZlib('deflate');
  private chain: Promise<void> = Promise.resolve();
  private lastStreamId = 0;
  private readonly closeHandlers: Array<() => void> = [];

  constructor(
    readonly socket: Socket,
    head: Buffer,
    private readonly opts: SpdySessionOptions,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => this.onBytes(c));
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
    if (head.length) this.onBytes(head);
  }

  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeHandlers.push(fn);
  }

  /** Writes bytes, resolving when the socket took them (back-pressure). */
  write(bytes: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('session closed'));
    return new Promise((resolve, reject) => {
      this.socket.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
  }

  async sendSynReply(id: number, headers: Headers, fin: boolean): Promise<void> {
    // The block is compressed and written in one turn of the chain, so blocks reach the wire in compression order.
    const block = await this.deflate.run(encodeHeaderBlock(headers));
    await this.write(controlFrame(FrameType.SYN_REPLY, fin ? FLAG_FIN : 0, Buffer.concat([u32(id), block])));
  }

  sendRst(id: number, status: number): void {
    if (this.closed) return;
    this.socket.write(controlFrame(FrameType.RST_STREAM, 0, Buffer.concat([u32(id), u32(status)])));
  }

  /** GOAWAY, then the socket is ended once what was written is out. */
  goAway(status = 0): void {
    if (this.closed) return;
    this.socket.write(controlFrame(FrameType.GOAWAY, 0, Buffer.concat([u32(this.lastStreamId), u32(status)])));
    this.socket.end();
    this.close();
  }

  forget(id: number): void {
    this.streams.delete(id);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of [...this.streams.values()]) s.destroy();
    for (const w of this.waiters) w();
    this.waiters.clear();
    // Header blocks still being compressed finish first (their callers are waiting on them).
    void this.deflate.idle().then(() => this.deflate.close());
    this.inflate.close();
    if (!this.socket.destroyed) this.socket.destroySoon?.();
    for (const fn of this.closeHandlers.splice(0)) fn();
  }

  private onBytes(chunk: Buffer): void {
    if (this.closed) return;
    let frames: RawFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      this.goAway(1);
      return;
    }
    for (const f of frames) {
      this.chain = this.chain.then(() => this.handle(f)).catch(() => this.goAway(1));
    }
  }

  private async handle(f: RawFrame): Promise<void> {
    if (this.closed) return;
    if (!f.control) {
      const s = this.streams.get(f.streamId);
      if (!s) {
        this.sendRst(f.streamId, RstStatus.INVALID_STREAM);
        return;
      }
      s.receive(f.payload, (f.flags & FLAG_FIN) !== 0);
      return;
    }
    const p = f.payload;
    switch (f.type) {
      case FrameType.SYN_STREAM: {
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const headers = decodeHeaderBlock(await this.inflate.run(p.subarray(10)));
        this.lastStreamId = Math.max(this.lastStreamId, id);
        if (this.streams.has(id)) {
          this.sendRst(id, RstStatus.PROTOCOL_ERROR);
          return;
        }
        if (this.streams.size >= (this.opts.maxStreams ?? 1000)) {
          this.sendRst(id, RstStatus.REFUSED_STREAM);
          return;
        }
        const s = new SpdyStream(this, id, headers);
        this.streams.set(id, s);
        s.on('error', () => {});
        if (f.flags & FLAG_FIN) s.receive(Buffer.alloc(0), true);
        this.opts.onStream(s);
        return;
      }
      case FrameType.SYN_REPLY:
      case FrameType.HEADERS:
        // Inflated all the same: the zlib stream is shared by every header block of the session.
        await this.inflate.run(p.subarray(4));
        return;
      case FrameType.RST_STREAM: {
        const s = this.streams.get(p.readUInt32BE(0) & 0x7fffffff);
        s?.destroy();
        return;
      }
      case FrameType.SETTINGS: {
        const n = p.readUInt32BE(0);
        for (let i = 0; i < n; i++) {
          const id = p.readUInt32BE(4 + i * 8) & 0xffffff;
          const value = p.readUInt32BE(8 + i * 8);
          if (id === 7) {
            // SETTINGS_INITIAL_WINDOW_SIZE: applies to every stream, open ones by the difference.
            this.peerKeepsWindows = true;
            const delta = value - this.initialWindow;
            this.initialWindow = value;
            for (const s of this.streams.values()) s.windowUpdate(delta);
          }
        }
        return;
      }
      case FrameType.PING:
        await this.write(controlFrame(FrameType.PING, 0, p.subarray(0, 4)));
        return;
      case FrameType.GOAWAY:
        this.socket.end();
        this.close();
        return;
      case FrameType.WINDOW_UPDATE: {
        this.peerKeepsWindows = true;
        const id = p.readUInt32BE(0) & 0x7fffffff;
        const delta = p.readUInt32BE(4) & 0x7fffffff;
        if (id === 0) {
          this.sendWindow += delta;
          for (const w of this.waiters) w();
          this.waiters.clear();
        } else this.streams.get(id)?.windowUpdate(delta);
        return;
      }
      default:
        // Unknown control frames are ignored (SPDY/3 2.2.1).
        return;
    }
  }
}
