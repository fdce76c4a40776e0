// Encoding of responses and decoding of request bodies per media type (spec 4.1, wire-facts 1.1).

import { dumpYaml, loadAllYaml } from '../codec/yaml.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';
import { JSON_TYPE, YAML_TYPE, parseAccept, matches, essence, type MediaRange } from './media-types.ts';
import { ApiError, badRequest, notAcceptable, requestEntityTooLarge, unsupportedMediaType } from './errors.ts';
import { DocumentLimitError, checkExpandedValue, checkJsonTextDepth } from '../api/json-limits.ts';
import { goParseBool } from './query-params.ts';
import { EncodedCache } from './encoded-cache.ts';

/** A protobuf codec plugged in at start-up (simulator/codec/protobuf.ts), so negotiation does not hard-wire it. */
export interface BinaryCodec {
  mediaType: string;
  encodeObject(obj: object): Buffer;
  decodeObject(buf: Uint8Array): object;
  encodeWatchEvent(type: string, obj: object): Buffer;
  hasProtobuf(apiVersion: string, kind: string): boolean;
}

const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };
const NEEDS_ESCAPE = /[<>&\u2028\u2029]/g;

/** Compact JSON as Go's encoder writes it: HTML-sensitive characters escaped, one trailing newline. */
export function encodeJson(value: unknown, pretty: boolean): string {
  const s = goEscaped(pretty ? stringifyJson(value, 2) : stringifyJson(value));
  return pretty ? s : s + '\n';
}

/** JSON.stringify's text with the characters Go's encoder escapes escaped. */
function goEscaped(s: string): string {
  if (!needsEscape(s)) return s;
  NEEDS_ESCAPE.lastIndex = 0;
  return s.replace(NEEDS_ESCAPE, (c) => HTML_ESCAPES[c]);
}

// Compact JSON of stored objects, bounded by bytes (encoded-cache.ts): an object read often (GET of one object) is
// encoded once, and a write's answer and the watch frames of the same change share one encoding of the object.
const jsonCache = new EncodedCache(16 * 1024 * 1024);

/** encodeJson(obj, false) of a stored (frozen, never changed) object, through the cache. Ends with a newline. */
export function compactJsonOf(obj: object): Buffer {
  return jsonCache.get(obj, 'json', () => ownedBytes(encodeJson(obj, false))) as Buffer;
}

/**
 * The UTF-8 bytes of `s` in a buffer of their own, allocated once at their size. Buffer.from would write a small
 * string into a shared 8 KiB slab, which the cache then has to copy out (encoded-cache.ts, ownBytes): one
 * allocation and one copy per answer saved (measured: buffer allocation and copying were a third of the encoding's
 * cost in a PATCH).
 */
function ownedBytes(s: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(s));
  bytes.write(s);
  return bytes;
}

/**
 * The compact JSON of a stored object a write answers with: the encoding its watch frames already made when the
 * change is watched (one encoding for the writer and every watcher), else the text, encoded here or given by the
 * store (StoredObject.json), and not kept. Keeping every write's answer, as compactJsonOf would, held an own buffer
 * per create for no reader: measured, the RSS per stored ConfigMap went from 1.30x to 2.36x its JSON at 100k
 * creates (freed small buffers fragment the process heap). A text goes to the socket as it is: node writes the
 * headers and a text body in one write and encodes it there, with no buffer made for it (see app.ts sendResult).
 */
export function answerJsonOf(obj: object, json?: string): Buffer | string {
  const cached = jsonCache.peek(obj, 'json') as Buffer | undefined;
  if (cached !== undefined) return cached;
  return goEscaped(json ?? stringifyJson(obj)) + '\n';
}

/**
 * Stored objects a list has encoded once without keeping the bytes. A second list of the same object (the same
 * version: stored objects are never changed) keeps its encoding, so a list read again and again (a probe, a
 * dashboard, `kubectl get -w` relisting, a controller's relist) is served from cached bytes, while a single pass
 * over the whole store (`kubectl get pods -A`) still pushes nothing out. Weak: an object gone from the store goes
 * from here too.
 */
const listedOnce = new WeakSet<object>();

const OPEN = Buffer.from('{');

/**
 * encodeJson(list, false) of a typed list, whose `items[i]` is `sources[i]` without kind and apiVersion (a typed
 * list's items carry neither on the wire): an item made from a stored object whose compact JSON is cached (every
 * watched change is, jsonWatchFrame; so is an object listed a second time, listedOnce) is that text with its
 * first two members cut, copied into the answer rather than encoded again. Other items are encoded here and not
 * kept. The answer is one buffer, written once: the pieces are measured, then copied or written into it.
 * Measured over HTTP with 100,000 stored pods: a LIST of 500 Running pods (730 KB) listed again and again in
 * 2.3-2.8 ms instead of 14-16 (p50); one pass over all of them in chunks of 500 in 2.6 s instead of 4.7 (the
 * joined text and its encoding on the socket cost more than the copies into one buffer).
 */
export function listJsonOf(list: { kind: string; apiVersion: string; metadata: object; items: readonly object[] }, sources: readonly object[]): Buffer {
  const head = goEscaped(stringifyJson({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata }));
  const items = list.items;
  const parts = new Array<Buffer | string>(items.length * 2);
  let n = 0;
  // The text a cached item opens with, made once per kind and apiVersion met.
  let lead: Buffer | undefined;
  let leadKind: unknown;
  let leadApiVersion: unknown;
  for (let i = 0; i < items.length; i++) {
    const src = sources[i] as { kind?: unknown; apiVersion?: unknown };
    // Only stored (frozen) objects are ever cached (compactJsonOf): anything else misses here.
    let cached = jsonCache.touch(src, 'json') as Buffer | undefined;
    if (cached === undefined && Object.isFrozen(src)) {
      if (listedOnce.has(src)) {
        listedOnce.delete(src);
        cached = compactJsonOf(src);
      } else listedOnce.add(src);
    }
    if (cached !== undefined) {
      // Stored objects are canonical (api/conversion.ts canonicalObject): kind first, apiVersion second.
      if (lead === undefined || src.kind !== leadKind || src.apiVersion !== leadApiVersion) {
        leadKind = src.kind;
        leadApiVersion = src.apiVersion;
        lead = Buffer.from(`{"kind":${JSON.stringify(src.kind)},"apiVersion":${JSON.stringify(src.apiVersion)},`);
      }
      if (cached.length > lead.length + 2 && cached.compare(lead, 0, lead.length, 0, lead.length) === 0) {
        parts[n++] = OPEN;
        parts[n++] = cached.subarray(lead.length, cached.length - 1);
        continue;
      }
    }
    parts[n++] = goEscaped(stringifyJson(items[i]));
  }
  const open = head.slice(0, -1) + ',"items":[';
  let size = Buffer.byteLength(open) + 3 + Math.max(0, items.length - 1);
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    size += typeof p === 'string' ? Buffer.byteLength(p) : p.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.write(open, 0);
  for (let i = 0; i < n; i++) {
    const p = parts[i];
    // Items are separated by commas: a piece that opens an item (a text, or the "{" before a cut) after the first.
    if (i > 0 && (typeof p === 'string' || p === OPEN)) out[at++] = 0x2c;
    at += typeof p === 'string' ? out.write(p, at) : p.copy(out, at);
  }
  at += out.write(']}\n', at);
  return out;
}

/** Encodings done and reused by compactJsonOf (for tests and the bench). */
export function compactJsonStats(): { encodings: number; hits: number; bytes: number } {
  const { encodings, hits, bytes } = jsonCache.stats;
  return { encodings, hits, bytes };
}

const FRAME_END = Buffer.from('}\n');

/**
 * A JSON watch frame ({"type":...,"object":...} and a newline), the same bytes as encodeJson({ type, object }),
 * built around the object's cached encoding when the object is a stored one, so that a change answered to its
 * writer and sent to its watchers is encoded once.
 */
export function jsonWatchFrame(type: string, obj: object): Buffer {
  if (!Object.isFrozen(obj)) return Buffer.from(encodeJson({ type, object: obj }, false));
  const body = compactJsonOf(obj);
  return Buffer.concat([Buffer.from(`{"type":${JSON.stringify(type)},"object":`), body.subarray(0, body.length - 1), FRAME_END]);
}

/** Whether any of the characters Go escapes occurs (five indexOf scans are an order faster than the regex test). */
function needsEscape(s: string): boolean {
  return s.indexOf('<') >= 0 || s.indexOf('>') >= 0 || s.indexOf('&') >= 0 || s.indexOf('\u2028') >= 0 || s.indexOf('\u2029') >= 0;
}

/** YAML as the real server writes it (JSON converted to YAML, map keys sorted; int64 exact, codec/yaml.ts). */
export function encodeYaml(value: unknown): string {
  return dumpYaml(value, { sortKeys: true, lineWidth: -1, noRefs: true });
}

export type OutputFormat = 'json' | 'yaml' | 'protobuf';

export interface Negotiated {
  format: OutputFormat;
  contentType: string;
  /** Set when the client asked for server-side printing (as=Table;g=meta.k8s.io;v=...) and it applies. */
  table?: 'v1' | 'v1beta1';
}

export interface NegotiateOptions {
  stream: boolean;
  protobuf?: BinaryCodec;
  /** Whether the object (or list item kind) has a protobuf form. */
  protobufOk?: boolean;
  /** Whether the response has a Table form (simulator/server/table): as=Table ranges are skipped otherwise. */
  table?: boolean;
}

/** The media types offered, for 406 messages. */
export function offeredTypes(opts: NegotiateOptions): string[] {
  const pb = opts.protobuf?.mediaType;
  if (opts.stream) return [`${JSON_TYPE};stream=watch`, ...(pb ? [`${pb};stream=watch`] : [])];
  return [JSON_TYPE, YAML_TYPE, ...(pb ? [pb] : [])];
}

function candidate(range: MediaRange, opts: NegotiateOptions): Negotiated | undefined {
  if (range.params.as !== undefined) return tableCandidate(range, opts);
  const streamParam = range.params.stream;
  if (streamParam !== undefined && (streamParam !== 'watch' || !opts.stream)) return undefined;
  if (matches(range, JSON_TYPE) && (range.subtype === 'json' || range.type === '*' || range.subtype === '*')) {
    return { format: 'json', contentType: JSON_TYPE };
  }
  if (range.type === 'application' && range.subtype === 'yaml' && !opts.stream) return { format: 'yaml', contentType: YAML_TYPE };
  const pb = opts.protobuf;
  if (pb && opts.protobufOk !== false && `${range.type}/${range.subtype}` === pb.mediaType) {
    return { format: 'protobuf', contentType: opts.stream ? `${pb.mediaType};stream=watch` : pb.mediaType };
  }
  return undefined;
}

/**
 * as=Table;g=meta.k8s.io;v=v1|v1beta1 in JSON or YAML, for responses that have a Table form. Other conversions
 * (as=PartialObjectMetadata, as=APIGroupDiscoveryList, a Table of another group or version, a protobuf Table) are
 * not served: the client's next choice applies.
 */
function tableCandidate(range: MediaRange, opts: NegotiateOptions): Negotiated | undefined {
  const { as, g, v, ...rest } = range.params;
  if (!opts.table || as !== 'Table' || g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) return undefined;
  const base = candidate({ ...range, params: rest }, { ...opts, protobufOk: false });
  if (!base || base.format === 'protobuf') return undefined;
  return { ...base, table: v };
}

/**
 * Outcomes of negotiateOutput by Accept header and options: clients send the same few Accept headers on every
 * request, and parsing one each time was 5% of the API server's CPU in the scale bench. Bounded: emptied when full.
 */
const negotiated = new Map<string, Negotiated>();
const NEGOTIATED_MAX = 512;

/** Picks the response format from Accept, or throws 406. The answer is shared: callers must not change it. */
export function negotiateOutput(accept: string | undefined, opts: NegotiateOptions): Negotiated {
  // Only an absent or empty header means "anything": ranges that all carry q=0 or do not parse accept nothing (406).
  if (accept === undefined || accept.trim() === '') return { format: 'json', contentType: JSON_TYPE };
  const key = `${opts.stream ? 1 : 0}${opts.protobufOk === false ? 0 : 1}${opts.table ? 1 : 0}${opts.protobuf?.mediaType ?? ''}|${accept}`;
  const known = negotiated.get(key);
  if (known) return known;
  for (const r of parseAccept(accept)) {
    const c = candidate(r, opts);
    if (c) {
      if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
      negotiated.set(key, Object.freeze(c));
      return c;
    }
  }
  throw notAcceptable(offeredTypes(opts));
}

export interface DecodeOptions {
  protobuf?: BinaryCodec;
  /** The request body limit: a YAML document expanding beyond it through aliases is 413 (default 3 MiB). */
  bodyLimit?: number;
}

/** How many times its own size a YAML document may grow through aliases before it is refused (400). */
const YAML_EXPANSION_RATIO = 10;

function limitError(e: DocumentLimitError, bodyLimit: number): ApiError {
  if (e.limit === 'size') return requestEntityTooLarge(bodyLimit);
  return badRequest(`the object provided is unrecognized: ${e.message}`);
}

/**
 * The one object of a YAML body. A stream of documents is read whole: empty documents (a trailing `---`, a
 * leading one, `---` twice in a row, a document of comments only) are dropped, as files written for `kubectl
 * apply -f` often carry them; more than one non-empty document is refused, since a request creates one object.
 */
function singleYamlDocument(text: string): unknown {
  const docs = loadAllYaml(text).filter((d) => d !== null && d !== undefined);
  if (docs.length > 1) {
    throw badRequest(`the object provided is unrecognized: the YAML body holds ${docs.length} documents; send one object per request`);
  }
  return docs[0];
}

/** Reads a request body by its Content-Type into a plain object. */
export function decodeBody(body: Buffer | undefined, contentType: string | undefined, opts: DecodeOptions): Record<string, unknown> {
  const type = essence(contentType) || JSON_TYPE;
  const accepted = [JSON_TYPE, YAML_TYPE, ...(opts.protobuf ? [opts.protobuf.mediaType] : [])];
  if (!body || body.length === 0) throw badRequest('the request body is empty: an object is required');
  const bodyLimit = opts.bodyLimit ?? 3 * 1024 * 1024;
  let value: unknown;
  if (type === JSON_TYPE || type === 'application/json-patch+json' /* never for bodies; guarded by caller */) {
    const text = body.toString('utf8');
    try {
      // Depth first: every later step recurses over the document (api/json-limits.ts).
      checkJsonTextDepth(text);
      // int64 exact (util/int64-json.ts): JSON.parse itself unless the text holds a run of 16 digits.
      value = parseJson(text);
    } catch (e) {
      if (e instanceof DocumentLimitError) throw limitError(e, bodyLimit);
      throw badRequest(`the object provided is unrecognized: invalid JSON: ${(e as Error).message}`);
    }
  } else if (type === YAML_TYPE || type === 'application/x-yaml' || type === 'text/yaml') {
    const text = body.toString('utf8');
    try {
      value = singleYamlDocument(text);
      // Aliases share nodes: nothing is expanded yet, so the expanded size and depth are measured before any
      // copy would multiply them.
      checkExpandedValue(value, { maxBytes: bodyLimit, maxRatio: YAML_EXPANSION_RATIO, sourceLength: text.length });
    } catch (e) {
      if (e instanceof ApiError) throw e;
      if (e instanceof DocumentLimitError) throw limitError(e, bodyLimit);
      // js-yaml recurses over flow collections: a deep enough one exhausts the stack inside the parser.
      if (e instanceof RangeError) throw badRequest('the object provided is unrecognized: the document is nested too deeply');
      throw badRequest(`the object provided is unrecognized: invalid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  } else if (opts.protobuf && type === opts.protobuf.mediaType) {
    try {
      value = opts.protobuf.decodeObject(body);
      checkExpandedValue(value, { maxBytes: Infinity });
    } catch (e) {
      if (e instanceof DocumentLimitError) throw limitError(e, bodyLimit);
      if (e instanceof RangeError) throw badRequest('the object provided is unrecognized: the message is nested too deeply');
      throw badRequest(`the object provided is unrecognized: ${(e as Error).message}`);
    }
  } else {
    throw unsupportedMediaType(type, accepted);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the object provided is unrecognized: the body must be a single object');
  }
  return value as Record<string, unknown>;
}

/** Whether the request asks for pretty output (query or a browser-like user agent, as the real server does). */
export function wantsPretty(query: Record<string, unknown>, userAgent: string | undefined): boolean {
  // Go strconv.ParseBool of a non-empty value decides; a value it cannot read is false (the real negotiation).
  const p = typeof query.pretty === 'string' ? query.pretty : undefined;
  if (p !== undefined && p !== '') return goParseBool(p) ?? false;
  return !!userAgent && /^(curl|Wget|Mozilla\/5\.0)/.test(userAgent);
}

export function encodeAs(format: OutputFormat, value: object, pretty: boolean, protobuf?: BinaryCodec): string | Buffer {
  switch (format) {
    case 'json':
      return encodeJson(value, pretty);
    case 'yaml':
      return encodeYaml(value);
    case 'protobuf':
      if (!protobuf) throw new ApiError(500, 'InternalError', 'protobuf codec missing');
      return protobuf.encodeObject(value);
  }
}
