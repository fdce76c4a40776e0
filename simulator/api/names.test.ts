// Name rules (DNS-1123 subdomain and label, DNS-1035 label, path segment) and generateName.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { generateName, nameErrors } from './names.ts';

const label = (s: string, first: RegExp) => s.length >= 1 && s.length <= 63 && first.test(s[0]) && /^[-a-z0-9]*$/.test(s) && /[a-z0-9]$/.test(s);
const model = {
  'dns1123-label': (n: string) => label(n, /[a-z0-9]/),
  'dns1035-label': (n: string) => label(n, /[a-z]/),
  'dns1123-subdomain': (n: string) => n.length <= 253 && n.split('.').every((p) => p.length > 0 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p)),
  'path-segment': (n: string) => n !== '.' && n !== '..' && !/[/%]/.test(n),
} as const;

const nameArb = fc.oneof(
  fc.string({ unit: fc.constantFrom(...'az09-.'.split(''), 'A', '_', '/', '%'), minLength: 1, maxLength: 12 }),
  fc.tuple(fc.integer({ min: 60, max: 66 }), fc.integer({ min: 250, max: 256 }), fc.boolean()).map(([a, b, sub]) => (sub ? 'a.'.repeat(b).slice(0, b - 1) + 'z' : 'a'.repeat(a))),
);

for (const rule of Object.keys(model) as Array<keyof typeof model>) {
  test(`property: ${rule} accepts exactly what the rule allows`, () => {
    fc.assert(fc.property(nameArb, (n) => assert.equal(nameErrors(n, rule).length === 0, model[rule](n), JSON.stringify(n))), { numRuns: 1500 });
  });
}

test('generateName prefixes may end in - or .', () => {
  assert.deepEqual(nameErrors('web-', 'dns1123-subdomain', true), []);
  assert.deepEqual(nameErrors('web.', 'dns1123-subdomain', true), []);
  assert.deepEqual(nameErrors('web-', 'dns1035-label', true), []);
  assert.notDeepEqual(nameErrors('Web-', 'dns1123-label', true), []);
  assert.deepEqual(nameErrors('web-', 'dns1123-label', false).length, 1);
});

test('messages as the real validators word them', () => {
  assert.deepEqual(nameErrors('a'.repeat(64), 'dns1123-label'), ['must be no more than 63 characters']);
  assert.deepEqual(nameErrors('x'.repeat(254), 'dns1123-subdomain'), ['must be no more than 253 characters']);
  assert.match(nameErrors('1abc', 'dns1035-label')[0], /^a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/);
  assert.deepEqual(nameErrors('a/b', 'path-segment'), [`may not contain '/' or '%'`]);
  assert.deepEqual(nameErrors('..', 'path-segment'), [`may not be '..'`]);
});

test('property: generateName = base cut to 58 + 5 characters of the real alphabet', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '-', '.'), maxLength: 80 }), (base) => {
      const n = generateName(base);
      const cut = base.slice(0, 58);
      assert.equal(n.slice(0, cut.length), cut);
      assert.match(n.slice(cut.length), /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    }),
  );
  const seen = new Set(Array.from({ length: 200 }, () => generateName('x-')));
  assert.ok(seen.size > 190, 'suffixes are random');
});
