import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue, runWorkers } from './work-queue.ts';
import { DaemonMetrics } from './metrics.ts';

test('deduplicates keys waiting in the queue', async () => {
  const q = new WorkQueue<string>({ name: 't' });
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  q.shutDown();
  assert.equal(await q.get(), undefined);
});

test('a key added while processing is not given to a second worker, but re-queued on done', async () => {
  const q = new WorkQueue<string>({ name: 't' });
  q.add('a');
  const key = await q.get();
  q.add('a');
  assert.equal(q.length, 0, 'not queued while a worker holds it');
  q.done(key!);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'a');
  q.done('a');
  assert.equal(q.length, 0);
  q.shutDown();
});

test('a waiting get receives the next add; abort ends the wait', async () => {
  const q = new WorkQueue<string>({ name: 't' });
  const pending = q.get();
  q.add('x');
  assert.equal(await pending, 'x');
  const ac = new AbortController();
  const p2 = q.get(ac.signal);
  ac.abort();
  assert.equal(await p2, undefined);
  q.shutDown();
});

test('rate-limited re-adds back off exponentially per key; forget resets', () => {
  const q = new WorkQueue<string>({ name: 't', baseDelayMs: 5, maxDelayMs: 1000 });
  assert.deepEqual([q.nextDelay('k'), q.nextDelay('k'), q.nextDelay('k'), q.nextDelay('k')], [5, 10, 20, 40]);
  assert.equal(q.numRequeues('k'), 4);
  q.forget('k');
  assert.equal(q.nextDelay('k'), 5);
  for (let i = 0; i < 20; i++) q.nextDelay('m');
  assert.equal(q.nextDelay('m'), 1000, 'capped');
  q.shutDown();
});

test('workers reconcile, retry failures with backoff, and record metrics', async () => {
  const metrics = new DaemonMetrics({ processMetrics: false });
  const q = new WorkQueue<string>({ name: 'ns', metrics, baseDelayMs: 5 });
  const attempts = new Map<string, number>();
  const ac = new AbortController();
  let concurrent = 0;
  let maxConcurrent = 0;
  const done = runWorkers(
    q,
    3,
    async (key) => {
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await new Promise((r) => setTimeout(r, 5));
      concurrent--;
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      if (key === 'flaky' && n < 3) throw new Error('not yet');
    },
    ac.signal,
    { controller: 'namespace', metrics },
  );
  for (const k of ['a', 'b', 'c', 'd', 'flaky']) q.add(k);
  const start = performance.now();
  while ((attempts.get('flaky') ?? 0) < 3 && performance.now() - start < 3000) await new Promise((r) => setTimeout(r, 5));
  ac.abort();
  await done;
  assert.equal(attempts.get('flaky'), 3);
  assert.equal(attempts.get('a'), 1);
  assert.ok(maxConcurrent <= 3 && maxConcurrent >= 2, `max concurrency ${maxConcurrent}`);
  const text = await metrics.text();
  assert.match(text, /controller_reconcile_total\{controller="namespace",result="error"\} 2/);
  assert.match(text, /controller_reconcile_total\{controller="namespace",result="success"\} 5/);
  assert.match(text, /workqueue_retries_total\{name="ns"\} 2/);
  assert.match(text, /workqueue_adds_total\{name="ns"\} 7/);
});
