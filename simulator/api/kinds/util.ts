// Small helpers shared by the kind rules: typed access to plain JSON objects and the numeric checks the
// real validators repeat for many fields (non-negative, positive).

import type { KubeObject } from '../meta.ts';
import { type FieldError, invalidValue } from '../field-errors.ts';
import { isJsonNumber } from '../../util/int64-json.ts';

export type Obj = Record<string, unknown>;

/** A new object of a kind with a status subresource starts with an empty status: the controllers own it. */
export function clearStatus(obj: KubeObject): void {
  delete obj.status;
}

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The object at key, created empty when absent (the caller owns a private copy). */
export function ensureObj(parent: Obj, key: string): Obj {
  const cur = parent[key];
  if (isObj(cur)) return cur;
  const fresh: Obj = {};
  parent[key] = fresh;
  return fresh;
}

/** The object at key, or undefined. */
export function objAt(parent: unknown, key: string): Obj | undefined {
  if (!isObj(parent)) return undefined;
  const v = parent[key];
  return isObj(v) ? v : undefined;
}

/** The object at a dotted path, or undefined. */
export function objAtPath(root: unknown, path: string): Obj | undefined {
  let cur: unknown = root;
  for (const p of path.split('.')) {
    if (!isObj(cur)) return undefined;
    cur = cur[p];
  }
  return isObj(cur) ? cur : undefined;
}

/** Sets key to value only when it is unset (undefined or null), as the real defaulters do. */
export function setDefault(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

export function isUnset(v: unknown): boolean {
  return v === undefined || v === null;
}

/** The real ValidateNonnegativeField message. */
export function nonNegative(errs: FieldError[], path: string, v: unknown): void {
  if (isJsonNumber(v) && v < 0) errs.push(invalidValue(path, v, 'must be greater than or equal to 0'));
}

/** The real ValidatePositiveField-style message for fields that must be at least `min`. */
export function atLeast(errs: FieldError[], path: string, v: unknown, min: number): void {
  // int64 beyond 2^53 is a bigint (util/int64-json.ts); it compares with a number by value.
  if (!isJsonNumber(v)) return;
  if (min === 1 && v < 1) errs.push(invalidValue(path, v, 'must be greater than 0'));
  else if (v < min) errs.push(invalidValue(path, v, `must be greater than or equal to ${min}`));
}

export function stringMap(v: unknown): Record<string, string> {
  return isObj(v) ? (v as Record<string, string>) : {};
}
