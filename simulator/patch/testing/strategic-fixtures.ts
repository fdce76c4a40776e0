// Shared fixtures for the strategic merge property tests: one small type described twice (as a TypeSchema
// for the engine, as a ModelShape for the independent model) and arbitraries of documents of that type.
import fc from 'fast-check';
import type { JsonObject } from '../../util/json-value.ts';
import { schemaFromObject } from '../schema-builder.ts';
import { jsonPrimitive, jsonValue, jsonValueWithoutNullMembers } from './arbitraries.ts';
import type { ModelShape } from './strategic-model.ts';

/** The same shape twice: once as a TypeSchema for the engine, once in the model's own language. */
const itemFields = {
  k: 'string',
  v: 'string',
  tags: { type: 'array', elementType: 'string', patchStrategy: 'merge' },
  sub: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'k', fields: { k: 'string', v: 'string' } },
} as const;
export const propSchema = schemaFromObject('Root', {
  m: { type: 'map', elementType: 'string' },
  items: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'k', fields: itemFields },
  plain: { type: 'array', elementType: 'string' },
  o: { fields: { x: 'string', tags: { type: 'array', elementType: 'string', patchStrategy: 'merge' } } },
  r: { patchStrategy: 'retainKeys', fields: { p: 'string', q: 'string' } },
});
const subShape: ModelShape = { kind: 'keyedList', key: 'k', element: { kind: 'struct', fields: { k: { kind: 'unknown' }, v: { kind: 'unknown' } } } };
export const propShape: ModelShape = {
  kind: 'struct',
  fields: {
    m: { kind: 'map', value: { kind: 'unknown' } },
    items: { kind: 'keyedList', key: 'k', element: { kind: 'struct', fields: { tags: { kind: 'setList' }, sub: subShape } } },
    plain: { kind: 'replace' },
    o: { kind: 'struct', fields: { tags: { kind: 'setList' } } },
  },
};

const key = fc.constantFrom('k1', 'k2', 'k3', 'k4');
const str = fc.constantFrom('a', 'b', 'c');
const maybeNull = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) });
const rec = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T) => fc.record(model, { requiredKeys: [], noNullPrototype: true });
export const uniqueByK = <T extends { k: string }>(arb: fc.Arbitrary<T>) => fc.uniqueArray(arb, { selector: (x) => x.k, maxLength: 3 });

/**
 * `nulls`: members may be null (a patch); `canonical`: a document a patch can reproduce exactly (no null
 * inside objects, no duplicate values in merged scalar lists).
 */
export function itemArb(nulls: boolean, canonical = false) {
  const n = <T>(a: fc.Arbitrary<T>) => (nulls ? maybeNull(a) : a);
  const sub = uniqueByK(fc.record({ k: key, v: n(str) }, { requiredKeys: ['k'], noNullPrototype: true }) as fc.Arbitrary<{ k: string }>);
  const tags = canonical ? fc.uniqueArray(str, { maxLength: 3 }) : fc.array(str, { maxLength: 3 });
  const extra = canonical ? jsonPrimitive.filter((v) => v !== null) : jsonPrimitive;
  return fc.record({ k: key, v: n(str), tags: n(tags), sub: n(sub), extra: n(extra) }, { requiredKeys: ['k'], noNullPrototype: true }) as fc.Arbitrary<{ k: string }>;
}

export function docArb(nulls: boolean, canonical = false): fc.Arbitrary<JsonObject> {
  const n = <T>(a: fc.Arbitrary<T>) => (nulls ? maybeNull(a) : a);
  return rec({
    m: n(fc.dictionary(str, n(str), { maxKeys: 3, noNullPrototype: true })),
    items: n(uniqueByK(itemArb(nulls, canonical))),
    plain: n(fc.array(str, { maxLength: 3 })),
    o: n(rec({ x: n(str), tags: n(fc.uniqueArray(str, { maxLength: 3 })) })),
    r: n(rec({ p: n(str), q: n(str) })),
    other: n(canonical ? jsonValueWithoutNullMembers.filter((v) => v !== null) : jsonValue),
  }) as fc.Arbitrary<JsonObject>;
}

/** Documents that a two-way patch can reproduce exactly. */
export const canonicalDoc = docArb(false, true);
