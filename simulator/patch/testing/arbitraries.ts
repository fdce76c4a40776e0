// fast-check arbitraries for the patch property tests. Keys come from a small alphabet so that documents
// and patches collide often enough to exercise merging rather than plain insertion.
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '../../util/json-value.ts';

export const smallKey = fc.constantFrom('a', 'b', 'c', 'd', 'e~f', 'g/h', '');

export const jsonPrimitive: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(null, true, false, 0, 1, -2, 'x', 'y', ''),
  fc.integer({ min: -1000, max: 1000 }),
  fc.string({ maxLength: 4 }),
);

const tree = fc.letrec<{ value: JsonValue; object: JsonObject; array: JsonValue[] }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthIdentifier: 'json' }, jsonPrimitive, tie('object'), tie('array')),
  object: fc.dictionary(smallKey, tie('value'), { maxKeys: 4, depthIdentifier: 'json', noNullPrototype: true }) as fc.Arbitrary<JsonObject>,
  array: fc.array(tie('value'), { maxLength: 4, depthIdentifier: 'json' }),
}));

/** Any JSON value, small and collision-prone. */
export const jsonValue: fc.Arbitrary<JsonValue> = tree.value;
export const jsonObject: fc.Arbitrary<JsonObject> = tree.object;

/** JSON values with no null anywhere inside an object (what a merge patch can produce). */
export const jsonValueWithoutNullMembers: fc.Arbitrary<JsonValue> = jsonValue.map(function strip(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(strip);
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = strip(x);
    return out;
  }
  return v;
});

/** Every JSON pointer that exists in the document (including the root ""). */
export function pointersOf(doc: JsonValue, prefix = ''): string[] {
  const out = [prefix];
  if (Array.isArray(doc)) doc.forEach((v, i) => out.push(...pointersOf(v, `${prefix}/${i}`)));
  else if (doc !== null && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) out.push(...pointersOf(v, `${prefix}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
  }
  return out;
}

/** JSON values frozen deeply, so a test fails loudly if an engine writes to its input. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
