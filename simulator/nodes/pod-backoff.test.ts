// The wait of pods that fit nowhere: doubling up to a cap, updates ignored while waiting, early wakes by kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { PodBackoff } from './pod-backoff.ts';

test('each failed try waits twice as long as the last, up to the cap; the retry comes when the wait ends', async () => {
  const retried: string[] = [];
  const b = new PodBackoff({ initialMs: 20, maxMs: 80, coalesceMs: 5, retry: (k) => retried.push(k) });
  assert.deepEqual([b.failed('a', false), b.failed('a', false), b.failed('a', false), b.failed('a', false)], [20, 40, 80, 80]);
  assert.equal(b.isWaiting('a'), true);
  assert.equal(b.isWaiting('b'), false);
  await sleep(120);
  assert.deepEqual(retried, ['a'], 'one retry: an earlier wait is replaced, not added to');
  assert.equal(b.isWaiting('a'), false, 'tried again: no longer waiting');
  assert.equal(b.failed('a', false), 80, 'the doubling goes on from the last wait, at the cap');
  b.forget('a');
  assert.equal(b.size, 0);
  assert.equal(b.failed('a', false), 20, 'a forgotten pod starts again at the first wait');
  b.close();
});

test('freed room wakes only the pods that lacked room; a changed node wakes all, once per interval', async () => {
  const retried: string[] = [];
  const b = new PodBackoff({ initialMs: 10_000, maxMs: 60_000, coalesceMs: 10, retry: (k) => retried.push(k) });
  b.failed('room', true);
  b.failed('selector', false);
  b.wake('room');
  b.wake('room');
  await sleep(40);
  assert.deepEqual(retried, ['room']);
  b.failed('room', true);
  b.wake('room');
  b.wake('all');
  await sleep(40);
  assert.deepEqual(retried.sort(), ['room', 'room', 'selector'], 'one pass for both wakes, every waiting pod once');
  b.close();
});
