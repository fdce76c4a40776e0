// Field selector parsing (escapes included), binding to supported fields, matching.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bindFieldSelector, matchesFields, META_FIELDS, parseFieldSelector } from './fields.ts';
import { SelectorParseError } from './labels.ts';
import type { KubeObject } from './meta.ts';

test('operators and whitespace', () => {
  assert.deepEqual(parseFieldSelector('metadata.name=a,metadata.namespace==b,status.phase!=Running'), [
    { field: 'metadata.name', op: '=', value: 'a' },
    { field: 'metadata.namespace', op: '=', value: 'b' },
    { field: 'status.phase', op: '!=', value: 'Running' },
  ]);
  assert.deepEqual(parseFieldSelector(''), []);
  assert.deepEqual(parseFieldSelector(undefined), []);
  assert.deepEqual(parseFieldSelector('metadata.name='), [{ field: 'metadata.name', op: '=', value: '' }]);
});

test('backslash escapes in values', () => {
  assert.deepEqual(parseFieldSelector('metadata.name=a\\,b,type=c\\=d'), [
    { field: 'metadata.name', op: '=', value: 'a,b' },
    { field: 'type', op: '=', value: 'c=d' },
  ]);
});

test('property: values escaped like the real client round-trip', () => {
  const escape = (v: string) => v.replace(/[\\,=!]/g, (c) => '\\' + c);
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.constantFrom('metadata.name', 'type', 'status.phase'), fc.constantFrom('=', '!='), fc.string({ unit: fc.constantFrom('a', ',', '=', '!', '\\', ' ', '.'), maxLength: 6 })), { minLength: 1, maxLength: 3 }), (reqs) => {
      const sel = reqs.map(([f, op, v]) => `${f}${op}${escape(v)}`).join(',');
      assert.deepEqual(parseFieldSelector(sel), reqs.map(([field, op, value]) => ({ field, op, value })), sel);
    }),
  );
});

test('malformed selectors', () => {
  for (const bad of ['metadata.name', 'a=b,,c=d', '=x', 'a<b']) assert.throws(() => parseFieldSelector(bad), SelectorParseError, bad);
});

test('binding: metadata.name and metadata.namespace always; others only when the kind declares them', () => {
  const obj = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p', namespace: 'ns' }, status: { phase: 'Running' } } as KubeObject;
  const extra = { fields: { ...META_FIELDS, 'status.phase': (o: KubeObject) => (o.status as { phase?: string }).phase } };
  assert.ok(matchesFields(bindFieldSelector(parseFieldSelector('metadata.name=p,metadata.namespace=ns'), undefined), obj), "matchesFields(bindFieldSelector(parseFieldSelector('metadata.name=p,metadata.namespace=ns'), undefi…");
  assert.ok(matchesFields(bindFieldSelector(parseFieldSelector('status.phase=Running'), extra), obj), "matchesFields(bindFieldSelector(parseFieldSelector('status.phase=Running'), extra), obj)");
  assert.ok(!matchesFields(bindFieldSelector(parseFieldSelector('status.phase!=Running'), extra), obj), "!matchesFields(bindFieldSelector(parseFieldSelector('status.phase!=Running'), extra), obj)");
  assert.throws(() => bindFieldSelector(parseFieldSelector('status.phase=Running'), undefined), { message: 'field label not supported: status.phase' });
  assert.throws(() => bindFieldSelector(parseFieldSelector('spec.x=y'), extra), SelectorParseError);
});
