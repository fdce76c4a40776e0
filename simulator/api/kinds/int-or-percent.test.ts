// maxSurge / maxUnavailable values and the rounding named by the rows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fieldRow } from '../../../spec-tables/index.ts';
import { isZeroIntOrPercent, scaledValue, validateIntOrPercent } from './int-or-percent.ts';
import { validateRollingUpdate } from './deployment.ts';

test('field.RollingUpdateDeployment.maxSurge: property: non-negative counts and N% strings are valid; other strings are not', () => {
  fc.assert(fc.property(fc.nat(), (n) => assert.deepEqual(validateIntOrPercent(n, 'p'), [])));
  fc.assert(fc.property(fc.nat({ max: 1000 }), (n) => assert.deepEqual(validateIntOrPercent(`${n}%`, 'p'), [])));
  fc.assert(fc.property(fc.string().filter((s) => !/^[0-9]+%$/.test(s)), (s) => assert.equal(validateIntOrPercent(s, 'p').length, 1)));
  fc.assert(fc.property(fc.integer({ max: -1 }), (n) => assert.equal(validateIntOrPercent(n, 'p').length, 1)));
});

test('field.RollingUpdateDeployment.maxUnavailable: property: percentages above 100% are refused, at most 100% accepted', () => {
  fc.assert(fc.property(fc.nat({ max: 300 }), fc.integer({ min: 1, max: 5 }), (p, surge) => {
    const errs = validateRollingUpdate({ maxUnavailable: `${p}%`, maxSurge: surge }, 's');
    assert.equal(errs.length, p > 100 ? 1 : 0, `${p}%`);
  }));
});

test('field.RollingUpdateDeployment.maxSurge / maxUnavailable: rounding as the rows say (up for surge, down for unavailable)', () => {
  assert.equal(fieldRow('RollingUpdateDeployment', 'maxSurge')!.rounding, 'up');
  assert.equal(fieldRow('RollingUpdateDeployment', 'maxUnavailable')!.rounding, 'down');
  fc.assert(fc.property(fc.nat({ max: 100 }), fc.nat({ max: 1000 }), (p, total) => {
    const up = scaledValue(`${p}%`, total, 'up');
    const down = scaledValue(`${p}%`, total, 'down');
    assert.ok(down <= (p * total) / 100 && (p * total) / 100 <= up && up - down <= 1, 'down <= (p * total) / 100 && (p * total) / 100 <= up && up - down <= 1');
  }));
  assert.equal(scaledValue(3, 10, 'up'), 3);
  assert.equal(isZeroIntOrPercent('0%'), true);
  assert.equal(isZeroIntOrPercent('10%'), false);
});
