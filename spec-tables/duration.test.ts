import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDurationMs } from '../simulator/util/go-duration.ts';
import { loadSpecTables } from './index.ts';

test('parses the Go duration strings of the tables', () => {
  assert.equal(parseDurationMs('1m0s'), 60_000);
  assert.equal(parseDurationMs('8760h0m0s'), 8760 * 3_600_000);
  assert.equal(parseDurationMs('12h0m0s'), 12 * 3_600_000);
  assert.equal(parseDurationMs('15s'), 15_000);
  assert.equal(parseDurationMs('500ms'), 500);
  assert.equal(parseDurationMs('1.5s'), 1500);
  assert.equal(parseDurationMs('0'), 0);
});

test('rejects anything else with a clean error', () => {
  for (const bad of ['', '5', 'm', '1d', '1m 0s', 'abc', '1s2x', '-1s']) assert.throws(() => parseDurationMs(bad), /not a duration/, bad);
});

test('formats as Go prints durations, and round-trips every duration default', () => {
  assert.equal(formatDuration(0), '0s');
  assert.equal(formatDuration(500), '500ms');
  assert.equal(formatDuration(90_000), '1m30s');
  assert.equal(formatDuration(300_000), '5m0s');
  assert.equal(formatDuration(3_600_000), '1h0m0s');
  assert.throws(() => formatDuration(-1), /non-negative/);
  const all = loadSpecTables().options.filter((o) => o.type === 'duration');
  assert.equal(all.length, 20);
  assert.deepEqual(all.filter((o) => o.default === null).map((o) => o.name), ['--controller-start-interval']);
  const durations = all.filter((o) => typeof o.default === 'string');
  for (const o of durations) assert.equal(formatDuration(parseDurationMs(o.default as string)), o.default, o.name);
});
