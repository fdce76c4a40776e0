// RFC 7386 section 2 pseudo-code, transcribed as a persistent recursive function for the property tests.
import type { JsonObject, JsonValue } from '../../util/json-value.ts';

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function modelMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObj(patch)) return patch;
  const base = isObj(target) ? target : {};
  const entries = new Map(Object.entries(base));
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) entries.delete(name);
    else entries.set(name, modelMergePatch(entries.get(name), value));
  }
  const out: JsonObject = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
