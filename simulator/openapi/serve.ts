// HTTP serving of the OpenAPI documents the way the real server's handlers do it:
// - GET /openapi/v2: JSON, or the gnostic protobuf form that kubectl asks for (Accept
//   application/com.github.proto-openapi.spec.v2@v1.0+protobuf, answered as ...spec.v2.v1.0+protobuf); else 406.
//   ETag (quoted SHA-512 of the JSON), Last-Modified, If-None-Match -> 304.
// - GET /openapi/v3: the index {"paths": {"<key>": {"serverRelativeURL": "/openapi/v3/<key>?hash=<HASH>"}}}.
// - GET /openapi/v3/<key>[?hash=H]: one document. With the current hash: Cache-Control "public, immutable" and an
//   Expires a year ahead; with a stale hash: 301 to the current URL. JSON only (the v3 protobuf form is not served:
//   a protobuf-only Accept gets 406).
// Documents are generated on the first request and cached per registry.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../api/registry.ts';
import { buildDocuments, type OpenApiDocuments, type SerializedDocument } from './documents.ts';
import { encodeV2Protobuf } from './v2-protobuf.ts';

const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const V2_PROTOBUF_ALT = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Cached {
  docs: OpenApiDocuments;
  v2Protobuf?: Buffer;
}

const cache = new WeakMap<Registry, Map<string, Cached>>();

/** The documents of that registry (built once per registry, protobuf media type and scheme served). */
export function documentsFor(registry: Registry, protobufMediaType: string, scheme: 'http' | 'https' = 'https'): Cached {
  let byType = cache.get(registry);
  if (!byType) cache.set(registry, (byType = new Map()));
  const key = `${protobufMediaType} ${scheme}`;
  let entry = byType.get(key);
  if (!entry) byType.set(key, (entry = { docs: buildDocuments(registry, { protobufMediaType, scheme }) }));
  return entry;
}

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string | undefined): AcceptClause[] {
  const value = header && header.trim() !== '' ? header : '*/*';
  const out: AcceptClause[] = [];
  for (const part of value.split(',')) {
    const [range, ...params] = part.trim().split(';');
    const slash = range.indexOf('/');
    if (slash < 0) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    if (!(q > 0)) continue;
    out.push({ type: range.slice(0, slash).trim().toLowerCase(), subtype: range.slice(slash + 1).trim().toLowerCase(), q });
  }
  // Stable sort by quality: equal qualities keep the client's order.
  return out.map((c, i) => ({ c, i })).sort((a, b) => b.c.q - a.c.q || a.i - b.i).map((x) => x.c);
}

/** The first offered media type the Accept header takes, in the client's order of preference. */
function negotiate(header: string | undefined, offered: string[]): string | undefined {
  for (const clause of parseAccept(header)) {
    for (const mt of offered) {
      const slash = mt.indexOf('/');
      const type = mt.slice(0, slash);
      const subtype = mt.slice(slash + 1);
      if ((clause.type === '*' || clause.type === type) && (clause.subtype === '*' || clause.subtype === subtype)) return mt;
    }
  }
  return undefined;
}

function notModified(request: FastifyRequest, etag: string, lastModified: Date): boolean {
  const inm = request.headers['if-none-match'];
  if (typeof inm === 'string') return inm.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === etag);
  const ims = request.headers['if-modified-since'];
  if (typeof ims === 'string') {
    const since = Date.parse(ims);
    return !Number.isNaN(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
  }
  return false;
}

function send(request: FastifyRequest, reply: FastifyReply, body: Buffer, contentType: string, etag: string, lastModified: Date): FastifyReply {
  reply.header('Etag', etag).header('Last-Modified', lastModified.toUTCString());
  if (notModified(request, etag, lastModified)) return reply.code(304).send();
  reply.code(200).header('Content-Type', contentType);
  return request.method === 'HEAD' ? reply.header('Content-Length', String(body.length)).send() : reply.send(body);
}

function notAcceptable(reply: FastifyReply): FastifyReply {
  return reply.code(406).header('Content-Type', 'text/plain; charset=utf-8').send(Buffer.from('406 Not Acceptable\n'));
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('Content-Type', 'text/plain; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff')
    .send(Buffer.from('404 page not found\n'));
}

/** Whether this path is served here (/openapi/v2, /openapi/v3, /openapi/v3/...). */
export function isOpenApiPath(path: string): boolean {
  return path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/');
}

export function serveOpenApi(registry: Registry, protobufMediaType: string, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const [path, queryString] = request.url.split('?', 2);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return reply.code(405).header('Allow', 'GET, HEAD').header('Content-Type', 'text/plain; charset=utf-8').send(Buffer.from('405 Method Not Allowed\n'));
  }
  // The operations' schemes say how this server is reached: plain HTTP (the insecure port) or HTTPS.
  const entry = documentsFor(registry, protobufMediaType, request.protocol === 'http' ? 'http' : 'https');
  const { docs } = entry;
  reply.header('Vary', 'Accept');
  if (path === '/openapi/v2') {
    const mt = negotiate(request.headers.accept, ['application/json', V2_PROTOBUF, V2_PROTOBUF_ALT]);
    if (!mt) return notAcceptable(reply);
    const etag = `"${docs.v2.hash}"`;
    if (mt === 'application/json') return send(request, reply, docs.v2.json, 'application/json', etag, docs.lastModified);
    entry.v2Protobuf ??= encodeV2Protobuf(JSON.parse(docs.v2.json.toString('utf8')));
    // Either protobuf name is answered with the one without "@": Go's mime parser (client-go) rejects a
    // Content-Type with "@" in it, as the real handler knows.
    return send(request, reply, entry.v2Protobuf, V2_PROTOBUF_ALT, etag, docs.lastModified);
  }
  if (path === '/openapi/v3') {
    return send(request, reply, docs.v3Index.json, 'application/json', `"${docs.v3Index.hash}"`, docs.lastModified);
  }
  const key = path.slice('/openapi/v3/'.length).replace(/\/+$/, '');
  const doc: SerializedDocument | undefined = docs.v3.get(key);
  if (!doc) return notFound(reply);
  if (!negotiate(request.headers.accept, ['application/json'])) return notAcceptable(reply);
  const hash = new URLSearchParams(queryString ?? '').get('hash');
  if (hash) {
    if (hash !== doc.hash) {
      const location = `/openapi/v3/${key}?hash=${doc.hash}`;
      return reply
        .code(301)
        .header('Location', location)
        .header('Content-Type', 'text/html; charset=utf-8')
        .send(Buffer.from(`<a href="${location}">Moved Permanently</a>.\n\n`));
    }
    const expires = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    reply.header('Cache-Control', 'public, immutable').header('Expires', expires.toUTCString());
  }
  return send(request, reply, doc.json, 'application/json', `"${doc.hash}"`, docs.lastModified);
}
