// Label selector parsing and matching, label key and value rules, LabelSelector objects.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { labelKeyError, labelValueError, matchesRequirements, parseLabelSelector, requirementsOf, SelectorParseError } from './labels.ts';

/** Independent statement of the qualified-name rule: [prefix/]name, prefix a DNS-1123 subdomain <= 253, name <= 63. */
function validKey(k: string): boolean {
  const parts = k.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix.length === 0 || prefix.length > 253) return false;
    if (!prefix.split('.').every((l) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l))) return false;
  }
  return name.length >= 1 && name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}
const validValue = (v: string) => v === '' || (v.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(v));

const keyChars = fc.constantFrom(...'abAZ09-_./'.split(''), ' ', 'é');
const keyArb = fc.oneof(fc.string({ unit: keyChars, minLength: 0, maxLength: 10 }), fc.integer({ min: 60, max: 70 }).map((n) => 'k'.repeat(n)), fc.integer({ min: 250, max: 256 }).map((n) => 'p'.repeat(n) + '/k'));

describe('label keys and values', () => {
  test('property: labelKeyError agrees with the qualified-name rule', () => {
    fc.assert(fc.property(keyArb, (k) => assert.equal(labelKeyError(k) === undefined, validKey(k), JSON.stringify(k))), { numRuns: 2000 });
  });
  test('property: labelValueError agrees with the label-value rule', () => {
    const v = fc.oneof(fc.string({ unit: keyChars, maxLength: 10 }), fc.integer({ min: 60, max: 66 }).map((n) => 'v'.repeat(n)));
    fc.assert(fc.property(v, (x) => assert.equal(labelValueError(x) === undefined, validValue(x), JSON.stringify(x))), { numRuns: 2000 });
  });
  test('messages', () => {
    assert.equal(labelKeyError('a'.repeat(64)), 'name part must be no more than 63 characters');
    assert.equal(labelKeyError('/a'), 'prefix part must be non-empty');
    assert.equal(labelValueError('v'.repeat(64)), 'must be no more than 63 characters');
  });
});

describe('parseLabelSelector', () => {
  test('every operator', () => {
    assert.deepEqual(parseLabelSelector('a=b, c==d,e!=f,g in (h, i),j notin (k),l,!m, n>1,o<2'), [
      { key: 'a', op: '=', values: ['b'] },
      { key: 'c', op: '=', values: ['d'] },
      { key: 'e', op: '!=', values: ['f'] },
      { key: 'g', op: 'in', values: ['h', 'i'] },
      { key: 'j', op: 'notin', values: ['k'] },
      { key: 'l', op: 'exists', values: [] },
      { key: 'm', op: '!', values: [] },
      { key: 'n', op: 'gt', values: ['1'] },
      { key: 'o', op: 'lt', values: ['2'] },
    ]);
    assert.deepEqual(parseLabelSelector(undefined), []);
    assert.deepEqual(parseLabelSelector('  '), []);
    assert.deepEqual(parseLabelSelector('a='), [{ key: 'a', op: '=', values: [''] }]);
    assert.deepEqual(parseLabelSelector('example.com/app = web'), [{ key: 'example.com/app', op: '=', values: ['web'] }]);
  });
  for (const bad of ['a in (', 'a in ()', '!!a', 'a=b=c', 'a b', '=b', ',', 'a,', 'a in b', 'a>b', 'A_/b=c', 'a=-b', 'a notin(b']) {
    test(`rejects ${JSON.stringify(bad)}`, () => assert.throws(() => parseLabelSelector(bad), SelectorParseError));
  }
});

describe('matching', () => {
  test('property: a selector built from a label set matches it; negating any one requirement does not', () => {
    const labels = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'x.io/d'), fc.constantFrom('1', 'v', ''), { minKeys: 1 });
    fc.assert(
      fc.property(labels, (l) => {
        const sel = Object.entries(l).map(([k, v]) => `${k}=${v}`).join(',');
        assert.ok(matchesRequirements(parseLabelSelector(sel), l), 'matchesRequirements(parseLabelSelector(sel), l)');
        for (const [k, v] of Object.entries(l)) {
          assert.ok(!matchesRequirements(parseLabelSelector(`${sel},${k}!=${v}`), l), '!matchesRequirements(parseLabelSelector(`${sel},${k}!=${v}`), l)');
          assert.ok(!matchesRequirements(parseLabelSelector(`${sel},!${k}`), l), '!matchesRequirements(parseLabelSelector(`${sel},!${k}`), l)');
          assert.ok(matchesRequirements(parseLabelSelector(`${k} in (${v || 'zz'},other)`), l) === (v !== ''), "matchesRequirements(parseLabelSelector(`${k} in (${v || 'zz'},other)`), l) === (v !== '')");
        }
      }),
    );
  });
  test('gt and lt need integer label values', () => {
    assert.ok(matchesRequirements(parseLabelSelector('n>1'), { n: '2' }), "matchesRequirements(parseLabelSelector('n>1'), { n: '2' })");
    assert.ok(!matchesRequirements(parseLabelSelector('n>1'), { n: '1' }), "!matchesRequirements(parseLabelSelector('n>1'), { n: '1' })");
    assert.ok(!matchesRequirements(parseLabelSelector('n>1'), { n: 'x' }), "!matchesRequirements(parseLabelSelector('n>1'), { n: 'x' })");
    assert.ok(!matchesRequirements(parseLabelSelector('n<1'), {}), "!matchesRequirements(parseLabelSelector('n<1'), {})");
  });
  test('LabelSelector objects: matchLabels and matchExpressions; empty selects everything', () => {
    const reqs = requirementsOf({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'legacy', operator: 'DoesNotExist' }] });
    assert.ok(matchesRequirements(reqs, { app: 'web', tier: 'a' }), "matchesRequirements(reqs, { app: 'web', tier: 'a' })");
    assert.ok(!matchesRequirements(reqs, { app: 'web', tier: 'c' }), "!matchesRequirements(reqs, { app: 'web', tier: 'c' })");
    assert.ok(!matchesRequirements(reqs, { app: 'web', tier: 'a', legacy: '' }), "!matchesRequirements(reqs, { app: 'web', tier: 'a', legacy: '' })");
    assert.ok(matchesRequirements(requirementsOf({}), {}), 'matchesRequirements(requirementsOf({}), {})');
    assert.ok(matchesRequirements(requirementsOf({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] }), {}), "matchesRequirements(requirementsOf({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'…");
    assert.ok(matchesRequirements(requirementsOf({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }), { x: '' }), "matchesRequirements(requirementsOf({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }), { x: …");
  });
});
