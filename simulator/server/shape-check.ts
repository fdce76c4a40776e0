// The JSON shape of a request body against the kind's field shapes (the .proto files, through
// typeSchemaFor). The real server decodes a body into typed Go structs, so a value of the wrong JSON
// type fails decoding (400 BadRequest, never 422 or 500), and fields the type does not declare are
// dropped, reported as warnings (fieldValidation=Warn) or refused (fieldValidation=Strict).

import type { ResourceDef } from '../api/registry.ts';
import type { FieldSchema, TypeSchema, ValueFormat } from '../api/schema.ts';
import { typeSchemaFor } from '../codec/protobuf-schema.ts';
import { parseDurationNanos, parseRfc3339 } from '../codec/time-text.ts';
import { parseQuantity } from '../api/quantity.ts';
import { invalidValue, type FieldError } from '../api/field-errors.ts';
import { badRequest, invalid } from './errors.ts';
import { isObj } from '../api/kinds/util.ts';
import { isJsonInteger, isJsonNumber } from '../util/int64-json.ts';

export interface ShapeReport {
  /** First value whose JSON type does not fit: the path and what was expected and found. */
  mismatch?: { path: string; expected: string; got: string; message?: string };
  /** Paths of fields the type does not declare, in document order. */
  unknown: string[];
  /**
   * Integers outside the width of their field (an int32 above 2^31-1...): well-formed JSON the real validators
   * refuse (422), which must never reach storage, as the protobuf form of the object could not hold them.
   */
  ranges: FieldError[];
}

// BigInt bounds: int64 values beyond 2^53 are BigInts (util/int64-json.ts), compared exactly; a Number compares
// with a BigInt by value, so both representations go through the same test.
const RANGES: Record<'int32' | 'int64' | 'uint32' | 'uint64', [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** A problem with a value of the right JSON type but the wrong encoding: 'range' is 422, a message is 400. */
function formatProblem(format: ValueFormat | undefined, v: unknown): 'range' | string | undefined {
  if (!format || format === 'microtime') return undefined;
  if (format === 'quantity') {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint') return undefined;
    const q = parseQuantity(typeof v === 'bigint' ? String(v) : v);
    return q.ok ? undefined : q.error;
  }
  if (format === 'duration') {
    if (typeof v !== 'string') return undefined;
    try {
      parseDurationNanos(v);
      return undefined;
    } catch (e) {
      return `time: invalid duration ${JSON.stringify(v)}: ${(e as Error).message}`;
    }
  }
  if (typeof v !== 'number' && typeof v !== 'bigint') return undefined;
  const [min, max] = RANGES[format];
  return v < min || v > max ? 'range' : undefined;
}

function rangeDetail(format: ValueFormat): string {
  const [min, max] = RANGES[format as keyof typeof RANGES];
  return `must be between ${min} and ${max}, inclusive`;
}

/** The RFC 3339 form the real decoder accepts for metav1.Time (what the protobuf encoder can write). */
function isRfc3339(v: string): boolean {
  return canonicalTime(v) !== undefined;
}

const FIELD_VALIDATION = ['', 'Ignore', 'Warn', 'Strict'];

function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'bigint') return 'integer';
  return typeof v;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether v fits a scalar shape (object, array and map are handled by the walker). */
function fitsScalar(type: FieldSchema['type'], v: unknown): boolean {
  switch (type) {
    case 'string': return typeof v === 'string';
    case 'integer': return isJsonInteger(v);
    case 'number': return isJsonNumber(v);
    case 'boolean': return typeof v === 'boolean';
    // An IntOrString's integer is an int32: a BigInt (beyond 2^53) never fits it.
    case 'int-or-string': return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
    case 'time': return typeof v === 'string' && isRfc3339(v);
    case 'bytes': return typeof v === 'string' && BASE64.test(v);
    default: return true;
  }
}

const EXPECTED_WORDS: Partial<Record<FieldSchema['type'], string>> = {
  'int-or-string': 'integer or string',
  time: 'RFC 3339 time string',
  bytes: 'base64 string',
  map: 'object',
};

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Walks a value of one field shape; stops descending at the first mismatch. (No closures inside: under tsx every
 * named closure is wrapped in a naming helper when created, which this per-value walk would pay per node.)
 */
function walkValue(type: FieldSchema['type'], schema: TypeSchema | undefined, v: unknown, path: string, out: ShapeReport, elementType?: FieldSchema['type'], format?: ValueFormat): void {
  if (out.mismatch || v === null || v === undefined) return;
  // A frozen object or array is part of a stored object (a /status patch's result keeps the members it does not
  // reach, handlers/patch.ts), checked when it was written.
  if (typeof v === 'object' && Object.isFrozen(v)) return;
  switch (type) {
    case 'object':
      if (!isObj(v)) return mismatch(type, v, path, out);
      if (schema) walkObject(schema, v, path, out);
      return;
    case 'array':
      if (!Array.isArray(v)) return mismatch(type, v, path, out);
      for (let i = 0; i < v.length; i++) walkValue(elementType ?? 'any', schema, v[i], `${path}[${i}]`, out, undefined, format);
      return;
    case 'map':
      if (!isObj(v)) return mismatch(type, v, path, out);
      for (const k in v) if (Object.hasOwn(v, k)) walkValue(elementType ?? 'any', schema, v[k], `${path}[${k}]`, out, undefined, format);
      return;
    case 'any':
      return;
    default:
      // A Quantity may also be written as a bare JSON number (the real decoder takes both).
      if (format === 'quantity' && (typeof v === 'number' || typeof v === 'bigint')) return checkFormat(format, v, path, out);
      if (!fitsScalar(type, v)) return mismatch(type, v, path, out);
      if (format) checkFormat(format, v, path, out);
  }
}

function mismatch(type: FieldSchema['type'], v: unknown, path: string, out: ShapeReport): void {
  out.mismatch = { path, expected: EXPECTED_WORDS[type] ?? type, got: jsonTypeOf(v) };
}

function checkFormat(format: ValueFormat, v: unknown, path: string, out: ShapeReport): void {
  const problem = formatProblem(format, v);
  if (problem === 'range') out.ranges.push(invalidValue(path, v, rangeDetail(format)));
  else if (problem !== undefined) out.mismatch = { path, expected: '', got: '', message: problem };
}

function walkObject(schema: TypeSchema, obj: Record<string, unknown>, path: string, out: ShapeReport): void {
  // Keys in order without Object.entries' array of pairs per object (every write walks the whole body).
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    const f = schema.field(k);
    const p = join(path, k);
    if (!f) {
      out.unknown.push(p);
      continue;
    }
    walkValue(f.type, f.schema, v, p, out, f.elementType, f.format);
    if (out.mismatch) return;
  }
}

/** The shape report of a body against a type (for tests and other callers). */
export function shapeReport(schema: TypeSchema, body: Record<string, unknown>): ShapeReport {
  const out: ShapeReport = { unknown: [], ranges: [] };
  walkObject(schema, body, '', out);
  return out;
}

/** Removes the fields a type does not declare, in place, as decoding into the typed object does. */
export function pruneUnknownFields(schema: TypeSchema, obj: Record<string, unknown>): void {
  decodeInPlace(schema, obj, true, false);
}

/**
 * Timestamps as the real decoder and encoder leave them: a metav1.Time in any RFC 3339 form (fractional seconds,
 * numeric offsets) becomes whole-second UTC `Z` (the decoder keeps the instant; the encoder writes seconds in
 * UTC); a MicroTime keeps microseconds. Values that are not RFC 3339 are left for validation to refuse.
 */
export function normalizeTimes(schema: TypeSchema, obj: Record<string, unknown>): void {
  decodeInPlace(schema, obj, false, true);
}

/** Both of the above in one walk: what decoding a checked body into the typed object leaves. */
export function decodeAsTyped(schema: TypeSchema, obj: Record<string, unknown>): void {
  decodeInPlace(schema, obj, true, true);
}

function decodeInPlace(schema: TypeSchema, obj: Record<string, unknown>, prune: boolean, times: boolean): void {
  // A frozen object is part of a stored object, decoded when it was written (and could not be changed here).
  if (Object.isFrozen(obj)) return;
  for (const k of Object.keys(obj)) {
    const v = obj[k];
    const f = schema.field(k);
    if (!f) {
      if (prune) delete obj[k];
      continue;
    }
    if (v === null || v === undefined) continue;
    if (f.type === 'time') {
      if (times && typeof v === 'string') {
        const t = canonicalTime(v, f.format === 'microtime');
        if (t !== undefined && t !== v) obj[k] = t;
      }
      continue;
    }
    const child = f.schema;
    if (!child) continue;
    if (f.type === 'object') {
      if (isObj(v)) decodeInPlace(child, v, prune, times);
    } else if (f.type === 'array') {
      if (Array.isArray(v)) for (const e of v) if (isObj(e)) decodeInPlace(child, e, prune, times);
    } else if (f.type === 'map' && isObj(v)) {
      for (const key of Object.keys(v)) {
        const e = v[key];
        if (isObj(e)) decodeInPlace(child, e, prune, times);
      }
    }
  }
}

/** "2018-01-02T04:04:05.6+01:00" -> "2018-01-02T03:04:05Z" (micro: "2018-01-02T03:04:05.600000Z"). */
export function canonicalTime(text: string, micro = false): string | undefined {
  // Every write checks and normalizes the object's timestamps (creationTimestamp at least), mostly the same few
  // strings: the answers for recent strings are kept (bounded).
  const cache = micro ? microTimes : times;
  const known = cache.get(text);
  if (known !== undefined) return known === '' ? undefined : known;
  const out = parseCanonicalTime(text, micro);
  if (cache.size >= TIME_CACHE_SIZE) cache.clear();
  cache.set(text, out ?? '');
  return out;
}

const TIME_CACHE_SIZE = 1024;
const times = new Map<string, string>();
const microTimes = new Map<string, string>();

function parseCanonicalTime(text: string, micro: boolean): string | undefined {
  let t: { seconds: number; nanos: number };
  try {
    t = parseRfc3339(text);
  } catch {
    return undefined;
  }
  const whole = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${whole}.${String(Math.floor(t.nanos / 1000)).padStart(6, '0')}Z` : `${whole}Z`;
}

/** The real server's warning text for one unknown field (fieldValidation=Warn). */
export function unknownFieldWarning(path: string): string {
  return `unknown field "${path}"`;
}

/**
 * Checks a decoded body (in the version it names, defaulting to the path's) before anything else reads
 * it: a wrong JSON type is 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <path>: expected
 * <type>, got <type>`; with fieldValidation=Strict unknown fields are 400 `strict decoding error: unknown
 * field "<path>", ...`; with Warn they come back as warnings (for `Warning` response headers). An
 * unsupported fieldValidation value is 400 as well.
 */
export function checkBodyShape(def: ResourceDef, obj: Record<string, unknown>, fieldValidation?: string): { warnings: string[] } {
  const mode = fieldValidation ?? '';
  if (!FIELD_VALIDATION.includes(mode)) throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got "${mode}"`);
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : `${def.group ? `${def.group}/` : ''}${def.version}`;
  const schema = typeSchemaFor(apiVersion, def.kind) ?? typeSchemaFor(`${def.group ? `${def.group}/` : ''}${def.version}`, def.kind);
  if (!schema) return { warnings: [] };
  const report = shapeReport(schema, obj);
  if (report.mismatch) {
    const m = report.mismatch;
    // A value the typed decoder's own parser refuses (a Quantity, a Duration) is reported with that parser's
    // message, as the real server does.
    if (m.message) throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${m.message}`);
    throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${m.path}: expected ${m.expected}, got ${m.got}`);
  }
  if (report.ranges.length > 0) {
    const name = isObj(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
    throw invalid(def.kind, def.group, name, report.ranges);
  }
  if (report.unknown.length > 0 && mode === 'Strict') {
    throw badRequest(`strict decoding error: ${report.unknown.map(unknownFieldWarning).join(', ')}`);
  }
  return { warnings: mode === 'Warn' ? report.unknown.map(unknownFieldWarning) : [] };
}

/**
 * The result of a patch on the main resource or /status, read as the real server decodes it back into
 * the typed object: wrong JSON types are 400 and undeclared fields are dropped (never stored).
 */
export function checkPatchedBody(def: ResourceDef, obj: Record<string, unknown>): void {
  checkBodyShape(def, obj);
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : `${def.group ? `${def.group}/` : ''}${def.version}`;
  const schema = typeSchemaFor(apiVersion, def.kind);
  if (schema) decodeAsTyped(schema, obj);
}
