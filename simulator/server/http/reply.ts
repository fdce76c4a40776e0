// Writing answers (fastify's lib/reply.js in its place): a result or an error as a Status, in the format the
// request's Accept negotiates (JSON, YAML, protobuf, a server-side Table), with its Warning headers; the answer to
// a write waits for the end of the turn (../turn-writes.ts).

import http from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, internalError, isApiError } from '../errors.ts';
import { answerJsonOf, compactJsonOf, encodeAs, encodeJson, listJsonOf, negotiateOutput, wantsPretty, type Negotiated } from '../serializers.ts';
import { JSON_TYPE } from '../media-types.ts';
import type { ApiResult, ResourceRequest, ServerContext } from '../context.ts';
import { parseIncludeObject, tableSourceOf, toTable } from '../table/table.ts';
import type { TurnEndTask } from '../turn-writes.ts';

export type Query = Record<string, string | string[] | undefined>;

/** The first value of each query parameter (the real parameter codec reads the first of repeated ones). */
export function firstValues(q: Query): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  // for...in rather than Object.entries: every request comes here, most with no query at all.
  for (const k in q) {
    if (!Object.hasOwn(q, k)) continue;
    const v = q[k];
    out[k] = Array.isArray(v) ? v[0] : v;
  }
  return out;
}

/** The Status of a request the HTTP layer refused before it reached a route, written straight to the socket. */
export function rawStatusResponse(code: number, reason: string, message: string): string {
  const body = encodeJson({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }, false);
  const phrase = http.STATUS_CODES[code] ?? 'Error';
  return `HTTP/1.1 ${code} ${phrase}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Answers with the object in the negotiated format. `protobufForm` is what protobuf encodes when it differs from
 * the JSON form: discovery documents of the core and extensions groups are written without apiVersion (the
 * real server's stripped encoder) yet framed as meta v1 types in protobuf.
 */
export function sendResult(
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

export function sendError(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply, err: ApiError): FastifyReply {
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
 * Sends a routed request's result, or its error. It does not throw: a failure while sending goes to sendError, and a
 * failure of that to Fastify's error handler (what finishLater did when routeAndSend sent its answer itself).
 */
export function sendOutcome(ctx: ServerContext, req: ResourceRequest, request: FastifyRequest, reply: FastifyReply, outcome: ApiResult | ApiError): void {
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
export class RoutedAnswer implements TurnEndTask {
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

/** The answer of a routed request, with its Warning headers. */
export function sendRouted(ctx: ServerContext, req: ResourceRequest, request: FastifyRequest, reply: FastifyReply, r: ApiResult): FastifyReply {
  if (req.warnings.length) reply.header('Warning', req.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
  return sendResult(ctx, request, reply, r, true, r.object, req.query);
}
