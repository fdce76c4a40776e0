// The etcd KV calls EtcdStore makes (Range, Txn, Compact), behind one small interface with two clients:
//
// - Http2Kv (the default): gRPC unary calls written straight onto node:http2, messages encoded and decoded here
//   for just the fields the store uses. Why: a create through the API server is one etcd Txn, and through the etcd3
//   package that call cost the server about 290 us of CPU (its retry policy and circuit breaker, grpc-js's call
//   stack of resolving / retrying / load-balancing / subchannel calls and filters, proto-loader's object mapping
//   with every int64 as a string) against about 150 us here, measured side by side on one etcd (README "Cost").
//   What remains is node's own HTTP/2 stream per call, which every gRPC client pays.
// - Etcd3Kv: the same calls through the etcd3 package's client, for what Http2Kv does not do (auth tokens,
//   per-call deadlines, custom fault handling or grpc channel options); EtcdStore picks it when those are asked for.
//
// Both hand back the same plain shapes (revisions as numbers, keys and values as bytes), and both reject with an
// Error whose message carries etcd's own (e.g. "etcdserver: mvcc: required revision has been compacted"), which
// is what the store matches on.
//
// Retries: Http2Kv sends a call again (to the next server) only when it cannot have reached etcd (the connection
// failed before the request went out); a call whose connection dropped after it was sent fails, since a write may
// or may not have been applied, and only the caller can tell (a create retried blindly would answer KeyExists for
// its own write).

import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import protobuf from 'protobufjs/minimal.js';
import type { Etcd3, IKeyValue, IOptions } from 'etcd3';

/** A key as etcd returns it. `key`/`value` may be views into the response's bytes. */
export interface Kv {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}

export interface RangeRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  /** 0 = no limit. */
  limit?: number;
  /** 0 = current. */
  revision?: number;
  serializable?: boolean;
  countOnly?: boolean;
}

export interface RangeResponse {
  /** The header's revision: the store's revision when etcd answered (or the one read at). */
  revision: number;
  kvs: Kv[];
  more: boolean;
}

/** A Txn guard: the key's create_revision or mod_revision compared to a number. */
export interface Compare {
  key: Buffer;
  target: 'create' | 'mod';
  result: 'equal' | 'greater';
  revision: number;
}

export type RequestOp =
  | { put: { key: Buffer; value: Buffer; prevKv?: boolean } }
  | { range: { key: Buffer } }
  | { deleteRange: { key: Buffer; prevKv?: boolean } };

export interface ResponseOp {
  /** kvs of a range. */
  range?: Kv[];
  /** A put's previous value (when asked for and the key existed). */
  putPrev?: Kv;
  /** A delete's previous values (when asked for). */
  deletedPrev?: Kv[];
}

export interface TxnResponse {
  revision: number;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface EtcdKv {
  range(req: RangeRequest): Promise<RangeResponse>;
  txn(compare: Compare[], success: RequestOp[], failure?: RequestOp[]): Promise<TxnResponse>;
  /** Compacts to `revision`; answers the header revision. */
  compact(revision: number): Promise<number>;
  close(): void;
}

/** An error etcd (or the connection to it) answered a call with; `code` is the gRPC status (14 = unavailable). */
export class EtcdCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'EtcdCallError';
  }
}

// ---- protobuf (etcd's rpc.proto and kv.proto, field numbers as there) -------------------------------------------

const CMP_RESULT = { equal: 0, greater: 1 } as const; // Compare.CompareResult
const CMP_TARGET = { create: 1, mod: 2 } as const; // Compare.CompareTarget

function writeRange(w: protobuf.Writer, r: RangeRequest): protobuf.Writer {
  w.uint32(10).bytes(r.key); // key = 1
  if (r.rangeEnd) w.uint32(18).bytes(r.rangeEnd); // range_end = 2
  if (r.limit) w.uint32(24).int64(r.limit); // limit = 3
  if (r.revision) w.uint32(32).int64(r.revision); // revision = 4
  if (r.serializable) w.uint32(56).bool(true); // serializable = 7
  if (r.countOnly) w.uint32(72).bool(true); // count_only = 9
  return w;
}

export function encodeRange(r: RangeRequest): Uint8Array {
  return writeRange(protobuf.Writer.create(), r).finish();
}

function writeOp(w: protobuf.Writer, field: number, op: RequestOp): void {
  w.uint32((field << 3) | 2).fork();
  if ('put' in op) {
    // request_put = 2: PutRequest { key = 1, value = 2, prev_kv = 4 }
    w.uint32(18).fork().uint32(10).bytes(op.put.key).uint32(18).bytes(op.put.value);
    if (op.put.prevKv) w.uint32(32).bool(true);
    w.ldelim();
  } else if ('range' in op) {
    w.uint32(10).fork(); // request_range = 1
    writeRange(w, op.range).ldelim();
  } else {
    // request_delete_range = 3: DeleteRangeRequest { key = 1, prev_kv = 3 }
    w.uint32(26).fork().uint32(10).bytes(op.deleteRange.key);
    if (op.deleteRange.prevKv) w.uint32(24).bool(true);
    w.ldelim();
  }
  w.ldelim();
}

export function encodeTxn(compare: Compare[], success: RequestOp[], failure: RequestOp[] = []): Uint8Array {
  const w = protobuf.Writer.create();
  for (const c of compare) {
    // compare = 1: Compare { result = 1, target = 2, key = 3, create_revision = 5 | mod_revision = 6 }
    w.uint32(10).fork();
    if (CMP_RESULT[c.result]) w.uint32(8).int32(CMP_RESULT[c.result]);
    w.uint32(16).int32(CMP_TARGET[c.target]).uint32(26).bytes(c.key);
    // Written even when 0: the value is one of a oneof, whose presence proto3 keeps.
    w.uint32(c.target === 'create' ? 40 : 48).int64(c.revision);
    w.ldelim();
  }
  for (const op of success) writeOp(w, 2, op);
  for (const op of failure) writeOp(w, 3, op);
  return w.finish();
}

export function encodeCompact(revision: number): Uint8Array {
  return protobuf.Writer.create().uint32(8).int64(revision).finish(); // CompactionRequest { revision = 1 }
}

/** A minimal protobuf reader: varints as numbers (exact to 2^53, etcd's revisions), bytes as views. */
class Reader {
  pos: number;
  constructor(
    private readonly buf: Buffer,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  varint(): number {
    let result = 0;
    let mul = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error('etcd: truncated protobuf message');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  }

  /** A length-delimited field's bounds, moving past it. */
  delimited(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('etcd: truncated protobuf message');
    return [start, this.pos];
  }

  bytes(): Buffer {
    const [s, e] = this.delimited();
    return this.buf.subarray(s, e);
  }

  sub(): Reader {
    const [s, e] = this.delimited();
    return new Reader(this.buf, s, e);
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.delimited();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`etcd: unexpected protobuf wire type ${wireType}`);
  }
}

/** ResponseHeader { revision = 3 } */
function readHeader(r: Reader): number {
  let revision = 0;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 24) revision = r.varint();
    else r.skip(tag & 7);
  }
  return revision;
}

/** KeyValue { key = 1, create_revision = 2, mod_revision = 3, value = 5 } */
function readKv(r: Reader): Kv {
  const kv: Kv = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0 };
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 10) kv.key = r.bytes();
    else if (tag === 16) kv.createRevision = r.varint();
    else if (tag === 24) kv.modRevision = r.varint();
    else if (tag === 42) kv.value = r.bytes();
    else r.skip(tag & 7);
  }
  return kv;
}

const EMPTY = Buffer.alloc(0);

/** RangeResponse { header = 1, kvs = 2, more = 3 } */
function readRange(r: Reader): RangeResponse {
  const res: RangeResponse = { revision: 0, kvs: [], more: false };
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 10) res.revision = readHeader(r.sub());
    else if (tag === 18) res.kvs.push(readKv(r.sub()));
    else if (tag === 24) res.more = r.varint() !== 0;
    else r.skip(tag & 7);
  }
  return res;
}

export function decodeRange(buf: Buffer): RangeResponse {
  return readRange(new Reader(buf));
}

/** The previous values in a PutResponse (prev_kv = 2) or a DeleteRangeResponse (prev_kvs = 3). */
function readPrev(r: Reader, field: number): Kv[] {
  const out: Kv[] = [];
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === ((field << 3) | 2)) out.push(readKv(r.sub()));
    else r.skip(tag & 7);
  }
  return out;
}

/** ResponseOp { response_range = 1, response_put = 2, response_delete_range = 3 } */
function readOp(r: Reader): ResponseOp {
  const op: ResponseOp = {};
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 10) op.range = readRange(r.sub()).kvs;
    else if (tag === 18) {
      const prev = readPrev(r.sub(), 2);
      if (prev.length) op.putPrev = prev[0];
    } else if (tag === 26) op.deletedPrev = readPrev(r.sub(), 3);
    else r.skip(tag & 7);
  }
  return op;
}

/** TxnResponse { header = 1, succeeded = 2, responses = 3 } */
export function decodeTxn(buf: Buffer): TxnResponse {
  const r = new Reader(buf);
  const res: TxnResponse = { revision: 0, succeeded: false, responses: [] };
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 10) res.revision = readHeader(r.sub());
    else if (tag === 16) res.succeeded = r.varint() !== 0;
    else if (tag === 26) res.responses.push(readOp(r.sub()));
    else r.skip(tag & 7);
  }
  return res;
}

/** CompactionResponse { header = 1 } */
function decodeCompact(buf: Buffer): number {
  const r = new Reader(buf);
  let revision = 0;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === 10) revision = readHeader(r.sub());
    else r.skip(tag & 7);
  }
  return revision;
}

// ---- gRPC over node:http2 ----------------------------------------------------------------------------------------

export interface Http2KvOptions {
  servers: string[];
  /** TLS material (as etcd3's `credentials`), for https:// servers. */
  credentials?: IOptions['credentials'];
  /** How long a connection may take before calls on it fail (etcd3's dialTimeout); default 20 s, as grpc-js. */
  dialTimeout?: number;
  /** Calls per connection before it is replaced (default: just under the 2^30 stream ids it has; tests set less). */
  callsPerConnection?: number;
}

/** Node's HTTP/2 per-call headers; the same object for every call (node copies what it sends). */
function headersFor(path: string): http2.OutgoingHttpHeaders {
  return { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' };
}
const RANGE = headersFor('/etcdserverpb.KV/Range');
const TXN = headersFor('/etcdserverpb.KV/Txn');
const COMPACT = headersFor('/etcdserverpb.KV/Compact');

/** gRPC status 14: the call could not be carried (no connection, or it dropped). */
const UNAVAILABLE = 14;

/** A larger flow-control window than HTTP/2's 64 KiB default, so a list of many objects streams without stalls. */
const WINDOW_BYTES = 8 * 1024 * 1024;

interface Connection {
  session: http2.ClientHttp2Session;
  /** Whether the connection was established (a call failing before that never reached etcd). */
  connected: boolean;
  /** Calls made on it: each takes a stream id, and a connection has 2^30 of them. */
  calls: number;
}

/**
 * A connection is replaced (the old one closing once its calls are done) before its stream ids run out: an HTTP/2
 * client has the odd ids below 2^31, and node fails every request after the last one without closing the session.
 */
const CALLS_PER_CONNECTION = 2 ** 30 - 1024;

export class Http2Kv implements EtcdKv {
  private conn: Connection | undefined;
  private next = 0;
  private active = 0;
  private closed = false;
  /** Connections opened so far (for tests). */
  connections = 0;

  constructor(private readonly opts: Http2KvOptions) {
    if (opts.servers.length === 0) throw new RangeError('Http2Kv: at least one etcd server URL is needed');
  }

  range(req: RangeRequest): Promise<RangeResponse> {
    return this.call(RANGE, encodeRange(req), decodeRange);
  }

  txn(compare: Compare[], success: RequestOp[], failure: RequestOp[] = []): Promise<TxnResponse> {
    return this.call(TXN, encodeTxn(compare, success, failure), decodeTxn);
  }

  compact(revision: number): Promise<number> {
    return this.call(COMPACT, encodeCompact(revision), decodeCompact);
  }

  close(): void {
    this.closed = true;
    this.conn?.session.destroy();
    this.conn = undefined;
  }

  private connection(): Connection {
    const old = this.conn;
    if (old && !old.session.closed && !old.session.destroyed) {
      if (old.calls < (this.opts.callsPerConnection ?? CALLS_PER_CONNECTION)) return old;
      // Closed once its calls are done; a connection still coming up first sends the calls waiting for it.
      if (old.connected) old.session.close();
      else old.session.once('connect', () => old.session.close());
    }
    const url = this.opts.servers[this.next++ % this.opts.servers.length];
    const creds = this.opts.credentials;
    const session = http2.connect(url, {
      settings: { initialWindowSize: WINDOW_BYTES },
      // As grpc-js: node's default session memory cap (10 MB) refuses new streams while big answers are buffered.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
      createConnection: (authority: URL) => {
        const port = Number(authority.port) || (authority.protocol === 'https:' ? 443 : 80);
        const host = authority.hostname.replace(/^\[|\]$/g, '');
        const socket =
          authority.protocol === 'https:'
            ? tls.connect({ host, port, ALPNProtocols: ['h2'], servername: net.isIP(host) ? undefined : host, ca: creds?.rootCertificate, key: creds?.privateKey, cert: creds?.certChain })
            : net.connect({ host, port });
        // Small requests go out at once (Nagle would hold a call's frames back behind the previous one's).
        socket.setNoDelay(true);
        return socket;
      },
    });
    const conn: Connection = { session, connected: false, calls: 0 };
    this.connections++;
    const timer = setTimeout(() => session.destroy(new Error(`etcd: no connection to ${url} within ${this.opts.dialTimeout ?? 20_000} ms`)), this.opts.dialTimeout ?? 20_000);
    timer.unref();
    session.once('connect', () => {
      clearTimeout(timer);
      conn.connected = true;
      session.setLocalWindowSize(WINDOW_BYTES);
    });
    session.on('error', () => undefined); // each call sees its own stream's error
    session.once('close', () => {
      clearTimeout(timer);
      if (this.conn === conn) this.conn = undefined;
    });
    // The session keeps the process alive only while calls are in flight (as the etcd3 client's channel).
    if (this.active === 0) session.unref();
    this.conn = conn;
    return conn;
  }

  private async call<T>(headers: http2.OutgoingHttpHeaders, msg: Uint8Array, decode: (b: Buffer) => T): Promise<T> {
    // A call that cannot have reached etcd (its connection never came up, or was already closing) goes out again on
    // a new connection, to the next server: once per server, and at least twice (a lone server's connection may have
    // been going away when the call was made).
    const attempts = Math.max(2, this.opts.servers.length);
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new EtcdCallError(UNAVAILABLE, 'etcd: the client is closed');
      const conn = this.connection();
      try {
        return decode(await this.send(conn, headers, msg));
      } catch (err) {
        if (!(err instanceof NotSent) || attempt + 1 >= attempts) throw err instanceof NotSent ? err.failure : err;
      }
    }
  }

  private send(conn: Connection, headers: http2.OutgoingHttpHeaders, msg: Uint8Array): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      // gRPC's length-prefixed message: a compression flag (0) and the length, big-endian.
      const frame = Buffer.allocUnsafe(5 + msg.length);
      frame[0] = 0;
      frame.writeUInt32BE(msg.length, 1);
      frame.set(msg, 5);
      const session = conn.session;
      conn.calls++;
      if (this.active++ === 0) session.ref();
      let settled = false;
      const finish = (err: Error | undefined, body?: Buffer) => {
        if (settled) return;
        settled = true;
        // The connection now in use (this call's may have been replaced meanwhile) stops holding the process.
        if (--this.active === 0 && this.conn && !this.conn.session.destroyed) this.conn.session.unref();
        if (err) reject(err);
        else resolve(body!);
      };
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request(headers);
      } catch (err) {
        finish(new NotSent(unavailable(err)));
        return;
      }
      let status: number | undefined;
      let message = '';
      const chunks: Buffer[] = [];
      const statusFrom = (h: http2.IncomingHttpHeaders) => {
        if (h['grpc-status'] === undefined) return;
        status = Number(h['grpc-status']);
        message = grpcMessage(h['grpc-message']);
      };
      stream.on('response', statusFrom); // a trailers-only answer (an error) carries the status here
      stream.on('trailers', statusFrom);
      stream.on('data', (d: Buffer) => chunks.push(d));
      stream.once('error', (err) => finish(conn.connected && !neverSent(err) ? unavailable(err) : new NotSent(unavailable(err))));
      // Closed without an end (reset with no error code, the session destroyed): the outcome is unknown. ('close'
      // follows every call's end: the error, and its stack, only when it is the first news.)
      stream.once('close', () => {
        if (!settled) finish(new EtcdCallError(UNAVAILABLE, 'etcd unavailable: the call was cut off'));
      });
      stream.once('end', () => {
        if (status !== 0) {
          finish(status === undefined ? new EtcdCallError(UNAVAILABLE, 'etcd: the call ended without a gRPC status') : new EtcdCallError(status, message));
          return;
        }
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) {
          finish(new EtcdCallError(UNAVAILABLE, 'etcd: the answer is not one gRPC message'));
          return;
        }
        finish(undefined, body.subarray(5));
      });
      stream.end(frame);
    });
  }
}

/**
 * Stream errors that say the request never reached the server: node refused it before sending (its session was
 * closing or out of stream ids), or the server refused the stream unprocessed (REFUSED_STREAM, RFC 9113 8.7).
 */
function neverSent(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return (
    code === 'ERR_HTTP2_GOAWAY_SESSION' ||
    code === 'ERR_HTTP2_INVALID_SESSION' ||
    code === 'ERR_HTTP2_OUT_OF_STREAMS' ||
    (code === 'ERR_HTTP2_STREAM_ERROR' && err.message.includes('NGHTTP2_REFUSED_STREAM'))
  );
}

/** A failure before the call could reach etcd: safe to send it again elsewhere. */
class NotSent extends Error {
  constructor(readonly failure: EtcdCallError) {
    super(failure.message);
  }
}

function unavailable(err: unknown): EtcdCallError {
  return new EtcdCallError(UNAVAILABLE, `etcd unavailable: ${err instanceof Error ? err.message : String(err)}`);
}

/** grpc-message is percent-encoded (gRPC over HTTP/2). */
function grpcMessage(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v.join(',') : (v ?? '');
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---- the same calls through the etcd3 package ------------------------------------------------------------------

function fromEtcd3(kv: IKeyValue): Kv {
  return { key: kv.key, value: kv.value, createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
}

function toEtcd3Op(op: RequestOp) {
  if ('put' in op) return { request_put: { key: op.put.key, value: op.put.value, ...(op.put.prevKv ? { prev_kv: true } : {}) } };
  if ('range' in op) return { request_range: { key: op.range.key } };
  return { request_delete_range: { key: op.deleteRange.key, ...(op.deleteRange.prevKv ? { prev_kv: true } : {}) } };
}

export class Etcd3Kv implements EtcdKv {
  constructor(private readonly client: Etcd3) {}

  async range(req: RangeRequest): Promise<RangeResponse> {
    const res = await this.client.kv.range({
      key: req.key,
      ...(req.rangeEnd ? { range_end: req.rangeEnd } : {}),
      ...(req.limit ? { limit: req.limit } : {}),
      ...(req.revision ? { revision: req.revision } : {}),
      ...(req.serializable ? { serializable: true } : {}),
      ...(req.countOnly ? { count_only: true } : {}),
    });
    return { revision: Number(res.header.revision), kvs: res.kvs.map(fromEtcd3), more: res.more };
  }

  async txn(compare: Compare[], success: RequestOp[], failure: RequestOp[] = []): Promise<TxnResponse> {
    const res = await this.client.kv.txn({
      compare: compare.map((c) => ({
        key: c.key,
        target: c.target === 'create' ? ('Create' as const) : ('Mod' as const),
        result: c.result === 'equal' ? ('Equal' as const) : ('Greater' as const),
        ...(c.target === 'create' ? { create_revision: c.revision } : { mod_revision: c.revision }),
      })),
      success: success.map(toEtcd3Op),
      failure: failure.map(toEtcd3Op),
    });
    return {
      revision: Number(res.header.revision),
      succeeded: res.succeeded,
      responses: res.responses.map((r) => ({
        ...(r.response_range ? { range: r.response_range.kvs.map(fromEtcd3) } : {}),
        ...(r.response_put?.prev_kv ? { putPrev: fromEtcd3(r.response_put.prev_kv) } : {}),
        ...(r.response_delete_range ? { deletedPrev: r.response_delete_range.prev_kvs.map(fromEtcd3) } : {}),
      })),
    };
  }

  async compact(revision: number): Promise<number> {
    return Number((await this.client.kv.compact({ revision })).header.revision);
  }

  close(): void {
    // The etcd3 client is the store's; it closes it.
  }
}
