// Text forms of the API's time types, shared by the codecs: RFC 3339 Time and MicroTime (Unix seconds and
// nanoseconds <-> "2006-01-02T15:04:05Z", Go's zero time as null) and Duration as nanoseconds (the Go-duration
// text itself is util/go-duration.ts, the one parser of the repository). Errors are the codec's
// encode/decode errors, which the server answers with 400.

import { formatGoDuration, parseGoDuration } from '../util/go-duration.ts';
import { ProtobufDecodeError, ProtobufEncodeError } from './errors.ts';

/** Seconds of Go's zero time (0001-01-01T00:00:00Z): decodes back to the zero time, i.e. JSON null. */
export const GO_ZERO_SECONDS = -62135596800;
/** Go's JSON encoder refuses years outside [0, 9999]. */
const MIN_JSON_SECONDS = -62167219200;
const MAX_JSON_SECONDS = 253402300799;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 (any offset, optional fraction) -> Unix seconds and nanoseconds. */
export function parseRfc3339(text: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(text);
  if (!m) throw new ProtobufEncodeError(`invalid time ${JSON.stringify(text)}: want RFC 3339, e.g. 2018-01-02T03:04:05Z`);
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  const dim = mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || d > dim || h > 23 || mi > 59 || s > 59) {
    throw new ProtobufEncodeError(`invalid time ${JSON.stringify(text)}: a field is out of range`);
  }
  let offset = 0;
  if (m[8] !== 'Z') {
    const sign = m[8][0] === '-' ? -1 : 1;
    const oh = Number(m[8].slice(1, 3));
    const om = Number(m[8].slice(4, 6));
    if (oh > 23 || om > 59) throw new ProtobufEncodeError(`invalid time ${JSON.stringify(text)}: bad offset`);
    offset = sign * (oh * 3600 + om * 60);
  }
  // Date.UTC maps years 0..99 to 19xx, so set the full year explicitly.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds: date.getTime() / 1000 - offset, nanos };
}

function isoSeconds(seconds: number): string {
  if (!(seconds >= MIN_JSON_SECONDS && seconds <= MAX_JSON_SECONDS)) {
    throw new ProtobufDecodeError(`time ${seconds}s is outside the years 0-9999 JSON can show`);
  }
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** Unix seconds -> "2006-01-02T15:04:05Z" (null for Go's zero time). */
export function formatTime(seconds: number): string | null {
  return seconds === GO_ZERO_SECONDS ? null : `${isoSeconds(seconds)}Z`;
}

/** Unix seconds + nanoseconds -> "2006-01-02T15:04:05.000000Z" (null for Go's zero time). */
export function formatMicroTime(seconds: number, nanos: number): string | null {
  const carry = Math.floor(nanos / 1e9);
  const s = seconds + carry;
  const n = nanos - carry * 1e9;
  if (s === GO_ZERO_SECONDS && n === 0) return null;
  return `${isoSeconds(s)}.${String(Math.floor(n / 1000)).padStart(6, '0')}Z`;
}

/** Go time.ParseDuration: "1h2m3.5s", "500ms", "0" -> nanoseconds (a number: the wire's int64 fits durations in use). */
export function parseDurationNanos(text: string): number {
  try {
    return Number(parseGoDuration(text));
  } catch {
    throw new ProtobufEncodeError(`invalid duration ${JSON.stringify(text)}`);
  }
}

/** Go time.Duration.String(): nanoseconds -> "1h2m3.5s", "500ms", "0s". */
export function formatDurationNanos(nanos: number): string {
  return formatGoDuration(BigInt(Math.trunc(nanos)));
}
