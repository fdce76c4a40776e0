// JSON value helpers shared by the three patch engines. Documents arrive from JSON.parse, so an object may
// carry an own "__proto__" key; every read here checks own properties and every write defines the property,
// so such keys stay ordinary data and never reach an object's prototype.

/** An integer beyond 2^53 is a bigint (int64 exact, int64-json.ts). */
export type JsonPrimitive = string | number | bigint | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Own property read: inherited members such as "constructor" never count as present. */
export function getOwn(obj: JsonObject, key: string): JsonValue | undefined {
  return hasOwn(obj, key) ? obj[key] : undefined;
}

export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

export function deleteOwn(obj: JsonObject, key: string): void {
  if (hasOwn(obj, key)) delete obj[key];
}

export function deepClone<T extends JsonValue>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => deepClone(v)) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value)) setOwn(out, key, deepClone(value[key]));
    return out as T;
  }
  return value;
}

/**
 * A deep copy of a JSON value of any declared type (a KubeObject, a part of one): several times faster than
 * structuredClone, which serialises through V8's value serializer, and enough for what came from JSON or a store.
 */
export function copyJson<T>(value: T): T {
  return deepClone(value as unknown as JsonValue) as unknown as T;
}

/** Structural equality: object key order is irrelevant, array order matters. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The JSON kind of a value, used where the real server compares Go types. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function jsonKind(value: JsonValue): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'bigint') return 'number';
  return typeof value as 'string' | 'number' | 'boolean';
}

/**
 * Renders a value the way Go's fmt "%v" prints the map[string]interface{} the real server decoded, so that
 * error messages read like the real ones (e.g. `map[name:a value:b]`). Go prints map keys sorted.
 */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `map[${keys.map((k) => `${k}:${goFormat(obj[k])}`).join(' ')}]`;
  }
  if (typeof value === 'number') return goFloat(value);
  return String(value);
}

// Go prints float64 with %v using the shortest representation, switching to exponent form at 1e21 and
// below 1e-4; JavaScript switches at the same upper bound but writes "1e+21" the same way, so only the
// small-number form needs adjusting.
function goFloat(n: number): string {
  if (n !== 0 && Math.abs(n) < 1e-4) {
    const [mant, exp] = n.toExponential().split('e');
    const sign = exp.startsWith('-') ? '-' : '+';
    const digits = exp.replace(/^[-+]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  return String(n);
}
