import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PatchError } from './errors.ts';
import { applyJsonPatch } from './json-patch.ts';
import type { JsonValue } from '../util/json-value.ts';
import { deepFreeze, jsonValue, pointersOf } from './testing/arbitraries.ts';
import { modelJsonPatch } from './testing/json-patch-model.ts';

function errorOf(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PatchError) return err;
    throw err;
  }
  assert.fail('expected a PatchError');
}

describe('applyJsonPatch: RFC 6902 appendix A examples', () => {
  const cases: Array<{ name: string; doc: JsonValue; patch: JsonValue; expected: JsonValue }> = [
    { name: 'A.1 add an object member', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux' }], expected: { baz: 'qux', foo: 'bar' } },
    { name: 'A.2 add an array element', doc: { foo: ['bar', 'baz'] }, patch: [{ op: 'add', path: '/foo/1', value: 'qux' }], expected: { foo: ['bar', 'qux', 'baz'] } },
    { name: 'A.3 remove an object member', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'remove', path: '/baz' }], expected: { foo: 'bar' } },
    { name: 'A.4 remove an array element', doc: { foo: ['bar', 'qux', 'baz'] }, patch: [{ op: 'remove', path: '/foo/1' }], expected: { foo: ['bar', 'baz'] } },
    { name: 'A.5 replace a value', doc: { baz: 'qux', foo: 'bar' }, patch: [{ op: 'replace', path: '/baz', value: 'boo' }], expected: { baz: 'boo', foo: 'bar' } },
    {
      name: 'A.6 move a value',
      doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
      patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
      expected: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    },
    { name: 'A.7 move an array element', doc: { foo: ['all', 'grass', 'cows', 'eat'] }, patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }], expected: { foo: ['all', 'cows', 'eat', 'grass'] } },
    { name: 'A.8 test success', doc: { baz: 'qux', foo: ['a', 2, 'c'] }, patch: [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], expected: { baz: 'qux', foo: ['a', 2, 'c'] } },
    { name: 'A.10 add a nested member object', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }], expected: { foo: 'bar', child: { grandchild: {} } } },
    { name: 'A.11 ignore unrecognised members', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], expected: { foo: 'bar', baz: 'qux' } },
    { name: 'A.14 ~ escape ordering', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: 10 }], expected: { '/': 9, '~1': 10 } },
    { name: 'A.16 add an array value', doc: { foo: ['bar'] }, patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], expected: { foo: ['bar', ['abc', 'def']] } },
    { name: 'test compares objects regardless of key order', doc: { a: { x: 1, y: [1, { z: 2 }] } }, patch: [{ op: 'test', path: '/a', value: { y: [1, { z: 2 }], x: 1 } }], expected: { a: { x: 1, y: [1, { z: 2 }] } } },
    { name: 'replace the root', doc: { a: 1 }, patch: [{ op: 'replace', path: '', value: [1] }], expected: [1] },
    { name: 'copy deep-copies', doc: { a: { b: 1 } }, patch: [{ op: 'copy', from: '/a', path: '/c' }, { op: 'replace', path: '/c/b', value: 2 }], expected: { a: { b: 1 }, c: { b: 2 } } },
    { name: 'move to the same place is a no-op', doc: { a: 1 }, patch: [{ op: 'move', from: '/a', path: '/a' }], expected: { a: 1 } },
    { name: 'test null', doc: { a: null }, patch: [{ op: 'test', path: '/a', value: null }], expected: { a: null } },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(applyJsonPatch(deepFreeze(c.doc), deepFreeze(c.patch)), c.expected));
  }
});

describe('applyJsonPatch: errors', () => {
  const cases: Array<{ name: string; doc: JsonValue; patch: unknown; code: 400 | 422; message?: RegExp }> = [
    { name: 'patch is not an array', doc: {}, patch: { op: 'add' }, code: 400, message: /must be a JSON array/ },
    { name: 'operation is not an object', doc: {}, patch: [1], code: 400 },
    { name: 'op missing', doc: {}, patch: [{ path: '/a', value: 1 }], code: 400, message: /"op" is missing/ },
    { name: 'unknown op', doc: {}, patch: [{ op: 'frobnicate', path: '/a' }], code: 400, message: /unknown op "frobnicate"/ },
    { name: 'path missing', doc: {}, patch: [{ op: 'remove' }], code: 400 },
    { name: 'path is not a pointer', doc: {}, patch: [{ op: 'add', path: 'a', value: 1 }], code: 400, message: /not a valid JSON pointer/ },
    { name: 'bad ~ escape', doc: {}, patch: [{ op: 'add', path: '/a~2', value: 1 }], code: 400 },
    { name: 'value missing', doc: {}, patch: [{ op: 'add', path: '/a' }], code: 400, message: /"value" is missing/ },
    { name: 'from missing', doc: { a: 1 }, patch: [{ op: 'copy', path: '/b' }], code: 400 },
    { name: 'malformed op later in the patch wins over an earlier failing one', doc: {}, patch: [{ op: 'remove', path: '/x' }, { op: 'nope', path: '' }], code: 400 },
    { name: 'A.9 test failure', doc: { baz: 'qux' }, patch: [{ op: 'test', path: '/baz', value: 'bar' }], code: 422, message: /^testing value \/baz failed: test failed$/ },
    { name: 'A.12 add to a nonexistent target', doc: { foo: 'bar' }, patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }], code: 422, message: /doc is missing path/ },
    { name: 'A.15 comparing strings and numbers', doc: { '/': 9, '~1': 10 }, patch: [{ op: 'test', path: '/~01', value: '10' }], code: 422 },
    { name: 'remove a missing member', doc: { a: 1 }, patch: [{ op: 'remove', path: '/b' }], code: 422 },
    { name: 'remove an inherited member', doc: {}, patch: [{ op: 'remove', path: '/constructor' }], code: 422 },
    { name: 'replace a missing member', doc: { a: 1 }, patch: [{ op: 'replace', path: '/b', value: 1 }], code: 422 },
    { name: 'test a missing member', doc: {}, patch: [{ op: 'test', path: '/toString', value: null }], code: 422 },
    { name: 'move from a missing member', doc: {}, patch: [{ op: 'move', from: '/a', path: '/b' }], code: 422, message: /missing from path/ },
    { name: 'move into its own child', doc: { a: { b: 1 } }, patch: [{ op: 'move', from: '/a', path: '/a/b/c' }], code: 422 },
    { name: 'add past the end of an array', doc: { a: [1] }, patch: [{ op: 'add', path: '/a/2', value: 1 }], code: 422 },
    { name: 'leading-zero array index', doc: { a: [1, 2] }, patch: [{ op: 'replace', path: '/a/01', value: 1 }], code: 422 },
    { name: 'empty array index', doc: { a: [1, 2] }, patch: [{ op: 'remove', path: '/a/' }], code: 422 },
    { name: '"-" is not an existing element', doc: { a: [1, 2] }, patch: [{ op: 'remove', path: '/a/-' }], code: 422 },
    { name: 'path through a scalar', doc: { a: 1 }, patch: [{ op: 'add', path: '/a/b', value: 1 }], code: 422 },
    { name: 'remove the root', doc: { a: 1 }, patch: [{ op: 'remove', path: '' }], code: 422 },
    { name: '__proto__ segment', doc: {}, patch: [{ op: 'add', path: '/__proto__', value: { polluted: true } }], code: 422 },
  ];
  for (const c of cases) {
    it(`${c.name} -> ${c.code}`, () => {
      const err = errorOf(() => applyJsonPatch(c.doc, c.patch));
      assert.equal(err.code, c.code);
      assert.equal(err.reason, c.code === 400 ? 'BadRequest' : 'Invalid');
      if (c.message) assert.match(err.message, c.message);
    });
  }

  it('a failing operation leaves no partial change behind', () => {
    const doc = { a: 1 };
    errorOf(() => applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 }]));
    assert.deepEqual(doc, { a: 1 });
  });

  it('does not pollute Object.prototype', () => {
    errorOf(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/polluted', value: true }]));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

/** Operations aimed mostly at locations that exist, so that patches apply often. */
const docAndPatch = jsonValue.chain((doc) => {
  const pointers = pointersOf(doc);
  const nearby = pointers.flatMap((p) => [p, `${p}/-`, `${p}/0`, `${p}/1`, `${p}/a`, `${p}/zz`]);
  const pointer = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...nearby) }, { weight: 1, arbitrary: fc.constantFrom('', 'bad', '/~2') });
  const op = fc.oneof(
    fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer, value: jsonValue }),
    fc.record({ op: fc.constant('remove'), path: pointer }),
    fc.record({ op: fc.constantFrom('move', 'copy'), path: pointer, from: pointer }),
    fc.record({ op: fc.constant('test'), path: fc.constantFrom(...pointers) }).map((o) => ({ ...o, value: modelValueAt(doc, o.path) })),
    fc.record({ op: fc.constantFrom('add', 'nope'), path: pointer }, { requiredKeys: [] }),
  );
  return fc.tuple(fc.constant(doc), fc.array(op, { maxLength: 4 }));
});

function modelValueAt(doc: JsonValue, pointer: string): JsonValue {
  const r = modelJsonPatch(doc, [{ op: 'copy', from: pointer, path: '' }]);
  return 'ok' in r ? r.ok : null;
}

describe('applyJsonPatch: properties', () => {
  it('agrees with the reference interpreter (result or error class)', () => {
    fc.assert(
      fc.property(docAndPatch, ([doc, patch]) => {
        const expected = modelJsonPatch(doc, patch);
        let actual: { ok: JsonValue } | { error: number };
        try {
          actual = { ok: applyJsonPatch(doc, patch) };
        } catch (err) {
          if (!(err instanceof PatchError)) throw err;
          actual = { error: err.code };
        }
        assert.deepEqual(actual, expected);
      }),
      { numRuns: 400 },
    );
  });

  it('never modifies the document or the patch', () => {
    fc.assert(
      fc.property(docAndPatch, ([doc, patch]) => {
        const docBefore = JSON.stringify(doc);
        const patchBefore = JSON.stringify(patch);
        try {
          const result = applyJsonPatch(deepFreeze(doc), deepFreeze(patch));
          // A result sharing structure with the frozen patch would make later writes to it fail.
          if (result !== null && typeof result === 'object') assert.equal(Object.isFrozen(result), false);
        } catch (err) {
          if (!(err instanceof PatchError)) throw err;
        }
        assert.equal(JSON.stringify(doc), docBefore);
        assert.equal(JSON.stringify(patch), patchBefore);
      }),
      { numRuns: 200 },
    );
  });

  it('garbage patches only ever throw PatchError', () => {
    fc.assert(
      fc.property(jsonValue, fc.oneof(fc.jsonValue(), fc.array(fc.dictionary(fc.constantFrom('op', 'path', 'from', 'value'), fc.jsonValue(), { noNullPrototype: true }))), (doc, patch) => {
        try {
          applyJsonPatch(doc, patch);
        } catch (err) {
          assert.ok(err instanceof PatchError, `unexpected ${String(err)}`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
