// An independent, order-blind model of strategic merge for directive-free patches, for the property tests.
// It describes fields with a tiny shape language of its own (not TypeSchema) and ignores list order: merge
// lists are compared as sets (keyed by merge key), which is what the spec promises ("merging does not keep
// order").
import type { JsonObject, JsonValue } from '../../util/json-value.ts';

export type ModelShape =
  | { kind: 'struct'; fields: Record<string, ModelShape> }
  | { kind: 'map'; value: ModelShape }
  | { kind: 'keyedList'; key: string; element: ModelShape }
  | { kind: 'setList' }
  | { kind: 'replace' }
  | { kind: 'unknown' };

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function memberShape(shape: ModelShape, key: string): ModelShape {
  if (shape.kind === 'struct') return shape.fields[key] ?? { kind: 'unknown' };
  if (shape.kind === 'map') return shape.value;
  return { kind: 'unknown' };
}

/** A value taken from the patch: null members vanish at every depth. */
function clean(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(clean);
  if (isObj(value)) return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, clean(v)]));
  return value;
}

export function modelStrategicMerge(original: JsonObject, patch: JsonObject, shape: ModelShape): JsonObject {
  const out: JsonObject = { ...original };
  for (const [key, patchValue] of Object.entries(patch)) {
    if (patchValue === null) {
      delete out[key];
      continue;
    }
    const field = memberShape(shape, key);
    const current = out[key];
    if (!(key in out)) out[key] = clean(patchValue);
    else if (isObj(current) && isObj(patchValue)) out[key] = field.kind === 'replace' ? clean(patchValue) : modelStrategicMerge(current, patchValue, field);
    else if (Array.isArray(current) && Array.isArray(patchValue)) out[key] = mergeLists(current, patchValue, field);
    else out[key] = clean(patchValue);
  }
  return out;
}

function mergeLists(current: JsonValue[], patch: JsonValue[], shape: ModelShape): JsonValue[] {
  if (shape.kind === 'setList') {
    const out: JsonValue[] = [];
    for (const v of [...current, ...patch]) if (!out.some((o) => JSON.stringify(o) === JSON.stringify(v))) out.push(v);
    return out;
  }
  if (shape.kind === 'keyedList') {
    const out = [...current] as JsonObject[];
    for (const item of patch as JsonObject[]) {
      const at = out.findIndex((o) => JSON.stringify(o[shape.key]) === JSON.stringify(item[shape.key]));
      if (at >= 0) out[at] = modelStrategicMerge(out[at], item, shape.element);
      else out.push(clean(item) as JsonObject);
    }
    return out;
  }
  return clean(patch) as JsonValue[];
}

/** Sorts every merge list (by merge key, or by value) so results can be compared as sets. */
export function normalize(value: JsonValue, shape: ModelShape): JsonValue {
  if (Array.isArray(value)) {
    if (shape.kind === 'setList') return [...value].sort(byJson);
    if (shape.kind === 'keyedList') {
      const items = value.map((v) => (isObj(v) ? normalize(v, shape.element) : v));
      return items.sort((a, b) => byJson((a as JsonObject)[shape.key], (b as JsonObject)[shape.key]));
    }
    return value;
  }
  if (isObj(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, memberShape(shape, k))]));
  return value;
}

function byJson(a: JsonValue, b: JsonValue): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
