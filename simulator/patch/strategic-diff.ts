// Two-way strategic merge patch creation: the patch that turns `original` into `modified` under
// applyStrategicMergePatch, in the form kubectl sends (real server's CreateTwoWayMergePatch): changed and
// added members, null for removed ones, `$patch: delete` elements and `$setElementOrder` lists for keyed
// lists, `$deleteFromPrimitiveList` for merged scalar lists, and `$retainKeys` where the field asks for it.
// The suites use it to build realistic patches; the server itself does not need it.
import type { FieldSchema, TypeSchema } from '../api/schema.ts';
import { badRequest, SMP_MESSAGES, unprocessable } from './errors.ts';
import { deepClone, deepEqual, goFormat, hasOwn, isJsonObject, jsonKind, setOwn, type JsonObject, type JsonValue } from '../util/json-value.ts';
import { contextForField, contextForType, elementField, isReplaceStrategy, listStrategy, memberField, type MapContext } from './schema-context.ts';
import { DELETE_FROM_PRIMITIVE_LIST_PREFIX, DIRECTIVE_MARKER, RETAIN_KEYS_DIRECTIVE, SET_ELEMENT_ORDER_PREFIX } from './strategic-merge.ts';

export function createStrategicMergePatch(original: JsonValue, modified: JsonValue, schema: TypeSchema | undefined): JsonObject {
  if (!isJsonObject(original) || !isJsonObject(modified)) throw badRequest(SMP_MESSAGES.badJsonDoc);
  return diffMaps(original, modified, contextForType(schema), false);
}

function hasRetainKeys(field: FieldSchema | undefined): boolean {
  return field?.patchStrategy?.split(',').includes('retainKeys') ?? false;
}

function diffMaps(original: JsonObject, modified: JsonObject, ctx: MapContext, buildRetainKeys: boolean): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(modified)) {
    const after = modified[key];
    if (!hasOwn(original, key)) {
      setOwn(patch, key, deepClone(after));
      continue;
    }
    const before = original[key];
    const field = memberField(ctx, key);
    if (isJsonObject(before) && isJsonObject(after)) {
      if (isReplaceStrategy(field)) {
        if (!deepEqual(before, after)) setOwn(patch, key, deepClone(after));
        continue;
      }
      const sub = diffMaps(before, after, contextForField(field), hasRetainKeys(field));
      if (Object.keys(sub).length > 0) setOwn(patch, key, sub);
    } else if (Array.isArray(before) && Array.isArray(after) && field && listStrategy(field).merge) {
      diffMergeList(patch, key, before, after, field);
    } else if (!deepEqual(before, after)) {
      setOwn(patch, key, deepClone(after));
    }
  }
  let removedAny = false;
  for (const key of Object.keys(original)) {
    if (!hasOwn(modified, key)) {
      setOwn(patch, key, null);
      removedAny = true;
    }
  }
  if (buildRetainKeys && (Object.keys(patch).length > 0 || removedAny)) {
    const keep = Object.keys(modified).filter((k) => modified[k] !== null).sort();
    if (keep.length > 0) setOwn(patch, RETAIN_KEYS_DIRECTIVE, keep);
  }
  return patch;
}

function diffMergeList(patch: JsonObject, key: string, before: JsonValue[], after: JsonValue[], field: FieldSchema): void {
  if (before.length === 0) {
    if (after.length > 0) setOwn(patch, key, deepClone(after));
    return;
  }
  const kinds = new Set([...before, ...after].map(jsonKind));
  if (kinds.has('array')) throw unprocessable(SMP_MESSAGES.noListOfLists);
  if (kinds.size > 1) throw badRequest(`list element types are not identical: ${goFormat([before, after])}`);
  if (kinds.has('object')) diffKeyedList(patch, key, before as JsonObject[], after as JsonObject[], field);
  else diffScalarList(patch, key, before, after);
}

function diffKeyedList(patch: JsonObject, key: string, before: JsonObject[], after: JsonObject[], field: FieldSchema): void {
  const mergeKey = listStrategy(field).mergeKey;
  if (!mergeKey) throw badRequest(`cannot merge lists without merge key for ${key}`);
  const keyOf = (item: JsonObject) => {
    if (!hasOwn(item, mergeKey)) throw badRequest(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
    return item[mergeKey];
  };
  const elementCtx = contextForField(elementField(field));
  const retain = hasRetainKeys(field);
  const changes: JsonValue[] = [];
  for (const item of after) {
    const match = before.find((b) => deepEqual(keyOf(b), keyOf(item)));
    if (!match) {
      changes.push(deepClone(item));
      continue;
    }
    const diff = diffMaps(match, item, elementCtx, retain);
    if (Object.keys(diff).length > 0) {
      setOwn(diff, mergeKey, deepClone(keyOf(item)));
      changes.push(diff);
    }
  }
  for (const item of before) {
    if (!after.some((a) => deepEqual(keyOf(a), keyOf(item)))) {
      const deletion: JsonObject = {};
      setOwn(deletion, DIRECTIVE_MARKER, 'delete');
      setOwn(deletion, mergeKey, deepClone(keyOf(item)));
      changes.push(deletion);
    }
  }
  const sameOrder = before.length === after.length && before.every((b, i) => deepEqual(keyOf(b), keyOf(after[i])));
  if (changes.length > 0) setOwn(patch, key, changes);
  if ((changes.length > 0 || !sameOrder) && after.length > 0) {
    setOwn(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, after.map((item) => {
      const entry: JsonObject = {};
      setOwn(entry, mergeKey, deepClone(keyOf(item)));
      return entry;
    }));
  }
}

function diffScalarList(patch: JsonObject, key: string, before: JsonValue[], after: JsonValue[]): void {
  const added = unique(after.filter((a) => !before.some((b) => deepEqual(a, b))));
  const removed = unique(before.filter((b) => !after.some((a) => deepEqual(a, b))));
  if (added.length > 0) setOwn(patch, key, added);
  if (removed.length > 0) setOwn(patch, `${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/${key}`, removed);
  if ((removed.length > 0 || !deepEqual(before, after)) && after.length > 0) {
    setOwn(patch, `${SET_ELEMENT_ORDER_PREFIX}/${key}`, deepClone(after));
  }
}

function unique(values: JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const v of values) if (!out.some((o) => deepEqual(o, v))) out.push(v);
  return out;
}
