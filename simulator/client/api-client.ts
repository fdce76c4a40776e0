// The daemon's HTTP client of the API server, on undici: TLS and credentials from the client config, the
// request content type of --x-api-content-type (protobuf where the shared codec knows the kind, JSON
// otherwise), a token bucket for --x-api-qps/--x-api-burst, retries with backoff on 429, 5xx and lost
// connections, per-request metrics, and list/watch helpers (JSON and protobuf watch streams).

import { Agent, request, errors as undiciErrors, type Dispatcher } from 'undici';
import type { KubeObject, KubeList, Status, WatchEvent } from '../api/meta.ts';
import type { ClientConfig } from './kubeconfig.ts';
import { TokenBucket } from './token-bucket.ts';
import type { DaemonMetrics } from './metrics.ts';
import { JsonObjectSplitter } from '../codec/json-stream.ts';
import { LengthDelimitedSplitter, decodeWatchFrame, loadProtobufCodec, type ProtobufObjectCodec } from './protobuf-codec.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';

export const JSON_MEDIA_TYPE = 'application/json';

export type Query = Record<string, string | number | boolean | undefined>;

export interface ApiClientOptions {
  qps: number;
  burst: number;
  /** --x-api-content-type. */
  contentType: string;
  metrics?: DaemonMetrics;
  userAgent?: string;
  /** Attempts after the first for retriable failures (default 4). */
  maxRetries?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Time allowed for a non-watch request (default 30 s). */
  requestTimeoutMs?: number;
  /** The protobuf object codec; undefined = load simulator/codec/protobuf.ts if present; null = JSON only. */
  codec?: ProtobufObjectCodec | null;
  /**
   * Most connections this client's requests (not its watches) open to the server (default 64); more requests
   * than that wait for a free one. Unbounded, a burst of thousands of requests opened as many sockets, and the
   * connects timed out in the server's accept backlog and were retried, a storm that ate most of the CPU.
   */
  connections?: number;
  /**
   * A connection pool shared with other clients (see ApiClient.sharedPool) for requests (watches keep a pool of
   * their own), left open by close(): the thousand kubelets of a simulated cluster share one instead of a pool each.
   */
  dispatcher?: Dispatcher;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Content type of the body when it is not an object to encode (patches). */
  bodyContentType?: string;
  signal?: AbortSignal;
  /** Overrides maxRetries for this call (0 = no retries). */
  retries?: number;
  timeoutMs?: number;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

/**
 * A non-2xx answer received by this client, with the request that got it. `status` holds the Status object when
 * the server sent one. A different job from simulator/server/errors.ts ApiError, which builds the Status a
 * server sends; hence two classes (the Status type itself is shared, api/meta.ts).
 */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: Status | undefined,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: ${code}${status?.reason ? ` ${status.reason}` : ''}${status?.message ? `: ${status.message}` : ''}`);
  }
  get reason(): string | undefined {
    return this.status?.reason;
  }
}

const RETRIABLE_CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_CLOSED']);
/** The request's time ran out (undici's headers and body timeouts stand for the request timeout). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const isTimeout = (err: unknown) => TIMEOUT_CODES.has((err as { code?: string } | null)?.code ?? '');

/** Failures before the request reached the server: safe to send again whatever the method. */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a failed attempt may be sent again. A POST that may have reached the server is not: it may have created
 * its object, and a second POST of a generateName object creates another (a ReplicaSet under load ended with 2005
 * pods of 2000 that way). Its caller sees the error and decides, as client-go's callers do.
 */
function retriable(method: string, err: unknown, timedOut: boolean): boolean {
  if (method !== 'POST') return isConnectionLoss(err) || isTimeout(err) || timedOut;
  return NEVER_SENT_CODES.has((err as { code?: string } | null)?.code ?? '');
}

function isConnectionLoss(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return (code !== undefined && RETRIABLE_CONNECTION_CODES.has(code)) || err instanceof undiciErrors.SocketError;
}

function essence(contentType: string | string[] | undefined): string {
  const v = Array.isArray(contentType) ? contentType[0] : contentType;
  return (v ?? '').split(';')[0].trim().toLowerCase();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A request in flight that a signal may cut: its abort is undici's, handed over when the request is dispatched. */
interface Abortable {
  abort(reason: unknown): void;
}

/**
 * Many requests under one long-lived signal (a controller's lifetime): the parent holds one listener for all of
 * them and aborts each request in flight when it fires. Handing the parent to undici itself put one listener per
 * request in flight on it, and an EventTarget's add and remove walk its whole list: with thousands of requests in
 * flight that was a tenth of the process's CPU; a child AbortController per request was still 2% of a scale run's.
 */
class AbortFanout {
  private readonly children = new WeakMap<AbortSignal, Set<Abortable>>();

  /** Registers the request under the parent (aborted at once if the parent already is); call release() when done. */
  add(parent: AbortSignal, req: Abortable): Set<Abortable> | undefined {
    if (parent.aborted) {
      req.abort(parent.reason);
      return undefined;
    }
    let set = this.children.get(parent);
    if (!set) {
      const s = new Set<Abortable>();
      set = s;
      this.children.set(parent, s);
      parent.addEventListener('abort', () => {
        for (const c of s) c.abort(parent.reason);
        s.clear();
      }, { once: true });
    }
    set.add(req);
    return set;
  }
}

/** undici's response headers (name, value, name, value... as bytes) → lower-case names, repeated ones in an array, as its request() gives them. */
function parseRawHeaders(raw: Buffer[] | string[]): Record<string, string | string[] | undefined> {
  const out: Record<string, string | string[] | undefined> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toString().toLowerCase();
    const value = raw[i + 1].toString('latin1');
    const had = out[name];
    if (had === undefined) out[name] = value;
    else if (Array.isArray(had)) had.push(value);
    else out[name] = [had, value];
  }
  return out;
}

interface Collected {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/**
 * One request's answer, collected whole by undici's dispatch handler interface: the answer of an API call is
 * read whole and decoded at once, so request()'s readable stream, async resource and abort listener per request
 * (about a tenth of the clients' CPU in the scale bench) bought nothing here.
 */
class CollectHandler implements Abortable {
  private abortFn: ((reason?: Error) => void) | undefined;
  private reason: Error | undefined;
  private aborted = false;
  private statusCode = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private chunks: Buffer[] = [];
  private settled = false;

  constructor(
    private readonly resolve: (c: Collected) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  abort(reason: unknown): void {
    if (this.settled || this.aborted) return;
    this.aborted = true;
    this.reason = (reason ?? new undiciErrors.RequestAbortedError()) as Error;
    this.abortFn?.(this.reason);
  }

  onConnect(abort: (reason?: Error) => void): void {
    if (this.aborted) abort(this.reason);
    else this.abortFn = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[]): boolean {
    if (statusCode < 200) return true; // 1xx: informational, the answer follows
    this.statusCode = statusCode;
    this.headers = parseRawHeaders(rawHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.resolve({ statusCode: this.statusCode, headers: this.headers, body });
  }

  onError(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Path of a resource: core group under /api/v1, others under /apis/<group>/<version>. */
export function resourcePath(r: { group: string; version: string; resource: string; namespace?: string; name?: string; subresource?: string }): string {
  const base = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const ns = r.namespace ? `/namespaces/${encodeURIComponent(r.namespace)}` : '';
  const name = r.name ? `/${encodeURIComponent(r.name)}` : '';
  const sub = r.name && r.subresource ? `/${r.subresource}` : '';
  return `${base}${ns}/${r.resource}${name}${sub}`;
}

export class ApiClient {
  readonly server: string;
  readonly limiter: TokenBucket;
  private readonly dispatcher: Dispatcher;
  /** Watches hold their connection for minutes: they get a pool of their own, so that they never use up the requests' connections. */
  private watchDispatcher: Dispatcher | undefined;
  private readonly ownsDispatcher: boolean;
  private readonly fanout = new AbortFanout();
  private readonly connectOptions: Agent.Options['connect'];
  private readonly auth: Record<string, string>;
  private readonly protobufType: string | undefined;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly timeoutMs: number;
  /** The server URL split as undici's dispatch takes it: scheme, host and port; the path prefix, if any. */
  private readonly origin: string;
  private readonly basePath: string;
  /** A request's headers by body content type (undefined: no body), made once: undici only reads them. */
  private readonly headersByType = new Map<string | undefined, Record<string, string>>();

  private constructor(
    private readonly cfg: ClientConfig,
    private readonly opts: ApiClientOptions,
    private readonly codec: ProtobufObjectCodec | undefined,
  ) {
    this.server = cfg.server.replace(/\/+$/, '');
    const serverUrl = URL.canParse(this.server) ? new URL(this.server) : undefined;
    this.origin = serverUrl?.origin ?? this.server;
    this.basePath = serverUrl?.pathname.replace(/\/+$/, '') ?? '';
    // client-go: QPS 0 means its default of 5 (burst 10); a negative QPS means no limit.
    const qps = opts.qps === 0 ? 5 : opts.qps < 0 ? Infinity : opts.qps;
    const burst = opts.qps === 0 && opts.burst === 0 ? 10 : opts.burst;
    this.limiter = new TokenBucket({ qps, burst });
    this.connectOptions = connectOptionsOf(cfg);
    this.ownsDispatcher = !opts.dispatcher;
    this.dispatcher = opts.dispatcher ?? new Agent({ connect: this.connectOptions, keepAliveTimeout: 30_000, connections: opts.connections ?? 64 });
    this.auth = {};
    if (cfg.token) this.auth.authorization = `Bearer ${cfg.token}`;
    else if (cfg.username !== undefined) this.auth.authorization = `Basic ${Buffer.from(`${cfg.username}:${cfg.password ?? ''}`).toString('base64')}`;
    this.protobufType = /protobuf$/.test(opts.contentType) && codec ? opts.contentType : undefined;
    this.maxRetries = opts.maxRetries ?? 4;
    this.retryBaseMs = opts.retryBaseMs ?? 100;
    this.retryMaxMs = opts.retryMaxMs ?? 5_000;
    this.timeoutMs = opts.requestTimeoutMs ?? 30_000;
  }

  /** A connection pool for several clients of one server (ApiClientOptions.dispatcher); the caller closes it. */
  static sharedPool(cfg: ClientConfig, connections = 64): Dispatcher {
    return new Agent({ connect: connectOptionsOf(cfg), keepAliveTimeout: 30_000, connections });
  }

  static async create(cfg: ClientConfig, opts: ApiClientOptions): Promise<ApiClient> {
    const wantsProtobuf = /protobuf$/.test(opts.contentType);
    const codec = opts.codec === null || !wantsProtobuf ? undefined : (opts.codec ?? (await loadProtobufCodec()));
    return new ApiClient(cfg, opts, codec);
  }

  /**
   * A client of the same server, credentials and connections with a rate limit of its own and another user
   * agent: what the real controller manager gives each controller (a clientset per controller from one config,
   * each with its own --kube-api-qps/--kube-api-burst token bucket), so that one controller's burst of writes
   * never waits out the others. The caller closes it (its connections stay this client's).
   */
  forComponent(userAgent: string): ApiClient {
    return new ApiClient(this.cfg, { ...this.opts, userAgent, dispatcher: this.dispatcher }, this.codec);
  }

  /** The User-Agent header the client sends. */
  get userAgent(): string {
    return this.opts.userAgent ?? 'controller-daemon/v1.9.0';
  }

  /** The content type bodies are sent in (protobuf only when the codec is available). */
  get wireContentType(): string {
    return this.protobufType ?? JSON_MEDIA_TYPE;
  }

  private headersFor(type: string | undefined): Record<string, string> {
    let h = this.headersByType.get(type);
    if (!h) {
      h = { ...this.auth, accept: this.accept(), 'user-agent': this.userAgent, ...(type ? { 'content-type': type } : {}) };
      this.headersByType.set(type, h);
    }
    return h;
  }

  private accept(): string {
    return this.protobufType ? `${this.protobufType}, ${JSON_MEDIA_TYPE}` : JSON_MEDIA_TYPE;
  }

  private encodeBody(body: unknown, explicitType?: string): { bytes: Buffer | undefined; type: string | undefined } {
    if (body === undefined) return { bytes: undefined, type: undefined };
    if (explicitType) return { bytes: Buffer.from(typeof body === 'string' ? body : stringifyJson(body)), type: explicitType };
    const obj = body as { apiVersion?: unknown; kind?: unknown };
    if (this.protobufType && this.codec && typeof obj.apiVersion === 'string' && typeof obj.kind === 'string' && this.codec.hasProtobuf(obj.apiVersion, obj.kind)) {
      return { bytes: Buffer.from(this.codec.encodeObject(body as object)), type: this.protobufType };
    }
    return { bytes: Buffer.from(stringifyJson(body)), type: JSON_MEDIA_TYPE };
  }

  private decodeBody(contentType: string | string[] | undefined, bytes: Buffer): unknown {
    if (bytes.length === 0) return undefined;
    const type = essence(contentType);
    if (type.endsWith('protobuf')) {
      if (!this.codec) throw new Error(`the server answered in ${type}, which this client cannot decode`);
      return this.codec.decodeObject(bytes);
    }
    const text = bytes.toString('utf8');
    if (type === JSON_MEDIA_TYPE || type.endsWith('+json') || /^[\s]*[{[]/.test(text)) {
      try {
        return parseJson(text);
      } catch {
        return text;
      }
    }
    return text;
  }

  private backoff(attempt: number, retryAfter: string | string[] | undefined): number {
    const ra = Array.isArray(retryAfter) ? retryAfter[0] : retryAfter;
    if (ra && /^[0-9]+$/.test(ra)) return Math.min(Number(ra) * 1000, this.retryMaxMs * 6);
    const exp = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** attempt);
    return exp / 2 + Math.random() * (exp / 2);
  }

  private record(verb: string, code: string, startedAt: number): void {
    this.opts.metrics?.apiRequests.inc({ verb, code });
    this.opts.metrics?.apiRequestDuration.observe({ verb }, (performance.now() - startedAt) / 1000);
  }

  private async waitForToken(signal?: AbortSignal): Promise<void> {
    const t = performance.now();
    await this.limiter.acquire(signal);
    this.opts.metrics?.apiRateLimiterWait.observe((performance.now() - t) / 1000);
  }

  /** One API call; throws ApiError on a non-2xx answer after retries. */
  async request<T = unknown>(method: string, path: string, ro: RequestOptions = {}): Promise<ApiResponse<T>> {
    const pathAndQuery = `${path}${queryString(ro.query)}`;
    const { bytes, type } = this.encodeBody(ro.body, ro.bodyContentType);
    const retries = ro.retries ?? this.maxRetries;
    for (let attempt = 0; ; attempt++) {
      await this.waitForToken(ro.signal);
      const startedAt = performance.now();
      // undici's own timers bound the wait for the answer's headers and for each chunk of its body: an
      // AbortSignal.timeout joined to the caller's signal per request cost a timer, two signals and listeners
      // on the caller's long-lived signal for every request.
      // A caller's own timeout (leader election's renew deadline) is a whole-request deadline, connecting included.
      const timeoutMs = Math.max(1, Math.ceil(ro.timeoutMs ?? this.timeoutMs));
      const deadline = ro.timeoutMs !== undefined ? AbortSignal.timeout(timeoutMs) : undefined;
      // A transport failure, sending or reading the body: recorded, then waited out before the next attempt when
      // it may be retried, else thrown (the caller's abort as its reason).
      const failedAttempt = async (err: unknown): Promise<void> => {
        this.record(method, '<error>', startedAt);
        if (ro.signal?.aborted) throw ro.signal.reason ?? err;
        if (!retriable(method, err, !!deadline?.aborted) || attempt >= retries) throw err;
        await sleep(this.backoff(attempt, undefined), ro.signal);
      };
      let res: Collected;
      let handler: CollectHandler | undefined;
      let parentSet: Set<Abortable> | undefined;
      let deadlineSet: Set<Abortable> | undefined;
      try {
        res = await new Promise<Collected>((resolve, reject) => {
          const h = (handler = new CollectHandler(resolve, reject));
          if (ro.signal) parentSet = this.fanout.add(ro.signal, h);
          if (deadline) deadlineSet = this.fanout.add(deadline, h);
          this.dispatcher.dispatch(
            {
              origin: this.origin,
              path: this.basePath + pathAndQuery,
              method: method as Dispatcher.HttpMethod,
              headers: this.headersFor(type),
              body: bytes,
              headersTimeout: timeoutMs,
              bodyTimeout: timeoutMs,
            },
            h,
          );
        });
      } catch (err) {
        await failedAttempt(err);
        continue;
      } finally {
        if (handler) {
          parentSet?.delete(handler);
          deadlineSet?.delete(handler);
        }
      }
      this.record(method, String(res.statusCode), startedAt);
      if ((res.statusCode === 429 || res.statusCode >= 500) && attempt < retries) {
        await sleep(this.backoff(attempt, res.headers['retry-after']), ro.signal);
        continue;
      }
      const body = this.decodeBody(res.headers['content-type'], res.body);
      if (res.statusCode >= 400) {
        const status = body && typeof body === 'object' && (body as Status).kind === 'Status' ? (body as Status) : undefined;
        throw new ApiError(res.statusCode, status, method, path);
      }
      return { status: res.statusCode, headers: res.headers, body: body as T };
    }
  }

  async get<T extends KubeObject = KubeObject>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>('GET', path, { query, signal })).body;
  }

  async list<T extends KubeObject = KubeObject>(path: string, query?: Query, signal?: AbortSignal): Promise<KubeList<T>> {
    return (await this.request<KubeList<T>>('GET', path, { query, signal })).body;
  }

  async create<T extends KubeObject = KubeObject>(path: string, obj: T, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>('POST', path, { body: obj, signal })).body;
  }

  async update<T extends KubeObject = KubeObject>(path: string, obj: T, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>('PUT', path, { body: obj, signal })).body;
  }

  async patch<T extends KubeObject = KubeObject>(path: string, patch: unknown, patchType = 'application/merge-patch+json', signal?: AbortSignal): Promise<T> {
    return (await this.request<T>('PATCH', path, { body: patch, bodyContentType: patchType, signal })).body;
  }

  async delete(path: string, options?: object, signal?: AbortSignal): Promise<unknown> {
    return (await this.request('DELETE', path, { body: options, bodyContentType: options ? JSON_MEDIA_TYPE : undefined, signal })).body;
  }

  /**
   * Watches a collection path; yields events until the server ends the stream or the signal aborts.
   * ERROR events (e.g. 410 Gone) are yielded as they come; a non-200 answer throws ApiError.
   */
  async *watch(path: string, query: Query = {}, signal?: AbortSignal): AsyncGenerator<WatchEvent> {
    await this.waitForToken(signal);
    const startedAt = performance.now();
    const url = `${this.server}${path}${queryString({ ...query, watch: 'true' })}`;
    let res: Dispatcher.ResponseData;
    try {
      this.watchDispatcher ??= new Agent({ connect: this.connectOptions, keepAliveTimeout: 30_000 });
      res = await request(url, {
        method: 'GET',
        dispatcher: this.watchDispatcher,
        headers: this.headersFor(undefined),
        signal,
        bodyTimeout: 0, // events may be minutes apart
        headersTimeout: this.timeoutMs,
      });
    } catch (err) {
      this.record('WATCH', '<error>', startedAt);
      throw err;
    }
    this.record('WATCH', String(res.statusCode), startedAt);
    if (res.statusCode !== 200) {
      const body = this.decodeBody(res.headers['content-type'], Buffer.from(await res.body.arrayBuffer()));
      const status = body && typeof body === 'object' && (body as Status).kind === 'Status' ? (body as Status) : undefined;
      throw new ApiError(res.statusCode, status, 'WATCH', path);
    }
    const protobufStream = essence(res.headers['content-type']).endsWith('protobuf');
    if (protobufStream && !this.codec) {
      res.body.destroy();
      throw new Error('the server sent a protobuf watch stream, which this client cannot decode');
    }
    const frames = protobufStream ? new LengthDelimitedSplitter() : undefined;
    const json = protobufStream ? undefined : new JsonObjectSplitter();
    try {
      for await (const chunk of res.body) {
        if (frames) for (const f of frames.push(chunk as Buffer)) yield decodeWatchFrame(f, this.codec!);
        else for (const ev of json!.push(chunk as Buffer)) yield ev as WatchEvent;
      }
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    } finally {
      if (!res.body.destroyed) res.body.destroy();
    }
  }

  async close(): Promise<void> {
    this.limiter.stop();
    await Promise.all([this.ownsDispatcher ? this.dispatcher.destroy() : undefined, this.watchDispatcher?.destroy()]);
  }
}

function connectOptionsOf(cfg: ClientConfig): Agent.Options['connect'] {
  return { ca: cfg.ca, cert: cfg.cert, key: cfg.key, rejectUnauthorized: !cfg.insecureSkipTLSVerify };
}
