import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairQueue } from './fair-queue.ts';

const nextPass = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

/** A clock that moves only when a task says so. */
function fakeClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('fair queue: with budget left and nothing waiting, a task runs at once', () => {
  const q = new FairQueue({ budgetMs: 5, now: fakeClock().now });
  const ran: string[] = [];
  q.run('a', () => ran.push('a1'));
  q.run('b', () => ran.push('b1'));
  assert.deepEqual(ran, ['a1', 'b1']);
  assert.equal(q.stats.immediate, 2);
  assert.equal(q.queued, 0);
});

test('fair queue: once the pass has spent its budget, flows are served round robin, each in its own order', async () => {
  const clock = fakeClock();
  const q = new FairQueue({ budgetMs: 5, now: clock.now });
  const ran: string[] = [];
  // The first task spends the pass's budget: everything after it waits for the end of the pass.
  q.run('busy', () => {
    ran.push('busy0');
    clock.advance(6);
  });
  for (let i = 1; i <= 4; i++) q.run('busy', () => ran.push(`busy${i}`));
  q.run('user', () => ran.push('user1'));
  q.run('other', () => ran.push('other1'));
  q.run('user', () => ran.push('user2'));
  assert.deepEqual(ran, ['busy0']);
  assert.equal(q.queued, 7);
  await nextPass();
  assert.deepEqual(ran, ['busy0', 'busy1', 'user1', 'other1', 'busy2', 'user2', 'busy3', 'busy4']);
  assert.equal(q.queued, 0);
  assert.equal(q.stats.queued, 7);
});

test('fair queue: a pass of the queues stops at the budget and the rest waits for the next pass', async () => {
  const clock = fakeClock();
  const q = new FairQueue({ budgetMs: 5, now: clock.now });
  const ran: number[] = [];
  q.run('f', () => clock.advance(10));
  // Each waiting task costs 2 ms: a pass serves three (2, 4, then 6 >= 5 stops it).
  for (let i = 0; i < 7; i++)
    q.run(`f${i % 2}`, () => {
      ran.push(i);
      clock.advance(2);
    });
  await new Promise<void>((r) => setImmediate(r));
  await undefined;
  const afterOne = ran.length;
  assert.ok(afterOne >= 1 && afterOne < 7, `one pass served ${afterOne} of 7`);
  for (let i = 0; i < 10 && ran.length < 7; i++) await nextPass();
  assert.deepEqual([...ran].sort(), [0, 1, 2, 3, 4, 5, 6]);
  assert.ok(q.stats.drains >= 2, `drains: ${q.stats.drains}`);
});

test('fair queue: a task that throws does not stop the others', async () => {
  const clock = fakeClock();
  const q = new FairQueue({ budgetMs: 1, now: clock.now });
  const ran: string[] = [];
  q.run('a', () => clock.advance(2));
  q.run('a', () => {
    throw new Error('boom');
  });
  q.run('b', () => ran.push('b'));
  q.run('a', () => ran.push('a'));
  for (let i = 0; i < 10 && ran.length < 2; i++) await nextPass();
  assert.deepEqual(ran.sort(), ['a', 'b']);
});

test('fair queue: a new pass answers at once again once the queues are empty', async () => {
  const clock = fakeClock();
  const q = new FairQueue({ budgetMs: 5, now: clock.now });
  q.run('a', () => clock.advance(6));
  let late = false;
  q.run('a', () => (late = true));
  assert.equal(late, false);
  await nextPass();
  assert.equal(late, true);
  await nextPass();
  let now = false;
  q.run('b', () => (now = true));
  assert.equal(now, true, 'an idle server answers in the turn it reads the request');
});
