// The Fastify application: one catch-all route that resolves the path like the real server's request-info
// resolver, then dispatches to the verb handlers. Responses are negotiated by Accept; every error is a Status.

import { FairQueue } from './fair-queue.ts';
import { evictPod } from './eviction.ts';
import { readMetrics } from './metrics-api.ts';
import http from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ResourceDef } from '../api/registry.ts';
import { ApiError, internalError, isApiError, methodNotAllowed, methodNotSupported, pathNotFound, requestEntityTooLarge, badRequest } from './errors.ts';
import { queryBool } from './query-params.ts';
import { refuseStreaming, servePodLog } from './pod-log.ts';
import { parseRequestPath, type RequestTarget } from './request-info.ts';
import { answerJsonOf, compactJsonOf, encodeAs, encodeJson, listJsonOf, negotiateOutput, wantsPretty, type Negotiated } from './serializers.ts';
import { JSON_TYPE } from './media-types.ts';
import type { ApiResult, ResourceRequest, ServerContext } from './context.ts';
import * as discovery from './discovery.ts';
import {
  bindPodSubresource,
  create,
  finalizeNamespace,
  getScale,
  rollbackDeployment,
  update,
  updateApproval,
  updateScale,
  updateStatus,
} from './handlers/write.ts';
import { get, getNow, list } from './handlers/read.ts';
import { deleteCollection, deleteObject } from './handlers/delete.ts';
import { prepareWatch } from './handlers/watch.ts';
import { patch } from './handlers/patch.ts';
import { groupResource } from './registry/system-meta.ts';
import { apiVersionOf } from '../api/meta.ts';
import { isOpenApiPath, serveOpenApi } from '../openapi/serve.ts';
import { parseIncludeObject, tableSourceOf, toTable } from './table/table.ts';
import { checkRequest, userOf } from './authorization/filter.ts';
import { requestLogEntry, requestLogLine } from './request-log.ts';
import { atTurnEnd, type TurnEndTask } from './turn-writes.ts';

type Query = Record<string, string | string[] | undefined>;

function firstValues(q: Query): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  // for...in rather than Object.entries: every request comes here, most with no query at all.
  for (const k in q) {
    if (!Object.hasOwn(q, k)) continue;
    const v = q[k];
    out[k] = Array.isArray(v) ? v[0] : v;
  }
  return out;
}

const EXTRA_METHODS = http.METHODS.filter((m) => !['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT'].includes(m));

const VERB_OF_METHOD: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function requireVerb(def: ResourceDef, verb: string): void {
  if (!(def.verbs as string[]).includes(verb)) throw methodNotSupported(groupResource(def), verb);
}

/** How much of an over-limit body is read and thrown away so that the client, still sending, can read the 413. */
const DRAIN_LIMIT = 64 * 1024 * 1024;

/**
 * Reads a request body into a Buffer. Beyond the body limit the rest is read and discarded (up to
 * DRAIN_LIMIT) before the 413 is answered: a client that writes its whole body before it reads (most do)
 * would otherwise see its connection reset mid-write and never the Status. A body that stops arriving is cut
 * by the server's request timeout (408, see clientErrorHandler).
 */
function readBody(limit: number, payload: NodeJS.ReadableStream & { destroy?: (e?: Error) => void }, done: (err: Error | null, body?: Buffer) => void): void {
  new BodyReader(limit, payload, done);
}

// A class rather than closures: under tsx every named closure is wrapped in a naming helper when it is created,
// which every request with a body would pay five times.
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private finished = false;

  constructor(
    private readonly limit: number,
    private readonly payload: NodeJS.ReadableStream,
    private readonly done: (err: Error | null, body?: Buffer) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onError = this.onError.bind(this);
    payload.on('data', this.onData);
    payload.on('end', this.onEnd);
    payload.on('error', this.onError);
  }

  private finish(err: Error | null, body?: Buffer): void {
    if (this.finished) return;
    this.finished = true;
    this.payload.removeListener('data', this.onData);
    this.payload.removeListener('end', this.onEnd);
    this.payload.removeListener('error', this.onError);
    this.done(err, body);
  }

  private onData(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size <= this.limit) this.chunks.push(chunk);
    else if (this.chunks.length > 0) this.chunks.length = 0;
    if (this.size > DRAIN_LIMIT) {
      // Enough: answer now and close the connection (the reply carries Connection: close).
      this.payload.pause();
      this.finish(Object.assign(requestEntityTooLarge(this.limit), { closeConnection: true }));
    }
  }

  private onEnd(): void {
    const { size, limit, chunks } = this;
    if (size > limit) this.finish(requestEntityTooLarge(limit));
    else this.finish(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
  }

  private onError(err: Error): void {
    this.finish(badRequest(`the request body could not be read: ${err.message}`));
  }
}

/** The Status of a request the HTTP layer refused before it reached a route, written straight to the socket. */
function rawStatusResponse(code: number, reason: string, message: string): string {
  const body = encodeJson({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }, false);
  const phrase = http.STATUS_CODES[code] ?? 'Error';
  return `HTTP/1.1 ${code} ${phrase}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** TLS of the secure port: serving certificate and key (PEM); clientCa makes the server ask for client certificates. */
export interface TlsOptions {
  cert: string | Buffer;
  key: string | Buffer;
  clientCa?: string | Buffer;
}

export function buildApp(ctx: ServerContext, tls?: TlsOptions): FastifyInstance {
  const timeouts = ctx.settings.requestReceiveTimeoutMs ?? 60_000;
  // A request whose headers or body do not arrive in time is cut with 408 (clientErrorHandler below). Node
  // checks pending requests every connectionsCheckingInterval, so the cut comes within a fraction of it.
  const serverTimeouts = {
    headersTimeout: Math.min(timeouts, 60_000),
    requestTimeout: timeouts,
    connectionsCheckingInterval: Math.max(100, Math.min(1000, timeouts / 4)),
  };
  const https = tls
    ? // Client certificates are asked for but not required: without one the request goes on to token or
      // anonymous authentication; the authenticator looks at socket.authorized (server/authentication).
      {
        https: { ...serverTimeouts, cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}) },
      }
    : { http: serverTimeouts };
  const app = (Fastify as unknown as (o: object) => FastifyInstance)({
    ...https,
    logger: false,
    // Bodies are read by readBody (the limit is enforced there, after draining).
    bodyLimit: DRAIN_LIMIT * 2,
    requestTimeout: timeouts,
    // Malformed HTTP and requests that time out: a Status body like every other refusal.
    clientErrorHandler: (err: Error & { code?: string }, socket: import('node:net').Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.write(rawStatusResponse(408, 'Timeout', 'the request was not received in time'));
        else if (err.code === 'HPE_HEADER_OVERFLOW') socket.write(rawStatusResponse(431, 'BadRequest', 'the request headers are too large'));
        else socket.write(rawStatusResponse(400, 'BadRequest', `malformed HTTP request: ${err.message}`));
      }
      socket.destroy();
    },
    // Paths like /api/v1/namespaces/a%2Fb must reach the resolver undecoded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 2048 },
    // A path with a malformed %-escape is answered with a Status like every other client error.
    frameworkErrors: (err: Error, _request: FastifyRequest, reply: FastifyReply) => {
      const status = badRequest(`invalid request path: ${err.message}`);
      (reply as FastifyReply).code(400).header('Content-Type', 'application/json').send(Buffer.from(encodeJson(status.status, false)));
    },
  });
  // Methods Fastify does not route by default still reach the resolver, so they answer 405 under the API roots
  // (go-restful's answer) rather than falling through to the plain 404 page.
  for (const m of EXTRA_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => readBody(ctx.settings.bodyLimit, payload, done as (err: Error | null, body?: Buffer) => void));

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
    let apiErr: ApiError;
    if (isApiError(err)) apiErr = err;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiErr = requestEntityTooLarge(ctx.settings.bodyLimit);
    else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) apiErr = badRequest(err.message);
    else apiErr = internalError(err);
    if ((err as { closeConnection?: boolean }).closeConnection) reply.header('Connection', 'close');
    sendError(ctx, request, reply, apiErr);
  });
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send('404 page not found\n');
  });

  // Authentication, impersonation and authorization come before everything else (server/authorization/filter.ts);
  // their 401/403 answers go through the error handler above as Status bodies.
  // Without authentication (the insecure port) there is nothing to check, and no hook at all: Fastify runs a
  // route without onRequest hooks on a shorter path, a cost every request would otherwise pay. (The security
  // context is fixed when the server starts.)
  if (ctx.security.authentication) {
    app.addHook('onRequest', (request, _reply, done) => {
      checkRequest(ctx.security, ctx.store, request.raw).then(() => done(), done);
    });
  }
  const requestLog = ctx.settings.requestLog;
  if (requestLog)
    app.addHook('onResponse', async (request, reply) => requestLog(requestLogLine(requestLogEntry(request, reply, ctx.security.authentication !== undefined))));
  // Not an async handler: dispatch answers every request itself (errors included), so Fastify need not chain a
  // promise per request; see dispatch.
  // Each request is answered through the per-client queues (fair-queue.ts): a busy client's requests wait their
  // turn instead of making everyone else's wait behind all of them.
  const budget = ctx.settings.fairQueueBudgetMs ?? 5;
  const fair = budget > 0 ? new FairQueue({ budgetMs: budget }) : undefined;
  ctx.fairQueue = fair;
  const handler = fair
    ? (request: FastifyRequest, reply: FastifyReply): void => fair.run(flowOf(request.headers['user-agent']), () => dispatch(ctx, request, reply))
    : (request: FastifyRequest, reply: FastifyReply): void => dispatch(ctx, request, reply);
  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', ...EXTRA_METHODS], url: '/*', handler });
  app.route({ method: ['GET'], url: '/', handler: async (_req, reply) => reply.send({ paths: rootPaths(ctx) }) });
  return app;
}

/** A request's flow: the client program that sent it (the User-Agent's product: kubelet, kubectl, ...). */
function flowOf(userAgent: string | undefined): string {
  if (!userAgent) return '';
  const slash = userAgent.indexOf('/');
  return slash < 0 ? userAgent : userAgent.slice(0, slash);
}

function rootPaths(ctx: ServerContext): string[] {
  const paths = new Set(['/api', '/api/v1', '/apis', '/healthz', '/openapi/v2', '/openapi/v3', '/version']);
  for (const d of ctx.registry.defs) {
    if (d.group) {
      paths.add(`/apis/${d.group}`);
      paths.add(`/apis/${d.group}/${d.version}`);
    }
  }
  return [...paths].sort();
}

/**
 * Answers with the object in the negotiated format. `protobufForm` is what protobuf encodes when it differs from
 * the JSON form: discovery documents of the core and extensions groups are written without apiVersion (the
 * real server's stripped encoder) yet framed as meta v1 types in protobuf.
 */
function sendResult(
  ctx: ServerContext,
  request: FastifyRequest,
  reply: FastifyReply,
  result: ApiResult,
  protobufOk = true,
  protobufForm: object = result.object,
  query: Record<string, string | undefined> = firstValues(request.query as Query),
): FastifyReply {
  const accept = request.headers.accept;
  // Server-side printing (simulator/server/table) is looked at only when the client asks for a Table at all.
  const tableSource = accept !== undefined && accept.includes('Table') ? tableSourceOf(ctx.registry, result.object) : undefined;
  // No Accept (or an empty one) means JSON whatever else the object could be: nothing to look up for it.
  const negotiated =
    accept === undefined || accept === ''
      ? JSON_ANSWER
      : negotiateOutput(accept, {
          stream: false,
          protobuf: ctx.protobuf,
          protobufOk: protobufOk && hasProtobufForm(ctx, protobufForm),
          table: tableSource !== undefined,
        });
  const pretty = wantsPretty(query, request.headers['user-agent']);
  let body: string | Buffer;
  if (negotiated.table && tableSource) {
    const table = toTable(tableSource, result.object, {
      version: negotiated.table,
      includeObject: parseIncludeObject(query.includeObject),
      now: ctx.now().getTime(),
      headers: true,
    });
    body = encodeAs(negotiated.format, table, pretty, ctx.protobuf);
  } else if (negotiated.format === 'json' && !pretty && Object.isFrozen(result.object)) {
    // Stored objects are frozen and never change (storage README): the compact JSON of one read often is computed
    // once (compactJsonOf), and the answer to a write shares its encoding with the watch frames of the same change
    // when it is watched, without keeping it otherwise (answerJsonOf).
    body = request.method === 'GET' ? compactJsonOf(result.object) : answerJsonOf(result.object, result.json);
  } else if (negotiated.format === 'json' && !pretty && result.listSources) {
    body = listJsonOf(result.object as Parameters<typeof listJsonOf>[0], result.listSources);
  } else body = encodeAs(negotiated.format, negotiated.format === 'protobuf' ? protobufForm : result.object, pretty, ctx.protobuf);
  // A text body goes through a serializer that leaves it as it is: Fastify would otherwise append "; charset=utf-8"
  // to a JSON Content-Type the real server sends bare. (Text rather than bytes: node writes the headers and the
  // text in one write, encoding it on the way, instead of a buffer made here and a second chunk.)
  reply.code(result.code).header('Content-Type', negotiated.contentType);
  return typeof body === 'string' ? reply.serializer(asIs).send(body) : reply.send(body);
}

const JSON_ANSWER: Negotiated = Object.freeze({ format: 'json', contentType: JSON_TYPE });

/** The serializer of text bodies: they are already encoded (see sendResult). */
const asIs = (payload: unknown): string => payload as string;


function hasProtobufForm(ctx: ServerContext, obj: object): boolean {
  const o = obj as { apiVersion?: string; kind?: string };
  // Documents written without apiVersion (stripped discovery) or kind cannot be framed as protobuf: they negotiate
  // JSON or YAML only (a protobuf-only Accept gets 406 rather than a 500 from the encoder).
  if (!ctx.protobuf || !o.apiVersion || !o.kind) return false;
  return ctx.protobuf.hasProtobuf(o.apiVersion, o.kind);
}

function sendError(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  if (err.code === 406) {
    // No serializer could be agreed on: the real server writes this one as pretty JSON.
    return reply.code(406).header('Content-Type', 'application/json').send(Buffer.from(encodeJson(err.status, true)));
  }
  try {
    return sendResult(ctx, request, reply, { code: err.code, object: err.status });
  } catch (e) {
    // No serializer for the error either: the real server answers the negotiation failure (406), not the error.
    if (isApiError(e) && e.code === 406) return sendError(ctx, request, reply, e);
    return reply.code(err.code).header('Content-Type', 'application/json').send(Buffer.from(encodeJson(err.status, false)));
  }
}

/**
 * Answers one request, errors included. The handler returns no promise to Fastify (a chained promise and the
 * reply's own thenable per request were a measurable part of a GET), and what can be answered in the turn the
 * request was read in is: only a request that waits on storage goes through a promise.
 */
function dispatch(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
  let pending: FastifyReply | Promise<void | Routed> | void;
  try {
    pending = answer(ctx, request, reply);
  } catch (e) {
    // Only a failure while answering an error lands here: Fastify's error handler (above) has the last word.
    if (!reply.sent) reply.send(e);
    return;
  }
  if (pending instanceof Promise) void finishLater(pending, reply);
  else if (!reply.sent) reply.send();
}

/** dispatch's end for a request that waited: the same last word, and the same empty answer. */
async function finishLater(pending: Promise<void | Routed>, reply: FastifyReply): Promise<void> {
  try {
    if ((await pending) === ANSWER_AT_TURN_END) return;
  } catch (e) {
    if (!reply.sent) reply.send(e);
    return;
  }
  // What an async handler resolving without an answer got from Fastify: an empty 200 (no route does this).
  // (A hijacked reply, a watch or a log stream, counts as sent.)
  if (!reply.sent) reply.send();
}

/** Answers at once (a reply, or nothing) or with a promise of the answer when the request waits on storage. */
function answer(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<void | Routed> | void {
  const url = request.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  try {
    // Like Go's ServeMux, a path with empty, "." or ".." segments is redirected to its clean form.
    const clean = cleanPath(path);
    if (clean !== path) {
      const query = url.slice(path.length);
      return reply
        .code(301)
        .header('Location', clean + query)
        .header('Content-Type', 'text/html; charset=utf-8')
        .send(`<a href="${clean + query}">Moved Permanently</a>.\n`);
    }
    if (path === '/healthz' || path.startsWith('/healthz/') || path === '/livez' || path === '/readyz') {
      return reply.header('Content-Type', 'text/plain; charset=utf-8').send('ok');
    }
    // The Python client's VersionApi asks for /version/.
    // Written as the real server's version handler writes it (WriteRawJSON: indented JSON, whatever the Accept).
    if (path === '/version' || path === '/version/')
      return reply
        .code(200)
        .header('Content-Type', 'application/json')
        .send(Buffer.from(JSON.stringify(versionInfo(), null, 2)));
    // OpenAPI documents (simulator/openapi): /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>.
    if (isOpenApiPath(path)) return serveOpenApi(ctx.registry, ctx.protobuf?.mediaType ?? 'application/vnd.kubernetes.protobuf', request, reply);
    const target = parseRequestPath(path);
    if (target.type !== 'resource') return serveDiscovery(ctx, request, reply, target);
    const def = ctx.registry.lookup(target.group, target.version, target.resource);
    if (!def) {
      if (!ctx.registry.servesGroupVersion(target.group, target.version)) return reply.callNotFound();
      throw pathNotFound();
    }
    if (target.extra) throw pathNotFound();
    if (def.namespaced && target.name !== undefined && target.namespace === undefined) throw pathNotFound();
    if (!def.namespaced && target.namespace !== undefined) throw pathNotFound();
    const req: ResourceRequest = {
      def,
      method: request.method,
      path,
      namespace: target.namespace,
      name: target.name,
      subresource: target.subresource,
      watchPath: target.watchPath,
      query: firstValues(request.query as Query),
      headers: request.headers,
      body: Buffer.isBuffer(request.body) ? request.body : undefined,
      warnings: [],
      user: userOf(request.raw),
    };
    // GET of one object from a store that reads in this process: answered now, as route would (same checks).
    if (req.method === 'GET' && req.name !== undefined && req.subresource === undefined && !req.watchPath && !def.computed) {
      requireVerb(def, 'get');
      const now = getNow(ctx, req);
      if (now !== undefined) return sendRouted(ctx, req, request, reply, now);
    }
    return routeAndSend(ctx, req, request, reply);
  } catch (e) {
    const err = isApiError(e) ? e : internalError(e);
    return sendError(ctx, request, reply, err);
  }
}

/** What routeAndSend resolves to when its answer waits for the end of the turn (finishLater then leaves it alone). */
const ANSWER_AT_TURN_END = 'answer at turn end';

type Routed = typeof ANSWER_AT_TURN_END | undefined;

async function routeAndSend(ctx: ServerContext, req: ResourceRequest, request: FastifyRequest, reply: FastifyReply): Promise<Routed> {
  let outcome: ApiResult | ApiError;
  try {
    const result = await route(ctx, req, reply);
    if (result === undefined) return undefined;
    outcome = result;
  } catch (e) {
    outcome = isApiError(e) ? e : internalError(e);
  }
  // A read is answered at once: its client (kubectl, an informer's list) waits for that one answer. The answer to a
  // write is written with the other writes' answers that became ready in this turn, at its end (turn-writes.ts).
  if (req.method === 'GET') {
    sendOutcome(ctx, req, request, reply, outcome);
    return undefined;
  }
  atTurnEnd(new RoutedAnswer(ctx, req, request, reply, outcome));
  return ANSWER_AT_TURN_END;
}

/**
 * Sends a routed request's result, or its error. It does not throw: a failure while sending goes to sendError, and a
 * failure of that to Fastify's error handler (what finishLater did when routeAndSend sent its answer itself).
 */
function sendOutcome(ctx: ServerContext, req: ResourceRequest, request: FastifyRequest, reply: FastifyReply, outcome: ApiResult | ApiError): void {
  try {
    if (outcome instanceof ApiError) sendError(ctx, request, reply, outcome);
    else sendRouted(ctx, req, request, reply, outcome);
  } catch (e) {
    try {
      if (!reply.sent) sendError(ctx, request, reply, isApiError(e) ? e : internalError(e));
    } catch {
      if (!reply.sent) reply.send(e);
    }
  }
}

/** A write's answer, or its error, waiting for the end of the turn (turn-writes.ts). */
class RoutedAnswer implements TurnEndTask {
  constructor(
    private readonly ctx: ServerContext,
    private readonly req: ResourceRequest,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly outcome: ApiResult | ApiError,
  ) {}

  run(): void {
    sendOutcome(this.ctx, this.req, this.request, this.reply, this.outcome);
  }
}

/** Go's path.Clean for request paths, keeping a trailing slash as ServeMux does. */
export function cleanPath(p: string): string {
  // Most paths hold neither "//" nor "/.": two substring scans answer before any regular expression runs.
  if (!p.includes('//') && (!p.includes('/.') || !/\/\.\.?(\/|$)/.test(p))) return p;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  let cleaned = '/' + out.join('/');
  if (p.endsWith('/') && cleaned !== '/') cleaned += '/';
  return cleaned;
}

function versionInfo(): object {
  return {
    major: '1',
    minor: '9',
    gitVersion: 'v1.9.0-simulator',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'node' + process.versions.node,
    compiler: 'tsx',
    platform: `${process.platform}/${process.arch}`,
  };
}

function serveDiscovery(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, target: RequestTarget): FastifyReply {
  if (request.method !== 'GET') throw methodNotAllowed();
  let doc: object | undefined;
  switch (target.type) {
    case 'discovery-core':
      doc = discovery.coreVersions(ctx.settings.serverAddress);
      break;
    case 'discovery-groups':
      doc = discovery.groupList(ctx.registry);
      break;
    case 'discovery-group':
      doc = discovery.group(ctx.registry, target.group);
      break;
    case 'discovery-resources':
      doc = discovery.resourceList(ctx.registry, target.group, target.version);
      break;
  }
  if (!doc) {
    reply.callNotFound();
    return reply;
  }
  const o = doc as { apiVersion?: string };
  return sendResult(ctx, request, reply, { code: 200, object: doc }, true, o.apiVersion ? doc : { ...doc, apiVersion: 'v1' });
}

/** The answer of a routed request, with its Warning headers. */
function sendRouted(ctx: ServerContext, req: ResourceRequest, request: FastifyRequest, reply: FastifyReply, r: ApiResult): FastifyReply {
  if (req.warnings.length) reply.header('Warning', req.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  return sendResult(ctx, request, reply, r, true, r.object, req.query);
}

/** The result a routed request answers with (sent by the caller), or undefined when the route answered itself. */
async function route(ctx: ServerContext, req: ResourceRequest, reply: FastifyReply): Promise<ApiResult | undefined> {
  const { def, method } = req;
  const isWatch = req.watchPath || (method === 'GET' && req.name === undefined && queryBool(req.query.watch) === true);
  if (isWatch) {
    if (method !== 'GET' || req.subresource) throw methodNotAllowed();
    requireVerb(def, 'watch');
    const watch = await prepareWatch(ctx, req);
    reply.hijack();
    watch.serve(reply.raw);
    return undefined;
  }
  if (def.computed) {
    // metrics.k8s.io: computed on read, get and list only.
    if (method !== 'GET' || req.subresource) throw methodNotAllowed();
    requireVerb(def, req.name === undefined ? 'list' : 'get');
    return await readMetrics(ctx, req);
  }
  if (req.name === undefined) {
    const clusterWide = def.namespaced && req.namespace === undefined;
    if (method === 'GET') {
      requireVerb(def, 'list');
      return await list(ctx, req);
    }
    if (clusterWide) throw methodNotAllowed();
    if (method === 'POST') {
      requireVerb(def, 'create');
      return await create(ctx, req);
    }
    if (method === 'DELETE') {
      requireVerb(def, 'deletecollection');
      return await deleteCollection(ctx, req);
    }
    throw methodNotAllowed();
  }
  if (req.subresource === undefined) {
    const verb = VERB_OF_METHOD[method];
    if (!verb || verb === 'create') throw methodNotAllowed();
    requireVerb(def, verb);
    switch (method) {
      case 'GET': return await get(ctx, req);
      case 'PUT': return await update(ctx, req);
      case 'PATCH': return await patch(ctx, req);
      case 'DELETE': return await deleteObject(ctx, req);
    }
  }
  const sub = req.subresource;
  if (sub === 'status' && def.subresources.status) {
    switch (method) {
      case 'GET': return await get(ctx, { ...req, query: {} });
      case 'PUT': return await updateStatus(ctx, req);
      case 'PATCH': return await patch(ctx, req);
    }
    throw methodNotAllowed();
  }
  if (sub === 'approval' && def.subresources.approval) {
    switch (method) {
      case 'GET': return await get(ctx, { ...req, query: {} });
      case 'PUT': return await updateApproval(ctx, req);
      case 'PATCH': return await patch(ctx, req);
    }
    throw methodNotAllowed();
  }
  if (sub === 'scale' && def.subresources.scale) {
    switch (method) {
      case 'GET': return await getScale(ctx, req);
      case 'PUT': return await updateScale(ctx, req);
      case 'PATCH': return await patch(ctx, req);
    }
    throw methodNotAllowed();
  }
  if (sub === 'binding' && def.subresources.binding) {
    if (method === 'POST') return await bindPodSubresource(ctx, req);
    throw methodNotAllowed();
  }
  if (sub === 'eviction' && def.subresources.eviction) {
    if (method === 'POST') return await evictPod(ctx, req);
    throw methodNotAllowed();
  }
  if (sub === 'rollback' && def.subresources.rollback) {
    if (method === 'POST') return await rollbackDeployment(ctx, req);
    throw methodNotAllowed();
  }
  if (sub === 'finalize' && def.subresources.finalize) {
    if (method === 'PUT') return await finalizeNamespace(ctx, req);
    throw methodNotAllowed();
  }
  if (sub === 'log' && def.subresources.log) {
    if (method === 'GET') {
      await servePodLog(ctx, req, reply);
      return undefined;
    }
    throw methodNotAllowed();
  }
  if ((sub === 'exec' || sub === 'attach' || sub === 'portforward') && def.subresources[sub]) return refuseStreaming(ctx, req, sub);
  throw pathNotFound();
}

export { apiVersionOf };
