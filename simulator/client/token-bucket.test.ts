import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket, RateLimiterAbortedError } from './token-bucket.ts';

test('the bucket starts full with burst tokens, then refills at qps (fake clock)', () => {
  let now = 0;
  const b = new TokenBucket({ qps: 10, burst: 3, now: () => now });
  assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), false);
  now += 100; // one token at 10 qps
  assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), false);
  now += 10_000; // never more than burst
  for (let i = 0; i < 3; i++) assert.equal(b.tryAcquire(), true);
  assert.equal(b.tryAcquire(), false);
});

test('waiters are served at about qps, in order', async () => {
  const b = new TokenBucket({ qps: 50, burst: 1 });
  const order: number[] = [];
  const start = performance.now();
  await Promise.all(Array.from({ length: 11 }, (_, i) => b.acquire().then(() => order.push(i))));
  const elapsed = performance.now() - start;
  assert.deepEqual(order, [...Array(11).keys()]);
  // 10 refills at 50/s take 200 ms at least; generous upper bound for a loaded machine.
  assert.ok(elapsed >= 180, `took ${elapsed} ms`);
  assert.ok(elapsed < 2000, `took ${elapsed} ms`);
});

test('abort while waiting rejects and frees the place', async () => {
  const b = new TokenBucket({ qps: 1, burst: 1 });
  await b.acquire();
  const ac = new AbortController();
  const p = b.acquire(ac.signal);
  ac.abort();
  await assert.rejects(p, RateLimiterAbortedError);
  const q = b.acquire();
  b.stop();
  await assert.rejects(q, RateLimiterAbortedError);
});

test('qps <= 0 means no limit', async () => {
  const b = new TokenBucket({ qps: 0, burst: 1 });
  for (let i = 0; i < 1000; i++) assert.equal(b.tryAcquire(), true);
  await b.acquire();
});
