// The Fastify application: server options and timeouts, the security filter, the request log, the per-client queues
// and one catch-all route. What a request goes through is one file per concern in http/ (as fastify's lib/):
// body.ts reads the body, dispatch.ts resolves the path and routes it (verb handlers, the subresource table),
// reply.ts writes the answer or the Status of an error.

import http from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, internalError, isApiError, requestEntityTooLarge, badRequest } from './errors.ts';
import { encodeJson } from './serializers.ts';
import type { ServerContext } from './context.ts';
import { FairQueue } from './fair-queue.ts';
import { checkRequest } from './authorization/filter.ts';
import { requestLogEntry, requestLogLine } from './request-log.ts';
import { DRAIN_LIMIT, readBody } from './http/body.ts';
import { dispatch } from './http/dispatch.ts';
import { rawStatusResponse, sendError } from './http/reply.ts';

const EXTRA_METHODS = http.METHODS.filter((m) => !['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT'].includes(m));

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
