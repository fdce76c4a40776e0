// A request under /apis/<group>/<version> of an aggregated APIService, proxied as 1.9's aggregator proxies it:
// to https://<the Service's endpoint><the same path and query>, with the TLS settings of the APIService, the
// client's headers less its credentials (the authentication filter removed Authorization; impersonation headers
// were acted on), and who the server authenticated as X-Remote-User, X-Remote-Group (one per group) and
// X-Remote-Extra-<key>. The answer is streamed back as it comes (watches included). An APIService whose last
// check failed answers 503 "service unavailable"; a backend that cannot be reached, 503 with the error.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { request as Send } from 'undici';
import { undici } from './undici-on-use.ts';
import type { AggregatedBackend } from '../context.ts';
import { userOf } from '../authorization/filter.ts';

/** Headers of one connection (RFC 7230 6.1), and those the aggregator sets or takes away itself. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);
const DROPPED_PREFIXES = ['impersonate-', 'x-remote-'];

function forwardedHeaders(request: FastifyRequest): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'authorization' || DROPPED_PREFIXES.some((p) => name.startsWith(p))) continue;
    out[name] = value;
  }
  const user = userOf(request.raw);
  out['x-remote-user'] = user.name;
  if (user.groups.length) out['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) out[`x-remote-extra-${encodeURIComponent(key.toLowerCase())}`] = [...values];
  return out;
}

function textError(reply: FastifyReply, code: number, message: string): FastifyReply {
  return reply.code(code).header('content-type', 'text/plain; charset=utf-8').header('x-content-type-options', 'nosniff').send(`${message}\n`);
}

export async function proxyToApiService(backend: AggregatedBackend, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!backend.available) {
    textError(reply, 503, 'service unavailable');
    return;
  }
  const base = await backend.resolve();
  if (!base) {
    textError(reply, 503, 'service unavailable');
    return;
  }
  const body = Buffer.isBuffer(request.body) && request.body.length ? request.body : undefined;
  let res: Awaited<ReturnType<typeof Send>>;
  const send = undici().request;
  try {
    res = await send(base + request.url, {
      method: request.method as 'GET',
      headers: forwardedHeaders(request),
      body,
      dispatcher: backend.dispatcher,
      // A watch may stay open as long as its client wants: no body timeout.
      bodyTimeout: 0,
    });
  } catch (err) {
    textError(reply, 503, `Error: '${(err as Error).message}'`);
    return;
  }
  reply.code(res.statusCode);
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && (!HOP_BY_HOP.has(name) || name === 'content-length')) reply.header(name, value);
  // The client went away: so does the backend's answer (a watch ends there too).
  reply.raw.once('close', () => res.body.destroy());
  reply.send(res.body);
}
