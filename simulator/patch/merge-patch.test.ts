import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonValue } from '../util/json-value.ts';
import { applyMergePatch, applyMergePatchSharing, createMergePatch } from './merge-patch.ts';
import { deepFreeze, jsonValue, jsonValueWithoutNullMembers } from './testing/arbitraries.ts';
import { modelMergePatch } from './testing/merge-patch-model.ts';

describe('applyMergePatch: RFC 7386 appendix A', () => {
  const cases: Array<[JsonValue, JsonValue, JsonValue]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [doc, patch, expected] of cases) {
    it(`${JSON.stringify(doc)} + ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(applyMergePatch(deepFreeze(doc), deepFreeze(patch)), expected);
    });
  }

  it('treats an own "__proto__" member as data', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as JsonValue;
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.deepEqual(Object.keys(result), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('createMergePatch', () => {
  it('names removed members with null and recurses into objects', () => {
    assert.deepEqual(createMergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { b: { c: 1, d: 3 }, e: [1], f: 'x' }), { a: null, b: { d: 3 }, f: 'x' });
  });

  it('replaces arrays and non-objects whole', () => {
    assert.deepEqual(createMergePatch({ a: [1, 2] }, { a: [2] }), { a: [2] });
    assert.deepEqual(createMergePatch([1], { a: 1 }), { a: 1 });
  });
});

describe('merge patch: properties', () => {
  it('agrees with the RFC pseudo-code', () => {
    fc.assert(fc.property(jsonValue, jsonValue, (doc, patch) => {
      assert.deepEqual(applyMergePatch(doc, patch), modelMergePatch(doc, patch));
    }), { numRuns: 500 });
  });

  it('applyMergePatch(a, createMergePatch(a, b)) equals b', () => {
    fc.assert(fc.property(jsonValue, jsonValueWithoutNullMembers, (a, b) => {
      assert.deepEqual(applyMergePatch(a, createMergePatch(a, b)), b);
    }), { numRuns: 500 });
  });

  it('is idempotent', () => {
    fc.assert(fc.property(jsonValue, jsonValue, (doc, patch) => {
      const once = applyMergePatch(doc, patch);
      assert.deepEqual(applyMergePatch(once, patch), once);
    }), { numRuns: 300 });
  });

  it('never modifies its inputs', () => {
    fc.assert(fc.property(jsonValue, jsonValue, (doc, patch) => {
      const before = JSON.stringify([doc, patch]);
      const result = applyMergePatch(deepFreeze(doc), deepFreeze(patch));
      const created = createMergePatch(doc, patch);
      // Results are fresh values: writing to them must not hit the frozen inputs.
      if (result !== null && typeof result === 'object') assert.equal(Object.isFrozen(result), false);
      if (created !== null && typeof created === 'object') assert.equal(Object.isFrozen(created), false);
      assert.equal(JSON.stringify([doc, patch]), before);
    }), { numRuns: 300 });
  });
});

describe('applyMergePatchSharing', () => {
  it('gives the same document as applyMergePatch, never modifying its inputs', () => {
    fc.assert(fc.property(jsonValue, jsonValue, (doc, patch) => {
      const before = JSON.stringify([doc, patch]);
      assert.deepEqual(applyMergePatchSharing(deepFreeze(doc), deepFreeze(patch)), applyMergePatch(doc, patch));
      assert.equal(JSON.stringify([doc, patch]), before);
    }), { numRuns: 500 });
  });

  it('shares the members the patch does not reach and copies the objects on its paths', () => {
    const doc = deepFreeze({ spec: { containers: [{ name: 'a' }] }, status: { phase: 'Pending', conditions: [{ type: 'Ready' }] } }) as Record<string, JsonValue>;
    const out = applyMergePatchSharing(doc, { status: { phase: 'Running' } }) as Record<string, Record<string, JsonValue>>;
    assert.equal(out.spec, doc.spec);
    assert.equal(out.status.conditions, (doc.status as Record<string, JsonValue>).conditions);
    assert.notEqual(out.status, doc.status);
    assert.equal(Object.isFrozen(out), false);
    assert.equal(Object.isFrozen(out.status), false);
    assert.equal(out.status.phase, 'Running');
  });
});
