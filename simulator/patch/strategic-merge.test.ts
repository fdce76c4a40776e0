import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PatchError } from './errors.ts';
import type { JsonObject, JsonValue } from '../util/json-value.ts';
import { schemaFromObject } from './schema-builder.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { deepFreeze, jsonValue } from './testing/arbitraries.ts';
import { docArb, itemArb, propSchema, propShape, uniqueByK } from './testing/strategic-fixtures.ts';
import { modelStrategicMerge, normalize } from './testing/strategic-model.ts';

const pod = schemaFromObject('Pod', {
  metadata: {
    fields: {
      name: 'string',
      labels: { type: 'map', elementType: 'string' },
      finalizers: { type: 'array', elementType: 'string', patchStrategy: 'merge' },
      ownerReferences: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'uid', fields: { uid: 'string', name: 'string' } },
    },
  },
  spec: {
    fields: {
      containers: {
        type: 'array',
        patchStrategy: 'merge',
        patchMergeKey: 'name',
        fields: {
          name: 'string',
          image: 'string',
          args: { type: 'array', elementType: 'string' },
          env: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'name', fields: { name: 'string', value: 'string' } },
        },
      },
      tolerations: { type: 'array', fields: { key: 'string', value: 'string' } },
      volumes: {
        type: 'array',
        patchStrategy: 'merge,retainKeys',
        patchMergeKey: 'name',
        fields: { name: 'string', hostPath: { fields: { path: 'string' } }, emptyDir: { fields: { medium: 'string' } } },
      },
      strategy: { patchStrategy: 'retainKeys', fields: { type: 'string', rollingUpdate: { fields: { maxSurge: 'int-or-string' } } } },
      nodeSelector: { type: 'map', elementType: 'string' },
      replaced: { patchStrategy: 'replace', fields: { a: 'string', b: 'string' } },
      keylessMergeList: { type: 'array', patchStrategy: 'merge', fields: { a: 'string' } },
    },
  },
});

function smp(doc: JsonValue, patch: JsonValue): JsonValue {
  return applyStrategicMergePatch(deepFreeze(structuredClone(doc)), deepFreeze(structuredClone(patch)), pod);
}

function errorOf(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  assert.fail('expected a PatchError');
}

const containers = (...items: JsonObject[]) => ({ spec: { containers: items } });

describe('applyStrategicMergePatch: merging', () => {
  const cases: Array<{ name: string; doc: JsonObject; patch: JsonValue; expected: JsonValue }> = [
    { name: 'maps merge recursively', doc: { metadata: { name: 'a', labels: { x: '1' } } }, patch: { metadata: { labels: { y: '2' } } }, expected: { metadata: { name: 'a', labels: { x: '1', y: '2' } } } },
    { name: 'null deletes a key', doc: { metadata: { labels: { x: '1', y: '2' } } }, patch: { metadata: { labels: { x: null } } }, expected: { metadata: { labels: { y: '2' } } } },
    { name: 'null for an absent key is ignored', doc: { metadata: {} }, patch: { metadata: { labels: null, z: null } }, expected: { metadata: {} } },
    { name: 'nulls inside a new value are dropped', doc: {}, patch: { metadata: { labels: { a: '1', b: null } } }, expected: { metadata: { labels: { a: '1' } } } },
    {
      name: 'keyed list: matched element merges, new element leads (real server order)',
      doc: containers({ name: 'a', image: 'x' }, { name: 'b', image: 'y' }),
      patch: containers({ name: 'b', image: 'z' }, { name: 'c', image: 'w' }),
      expected: containers({ name: 'a', image: 'x' }, { name: 'b', image: 'z' }, { name: 'c', image: 'w' }),
    },
    {
      name: 'keyed list: an element new to the list goes first when no order is given',
      doc: containers({ name: 'a' }, { name: 'b' }),
      patch: containers({ name: 'c' }),
      expected: containers({ name: 'c' }, { name: 'a' }, { name: 'b' }),
    },
    {
      name: 'keyed list: patch order wins over live order for patched elements',
      doc: containers({ name: '1' }, { name: '2', image: 'b' }, { name: '3' }),
      patch: containers({ name: '3', image: 'c' }, { name: '1', image: 'a' }),
      expected: containers({ name: '2', image: 'b' }, { name: '3', image: 'c' }, { name: '1', image: 'a' }),
    },
    {
      name: 'nested keyed list (env inside a container) merges',
      doc: containers({ name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] }),
      patch: containers({ name: 'a', env: [{ name: 'Y', value: '3' }] }),
      expected: containers({ name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '3' }] }),
    },
    {
      name: 'list without a strategy is replaced (args inside a merged container)',
      doc: containers({ name: 'a', args: ['1', '2'] }),
      patch: containers({ name: 'a', args: ['3'] }),
      expected: containers({ name: 'a', args: ['3'] }),
    },
    { name: 'list of maps without a strategy is replaced', doc: { spec: { tolerations: [{ key: 'a' }, { key: 'b' }] } }, patch: { spec: { tolerations: [{ key: 'c' }] } }, expected: { spec: { tolerations: [{ key: 'c' }] } } },
    { name: 'primitive merge list: union without duplicates', doc: { metadata: { finalizers: ['a', 'b'] } }, patch: { metadata: { finalizers: ['b', 'c', 'c'] } }, expected: { metadata: { finalizers: ['a', 'b', 'c'] } } },
    { name: 'primitive merge list: patch order for patched values', doc: { metadata: { finalizers: ['1', '2', '3'] } }, patch: { metadata: { finalizers: ['3', '1'] } }, expected: { metadata: { finalizers: ['2', '3', '1'] } } },
    { name: 'patchStrategy replace on a map field replaces it', doc: { spec: { replaced: { a: '1', b: '2' } } }, patch: { spec: { replaced: { a: '3' } } }, expected: { spec: { replaced: { a: '3' } } } },
    { name: 'unknown fields: maps merge', doc: { extra: { a: 1, b: { c: 1 } } }, patch: { extra: { b: { d: 2 } } }, expected: { extra: { a: 1, b: { c: 1, d: 2 } } } },
    { name: 'unknown fields: lists are replaced', doc: { extra: [{ name: 'a' }] }, patch: { extra: [{ name: 'b' }] }, expected: { extra: [{ name: 'b' }] } },
    { name: 'a value of another JSON type replaces', doc: { metadata: { labels: { a: '1' } } }, patch: { metadata: { labels: ['x'] } }, expected: { metadata: { labels: ['x'] } } },
    { name: 'null patch document changes nothing', doc: { a: 1 }, patch: null, expected: { a: 1 } },
    { name: 'merge keys compare by value, not by string form', doc: { metadata: { ownerReferences: [{ uid: '1', name: 'a' }] } }, patch: { metadata: { ownerReferences: [{ uid: '1', name: 'b' }] } }, expected: { metadata: { ownerReferences: [{ uid: '1', name: 'b' }] } } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(smp(c.doc, c.patch), c.expected));

  it('treats an own "__proto__" member as data', () => {
    const doc = JSON.parse('{"data":{"__proto__":"a","k":"v"}}') as JsonObject;
    const patch = JSON.parse('{"data":{"__proto__":null,"x":{"__proto__":{"polluted":true}}}}') as JsonObject;
    const result = applyStrategicMergePatch(doc, patch, undefined);
    assert.equal(JSON.stringify(result), '{"data":{"k":"v","x":{"__proto__":{"polluted":true}}}}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('merges with no schema at all: maps merge, lists replaced', () => {
    const result = applyStrategicMergePatch({ a: { b: 1 }, l: [1, 2] }, { a: { c: 2 }, l: [3] }, undefined);
    assert.deepEqual(result, { a: { b: 1, c: 2 }, l: [3] });
  });
});

describe('applyStrategicMergePatch: directives', () => {
  const cases: Array<{ name: string; doc: JsonObject; patch: JsonValue; expected: JsonValue }> = [
    { name: '$patch: replace in a map', doc: { metadata: { labels: { a: '1', b: '2' } } }, patch: { metadata: { labels: { c: '3', $patch: 'replace' } } }, expected: { metadata: { labels: { c: '3' } } } },
    { name: '$patch: replace at the top level', doc: { a: 1, b: 2 }, patch: { c: 3, $patch: 'replace' }, expected: { c: 3 } },
    { name: '$patch: delete in a map empties it', doc: { metadata: { labels: { a: '1' } } }, patch: { metadata: { labels: { $patch: 'delete' } } }, expected: { metadata: { labels: {} } } },
    { name: '$patch: delete on an absent map leaves it absent', doc: { metadata: {} }, patch: { metadata: { labels: { $patch: 'delete' } } }, expected: { metadata: {} } },
    {
      name: '$patch: delete element removes every element with that key',
      doc: containers({ name: 'a' }, { name: 'b' }, { name: 'a', image: 'dup' }),
      patch: containers({ name: 'a', $patch: 'delete' }),
      expected: containers({ name: 'b' }),
    },
    {
      name: '$patch: delete of a missing element is a no-op, and is not stored in a new list',
      doc: { spec: {} },
      patch: containers({ name: 'x' }, { name: 'y', $patch: 'delete' }),
      expected: containers({ name: 'x' }),
    },
    {
      name: '$patch: replace element replaces the whole list with the other elements',
      doc: containers({ name: 'a', image: '1' }, { name: 'b' }),
      patch: containers({ name: 'c' }, { $patch: 'replace' }, { name: 'a' }),
      expected: containers({ name: 'c' }, { name: 'a' }),
    },
    { name: '$patch: replace alone empties the list', doc: containers({ name: 'a' }), patch: containers({ $patch: 'replace' }), expected: containers() },
    {
      name: '$retainKeys clears keys outside the list',
      doc: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      expected: { spec: { strategy: { type: 'Recreate' } } },
    },
    {
      name: '$retainKeys inside a keyed list element',
      doc: { spec: { volumes: [{ name: 'v', hostPath: { path: '/x' } }] } },
      patch: { spec: { volumes: [{ name: 'v', emptyDir: {}, $retainKeys: ['emptyDir', 'name'] }] } },
      expected: { spec: { volumes: [{ name: 'v', emptyDir: {} }] } },
    },
    { name: '$retainKeys allows null members outside the list', doc: { spec: { strategy: { type: 'a', x: 1 } } }, patch: { spec: { strategy: { $retainKeys: ['type'], x: null } } }, expected: { spec: { strategy: { type: 'a' } } } },
    { name: '$deleteFromPrimitiveList removes values', doc: { metadata: { finalizers: ['a', 'b', 'c', 'b'] } }, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }, expected: { metadata: { finalizers: ['a', 'c'] } } },
    { name: '$deleteFromPrimitiveList on an absent list adds nothing', doc: { metadata: {} }, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } }, expected: { metadata: {} } },
    {
      name: '$deleteFromPrimitiveList with additions in the same patch',
      doc: { metadata: { finalizers: ['1', '2', '3'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['1', '2', '4'], '$deleteFromPrimitiveList/finalizers': ['3'], finalizers: ['4'] } },
      expected: { metadata: { finalizers: ['1', '2', '4'] } },
    },
    {
      name: '$setElementOrder orders a keyed list, new elements placed as listed',
      doc: containers({ name: '1', image: 'a' }, { name: '2', image: 'b' }),
      patch: { spec: { '$setElementOrder/containers': [{ name: '4' }, { name: '1' }, { name: '2' }, { name: '3' }], containers: [{ name: '4' }, { name: '3' }] } },
      expected: containers({ name: '4' }, { name: '1', image: 'a' }, { name: '2', image: 'b' }, { name: '3' }),
    },
    {
      name: '$setElementOrder alone reorders the live list',
      doc: containers({ name: '1' }, { name: '3' }),
      patch: { spec: { '$setElementOrder/containers': [{ name: '3' }, { name: '2' }, { name: '1' }] } },
      expected: containers({ name: '3' }, { name: '1' }),
    },
    {
      name: '$setElementOrder on a primitive list',
      doc: { metadata: { finalizers: ['1', '3'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['3', '2', '1'] } },
      expected: { metadata: { finalizers: ['3', '1'] } },
    },
    {
      name: 'directives inside a brand-new value are carried out, not stored',
      doc: {},
      patch: { spec: { containers: [{ name: 'a', env: [{ name: 'X', $patch: 'delete' }, { name: 'Y' }] }], extra: { $patch: 'replace', k: 1 } } },
      expected: { spec: { containers: [{ name: 'a', env: [{ name: 'Y' }] }], extra: { k: 1 } } },
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(smp(c.doc, c.patch), c.expected));
});

describe('applyStrategicMergePatch: errors', () => {
  const cases: Array<{ name: string; doc: JsonValue; patch: JsonValue; code: 400 | 422; message: string | RegExp }> = [
    { name: 'patch is not an object', doc: {}, patch: [1], code: 400, message: 'invalid JSON document' },
    { name: 'document is not an object', doc: [1], patch: {}, code: 400, message: 'invalid JSON document' },
    { name: '$patch: merge in a map', doc: {}, patch: { $patch: 'merge' }, code: 400, message: 'unknown patch type: merge in map: map[$patch:merge]' },
    { name: 'unknown $patch value in a map', doc: { metadata: { labels: {} } }, patch: { metadata: { labels: { $patch: 42 } } }, code: 400, message: /^unknown patch type: 42 in map/ },
    { name: '$patch: merge in a list', doc: containers({ name: 'a' }), patch: containers({ $patch: 'merge' }), code: 400, message: 'merging lists cannot yet be specified in the patch' },
    { name: 'unknown $patch value in a list element', doc: containers({ name: 'a' }), patch: containers({ name: 'a', $patch: 'frob' }), code: 400, message: 'unknown patch type: frob in map: map[$patch:frob name:a]' },
    { name: '$patch: delete element without its merge key', doc: containers({ name: 'a' }), patch: containers({ $patch: 'delete' }), code: 400, message: 'map: map[$patch:delete] does not contain declared merge key: name' },
    { name: 'element lacking its merge key', doc: containers({ name: 'a' }), patch: containers({ image: 'b' }), code: 400, message: 'map: map[image:b] does not contain declared merge key: name' },
    { name: 'list of maps with strategy merge but no key', doc: { spec: { keylessMergeList: [{ a: '1' }] } }, patch: { spec: { keylessMergeList: [{ a: '2' }] } }, code: 400, message: 'cannot merge lists without merge key for keylessMergeList' },
    { name: 'list of lists', doc: { metadata: { finalizers: [['a']] } }, patch: { metadata: { finalizers: [['b']] } }, code: 422, message: 'lists of lists are not supported' },
    { name: 'mixed element types', doc: containers({ name: 'a' }), patch: containers('b' as unknown as JsonObject), code: 400, message: /^list element types are not identical/ },
    { name: '$retainKeys not a list', doc: { spec: { strategy: {} } }, patch: { spec: { strategy: { $retainKeys: 'type' } } }, code: 400, message: 'invalid patch format of retainKeys' },
    { name: 'patch key outside $retainKeys', doc: { spec: { strategy: {} } }, patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, code: 400, message: 'invalid patch format of retainKeys' },
    { name: '$deleteFromPrimitiveList not a list', doc: { metadata: { finalizers: ['a'] } }, patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, code: 400, message: 'invalid patch format of primitive list' },
    { name: '$deleteFromPrimitiveList without a field', doc: { metadata: {} }, patch: { metadata: { $deleteFromPrimitiveList: ['a'] } }, code: 400, message: 'invalid patch format of primitive list' },
    { name: '$setElementOrder not a list', doc: containers(), patch: { spec: { '$setElementOrder/containers': { name: 'a' } } }, code: 400, message: 'invalid patch format of setElementOrder list' },
    { name: '$setElementOrder without a field', doc: {}, patch: { $setElementOrder: [] }, code: 400, message: 'invalid patch format of setElementOrder list' },
    {
      name: '$setElementOrder that contradicts the patch order',
      doc: containers({ name: '1' }, { name: '3' }, { name: '2' }),
      patch: { spec: { '$setElementOrder/containers': [{ name: '1' }, { name: '2' }, { name: '3' }], containers: [{ name: '3' }, { name: '1' }] } },
      code: 400,
      message: /doesn't match \$setElementOrder list/,
    },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.code}`, () => {
      const err = errorOf(() => smp(c.doc, c.patch));
      assert.equal(err.code, c.code);
      if (typeof c.message === 'string') assert.equal(err.message, c.message);
      else assert.match(err.message, c.message);
    });
  }
});

// ---- properties -------------------------------------------------------------------------------------

const liveDoc = docArb(false);
const directiveFreePatch = docArb(true);

describe('applyStrategicMergePatch: properties', () => {
  it('agrees with the order-blind model on directive-free patches', () => {
    fc.assert(
      fc.property(liveDoc, directiveFreePatch, (doc, patch) => {
        const actual = applyStrategicMergePatch(doc, patch, propSchema);
        const expected = modelStrategicMerge(doc, patch, propShape);
        assert.deepEqual(normalize(actual, propShape), normalize(expected, propShape));
      }),
      { numRuns: 400 },
    );
  });

  it('keyed elements with distinct keys merge the same whatever their order in the patch', () => {
    fc.assert(
      fc.property(liveDoc, uniqueByK(itemArb(true)), fc.nat(), (doc, items, seed) => {
        const rotated = items.map((_, i) => items[(i + seed) % items.length]);
        const a = applyStrategicMergePatch(doc, { items }, propSchema);
        const b = applyStrategicMergePatch(doc, { items: rotated }, propSchema);
        assert.deepEqual(normalize(a, propShape), normalize(b, propShape));
      }),
      { numRuns: 300 },
    );
  });

  it('patches touching disjoint keys commute', () => {
    const disjoint = fc.tuple(uniqueByK(itemArb(true)), uniqueByK(itemArb(true))).map(([p, q]) => [p, q.filter((x) => !p.some((y) => y.k === x.k))] as const);
    fc.assert(
      fc.property(liveDoc, disjoint, (doc, [p, q]) => {
        const pq = applyStrategicMergePatch(applyStrategicMergePatch(doc, { items: p }, propSchema), { items: q }, propSchema);
        const qp = applyStrategicMergePatch(applyStrategicMergePatch(doc, { items: q }, propSchema), { items: p }, propSchema);
        assert.deepEqual(normalize(pq, propShape), normalize(qp, propShape));
      }),
      { numRuns: 300 },
    );
  });

  const directiveKey = fc.constantFrom('$patch', '$retainKeys', '$setElementOrder/items', '$setElementOrder/tags', '$deleteFromPrimitiveList/tags', '$setElementOrder', 'items', 'tags', 'k', 'm', 'o');
  const directiveValue = fc.oneof(fc.constantFrom<JsonValue>('replace', 'delete', 'merge', ['k'], [{ k: 'k1' }], ['a']), jsonValue);
  const garbage: fc.Arbitrary<JsonValue> = fc.letrec<{ obj: JsonValue; val: JsonValue }>((tie) => ({
    obj: fc.dictionary(directiveKey, tie('val'), { maxKeys: 4, depthIdentifier: 'g', noNullPrototype: true }),
    val: fc.oneof({ depthIdentifier: 'g', maxDepth: 3 }, directiveValue, tie('obj'), fc.array(tie('obj'), { maxLength: 3, depthIdentifier: 'g' })),
  })).obj;

  it('garbage patches (random directives) only ever throw PatchError, and never touch their inputs', () => {
    fc.assert(
      fc.property(fc.oneof(liveDoc, garbage as fc.Arbitrary<JsonObject>), fc.oneof(garbage, jsonValue), (doc, patch) => {
        const before = JSON.stringify([doc, patch]);
        try {
          const result = applyStrategicMergePatch(deepFreeze(doc), deepFreeze(patch), propSchema);
          assert.equal(Object.isFrozen(result), false);
        } catch (err) {
          assert.ok(err instanceof PatchError, `unexpected ${String(err)}`);
        }
        assert.equal(JSON.stringify([doc, patch]), before);
      }),
      { numRuns: 500 },
    );
  });
});
