// A small model of strategic merge patch for the patch suite, enough for the lists the suite generates:
// maps merge recursively, null deletes a key, lists with a patch merge key merge element-wise by that key
// (matching elements merge, new ones are added, {"$patch":"delete", key} removes, a {"$patch":"replace"}
// element replaces the list), and every other list is replaced wholesale. The order of a merged list is
// not specified (spec 1.8: "merging does not keep order"), so callers compare merged lists as sets.
import { clone, isObject, type JsonObject, type JsonValue } from './json.ts';

/**
 * Merge keys by path from the object root; list elements are written `[]`, e.g.
 * `spec.template.spec.containers` -> `name`, `spec.template.spec.containers[].env` -> `name`.
 */
export type MergeKeys = Readonly<Record<string, string>>;

export function applyStrategicMerge(original: JsonValue | undefined, patch: JsonValue, keys: MergeKeys, path = ''): JsonValue {
  if (!isObject(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return {};
  const out: JsonObject = isObject(original) ? clone(original) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    const at = path ? `${path}.${key}` : key;
    if (value === null) delete out[key];
    else if (Array.isArray(value) && keys[at] !== undefined) out[key] = mergeList(out[key], value, keys[at], `${at}[]`, keys);
    else if (isObject(value)) out[key] = applyStrategicMerge(out[key], value, keys, at);
    else out[key] = clone(value);
  }
  return out;
}

function mergeList(original: JsonValue | undefined, patch: JsonValue[], mergeKey: string, elementPath: string, keys: MergeKeys): JsonValue[] {
  if (patch.some((e) => isObject(e) && e.$patch === 'replace')) {
    return patch.filter((e) => !(isObject(e) && e.$patch === 'replace')).map((e) => stripDirectives(e));
  }
  let out: JsonValue[] = Array.isArray(original) ? clone(original) : [];
  for (const element of patch) {
    if (!isObject(element)) continue;
    const key = element[mergeKey];
    if (element.$patch === 'delete') {
      out = out.filter((e) => !(isObject(e) && e[mergeKey] === key));
      continue;
    }
    const index = out.findIndex((e) => isObject(e) && e[mergeKey] === key);
    if (index >= 0) out[index] = applyStrategicMerge(out[index], element, keys, elementPath);
    else out.push(applyStrategicMerge({}, element, keys, elementPath));
  }
  return out;
}

function stripDirectives(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('$')).map(([k, x]) => [k, stripDirectives(x)]));
  return v;
}
