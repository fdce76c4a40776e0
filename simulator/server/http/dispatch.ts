// Dispatch (fastify's lib/handleRequest.js in its place): a request path resolved like the real server's
// request-info resolver (../request-info.ts), then health, version, OpenAPI, discovery, or a resource: its verb
// handler (../handlers/), or its subresource's storage from the table (../subresources/table.ts). Answers go out
// through reply.ts; the app (../app.ts) reads bodies with body.ts and calls `dispatch` for every request.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceDef } from '../../api/registry.ts';
import { ApiError, internalError, isApiError, methodNotAllowed, methodNotSupported, pathNotFound } from '../errors.ts';
import { queryBool } from '../query-params.ts';
import { parseRequestPath, type RequestTarget } from '../request-info.ts';
import type { AggregatedApis, AggregatedBackend, ApiResult, ResourceRequest, ServerContext } from '../context.ts';
import { proxyToApiService } from '../aggregator/proxy.ts';
import * as discovery from '../discovery.ts';
import { create, update } from '../handlers/write.ts';
import { get, getNow, list } from '../handlers/read.ts';
import { deleteCollection, deleteObject } from '../handlers/delete.ts';
import { prepareWatch } from '../handlers/watch.ts';
import { patch } from '../handlers/patch.ts';
import { readMetrics } from '../metrics-api.ts';
import { readComponentStatuses } from '../component-statuses.ts';
import { subresourceStorage } from '../subresources/table.ts';
import { groupResource } from '../registry/system-meta.ts';
import { isOpenApiPath, serveOpenApi } from '../../openapi/serve.ts';
import { userOf } from '../authorization/filter.ts';
import { atTurnEnd } from '../turn-writes.ts';
import { firstValues, RoutedAnswer, sendError, sendOutcome, sendResult, sendRouted, type Query } from './reply.ts';

/** The read of each computed kind (ResourceDef.computed), keyed by kind as the virtual creates are; metrics otherwise. */
const COMPUTED_READS: Record<string, typeof readMetrics> = { ComponentStatus: readComponentStatuses, PodMetrics: readMetrics, NodeMetrics: readMetrics };

const VERB_OF_METHOD: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

function requireVerb(def: ResourceDef, verb: string): void {
  if (!(def.verbs as string[]).includes(verb)) throw methodNotSupported(groupResource(def), verb);
}

/**
 * Answers one request, errors included. The handler returns no promise to Fastify (a chained promise and the
 * reply's own thenable per request were a measurable part of a GET), and what can be answered in the turn the
 * request was read in is: only a request that waits on storage goes through a promise.
 */
export function dispatch(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): void {
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
    const routed = await pending;
    if (routed === ANSWER_AT_TURN_END || routed === ANSWERED_BY_PROXY) return;
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
    // A group version an APIService names a Service for: the aggregated server answers it (aggregator/proxy.ts).
    if (ctx.aggregator && path.startsWith('/apis/')) {
      const backend = aggregatedBackend(ctx.aggregator, path);
      // Its answer may still be streaming when the promise settles: finishLater leaves the reply alone.
      if (backend) return proxyToApiService(backend, request, reply).then((): Routed => ANSWERED_BY_PROXY);
    }
    const target = parseRequestPath(path);
    if (target.type !== 'resource') return serveDiscovery(ctx, request, reply, target);
    const def = ctx.registry.lookup(target.group, target.version, target.resource);
    if (!def) {
      if (!ctx.registry.servesGroupVersion(target.group, target.version)) return reply.callNotFound();
      throw pathNotFound();
    }
    // Only a proxy has a path beyond its subresource (passed on to the target).
    if (target.extra && target.subresource !== 'proxy') throw pathNotFound();
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

/** The aggregated backend of /apis/<group>/<version>[/...], if any. */
function aggregatedBackend(aggregator: AggregatedApis, path: string): AggregatedBackend | undefined {
  const [group, version] = path.slice('/apis/'.length).split('/', 2);
  return group && version ? aggregator.backendOf(group, version) : undefined;
}

/** What routeAndSend resolves to when its answer waits for the end of the turn (finishLater then leaves it alone). */
const ANSWER_AT_TURN_END = 'answer at turn end';

/** What an aggregated API's request resolves to: the proxy answers (and streams) itself. */
const ANSWERED_BY_PROXY = 'answered by the proxy';

type Routed = typeof ANSWER_AT_TURN_END | typeof ANSWERED_BY_PROXY | undefined;

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
      doc = discovery.groupList(ctx.registry, ctx.aggregator?.available());
      break;
    case 'discovery-group':
      doc = discovery.group(ctx.registry, target.group, ctx.aggregator?.available());
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
    // metrics.k8s.io and componentstatuses: computed on read, get and list only.
    if (method !== 'GET' || req.subresource) throw methodNotAllowed();
    requireVerb(def, req.name === undefined ? 'list' : 'get');
    return await (COMPUTED_READS[def.kind] ?? readMetrics)(ctx, req);
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
  // A subresource: its storage from the table, when the kind declares it (../subresources/table.ts).
  const storage = subresourceStorage(def, req.subresource!);
  if (!storage) throw pathNotFound();
  const handler = storage.any ?? (Object.hasOwn(storage, method) ? storage[method as keyof typeof storage] : undefined);
  if (!handler) throw methodNotAllowed();
  return await handler(ctx, req, reply);
}
