// CronJob schedules: what the real server's ParseStandard accepts (field.CronJobSpec.schedule).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { scheduleError } from './cron-schedule.ts';

const field = (min: number, max: number) =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 1, max: max - min + 1 }).map((n) => `*/${n}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 2, maxLength: 4 }).map((xs) => xs.join(',')),
  );
const valid = fc.tuple(field(0, 59), field(0, 23), field(1, 28), field(1, 12), field(0, 6)).map((fs) => fs.join(' '));

test('field.CronJobSpec.schedule: property: well-formed five-field expressions parse', () => {
  fc.assert(fc.property(valid, (s) => assert.equal(scheduleError(s), undefined, s)), { numRuns: 300 });
});

test('field.CronJobSpec.schedule: property: six fields, or fewer than five, are refused', () => {
  fc.assert(fc.property(valid, fc.integer({ min: 1, max: 4 }), (s, n) => {
    assert.match(scheduleError(`0 ${s}`) ?? '', /Expected 5 fields/);
    assert.match(scheduleError(s.split(' ').slice(0, n).join(' ')) ?? '', /Expected 5 fields/);
  }));
});

test('field.CronJobSpec.schedule: out-of-range values, garbage and cron-parser extensions are refused', () => {
  for (const s of ['60 * * * *', '* 24 * * *', '* * 32 * *', '* * * 13 *', 'bogus', '', '@sometimes', '@every forever', '* * L * *', '* * * * 1#2', '* * 15W * *']) {
    assert.ok(scheduleError(s), `${JSON.stringify(s)} should be refused`);
  }
});

test('field.CronJobSpec.schedule: descriptors, @every durations, names and 30 February parse', () => {
  for (const s of ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly', '@every 1h30m', '@every 5s', '0 0 * JAN-MAR MON-FRI', '0 0 30 2 *', '0 0 ? * *']) {
    assert.equal(scheduleError(s), undefined, s);
  }
});
