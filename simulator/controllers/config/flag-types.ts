// One entry per option type of spec 8.2: how pflag (the real daemon's flag library) reads a value from the
// command line, what its default looks like, how it prints (help, /configz) and what a user must type.

import { parseGoDuration, formatGoDuration, type Nanoseconds } from '../../util/go-duration.ts';
import { parseGoBool, parseGoInt, parseGoFloat, formatGoFloat, parseGoIP, parseCsvRecord } from './go-strconv.ts';

export type FlagTypeName = 'ip' | 'int32' | 'flag' | 'duration' | 'string' | 'stringSlice' | 'mapStringBool' | 'float' | 'float32' | 'version[=true]';

export type VersionRequest = 'false' | 'true' | 'raw';

export interface FlagValueOf {
  ip: string;
  int32: number;
  flag: boolean;
  duration: Nanoseconds;
  string: string;
  stringSlice: string[];
  mapStringBool: Record<string, boolean>;
  float: number;
  float32: number;
  'version[=true]': VersionRequest;
}

export type FlagValue = FlagValueOf[FlagTypeName];

/** A value that does not fit the type; `expected` says what would. */
export class FlagValueError extends Error {
  constructor(readonly detail: string) {
    super(detail);
  }
}

export interface FlagType<T extends FlagTypeName = FlagTypeName> {
  name: T;
  /** The type word pflag shows in --help ("" for booleans). */
  helpWord: string;
  /** What a valid value looks like, for error messages. */
  expected: string;
  /** Value used when the flag is given without "=value"; such flags never take the next argument. */
  noOptValue?: string;
  /** Applies one occurrence on the command line. `changed` is false for the first occurrence. */
  set(raw: string, current: FlagValueOf[T], changed: boolean): FlagValueOf[T];
  /** The machine default of a spec-table row (null = none). */
  fromDefault(value: unknown): FlagValueOf[T];
  /** pflag's Value.String(). */
  format(value: FlagValueOf[T]): string;
  /** The value in /configz JSON. */
  toJson(value: FlagValueOf[T]): unknown;
  isZero(value: FlagValueOf[T]): boolean;
}

function wrap<V>(fn: () => V, expected: string): V {
  try {
    return fn();
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new FlagValueError(/out of range/.test(detail) ? `value out of range, expected ${expected}` : `expected ${expected}`);
  }
}

const ip: FlagType<'ip'> = {
  name: 'ip',
  helpWord: 'ip',
  expected: 'an IPv4 or IPv6 address (e.g. 0.0.0.0 or ::1)',
  set: (raw) => wrap(() => parseGoIP(raw), ip.expected),
  fromDefault: (v) => (v == null || v === '' ? '' : parseGoIP(String(v))),
  format: (v) => (v === '' ? '<nil>' : v),
  toJson: (v) => v,
  isZero: (v) => v === '',
};

const int32: FlagType<'int32'> = {
  name: 'int32',
  helpWord: 'int32',
  expected: 'an int32 (a whole number from -2147483648 to 2147483647)',
  set: (raw) => wrap(() => parseGoInt(raw, 32), int32.expected),
  fromDefault: (v) => (v == null ? 0 : typeof v === 'number' ? v : parseGoInt(String(v), 32)),
  format: (v) => String(v),
  toJson: (v) => v,
  isZero: (v) => v === 0,
};

const flag: FlagType<'flag'> = {
  name: 'flag',
  helpWord: '',
  expected: 'a boolean (true or false)',
  noOptValue: 'true',
  set: (raw) => wrap(() => parseGoBool(raw), flag.expected),
  fromDefault: (v) => (v == null ? false : typeof v === 'boolean' ? v : parseGoBool(String(v))),
  format: (v) => String(v),
  toJson: (v) => v,
  isZero: (v) => v === false,
};

const duration: FlagType<'duration'> = {
  name: 'duration',
  helpWord: 'duration',
  expected: 'a duration such as 300ms, 1.5h, 2h45m or 1m0s (units ns, us, ms, s, m, h)',
  set: (raw) => wrap(() => parseGoDuration(raw), duration.expected),
  fromDefault: (v) => (v == null || v === '' ? 0n : typeof v === 'bigint' ? v : parseGoDuration(String(v))),
  format: (v) => formatGoDuration(v),
  toJson: (v) => formatGoDuration(v),
  isZero: (v) => v === 0n,
};

const string: FlagType<'string'> = {
  name: 'string',
  helpWord: 'string',
  expected: 'a string',
  set: (raw) => raw,
  fromDefault: (v) => (v == null ? '' : String(v)),
  format: (v) => JSON.stringify(v),
  toJson: (v) => v,
  isZero: (v) => v === '',
};

const stringSlice: FlagType<'stringSlice'> = {
  name: 'stringSlice',
  helpWord: 'stringSlice',
  expected: 'comma-separated values (a,b,c); the option may be repeated',
  // pflag: the first occurrence replaces the default, later ones append.
  set: (raw, current, changed) => {
    const parsed = wrap(() => parseCsvRecord(raw), stringSlice.expected);
    return changed ? [...current, ...parsed] : parsed;
  },
  fromDefault: (v) => (v == null ? [] : Array.isArray(v) ? v.map(String) : parseCsvRecord(String(v))),
  format: (v) => `[${v.join(',')}]`,
  toJson: (v) => [...v],
  isZero: (v) => v.length === 0,
};

const mapStringBool: FlagType<'mapStringBool'> = {
  name: 'mapStringBool',
  helpWord: 'mapStringBool',
  expected: 'comma-separated key=true|false pairs (e.g. Key1=true,Key2=false)',
  // Like the feature-gate flag of 1.9: occurrences merge into one map, empty items are skipped.
  set: (raw, current) => {
    const next = { ...current };
    for (const item of raw.split(',')) {
      if (item.length === 0) continue;
      const eq = item.indexOf('=');
      const key = (eq < 0 ? item : item.slice(0, eq)).trim();
      if (eq < 0) throw new FlagValueError(`missing bool value for ${key}, expected ${mapStringBool.expected}`);
      const value = item.slice(eq + 1).trim();
      try {
        next[key] = parseGoBool(value);
      } catch {
        throw new FlagValueError(`invalid value of ${key}: ${value}, expected ${mapStringBool.expected}`);
      }
    }
    return next;
  },
  fromDefault: (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...(v as Record<string, boolean>) } : {}),
  format: (v) =>
    Object.keys(v)
      .sort()
      .map((k) => `${k}=${v[k]}`)
      .join(','),
  toJson: (v) => ({ ...v }),
  isZero: (v) => Object.keys(v).length === 0,
};

function floatType<T extends 'float' | 'float32'>(name: T, bits: 32 | 64): FlagType<T> {
  const t: FlagType<'float' | 'float32'> = {
    name,
    helpWord: name === 'float' ? 'float' : 'float32',
    expected: `a ${bits === 32 ? '32' : '64'}-bit floating-point number (e.g. 0.1, 20, 1e-3)`,
    set: (raw) => wrap(() => parseGoFloat(raw, bits), t.expected),
    fromDefault: (v) => (v == null ? 0 : typeof v === 'number' ? (bits === 32 ? Math.fround(v) : v) : parseGoFloat(String(v), bits)),
    format: (v) => formatGoFloat(v, bits),
    // JSON of a float32 in Go is printed from the float64 widening; the shortest 32-bit text is what users wrote.
    toJson: (v) => Number(formatGoFloat(v, bits)),
    isZero: (v) => v === 0,
  };
  return t as unknown as FlagType<T>;
}

const version: FlagType<'version[=true]'> = {
  name: 'version[=true]',
  helpWord: 'version[=true]',
  expected: 'true, false or raw',
  noOptValue: 'true',
  set: (raw) => {
    if (raw === 'raw') return 'raw';
    return wrap(() => (parseGoBool(raw) ? 'true' : 'false'), version.expected);
  },
  fromDefault: (v) => (v === true || v === 'true' ? 'true' : v === 'raw' ? 'raw' : 'false'),
  format: (v) => v,
  toJson: (v) => v,
  isZero: (v) => v === 'false',
};

export const FLAG_TYPES: { [K in FlagTypeName]: FlagType<K> } = {
  ip,
  int32,
  flag,
  duration,
  string,
  stringSlice,
  mapStringBool,
  float: floatType('float', 64),
  float32: floatType('float32', 32),
  'version[=true]': version,
};

export function flagTypeOf(name: string): FlagType | undefined {
  return (FLAG_TYPES as Record<string, FlagType | undefined>)[name];
}
