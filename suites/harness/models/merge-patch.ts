// RFC 7386 JSON merge patch, as a model for the patch suite: members set to null are removed, objects merge
// recursively, anything else (arrays included) replaces the target wholesale.
import { clone, isObject, type JsonValue } from './json.ts';

export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, JsonValue> = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(out[key], value);
  }
  return out;
}
