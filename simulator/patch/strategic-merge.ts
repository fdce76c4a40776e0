// Kubernetes strategic merge patch (apply side), following the behaviour of apimachinery's
// pkg/util/strategicpatch as the real API server runs it; wire-facts section 4 lists the rules. Our own code:
// no maintained JS library implements it. Deliberate differences from 1.9, all taken from later releases
// because they fix outright bugs that current clients rely on being fixed:
//  - a patch value for a key the original lacks is itself "merged into nothing": nulls inside it are
//    dropped and directives are carried out instead of being stored ($patch: delete drops the key);
//  - $deleteFromPrimitiveList removes values from any list and never adds the list when it is absent;
//  - errors the real server lets through as 500 are 400 (malformed patch) here; the project forbids 500.
import type { FieldSchema, TypeSchema } from '../api/schema.ts';
import { badRequest, SMP_MESSAGES, unprocessable } from './errors.ts';
import { deepClone, deepEqual, deleteOwn, goFormat, hasOwn, isJsonObject, jsonKind, setOwn, type JsonObject, type JsonValue } from '../util/json-value.ts';
import { contextForField, contextForType, elementField, isReplaceStrategy, listStrategy, memberField, type MapContext } from './schema-context.ts';

export const DIRECTIVE_MARKER = '$patch';
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/**
 * Applies a strategic merge patch (already decoded from JSON) to a document and returns the result;
 * neither input is modified. `schema` is the type of the document's top level; without it every list is
 * replaced and every map merged.
 */
export function applyStrategicMergePatch(doc: JsonValue, patch: unknown, schema: TypeSchema | undefined): JsonObject {
  // The real server decodes both into map[string]interface{}; "null" decodes to an empty map.
  if (!isJsonObject(doc) || (patch !== null && !isJsonObject(patch))) throw badRequest(SMP_MESSAGES.badJsonDoc);
  const original = deepClone(doc);
  if (patch === null) return original;
  return mergeMap(original, patch, contextForType(schema)) as JsonObject;
}

/**
 * Merges `patch` into `original` (mutated; callers pass copies). With no original the result is built from
 * the patch alone, and may be undefined when the patch says `$patch: delete`.
 */
function mergeMap(original: JsonObject | undefined, patch: JsonObject, ctx: MapContext): JsonObject | undefined {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return mapDirective(original, patch, ctx);
  const target = original ?? {};
  applyRetainKeys(target, patch);
  const ordered = applySetElementOrders(target, patch, ctx);
  const deletions: string[] = [];
  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS_DIRECTIVE || key.startsWith(SET_ELEMENT_ORDER_PREFIX) || ordered.has(key)) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      deletions.push(key);
      continue;
    }
    mergeMember(target, key, patch[key], memberField(ctx, key));
  }
  // Additions first, then deletions, so a value both added and deleted by one patch ends up absent
  // whatever order the keys came in (Go iterates the patch map in random order).
  for (const key of deletions) deleteFromPrimitiveList(target, key, patch[key]);
  return target;
}

function mapDirective(original: JsonObject | undefined, patch: JsonObject, ctx: MapContext): JsonObject | undefined {
  const directive = patch[DIRECTIVE_MARKER];
  if (directive === 'replace') {
    const rest: JsonObject = {};
    for (const key of Object.keys(patch)) if (key !== DIRECTIVE_MARKER) setOwn(rest, key, patch[key]);
    return mergeMap(undefined, rest, ctx) ?? {};
  }
  if (directive === 'delete') return original === undefined ? undefined : {};
  throw badRequest(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(patch)}`);
}

function mergeMember(target: JsonObject, key: string, patchValue: JsonValue, field: FieldSchema | undefined): void {
  if (patchValue === null) {
    deleteOwn(target, key);
    return;
  }
  const current = hasOwn(target, key) ? target[key] : undefined;
  let merged: JsonValue | undefined;
  if (isJsonObject(current) && isJsonObject(patchValue)) {
    merged = isReplaceStrategy(field) ? valueFromPatch(patchValue, field, key) : mergeMap(current, patchValue, contextForField(field));
  } else if (Array.isArray(current) && Array.isArray(patchValue)) {
    merged = mergeList(current, patchValue, field, key);
  } else {
    // Absent, or of another JSON type: the patch value wins (Go compares the decoded types).
    merged = valueFromPatch(patchValue, field, key);
  }
  if (merged === undefined) deleteOwn(target, key);
  else setOwn(target, key, merged);
}

/**
 * A patch value for a place the original does not have (or whose original is replaced): taken as it is,
 * except that null members are dropped and directives are carried out rather than stored. Lists are not
 * merged with themselves, so duplicates in a brand-new list stay, as on the real server.
 */
function valueFromPatch(value: JsonValue, field: FieldSchema | undefined, name: string): JsonValue | undefined {
  if (value === null) return undefined;
  if (isJsonObject(value)) return mergeMap(undefined, value, contextForField(field));
  if (Array.isArray(value)) return replacementList(value, field, name);
  return value;
}

function replacementList(list: JsonValue[], field: FieldSchema | undefined, name: string): JsonValue[] {
  const element = field ? elementField(field) : undefined;
  const out: JsonValue[] = [];
  for (const item of list) {
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)) {
      // A list-level directive ("delete this element", "replace the list") has nothing to act on here.
      const directive = item[DIRECTIVE_MARKER];
      if (directive === 'delete' || directive === 'replace') continue;
      if (directive === 'merge') throw badRequest(SMP_MESSAGES.mergeListDirective);
      throw badRequest(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(item)}`);
    }
    // Null elements are data here (the real server keeps them); only null map members mean "delete".
    const cleaned = item === null ? null : valueFromPatch(item, element, name);
    if (cleaned !== undefined) out.push(cleaned);
  }
  return out;
}

function mergeList(original: JsonValue[], patch: JsonValue[], field: FieldSchema | undefined, name: string): JsonValue[] {
  const strategy = listStrategy(field);
  if (!strategy.merge) return replacementList(patch, field, name);
  if (original.length === 0 && patch.length === 0) return [];
  const kind = commonElementKind(original, patch);
  if (kind !== 'object') return mergePrimitiveList(original, patch);
  if (!strategy.mergeKey) throw badRequest(`cannot merge lists without merge key for ${name}`);
  return mergeListOfMaps(original as JsonObject[], patch as JsonObject[], strategy.mergeKey, elementField(field as FieldSchema));
}

/** All elements of a merged list must share one JSON type, and lists of lists cannot merge. */
function commonElementKind(...lists: JsonValue[][]): string {
  const kinds = new Set<string>();
  for (const list of lists) for (const item of list) kinds.add(jsonKind(item));
  if (kinds.has('array')) throw unprocessable(SMP_MESSAGES.noListOfLists);
  if (kinds.size > 1) throw badRequest(`list element types are not identical: ${goFormat(lists)}`);
  return [...kinds][0];
}

function mergePrimitiveList(original: JsonValue[], patch: JsonValue[]): JsonValue[] {
  const merged: JsonValue[] = [];
  for (const item of [...original, ...patch]) if (!merged.some((m) => deepEqual(m, item))) merged.push(item);
  const inPatch = (item: JsonValue) => patch.some((p) => deepEqual(p, item));
  const patchItems = sortByReference(merged.filter(inPatch), patch, (a, b) => deepEqual(a, b));
  const serverOnly = merged.filter((item) => !inPatch(item));
  return interleaveByServerOrder(serverOnly, patchItems, original, (a, b) => deepEqual(a, b));
}

function mergeListOfMaps(original: JsonObject[], patch: JsonObject[], mergeKey: string, element: FieldSchema): JsonValue[] {
  const elementCtx = contextForField(element);
  let server = [...original];
  let replace = false;
  const plain: JsonObject[] = [];
  for (const item of patch) {
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(item);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      const keyValue = mergeKeyOf(item, mergeKey);
      server = server.filter((s) => !(hasOwn(s, mergeKey) && deepEqual(s[mergeKey], keyValue)));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw badRequest(SMP_MESSAGES.mergeListDirective);
    } else {
      throw badRequest(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(item)}`);
    }
  }
  if (replace) {
    // The list becomes the patch's other elements, in patch order; each still needs its merge key.
    return plain.map((item) => {
      mergeKeyOf(item, mergeKey);
      return mergeMap(undefined, item, elementCtx) as JsonObject;
    });
  }
  const merged: JsonObject[] = [...server];
  for (const item of plain) {
    const keyValue = mergeKeyOf(item, mergeKey);
    const at = merged.findIndex((m) => hasOwn(m, mergeKey) && deepEqual(m[mergeKey], keyValue));
    if (at >= 0) merged[at] = mergeMap(merged[at], item, elementCtx) as JsonObject;
    else merged.push(mergeMap(undefined, item, elementCtx) as JsonObject);
  }
  const sameKey = (a: JsonValue, b: JsonValue) => deepEqual((a as JsonObject)[mergeKey], (b as JsonObject)[mergeKey]);
  const inPatch = (item: JsonObject) => plain.some((p) => sameKey(p, item));
  for (const item of merged) mergeKeyOf(item, mergeKey);
  const patchItems = sortByReference(merged.filter(inPatch), plain, sameKey);
  const serverOnly = merged.filter((item) => !inPatch(item));
  return interleaveByServerOrder(serverOnly, patchItems, server, sameKey);
}

function mergeKeyOf(item: JsonObject, mergeKey: string): JsonValue {
  if (!hasOwn(item, mergeKey)) throw badRequest(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`);
  return item[mergeKey];
}

type Same = (a: JsonValue, b: JsonValue) => boolean;

function indexIn(reference: readonly JsonValue[], item: JsonValue, same: Same): number {
  return reference.findIndex((r) => same(r, item));
}

/** Stable sort by position in `reference`; items not found keep their relative order at the end. */
function sortByReference<T extends JsonValue>(items: T[], reference: readonly JsonValue[], same: Same): T[] {
  const position = (item: T) => {
    const i = indexIn(reference, item, same);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return items.map((item, i) => ({ item, i, p: position(item) })).sort((a, b) => a.p - b.p || a.i - b.i).map((e) => e.item);
}

/**
 * The real server's final ordering step: patch items keep their (patch or $setElementOrder) order,
 * server-only items keep the live order, and a server-only item goes before a patch item only when both
 * are in the live list and it came first there. So items new to the list lead unless an order says otherwise.
 */
function interleaveByServerOrder<T extends JsonValue>(serverOnly: T[], patchItems: T[], serverOrder: readonly JsonValue[], same: Same): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (i >= serverOnly.length) out.push(patchItems[j++]);
    else if (j >= patchItems.length) out.push(serverOnly[i++]);
    else {
      const li = indexIn(serverOrder, serverOnly[i], same);
      const ri = indexIn(serverOrder, patchItems[j], same);
      if (li >= 0 && ri >= 0 && li < ri) out.push(serverOnly[i++]);
      else out.push(patchItems[j++]);
    }
  }
  return out;
}

function applyRetainKeys(target: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(list)) throw badRequest(SMP_MESSAGES.badRetainKeys);
  const retained = new Set(list.filter((k): k is string => typeof k === 'string'));
  for (const key of Object.keys(patch)) {
    if (key === RETAIN_KEYS_DIRECTIVE || patch[key] === null) continue;
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(key)) throw badRequest(SMP_MESSAGES.badRetainKeys);
  }
  for (const key of Object.keys(target)) if (!retained.has(key)) delete target[key];
}

/** The field a "$prefix/<field>" directive names, or undefined when the key is malformed. */
function directiveField(key: string, prefix: string): string | undefined {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) return undefined;
  return key.slice(slash + 1);
}

function deleteFromPrimitiveList(target: JsonObject, key: string, values: JsonValue): void {
  const field = directiveField(key, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
  if (field === undefined || !Array.isArray(values)) throw badRequest(SMP_MESSAGES.badPrimitiveList);
  const current = hasOwn(target, field) ? target[field] : undefined;
  if (!Array.isArray(current)) return;
  setOwn(target, field, current.filter((item) => !values.some((v) => deepEqual(v, item))));
}

/**
 * Carries out every "$setElementOrder/<field>" of the patch: merges that field's list (if the patch has
 * one) and then orders it. Returns the fields it handled, which the caller must not merge again.
 */
function applySetElementOrders(target: JsonObject, patch: JsonObject, ctx: MapContext): Set<string> {
  const handled = new Set<string>();
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const name = directiveField(key, SET_ELEMENT_ORDER_PREFIX);
    const order = patch[key];
    if (name === undefined || !Array.isArray(order)) throw badRequest(SMP_MESSAGES.badSetElementOrder);
    const field = memberField(ctx, name);
    const { mergeKey } = listStrategy(field);
    const live = hasOwn(target, name) ? target[name] : undefined;
    const patchList = hasOwn(patch, name) ? patch[name] : undefined;
    if (live !== undefined && !Array.isArray(live)) throw badRequest(`${SMP_MESSAGES.badSetElementOrder}: ${name} is not a list`);
    if (patchList !== undefined && patchList !== null && !Array.isArray(patchList)) {
      throw badRequest(`${SMP_MESSAGES.badSetElementOrder}: ${name} in the patch is not a list`);
    }
    if (Array.isArray(patchList)) checkPatchFollowsOrder(patchList, order, mergeKey);
    if (patchList === null) continue; // a null deletes the list; the main loop does that
    handled.add(name);
    let merged: JsonValue[];
    if (live !== undefined && patchList !== undefined) merged = mergeList(live, patchList, field, name);
    else if (patchList !== undefined) merged = valueFromPatch(patchList, field, name) as JsonValue[];
    else if (live !== undefined) merged = live;
    else continue;
    setOwn(target, name, orderBySetElementOrder(merged, order, live ?? [], mergeKey));
  }
  return handled;
}

function orderBySetElementOrder(merged: JsonValue[], order: JsonValue[], live: JsonValue[], mergeKey: string | undefined): JsonValue[] {
  let same: Same;
  if (mergeKey) {
    for (const item of merged) {
      if (!isJsonObject(item)) throw badRequest(`${SMP_MESSAGES.badSetElementOrder}: list elements must be maps`);
      mergeKeyOf(item, mergeKey);
    }
    for (const item of order) {
      if (!isJsonObject(item)) throw badRequest(`${SMP_MESSAGES.badSetElementOrder}: items must be maps holding the merge key ${mergeKey}`);
    }
    same = (a, b) => isJsonObject(a) && isJsonObject(b) && hasOwn(a, mergeKey) && hasOwn(b, mergeKey) && deepEqual(a[mergeKey], b[mergeKey]);
  } else {
    // Without a merge key only lists of scalars can be ordered; other lists keep their merged order.
    if (merged.some((item) => isJsonObject(item) || Array.isArray(item))) return merged;
    same = deepEqual;
  }
  const inOrder = (item: JsonValue) => indexIn(order, item, same) >= 0;
  const patchItems = sortByReference(merged.filter(inOrder), order, same);
  const serverOnly = sortByReference(merged.filter((item) => !inOrder(item)), live, same);
  return interleaveByServerOrder(serverOnly, patchItems, live, same);
}

/** The patch list's items (other than deletions) must appear in $setElementOrder, in the same order. */
function checkPatchFollowsOrder(patchList: JsonValue[], order: JsonValue[], mergeKey: string | undefined): void {
  if (patchList.length === 0 || order.length === 0) return;
  const items = patchList.filter((item) => !(isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)));
  const keyOf = (item: JsonValue): JsonValue => {
    if (!mergeKey) return item;
    if (!isJsonObject(item)) throw badRequest(`${SMP_MESSAGES.badSetElementOrder}: items must be maps holding the merge key ${mergeKey}`);
    return mergeKeyOf(item, mergeKey);
  };
  let p = 0;
  for (let s = 0; p < items.length && s < order.length; s++) {
    if (deepEqual(keyOf(items[p]), keyOf(order[s]))) p++;
  }
  if (p < items.length) {
    throw badRequest(`The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goFormat(order)}\n`);
  }
}
