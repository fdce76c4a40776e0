// The suites' own patch models against hand-checked examples from RFC 7386, RFC 6902 and the strategic
// merge rules of the wire facts, plus properties any correct model keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyMergePatch } from './merge-patch.ts';
import { applyJsonPatch } from './json-patch.ts';
import { applyStrategicMerge } from './strategic-merge.ts';
import { projectContainers } from './projection.ts';
import { canonicalJson, deepEqual, type JsonValue } from './json.ts';

test('merge patch: the RFC 7386 appendix examples', () => {
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
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) assert.deepEqual(applyMergePatch(target, patch), want, `${JSON.stringify(target)} + ${JSON.stringify(patch)}`);
});

test('merge patch: applying the same patch twice changes nothing more, and leaves the input alone', () => {
  fc.assert(
    fc.property(fc.jsonValue() as fc.Arbitrary<JsonValue>, fc.jsonValue() as fc.Arbitrary<JsonValue>, (target, patch) => {
      const before = canonicalJson(target);
      const once = applyMergePatch(target, patch);
      assert.ok(deepEqual(applyMergePatch(once, patch), once), 'deepEqual(applyMergePatch(once, patch), once)');
      assert.equal(canonicalJson(target), before);
    }),
  );
});

test('JSON patch: RFC 6902 examples and refusals', () => {
  const ok = (doc: JsonValue, ops: unknown[], want: JsonValue) => {
    const r = applyJsonPatch(doc, ops as never);
    assert.ok(r.ok, JSON.stringify(ops));
    assert.deepEqual(r.doc, want);
  };
  const refused = (doc: JsonValue, ops: unknown[]) => assert.equal(applyJsonPatch(doc, ops as never).ok, false, JSON.stringify(ops));
  ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' });
  ok({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] });
  ok({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' });
  ok({ baz: 'qux' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo' });
  ok({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }], { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
  ok({ a: 'x' }, [{ op: 'copy', from: '/a', path: '/b' }], { a: 'x', b: 'x' });
  ok({ 'a/b': 1, 'm~n': 2 }, [{ op: 'test', path: '/a~1b', value: 1 }, { op: 'test', path: '/m~0n', value: 2 }], { 'a/b': 1, 'm~n': 2 });
  ok({ foo: 'bar' }, [{ op: 'add', path: '/foo', value: 'new' }], { foo: 'new' });
  refused({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]);
  refused({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]);
  refused({ foo: 'bar' }, [{ op: 'remove', path: '/nothing' }]);
  refused({ foo: 'bar' }, [{ op: 'replace', path: '/nothing', value: 1 }]);
  refused({ a: { b: 1 } }, [{ op: 'move', from: '/a', path: '/a/c' }]);
  refused({ a: [1] }, [{ op: 'add', path: '/a/01', value: 2 }]);
  // a refused patch leaves the document as it was, even after earlier operations succeeded
  const doc = { a: '1' };
  refused(doc, [{ op: 'add', path: '/b', value: '2' }, { op: 'remove', path: '/c' }]);
  assert.deepEqual(doc, { a: '1' });
});

const KEYS = { 'spec.containers': 'name', 'spec.containers[].env': 'name', 'spec.containers[].ports': 'containerPort' };

test('strategic merge: keyed lists merge by key, other lists are replaced, null deletes, directives apply', () => {
  const original = { spec: { containers: [{ name: 'a', image: 'x', args: ['1', '2'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80 }] }] } };
  const patch: JsonValue = {
    spec: {
      containers: [
        { name: 'a', args: ['3'], env: [{ name: 'B', value: 'b' }, { name: 'C', value: '3' }, { name: 'A', $patch: 'delete' }], ports: [{ containerPort: 81 }] },
        { name: 'z', image: 'y' },
      ],
    },
  };
  const got = applyStrategicMerge(original, patch, KEYS) as any;
  assert.deepEqual(got.spec.containers.find((c: any) => c.name === 'a'), { name: 'a', image: 'x', args: ['3'], env: [{ name: 'B', value: 'b' }, { name: 'C', value: '3' }], ports: [{ containerPort: 80 }, { containerPort: 81 }] });
  assert.deepEqual(got.spec.containers.find((c: any) => c.name === 'z'), { name: 'z', image: 'y' });
  const replaced = applyStrategicMerge(original, { spec: { containers: [{ name: 'a', env: [{ $patch: 'replace' }, { name: 'Z', value: 'z' }], args: null }] } }, KEYS) as any;
  assert.deepEqual(replaced.spec.containers[0].env, [{ name: 'Z', value: 'z' }]);
  assert.equal('args' in replaced.spec.containers[0], false);
  // without the key declared, the same list is replaced wholesale
  const noKeys = applyStrategicMerge(original, patch, {}) as any;
  assert.equal(noKeys.spec.containers.length, 2);
  assert.deepEqual(noKeys.spec.containers[0].env.map((e: any) => e.name), ['B', 'C', 'A']);
});

test('projection: keyed lists compare as sets, defaults and empty lists are ignored, args keep order', () => {
  const keys = { containers: 'name', env: 'name', ports: 'containerPort', volumeMounts: 'mountPath' };
  const a = [{ name: 'm', image: 'i', args: ['1', '2'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [], imagePullPolicy: 'Always' }];
  const b = [{ name: 'm', image: 'i', args: ['1', '2'], env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }] }];
  assert.equal(canonicalJson(projectContainers(a, keys)), canonicalJson(projectContainers(b, keys)));
  const c = [{ ...b[0], args: ['2', '1'] }];
  assert.notEqual(canonicalJson(projectContainers(a, keys)), canonicalJson(projectContainers(c, keys)));
});
