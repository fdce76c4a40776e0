// The target client: raw HTTP exchanges for negotiation checks, and JSON / YAML / protobuf helpers for
// everything else, all over undici and all recorded. It asserts nothing: checks decide what is right.
import { request as undiciRequest, type Dispatcher } from 'undici';
import yaml from 'js-yaml';
import type { KubeObject, WatchEvent } from '../../simulator/api/meta.ts';
import { createDispatcher, type TargetConnection } from './connection.ts';
import { ExchangeRecorder, type Exchange } from './recorder.ts';
import { JsonObjectSplitter } from '../../simulator/codec/json-stream.ts';
import { decodeProtobuf, encodeProtobuf, watchFrameDecoder } from './protobuf.ts';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ROWS_PROPERTY } from './expect.ts';

export type Format = 'json' | 'yaml' | 'protobuf';
export type Query = Record<string, string | number | boolean | undefined>;

export interface RawRequest {
  method: string;
  path: string;
  query?: Query;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The media type of the response without parameters, lower case ('' when absent). */
  mediaType: string;
  text(): string;
  exchange: Exchange;
}

export interface DecodedResponse<T = KubeObject> extends RawResponse {
  /** The body decoded by its Content-Type; undefined when it could not be decoded. */
  object: T | undefined;
  decodeError?: string;
}

export interface RequestOptions {
  query?: Query;
  accept?: Format | string;
  contentType?: Format | string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class TransportError extends Error {
  override name = 'TransportError';
  constructor(message: string, readonly exchange: Exchange) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const STREAM_KEEP_BYTES = 8192;

export interface ClientOptions {
  connection: TargetConnection;
  vendor?: string;
  recorder?: ExchangeRecorder;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /**
   * A file of the run: written when a watch showed that the target does not stream watches (below), so that the
   * run's later watches, in any check process, stop at once instead of each waiting for its headers.
   */
  watchMarker?: string;
}

/**
 * How long a watch's response headers may take while the server answers other requests. A server that streams
 * (4.3.2: chunked transfer, events as they happen) sends them at once; one that buffers the whole watch sends
 * nothing until the watch ends, and every watch check would wait out its own time limit.
 */
export const WATCH_HEADERS_MS = 10_000;
/** The row a watch that is not streamed fails. */
export const WATCH_STREAMING_ROW = 'rule.watch.chunked-transfer';

/**
 * The checks (by their recorders, one per check) that found a watch not streamed: their own later watches fail the
 * same way (a property's shrinking re-runs them), where other checks' watches are only not verified.
 */
const notStreamedBy = new WeakMap<ExchangeRecorder, string>();

function notStreamed(message: string): Error {
  const err = new Error(message);
  (err as unknown as Record<string, unknown>)[ROWS_PROPERTY] = [WATCH_STREAMING_ROW];
  return err;
}

/** A later watch of a run in which one watch already showed the target does not stream: not verifiable. */
export class WatchNotStreamed extends Error {
  override name = 'WatchNotStreamed';
}

export function describeTransportError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const inner = e.cause && (e.cause.message || e.cause.code) ? e.cause : e;
  return inner.message || inner.code || String(err);
}

export class TargetClient {
  readonly connection: TargetConnection;
  readonly vendor: string;
  readonly recorder: ExchangeRecorder;
  private readonly dispatcher: Dispatcher;
  private readonly userAgent: string;

  constructor(options: ClientOptions) {
    this.connection = options.connection;
    this.vendor = options.vendor ?? 'kubernetes';
    this.recorder = options.recorder ?? new ExchangeRecorder();
    this.dispatcher = options.dispatcher ?? createDispatcher(options.connection);
    this.userAgent = options.userAgent ?? 'cluster-api-conformance/0.1';
    this.watchMarker = options.watchMarker;
  }

  private readonly watchMarker: string | undefined;
  // Watches this client opened, so that the check's end closes any its code left open: an open watch keeps the
  // check process alive (node's runner waits for it) until the server ends it, minutes later.
  private readonly openWatches = new Set<WatchStream>();

  /** Same target and connection pool, another recorder (one per check). */
  withRecorder(recorder: ExchangeRecorder): TargetClient {
    return new TargetClient({
      connection: this.connection,
      vendor: this.vendor,
      recorder,
      dispatcher: this.dispatcher,
      userAgent: this.userAgent,
      watchMarker: this.watchMarker,
    });
  }

  /**
   * Waits for a watch's headers. When WATCH_HEADERS_MS pass without them, asks the server something cheap: if it
   * answers, the watch is being held back (not streamed): the watch is aborted and the check fails naming 4.3.2,
   * and the run's marker file stops the run's later watches at once. A server that answers nothing is slow, not
   * buffering: the wait goes on (within the watch's own time limit).
   */
  private async headersOf(pending: Promise<Dispatcher.ResponseData>, url: string, controller: AbortController): Promise<Dispatcher.ResponseData> {
    const started = performance.now();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), WATCH_HEADERS_MS)));
      const res = await Promise.race([pending, late]).finally(() => clearTimeout(timer));
      if (res) return res;
      const probeStart = performance.now();
      const probe = await this.raw({ method: 'GET', path: '/api', headers: { Accept: 'application/json' }, timeoutMs: 5000 }).catch(() => undefined);
      if (!probe || probe.status >= 500) continue;
      pending.catch(() => {});
      controller.abort(new Error('watch not streamed'));
      const waited = ((performance.now() - started) / 1000).toFixed(1);
      const message =
        `4.3.2: the watch GET ${url} had sent no response headers after ${waited} s, while the server answered GET /api in ` +
        `${Math.round(performance.now() - probeStart)} ms: a watch must be answered at once and stream its events as they happen ` +
        '(chunked transfer), not held until it ends';
      if (this.watchMarker) {
        try {
          mkdirSync(dirname(this.watchMarker), { recursive: true });
          writeFileSync(this.watchMarker, message, { flag: 'wx' });
        } catch {
          // Another check wrote it first.
        }
      }
      notStreamedBy.set(this.recorder, message);
      throw notStreamed(message);
    }
  }

  mediaType(format: Format | string): string {
    switch (format) {
      case 'json':
        return 'application/json';
      case 'yaml':
        return 'application/yaml';
      case 'protobuf':
        return `application/vnd.${this.vendor}.protobuf`;
      default:
        return format;
    }
  }

  url(path: string, query?: Query): string {
    const url = new URL(this.connection.url + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async raw(req: RawRequest): Promise<RawResponse> {
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = { 'User-Agent': this.userAgent, ...req.headers };
    if (this.connection.token) headers.Authorization = `Bearer ${this.connection.token}`;
    const body = typeof req.body === 'string' ? Buffer.from(req.body) : req.body;
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const recordedRequest = { method: req.method, url, headers, body };
    try {
      const res = await undiciRequest(url, {
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(req.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      const responseHeaders = flattenHeaders(res.headers);
      const exchange = this.recorder.record({
        startedAt,
        durationMs: performance.now() - started,
        request: recordedRequest,
        response: { status: res.statusCode, headers: responseHeaders, body: bytes },
      });
      return makeRaw(res.statusCode, responseHeaders, bytes, exchange);
    } catch (err) {
      const message = describeTransportError(err);
      const exchange = this.recorder.record({ startedAt, durationMs: performance.now() - started, request: recordedRequest, error: message });
      throw new TransportError(`${req.method} ${url} failed: ${message}`, exchange);
    }
  }

  /** Encodes a body in the given format (protobuf through the project codec). */
  async encode(obj: unknown, format: Format | string): Promise<Uint8Array> {
    const type = this.mediaType(format);
    if (type === this.mediaType('protobuf')) return encodeProtobuf(obj as KubeObject);
    if (type === 'application/yaml') return Buffer.from(yaml.dump(obj, { noRefs: true }));
    return Buffer.from(JSON.stringify(obj));
  }

  /** Decodes a response body by its media type. */
  async decode<T>(res: RawResponse): Promise<{ object?: T; error?: string }> {
    if (res.body.length === 0) return { error: 'empty body' };
    try {
      if (res.mediaType === this.mediaType('protobuf')) return { object: decodeProtobuf(res.body) as T };
      if (res.mediaType === 'application/yaml') return { object: yaml.load(res.text()) as T };
      if (res.mediaType === 'application/json' || res.mediaType.endsWith('+json')) return { object: JSON.parse(res.text()) as T };
      return { error: `cannot decode media type "${res.mediaType || '(none)'}"` };
    } catch (err) {
      return { error: `${res.mediaType} body does not decode: ${(err as Error).message.split('\n')[0]}` };
    }
  }

  async request<T = KubeObject>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<DecodedResponse<T>> {
    const headers: Record<string, string> = { Accept: this.mediaType(options.accept ?? 'json'), ...options.headers };
    let bytes: Uint8Array | undefined;
    if (body !== undefined) {
      const contentType = options.contentType ?? 'json';
      headers['Content-Type'] = this.mediaType(contentType);
      bytes = typeof body === 'string' || body instanceof Uint8Array ? (typeof body === 'string' ? Buffer.from(body) : body) : await this.encode(body, contentType);
    }
    const res = await this.raw({ method, path, query: options.query, headers, body: bytes, timeoutMs: options.timeoutMs });
    const decoded = await this.decode<T>(res);
    return Object.assign(res, { object: decoded.object, decodeError: decoded.error });
  }

  get<T = KubeObject>(path: string, options?: RequestOptions): Promise<DecodedResponse<T>> {
    return this.request<T>('GET', path, undefined, options);
  }
  create<T = KubeObject>(path: string, obj: unknown, options?: RequestOptions): Promise<DecodedResponse<T>> {
    return this.request<T>('POST', path, obj, options);
  }
  replace<T = KubeObject>(path: string, obj: unknown, options?: RequestOptions): Promise<DecodedResponse<T>> {
    return this.request<T>('PUT', path, obj, options);
  }
  patch<T = KubeObject>(path: string, patch: unknown, patchType: 'merge' | 'json' | 'strategic', options?: RequestOptions): Promise<DecodedResponse<T>> {
    const contentType = { merge: 'application/merge-patch+json', json: 'application/json-patch+json', strategic: 'application/strategic-merge-patch+json' }[patchType];
    return this.request<T>('PATCH', path, Buffer.from(JSON.stringify(patch)), { ...options, contentType });
  }
  delete<T = KubeObject>(path: string, options?: RequestOptions & { body?: unknown }): Promise<DecodedResponse<T>> {
    return this.request<T>('DELETE', path, options?.body, options);
  }

  /** Opens a watch stream; the response status and headers are known when this resolves. */
  async watch(path: string, options: { query?: Query; format?: 'json' | 'protobuf'; accept?: string; timeoutMs?: number } = {}): Promise<WatchStream> {
    const format = options.format ?? 'json';
    const url = this.url(path, options.query);
    const headers: Record<string, string> = { 'User-Agent': this.userAgent, Accept: options.accept ?? this.mediaType(format) };
    if (this.connection.token) headers.Authorization = `Bearer ${this.connection.token}`;
    const controller = new AbortController();
    const limit = setTimeout(() => controller.abort(new Error('watch time limit reached')), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const recordedRequest = { method: 'GET', url, headers };
    const own = notStreamedBy.get(this.recorder);
    if (own) {
      clearTimeout(limit);
      throw notStreamed(own);
    }
    if (this.watchMarker && existsSync(this.watchMarker)) {
      clearTimeout(limit);
      throw new WatchNotStreamed(`not verified: an earlier watch of this run showed the target does not stream watches (${readFileSync(this.watchMarker, 'utf8').split(':')[0]}: see the failure naming it)`);
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await this.headersOf(undiciRequest(url, { method: 'GET', headers, dispatcher: this.dispatcher, signal: controller.signal }), url, controller);
    } catch (err) {
      clearTimeout(limit);
      if ((err as Record<string, unknown>)[ROWS_PROPERTY]) throw err;
      const message = describeTransportError(err);
      const exchange = this.recorder.record({ startedAt, durationMs: performance.now() - started, request: recordedRequest, error: message });
      throw new TransportError(`GET ${url} (watch) failed: ${message}`, exchange);
    }
    const responseHeaders = flattenHeaders(res.headers);
    const exchange = this.recorder.record({
      startedAt,
      durationMs: performance.now() - started,
      request: recordedRequest,
      response: { status: res.statusCode, headers: responseHeaders, body: Buffer.alloc(0), streamed: true },
    });
    const stream = new WatchStream(res, responseHeaders, exchange, controller, limit, format, this.mediaType('protobuf'));
    this.openWatches.add(stream);
    return stream;
  }

  /** Closes every watch this client opened (those already closed are left as they are). */
  closeWatches(): void {
    for (const w of this.openWatches) w.close();
    this.openWatches.clear();
  }
}

/** Events of one watch, decoded incrementally; `next()` waits for the next one with a deadline. */
export class WatchStream {
  readonly status: number;
  readonly mediaType: string;
  private readonly queue: WatchEvent[] = [];
  private waiters: Array<() => void> = [];
  private ended = false;
  private failure: Error | undefined;
  private kept: Buffer[] = [];
  private keptBytes = 0;

  constructor(
    res: Dispatcher.ResponseData,
    readonly headers: Record<string, string>,
    readonly exchange: Exchange,
    private readonly controller: AbortController,
    private readonly limit: NodeJS.Timeout,
    format: 'json' | 'protobuf',
    private readonly protobufType: string,
  ) {
    this.status = res.statusCode;
    this.mediaType = mediaTypeOf(headers['content-type']);
    void this.pump(res, format);
  }

  private async pump(res: Dispatcher.ResponseData, format: 'json' | 'protobuf'): Promise<void> {
    const isProtobuf = format === 'protobuf' && this.mediaType === this.protobufType;
    const json = new JsonObjectSplitter();
    const frames = isProtobuf ? watchFrameDecoder() : undefined;
    try {
      for await (const chunk of res.body) {
        const bytes = chunk as Buffer;
        this.keep(bytes);
        if (this.status !== 200) continue;
        if (frames) {
          for (const event of frames.push(bytes)) this.queue.push(event as WatchEvent);
        } else {
          for (const value of json.push(bytes)) this.queue.push(value as WatchEvent);
        }
        this.wake();
      }
    } catch (err) {
      if (!this.controller.signal.aborted) this.failure = err as Error;
    } finally {
      clearTimeout(this.limit);
      this.ended = true;
      this.wake();
    }
  }

  private keep(bytes: Buffer): void {
    if (this.keptBytes >= STREAM_KEEP_BYTES) return;
    this.kept.push(bytes.subarray(0, STREAM_KEEP_BYTES - this.keptBytes));
    this.keptBytes += Math.min(bytes.length, STREAM_KEEP_BYTES - this.keptBytes);
    if (this.exchange.response) this.exchange.response.body = Buffer.concat(this.kept);
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** The next event, or undefined when the stream ended or nothing came within timeoutMs. */
  async next(timeoutMs = 5_000): Promise<WatchEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.failure) throw this.failure;
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.queue.shift();
  }

  /** Bytes received so far (up to a few KB), e.g. to read a non-200 body. */
  receivedText(): string {
    return Buffer.concat(this.kept).toString('utf8');
  }

  get isEnded(): boolean {
    return this.ended;
  }

  close(): void {
    clearTimeout(this.limit);
    this.controller.abort(new Error('watch closed by the check'));
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function makeRaw(status: number, headers: Record<string, string>, body: Buffer, exchange: Exchange): RawResponse {
  return { status, headers, body, mediaType: mediaTypeOf(headers['content-type']), text: () => body.toString('utf8'), exchange };
}
