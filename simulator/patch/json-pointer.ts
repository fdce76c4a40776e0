// RFC 6901 JSON pointers, parsed strictly: the RFC 6902 engine needs exact answers to "does this location
// exist" and "is this a valid array index", which fast-json-patch answers loosely (see json-patch.ts).
import { getOwn, hasOwn, isJsonObject, type JsonValue } from '../util/json-value.ts';

/** Splits a pointer into unescaped reference tokens; undefined when the syntax is invalid. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    if (/~(?![01])/.test(raw)) return undefined;
    tokens.push(raw.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return tokens;
}

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** RFC 6901 array index: "0" or a digit sequence without a leading zero. */
export function parseArrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

/** The value at the pointer, or undefined when nothing is there (own properties only). */
export function valueAt(doc: JsonValue, tokens: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = doc;
  for (const token of tokens) {
    if (current === undefined) return undefined;
    current = childOf(current, token);
  }
  return current;
}

export function childOf(container: JsonValue, token: string): JsonValue | undefined {
  if (Array.isArray(container)) {
    const index = parseArrayIndex(token);
    return index !== undefined && index < container.length ? container[index] : undefined;
  }
  if (isJsonObject(container)) return hasOwn(container, token) ? getOwn(container, token) : undefined;
  return undefined;
}

/** True when `prefix` names a proper ancestor of `tokens`. */
export function isProperPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  return prefix.length < tokens.length && prefix.every((t, i) => t === tokens[i]);
}
