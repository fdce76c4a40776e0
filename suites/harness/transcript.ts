// Transcripts for the differential mode (`--reference`): every exchange of a check reduced to what two
// implementations of the spec must agree on: the request (method, path and query with the run's random
// namespace names and server-issued tokens replaced), the status code, the Status reason, and the shape of the
// JSON answer (its paths and JSON types; values only for kind and apiVersion). Server-owned values (uid,
// resourceVersion, timestamps, generated names) drop out because only types are kept; the parts controllers
// fill in at their own pace (status, labels, annotations) are collapsed to their type.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange } from './recorder.ts';

export interface TranscriptEntry {
  /** "GET /api/v1/namespaces/<ns>/configmaps?limit=2" after normalisation. */
  request: string;
  /** HTTP status, or 0 for a transport failure. */
  status: number;
  reason?: string;
  /** Sorted "path:type" entries of a JSON answer; absent for other bodies and streams. */
  shape?: string[];
}

const NAMESPACE = /conformance-[a-z0-9]+-[a-z0-9]+/g;
/** Query values that are server-issued or time-dependent. */
const OPAQUE_QUERY = new Set(['resourceVersion', 'continue']);
/** Maps whose keys are chosen by users or controllers: compared as "object" only. */
const COLLAPSED = new Set(['labels', 'annotations', 'data', 'stringData', 'binaryData', 'matchLabels', 'nodeSelector', 'selector', 'status', 'managedFields', 'finalizers', 'ownerReferences', 'items', 'details', 'causes']);
const MAX_SHAPE = 300;
/**
 * Metadata maps and lists that controllers add to at their own pace (a deployment's revision annotation, the
 * garbage collector's finalizers): compared by type when present, their absence is no difference.
 */
const OPTIONAL_WHEN_EMPTY_OR_ABSENT = new Set(['metadata.labels', 'metadata.annotations', 'metadata.finalizers', 'metadata.ownerReferences']);

export function normaliseRequest(method: string, url: string): string {
  const u = new URL(url);
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape (robustness checks send them on purpose): kept as sent.
  }
  path = path.replace(NAMESPACE, '<ns>');
  const query = [...u.searchParams.entries()]
    .map(([k, v]) => [k, OPAQUE_QUERY.has(k) ? '<opaque>' : v.replace(NAMESPACE, '<ns>')] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${method} ${path}${query ? `?${query}` : ''}`;
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
}

/** "path:type" entries of a JSON value; arrays as "[]" (item shapes merged), collapsed maps as their type. */
export function shapeOf(value: unknown): string[] {
  const out = new Set<string>();
  // Status of an object (not of a Status body) is written by controllers at their own pace.
  const statusIsOwn = !!value && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status';
  const walk = (v: unknown, path: string, depth: number) => {
    if (out.size >= MAX_SHAPE) return;
    if (path === 'status' && !statusIsOwn) return;
    const t = typeOf(v);
    if (OPTIONAL_WHEN_EMPTY_OR_ABSENT.has(path) && (t === 'object' || t === 'array' || t === 'null')) return;
    out.add(`${path || '.'}:${t}`);
    if (depth > 12) return;
    const key = path.split('.').pop()?.replace(/\[\]$/, '') ?? '';
    if (COLLAPSED.has(key)) return;
    if (t === 'array') for (const item of v as unknown[]) walk(item, `${path}[]`, depth + 1);
    else if (t === 'object') for (const [k, child] of Object.entries(v as Record<string, unknown>)) walk(child, path ? `${path}.${k}` : k, depth + 1);
  };
  walk(value, '', 0);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o.kind === 'string') out.add(`kind=${o.kind}`);
    if (typeof o.apiVersion === 'string') out.add(`apiVersion=${o.apiVersion}`);
  }
  return [...out].sort();
}

export function summarise(e: Exchange): TranscriptEntry {
  const entry: TranscriptEntry = { request: normaliseRequest(e.request.method, e.request.url), status: e.response?.status ?? 0 };
  const res = e.response;
  if (!res || res.streamed) return entry;
  const type = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) return entry;
  try {
    const body = JSON.parse(Buffer.from(res.body).toString('utf8')) as unknown;
    if (body && typeof body === 'object' && (body as { kind?: unknown }).kind === 'Status' && typeof (body as { reason?: unknown }).reason === 'string') entry.reason = (body as { reason: string }).reason;
    entry.shape = shapeOf(body);
  } catch {
    // Not JSON after all: status only.
  }
  return entry;
}

const fileOf = (dir: string, checkId: string) => join(dir, 'transcripts', `${checkId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);

export function writeTranscript(dir: string, checkId: string, entries: TranscriptEntry[]): void {
  mkdirSync(join(dir, 'transcripts'), { recursive: true });
  writeFileSync(fileOf(dir, checkId), JSON.stringify(entries));
}

export function readTranscript(dir: string, checkId: string): TranscriptEntry[] | undefined {
  try {
    return JSON.parse(readFileSync(fileOf(dir, checkId), 'utf8')) as TranscriptEntry[];
  } catch {
    return undefined;
  }
}
