// The loop timers end with their signal, including a signal aborted before the timer was asked for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { every, sleep, untilAborted } from './timers.ts';

test('sleep: resolves after its time, at once on abort, and at once for a signal already aborted', async () => {
  const t0 = Date.now();
  await sleep(30, new AbortController().signal);
  assert.ok(Date.now() - t0 >= 25, 'Date.now() - t0 >= 25');
  const ac = new AbortController();
  const long = sleep(3_600_000, ac.signal);
  ac.abort();
  await long;
  const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  await sleep(3_600_000, AbortSignal.abort());
  assert.equal(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length, before, 'no hour-long timer left behind');
});

test('every: ticks until abort; an aborted signal starts nothing', async () => {
  const ac = new AbortController();
  let n = 0;
  every(5, ac.signal, () => n++);
  await sleep(60, new AbortController().signal);
  ac.abort();
  const seen = n;
  assert.ok(seen >= 2, `ticked ${seen} times`);
  await sleep(40, new AbortController().signal);
  assert.equal(n, seen, 'no tick after abort');
  let m = 0;
  every(1, AbortSignal.abort(), () => m++);
  await sleep(20, new AbortController().signal);
  assert.equal(m, 0);
});

test('untilAborted: resolves on abort and at once when already aborted', async () => {
  await untilAborted(AbortSignal.abort());
  const ac = new AbortController();
  const p = untilAborted(ac.signal);
  ac.abort();
  await p;
});
