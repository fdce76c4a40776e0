import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkVendor, substituteVendor } from './vendor.ts';

test('substitutes {vendor} in nested strings and keys without touching the input', () => {
  const input = { a: 'application/vnd.{vendor}.protobuf', b: ['/etc/{vendor}/ca/{vendor}.pem', 3, null, true], c: { '{vendor}-key': '{vendor}' } };
  const out = substituteVendor(input, 'acme');
  assert.deepEqual(out, { a: 'application/vnd.acme.protobuf', b: ['/etc/acme/ca/acme.pem', 3, null, true], c: { 'acme-key': 'acme' } });
  assert.equal(input.a, 'application/vnd.{vendor}.protobuf');
});

test('accepts lower-case words and refuses anything that would break a media type or path', () => {
  for (const ok of ['kubernetes', 'acme', 'k8s', 'my-vendor']) assert.equal(checkVendor(ok), undefined, ok);
  for (const bad of ['', 'Acme', 'a/b', 'a b', '-x', 'x-', '{vendor}']) assert.match(checkVendor(bad) ?? '', /vendor must be/, bad);
});
