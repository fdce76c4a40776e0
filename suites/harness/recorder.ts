// Every request the harness sends goes through a recorder so that a failing check can show exactly what
// crossed the wire, and hand the reader a curl line that sends the same request again.

import type { ExchangeEvidence } from '../report/results-schema.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** True when only the start of a streaming body (a watch) was kept. */
  streamed?: boolean;
}

export interface Exchange {
  seq: number;
  startedAt: string;
  durationMs: number;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Transport failure (connection refused, timeout...) when no response came. */
  error?: string;
}

/**
 * An exchange made printable: bodies as text (or base64 for binary), cut to a readable size. Its shape is the
 * report format's (results.json), so evidence goes into the reports as it is.
 */
export type RenderedExchange = ExchangeEvidence;

export interface CurlOptions {
  /** Shown as a shell variable so tokens never land in reports. */
  hasToken?: boolean;
  insecure?: boolean;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

const DEFAULT_KEEP = 30;
export const BODY_LIMIT = 4096;

export class ExchangeRecorder {
  private all: Exchange[] = [];
  private seq = 0;
  private runStart = 0;
  private failingRun: Exchange[] | undefined;
  /** Sees every exchange as it is recorded (the differential mode's transcript). */
  onRecord?: (exchange: Exchange) => void;
  constructor(private readonly keep = DEFAULT_KEEP) {}

  record(exchange: Omit<Exchange, 'seq'>): Exchange {
    const full = { ...exchange, seq: ++this.seq };
    this.all.push(full);
    this.onRecord?.(full);
    // Bounded: a long property run must not keep every exchange alive.
    if (this.all.length > this.keep * 4) {
      const drop = this.all.length - this.keep * 2;
      this.all.splice(0, drop);
      this.runStart = Math.max(0, this.runStart - drop);
    }
    return full;
  }

  /** Marks the start of one property run so its exchanges can be told apart from earlier runs'. */
  beginRun(): void {
    this.runStart = this.all.length;
  }

  /** Keeps the exchanges of the run that just failed; shrinking ends on the smallest failing run. */
  markRunFailed(): void {
    this.failingRun = this.all.slice(this.runStart);
  }

  /** The exchanges that tell the failure's story: the last failing property run, or the check's latest ones. */
  evidence(): Exchange[] {
    const source = this.failingRun ?? this.all;
    return source.slice(-this.keep);
  }

  get size(): number {
    return this.all.length;
  }
}

function isTextual(contentType: string | undefined, body: Uint8Array): boolean {
  if (contentType && /protobuf|octet-stream/i.test(contentType)) return false;
  if (contentType && /json|yaml|text|xml/i.test(contentType)) return true;
  // Unknown type: text when it decodes cleanly and has no control bytes other than whitespace.
  for (const b of body.subarray(0, 512)) if (b < 9 || (b > 13 && b < 32)) return false;
  return true;
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function renderBody(body: Uint8Array, contentType: string | undefined, limit: number): { text: string; encoding: 'utf8' | 'base64'; truncated: boolean } {
  const truncated = body.length > limit;
  const part = truncated ? body.subarray(0, limit) : body;
  if (isTextual(contentType, part)) {
    const text = Buffer.from(part).toString('utf8');
    return { text: truncated ? `${text}\n... (${body.length - limit} more bytes)` : text, encoding: 'utf8', truncated };
  }
  return { text: Buffer.from(part).toString('base64'), encoding: 'base64', truncated };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A curl command that sends the same request; binary bodies go through base64 so the line stays copyable. */
export function curlLine(request: RecordedRequest, options: CurlOptions = {}): string {
  const parts = ['curl', '-sS', '-i'];
  if (request.method !== 'GET' || request.body) parts.push('-X', request.method);
  if (options.insecure) parts.push('-k');
  if (options.caFile) parts.push('--cacert', shellQuote(options.caFile));
  if (options.certFile) parts.push('--cert', shellQuote(options.certFile));
  if (options.keyFile) parts.push('--key', shellQuote(options.keyFile));
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.toLowerCase() === 'authorization') continue;
    if (name.toLowerCase() === 'content-length') continue;
    parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (options.hasToken || headerValue(request.headers, 'authorization')) parts.push('-H', '"Authorization: Bearer $TOKEN"');
  parts.push(shellQuote(request.url));
  if (!request.body || request.body.length === 0) return parts.join(' ');
  const contentType = headerValue(request.headers, 'content-type');
  if (isTextual(contentType, request.body)) {
    parts.push('--data-binary', shellQuote(Buffer.from(request.body).toString('utf8')));
    return parts.join(' ');
  }
  parts.push('--data-binary', '@-');
  return `printf %s ${shellQuote(Buffer.from(request.body).toString('base64'))} | base64 -d | ${parts.join(' ')}`;
}

export function renderExchange(exchange: Exchange, options: CurlOptions = {}, limit = BODY_LIMIT): RenderedExchange {
  const { request, response } = exchange;
  const out: RenderedExchange = {
    method: request.method,
    url: request.url,
    requestHeaders: redactHeaders(request.headers),
    durationMs: Math.round(exchange.durationMs),
    curl: curlLine(request, options),
  };
  if (request.body && request.body.length > 0) {
    const body = renderBody(request.body, headerValue(request.headers, 'content-type'), limit);
    out.requestBody = body.text;
    out.requestBodyEncoding = body.encoding;
    if (body.truncated) out.truncated = true;
  }
  if (response) {
    out.status = response.status;
    out.responseHeaders = response.headers;
    const body = renderBody(response.body, headerValue(response.headers, 'content-type'), limit);
    out.responseBody = body.text;
    out.responseBodyEncoding = body.encoding;
    if (body.truncated || response.streamed) out.truncated = true;
  }
  if (exchange.error) out.error = exchange.error;
  return out;
}

function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = k.toLowerCase() === 'authorization' ? 'Bearer <redacted>' : v;
  return out;
}
