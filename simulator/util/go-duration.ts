// Go's time.Duration, parsed and printed exactly like time.ParseDuration and Duration.String() — the one
// Go-duration module of the repository (simulator/util/ is the ground floor, so every room, spec-tables included, may import it).
// The tables, the daemon's flags and /configz, the simulator's command line, CronJob's schedule and the
// protobuf codec's Duration fields use this text form ("1m0s", "8760h0m0s", "300ms"), and no npm package
// reproduces Go's rules (no days, zero minute/second parts kept, µs spelling, int64 overflow), hence our own.
// Values are whole nanoseconds held in a bigint: 8760h in ns is above 2^53, so a JS number would lose precision.

export type Nanoseconds = bigint;

export const NANOSECOND = 1n;
export const MICROSECOND = 1000n;
export const MILLISECOND = 1000n * MICROSECOND;
export const SECOND = 1000n * MILLISECOND;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const MAX_INT64 = (1n << 63n) - 1n;

const UNITS: Record<string, bigint> = {
  ns: NANOSECOND,
  us: MICROSECOND,
  'µs': MICROSECOND, // U+00B5 micro sign
  'μs': MICROSECOND, // U+03BC Greek mu
  ms: MILLISECOND,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

export class DurationSyntaxError extends Error {}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** time.ParseDuration: "[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+", e.g. "300ms", "-1.5h", "2h45m". "0" alone is allowed. */
export function parseGoDuration(text: string): Nanoseconds {
  const orig = text;
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw new DurationSyntaxError(`time: invalid duration ${quote(orig)}`);
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) throw new DurationSyntaxError(`time: invalid duration ${quote(orig)}`);
    const intMatch = /^[0-9]*/.exec(s)![0];
    s = s.slice(intMatch.length);
    let fracDigits = '';
    const hadDot = s[0] === '.';
    if (hadDot) {
      s = s.slice(1);
      fracDigits = /^[0-9]*/.exec(s)![0];
      s = s.slice(fracDigits.length);
    }
    if (intMatch === '' && fracDigits === '') throw new DurationSyntaxError(`time: invalid duration ${quote(orig)}`);
    const unitText = /^[^0-9.]*/.exec(s)![0];
    s = s.slice(unitText.length);
    if (unitText === '') throw new DurationSyntaxError(`time: missing unit in duration ${quote(orig)}`);
    const unit = UNITS[unitText];
    if (unit === undefined) throw new DurationSyntaxError(`time: unknown unit ${quote(unitText)} in duration ${quote(orig)}`);
    const whole = intMatch === '' ? 0n : BigInt(intMatch);
    let part = whole * unit;
    if (fracDigits !== '') {
      // Go truncates the fractional part to whole nanoseconds.
      part += (BigInt(fracDigits) * unit) / 10n ** BigInt(fracDigits.length);
    }
    total += part;
    if (total > MAX_INT64 + (neg ? 1n : 0n)) throw new DurationSyntaxError(`time: invalid duration ${quote(orig)}`);
  }
  return neg ? -total : total;
}

/** Fraction digits of v/10^prec without trailing zeros (and without the dot when they are all zero). */
function fraction(v: bigint, prec: number): { text: string; rest: bigint } {
  const scale = 10n ** BigInt(prec);
  const frac = (v % scale).toString().padStart(prec, '0').replace(/0+$/, '');
  return { text: frac === '' ? '' : `.${frac}`, rest: v / scale };
}

/** Duration.String(): "0s", "500ms", "1.5s", "1m0s", "12h0m0s", "8760h0m0s". */
export function formatGoDuration(d: Nanoseconds): string {
  if (d === 0n) return '0s';
  const neg = d < 0n;
  const u = neg ? -d : d;
  let out: string;
  if (u < SECOND) {
    if (u < MICROSECOND) out = `${u}ns`;
    else if (u < MILLISECOND) {
      const f = fraction(u, 3);
      out = `${f.rest}${f.text}µs`;
    } else {
      const f = fraction(u, 6);
      out = `${f.rest}${f.text}ms`;
    }
  } else {
    const f = fraction(u, 9);
    let secs = f.rest;
    out = `${secs % 60n}${f.text}s`;
    secs /= 60n;
    if (secs > 0n) {
      out = `${secs % 60n}m${out}`;
      secs /= 60n;
      if (secs > 0n) out = `${secs}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Milliseconds as a JS number, for timers. Durations past Number.MAX_SAFE_INTEGER ms are clamped. */
export function toMilliseconds(d: Nanoseconds): number {
  const ms = d / MILLISECOND;
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(ms > max ? max : ms < -max ? -max : ms);
}

export function fromMilliseconds(ms: number): Nanoseconds {
  return BigInt(Math.round(ms * 1e6));
}

// ---- milliseconds, for the tables' non-negative durations ----

/** Milliseconds of a non-negative Go duration string ("1m0s", "500ms", "0"); throws "not a duration" otherwise. */
export function parseDurationMs(text: string): number {
  let d: Nanoseconds;
  try {
    d = /^[-+]/.test(text) ? -1n : parseGoDuration(text);
  } catch {
    d = -1n;
  }
  if (d < 0n) throw new Error(`not a duration: "${text}" (expected a Go duration such as 1m0s)`);
  return Number(d) / 1e6;
}

/** Go's Duration.String() of a non-negative number of milliseconds: "0s", "500ms", "15s", "1m0s", "8760h0m0s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`not a non-negative duration: ${ms}`);
  return formatGoDuration(fromMilliseconds(ms));
}
