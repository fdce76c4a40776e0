import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoDuration, formatGoDuration, HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, toMilliseconds } from './go-duration.ts';

test('formats like Go Duration.String()', () => {
  const cases: Array<[bigint, string]> = [
    [0n, '0s'],
    [1n, '1ns'],
    [1100n, '1.1µs'],
    [500n * MILLISECOND, '500ms'],
    [1500n * MILLISECOND, '1.5s'],
    [15n * SECOND, '15s'],
    [MINUTE, '1m0s'],
    [90n * SECOND, '1m30s'],
    [5n * MINUTE, '5m0s'],
    [HOUR, '1h0m0s'],
    [12n * HOUR, '12h0m0s'],
    [8760n * HOUR, '8760h0m0s'],
    [2n * HOUR + 45n * MINUTE, '2h45m0s'],
    [-(3n * SECOND), '-3s'],
    [(1n << 63n) - 1n, '2562047h47m16.854775807s'],
  ];
  for (const [d, s] of cases) assert.equal(formatGoDuration(d), s, `format ${d}`);
});

test('parses like time.ParseDuration', () => {
  const cases: Array<[string, bigint]> = [
    ['0', 0n],
    ['-0', 0n],
    ['1m0s', MINUTE],
    ['8760h0m0s', 8760n * HOUR],
    ['300ms', 300n * MILLISECOND],
    ['1.5h', 90n * MINUTE],
    ['2h45m', 165n * MINUTE],
    ['.5s', 500n * MILLISECOND],
    ['1.s', SECOND],
    ['10us', 10n * MICROSECOND],
    ['10µs', 10n * MICROSECOND],
    ['10μs', 10n * MICROSECOND],
    ['-1.5s', -1500n * MILLISECOND],
    ['+2s', 2n * SECOND],
    ['1h1h', 2n * HOUR],
  ];
  for (const [s, d] of cases) assert.equal(parseGoDuration(s), d, `parse ${s}`);
});

test('rejects bad durations with Go messages', () => {
  assert.throws(() => parseGoDuration(''), /time: invalid duration ""/);
  assert.throws(() => parseGoDuration('abc'), /time: invalid duration "abc"/);
  assert.throws(() => parseGoDuration('1'), /time: missing unit in duration "1"/);
  assert.throws(() => parseGoDuration('1d'), /time: unknown unit "d" in duration "1d"/);
  assert.throws(() => parseGoDuration('.s'), /invalid duration/);
  assert.throws(() => parseGoDuration('9999999999999h'), /invalid duration/);
  assert.throws(() => parseGoDuration('1s '), /unknown unit/);
});

test('round-trips and converts to milliseconds', () => {
  for (const s of ['1m0s', '12h0m0s', '1.5s', '40s', '2562047h47m16.854775807s']) assert.equal(formatGoDuration(parseGoDuration(s)), s);
  assert.equal(toMilliseconds(parseGoDuration('1m30s')), 90_000);
});
