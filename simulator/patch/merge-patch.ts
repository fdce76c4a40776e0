// RFC 7386 JSON merge patch. Written here rather than taken from a library: the algorithm is a dozen lines
// and the JS packages for it are unmaintained or mutate their input; the only subtlety (own "__proto__"
// keys from JSON.parse) is handled by json-value.ts.
import { deepClone, deepEqual, getOwn, hasOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../util/json-value.ts';

/** Applies a merge patch and returns the new document; neither input is modified. */
export function applyMergePatch(doc: JsonValue | undefined, patch: JsonValue): JsonValue {
  // One copy of the document, then the sharing walk over it: the result owns all of it (the walk used to copy
  // each level's subtree again at every level the patch reached).
  if (!isJsonObject(patch)) return deepClone(patch);
  return applyMergePatchSharing(isJsonObject(doc) ? deepClone(doc) : undefined, patch);
}

/**
 * applyMergePatch whose result shares with `doc` every member the patch does not reach (only the objects on the
 * patch's paths are new): for a caller that never changes the result's untouched parts in place, such as the API
 * server's /status patch of a stored (frozen) object, where a whole deep copy per patch was most of its cost.
 * `doc` is not modified.
 */
export function applyMergePatchSharing(doc: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return deepClone(patch);
  const result: JsonObject = {};
  if (isJsonObject(doc)) for (const key of Object.keys(doc)) setOwn(result, key, doc[key]);
  for (const key of Object.keys(patch)) {
    const patchValue = patch[key];
    if (patchValue === null) {
      delete result[key];
    } else {
      setOwn(result, key, applyMergePatchSharing(getOwn(result, key), patchValue));
    }
  }
  return result;
}

/**
 * A merge patch that turns `original` into `modified`: applyMergePatch(original, patch) deep-equals
 * modified whenever modified holds no null inside an object (merge patches cannot express a null member).
 */
export function createMergePatch(original: JsonValue, modified: JsonValue): JsonValue {
  if (!isJsonObject(original) || !isJsonObject(modified)) return deepClone(modified);
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) setOwn(patch, key, null);
  }
  for (const key of Object.keys(modified)) {
    const after = modified[key];
    if (!hasOwn(original, key)) {
      setOwn(patch, key, deepClone(after));
      continue;
    }
    const before = original[key];
    if (deepEqual(before, after)) continue;
    setOwn(patch, key, isJsonObject(before) && isJsonObject(after) ? createMergePatch(before, after) : deepClone(after));
  }
  return patch;
}
