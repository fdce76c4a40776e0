// The few Go strconv/net/csv parsing rules the daemon's flags rely on (pflag hands every value to these).
// Written here because JS's Number()/parseInt accept different spellings than Go (e.g. "" -> 0, "1e3" as int,
// " 12 " with spaces), and the spec asks for the real daemon's acceptance rules.

import { isIPv4, isIPv6 } from 'node:net';

export class SyntaxError_ extends Error {
  constructor(message: string, readonly kind: 'syntax' | 'range') {
    super(message);
  }
}

/** strconv.ParseBool. */
export function parseGoBool(s: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  throw new SyntaxError_(`strconv.ParseBool: parsing ${JSON.stringify(s)}: invalid syntax`, 'syntax');
}

const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };

/** strconv.ParseInt(s, 0, bits): sign, 0x/0o/0b/leading-0 prefixes, underscores only with a prefix. */
export function parseGoInt(s: string, bits: 32 | 64): number {
  const fail = (kind: 'syntax' | 'range') =>
    new SyntaxError_(`strconv.ParseInt: parsing ${JSON.stringify(s)}: ${kind === 'syntax' ? 'invalid syntax' : 'value out of range'}`, kind);
  let t = s;
  let neg = false;
  if (t.startsWith('+') || t.startsWith('-')) {
    neg = t[0] === '-';
    t = t.slice(1);
  }
  let base = 10;
  let prefixed = false;
  if (/^0[xX]/.test(t)) [base, t, prefixed] = [16, t.slice(2), true];
  else if (/^0[bB]/.test(t)) [base, t, prefixed] = [2, t.slice(2), true];
  else if (/^0[oO]/.test(t)) [base, t, prefixed] = [8, t.slice(2), true];
  else if (t.length > 1 && t[0] === '0') [base, t, prefixed] = [8, t.slice(1), true];
  if (t.includes('_')) {
    // Go: underscores may only separate digits (or follow a base prefix) and only in base-prefixed literals.
    if (!prefixed || !/^_?[^_]+(_[^_]+)*$/.test(t)) throw fail('syntax');
    t = t.replace(/_/g, '');
  }
  if (t === '' || !DIGITS[base].test(t)) throw fail('syntax');
  const magnitude = BigInt((base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '') + t);
  const value = neg ? -magnitude : magnitude;
  const limit = 1n << BigInt(bits - 1);
  if (value < -limit || value >= limit) throw fail('range');
  return Number(value);
}

const MAX_FLOAT32 = 3.4028234663852886e38;

/** strconv.ParseFloat(s, bits): decimal, exponent, inf/infinity/nan, hex floats with a p exponent. */
export function parseGoFloat(s: string, bits: 32 | 64): number {
  const fail = (kind: 'syntax' | 'range') =>
    new SyntaxError_(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: ${kind === 'syntax' ? 'invalid syntax' : 'value out of range'}`, kind);
  let value: number;
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(s);
  if (special) {
    value = special[2].toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
    return value;
  } else if (hex) {
    const [, sign, int, frac = '', exp] = hex;
    if (int === '' && frac === '') throw fail('syntax');
    const mantissa = parseInt(int + frac || '0', 16);
    value = mantissa * 2 ** (Number(exp) - 4 * frac.length) * (sign === '-' ? -1 : 1);
  } else {
    const t = s;
    if (/^[+-]?(?:[0-9]+(?:_[0-9]+)*)/.test(t) && t.includes('_')) throw fail('syntax'); // underscores need a base prefix
    if (!/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) throw fail('syntax');
    value = Number(t);
  }
  if (!Number.isFinite(value)) throw fail('range');
  if (bits === 32) {
    if (Math.abs(value) > MAX_FLOAT32 && Math.fround(value) === (value > 0 ? Infinity : -Infinity)) throw fail('range');
    value = Math.fround(value);
  }
  return value;
}

/** strconv.FormatFloat(v, 'g', -1, bits): shortest text that reads back to the same value. */
export function formatGoFloat(v: number, bits: 32 | 64): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  let digits = '';
  for (let p = 1; p <= 17; p++) {
    const candidate = v.toPrecision(p);
    const back = Number(candidate);
    if (bits === 32 ? Math.fround(back) === v : back === v) {
      digits = candidate;
      break;
    }
  }
  // Go's shortest %g switches to an exponent when it is below -4 or at least 6 (so 1e+06, 1.5e-05, 0.0001).
  const sign = v < 0 ? '-' : '';
  const [mant, expPart] = Math.abs(Number(digits)).toExponential().split('e');
  const exp = Number(expPart);
  const nd = mant.replace('.', '').length;
  const eprec = 6;
  if (exp < -4 || exp >= eprec) {
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : `${Math.abs(exp)}`;
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e}`;
  }
  return sign + Math.abs(Number(digits)).toFixed(Math.max(0, nd - 1 - exp));
}

/** net.ParseIP then IP.String(): v4 dotted quad (no leading zeros), v6 in its compressed form, no zones. */
export function parseGoIP(s: string): string {
  const t = s.trim();
  if (isIPv4(t)) {
    if (t.split('.').some((octet) => octet.length > 1 && octet.startsWith('0'))) throw new SyntaxError_(`failed to parse IP: ${JSON.stringify(s)}`, 'syntax');
    return t;
  }
  if (isIPv6(t) && !t.includes('%')) {
    const mapped = /^(?:0{0,4}:){0,5}(?:0{0,4}:)?:?ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(t);
    if (mapped && isIPv4(mapped[1])) return mapped[1]; // Go prints IPv4-mapped addresses as IPv4
    return new URL(`http://[${t}]/`).hostname.slice(1, -1);
  }
  throw new SyntaxError_(`failed to parse IP: ${JSON.stringify(s)}`, 'syntax');
}

/** encoding/csv reading of one record, as pflag's stringSlice does ("" gives no elements). */
export function parseCsvRecord(s: string): string[] {
  if (s === '') return [];
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (s[i] === '"') {
      i++;
      for (;;) {
        if (i >= s.length) throw new SyntaxError_(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`, 'syntax');
        if (s[i] === '"') {
          if (s[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += s[i++];
      }
      if (i < s.length && s[i] !== ',') throw new SyntaxError_(`parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`, 'syntax');
    } else {
      const end = s.indexOf(',', i);
      field = s.slice(i, end < 0 ? s.length : end);
      if (field.includes('"')) throw new SyntaxError_(`parse error on line 1, column ${i + field.indexOf('"') + 1}: bare " in non-quoted-field`, 'syntax');
      i = end < 0 ? s.length : end;
    }
    fields.push(field);
    if (i >= s.length) return fields;
    i++; // the comma
    if (i === s.length) {
      fields.push('');
      return fields;
    }
  }
}
