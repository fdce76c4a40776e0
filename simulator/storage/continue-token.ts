// Continue tokens for chunked lists, in the real API server's format (wire-facts 3): base64url without padding of
// the JSON {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key with the list prefix trimmed>"}.
//
// Our server adds two fields of its own AFTER the three real ones, so tokens still look like real ones:
//   "iat": issue time, whole seconds since the epoch -> the token expires after the continue TTL (410 Expired);
//   "q":   a short hash of the query parameters that shape the result -> reusing the token with another query is 400.
// Tokens without them (e.g. copied from a real server or written by hand) are accepted if otherwise valid; they
// then expire only when their revision is compacted (the store's Compacted error, also a 410).

import { createHash } from 'node:crypto';
import type { Revision } from './store.ts';

const TOKEN_VERSION = 'meta.k8s.io/v1';

export const DEFAULT_CONTINUE_TTL_MS = 5 * 60 * 1000;

/**
 * Query parameters that do not bind a token. continue and limit change per chunk by design; pretty and
 * timeoutSeconds do not change the result. resourceVersion is left out too: paging clients legitimately send it
 * on the first chunk and drop it on the next ones, the token carries the revision itself, and the server already
 * refuses continue together with a resourceVersion other than "" or "0" with the real server's own 400.
 */
const UNBOUND_PARAMS = new Set(['continue', 'limit', 'pretty', 'timeoutSeconds', 'resourceVersion', 'resourceVersionMatch']);

export type ContinueTokenErrorReason = 'BadRequest' | 'Expired';

export class ContinueTokenError extends Error {
  constructor(
    readonly code: 400 | 410,
    readonly reason: ContinueTokenErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'ContinueTokenError';
  }
}

export interface ContinueTokenInput {
  revision: Revision;
  /** The full store key the next chunk starts at (inclusive); it must start with `prefix`. */
  startKey: string;
  /** The list's key prefix, trimmed from the key inside the token. */
  prefix: string;
  /** Issue time in milliseconds since the epoch; omitted = no "iat" field (the token never expires by age). */
  issuedAt?: number;
  /** queryHashOf(...) of the list request; omitted = no "q" field (the token is not bound to a query). */
  queryHash?: string;
}

export interface DecodeContinueOptions {
  prefix: string;
  /** queryHashOf(...) of the request presenting the token. */
  queryHash?: string;
  /** Current time in milliseconds (default Date.now()). */
  now?: number;
  /** Token lifetime in milliseconds (default 5 minutes). */
  ttlMs?: number;
}

export interface DecodedContinueToken {
  revision: Revision;
  /** The full store key to continue from (inclusive). */
  startKey: string;
}

export const EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. ' +
  'You can start a new list without the continue parameter.';

export const QUERY_MISMATCH_MESSAGE =
  'the continue token was issued for a different query (labelSelector, fieldSelector...): ' +
  'start a new list without continue';

/**
 * JSON string quoting as Go's encoding/json does it, so our tokens are byte-identical to the real server's:
 * Go additionally escapes <, >, & and U+2028/U+2029, and writes \b and \f as \u0008 and \u000c.
 */
function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029\b\f]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

export function encodeContinueToken(input: ContinueTokenInput): string {
  const { revision, startKey, prefix, issuedAt, queryHash } = input;
  if (!Number.isSafeInteger(revision) || revision <= 0) throw new RangeError(`continue token: bad revision ${revision}`);
  if (!startKey.startsWith(prefix) || startKey.length === prefix.length) {
    throw new RangeError(`continue token: start key ${JSON.stringify(startKey)} is not inside prefix ${JSON.stringify(prefix)}`);
  }
  let json = `{"v":"${TOKEN_VERSION}","rv":${revision},"start":${goJsonString(startKey.slice(prefix.length))}`;
  if (issuedAt !== undefined) json += `,"iat":${Math.floor(issuedAt / 1000)}`;
  if (queryHash !== undefined) json += `,"q":${goJsonString(queryHash)}`;
  return Buffer.from(json + '}', 'utf8').toString('base64url');
}

/**
 * A short, stable hash of the query parameters that shape a list result. Empty values count as absent
 * (`?labelSelector=` lists the same as no selector).
 */
export function queryHashOf(params: Record<string, string | undefined>): string {
  const bound = Object.keys(params)
    .filter((k) => !UNBOUND_PARAMS.has(k) && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => [k, params[k]]);
  return createHash('sha256').update(JSON.stringify(bound)).digest('base64url').slice(0, 12);
}

function invalid(reason: string): ContinueTokenError {
  return new ContinueTokenError(400, 'BadRequest', `invalid continue token: continue key is not valid: ${reason}`);
}

/**
 * Go's base64.RawURLEncoding is strict where Buffer.from(..., 'base64url') is lenient (it skips bad characters
 * and accepts padding), so check the alphabet and length first, reporting the offset the way Go does.
 */
function decodeBase64Url(token: string): string {
  const bad = token.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) throw invalid(`illegal base64 data at input byte ${bad}`);
  if (token.length % 4 === 1) throw invalid(`illegal base64 data at input byte ${token.length - 1}`);
  // Like Go's non-strict decoder, stray low bits in the last character are ignored.
  return Buffer.from(token, 'base64url').toString('utf8');
}

/** Go's path.Clean, for the absolute paths the real check builds ("/" + start). */
function cleanAbsolutePath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return '/' + out.join('/');
}

export function decodeContinueToken(token: string, opts: DecodeContinueOptions): DecodedContinueToken {
  if (typeof token !== 'string' || token === '') throw invalid('empty continue token');
  const text = decodeBase64Url(token);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw invalid((err as Error).message);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid(`cannot unmarshal ${Array.isArray(parsed) ? 'array' : typeof parsed} into a continue token`);
  }
  const t = parsed as Record<string, unknown>;
  const v = t.v ?? '';
  if (typeof v !== 'string') throw invalid('cannot unmarshal field "v" of a continue token: not a string');
  if (v !== TOKEN_VERSION) throw invalid(`server does not recognize this encoded version ${JSON.stringify(v)}`);
  const rv = t.rv ?? 0;
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv)) {
    throw invalid('cannot unmarshal field "rv" of a continue token: not an integer');
  }
  if (rv <= 0) throw invalid(`incorrect encoded start resourceVersion (version ${TOKEN_VERSION})`);
  const start = t.start ?? '';
  if (typeof start !== 'string') throw invalid('cannot unmarshal field "start" of a continue token: not a string');
  if (start === '') throw invalid(`encoded start key empty (version ${TOKEN_VERSION})`);
  // The real server accepts only start keys equal to their cleaned form, so a token cannot climb out of the
  // list's prefix. A leading "/" is refused too: our own tokens never carry one.
  if (start.startsWith('/') || cleanAbsolutePath('/' + start) !== '/' + start) throw invalid(start);

  if (t.q !== undefined) {
    if (typeof t.q !== 'string') throw invalid('field "q" of a continue token is not a string');
    if (opts.queryHash !== undefined && t.q !== opts.queryHash) {
      throw new ContinueTokenError(400, 'BadRequest', QUERY_MISMATCH_MESSAGE);
    }
  }
  if (t.iat !== undefined) {
    if (typeof t.iat !== 'number' || !Number.isSafeInteger(t.iat)) {
      throw invalid('field "iat" of a continue token is not an integer');
    }
    const now = opts.now ?? Date.now();
    const ttl = opts.ttlMs ?? DEFAULT_CONTINUE_TTL_MS;
    if (now - t.iat * 1000 > ttl) throw new ContinueTokenError(410, 'Expired', EXPIRED_MESSAGE);
  }
  return { revision: rv, startKey: opts.prefix + start };
}
