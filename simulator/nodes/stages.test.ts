// The stage engine: entering a step arms its selected stages, a step change disarms them (not sticky ones),
// next steps chain, cancelAll stops everything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newStageTimers, StageEngine, type Stage, type StageSubject } from './stages.ts';

interface Thing extends StageSubject {
  log: string[];
  fast: boolean;
}

const thing = (fast = true): Thing => ({ step: 'A', stageTimers: newStageTimers(), log: [], fast });

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('stages chain through steps; the selector decides which stage is armed', async () => {
  const stages: Stage<Thing>[] = [
    { name: 'a-to-b', from: ['A'], when: (t) => t.fast, delayMs: () => 1, next: (t) => (t.log.push('a-to-b'), 'B') },
    { name: 'a-slow', from: ['A'], when: (t) => !t.fast, delayMs: () => 1, next: (t) => (t.log.push('a-slow'), 'C') },
    { name: 'b-to-c', from: ['B'], delayMs: () => 1, jitterMs: () => 3, next: (t) => (t.log.push('b-to-c'), 'C') },
    { name: 'never', from: ['C'], delayMs: () => Infinity, next: (t) => (t.log.push('never'), undefined) },
  ];
  const engine = new StageEngine(stages, () => true);
  const t = thing();
  engine.enter(t, 'A');
  await until(() => t.step === 'C');
  assert.deepEqual(t.log, ['a-to-b', 'b-to-c']);
  assert.equal(t.stageTimers.step.size, 0, 'an infinite delay arms nothing');
  const s = thing(false);
  engine.enter(s, 'A');
  await until(() => s.step === 'C');
  assert.deepEqual(s.log, ['a-slow']);
});

test('a step change disarms the old step\'s stages but not sticky ones; cancelAll disarms all', async () => {
  const stages: Stage<Thing>[] = [
    { name: 'slow', from: ['A'], delayMs: () => 60_000, next: (t) => (t.log.push('slow'), undefined) },
    { name: 'deadline', from: ['A'], sticky: true, delayMs: () => 60_000, next: (t) => (t.log.push('deadline'), undefined) },
    { name: 'move', from: ['A'], delayMs: () => 1, next: () => 'B' },
  ];
  const engine = new StageEngine(stages, () => true);
  const t = thing();
  engine.enter(t, 'A');
  await until(() => t.step === 'B');
  assert.equal(t.stageTimers.step.size, 0);
  assert.equal(t.stageTimers.sticky.size, 1);
  engine.cancelAll(t);
  assert.equal(t.stageTimers.sticky.size, 0);
  assert.deepEqual(t.log, []);
});

test('a subject that is no longer alive is left alone', async () => {
  let alive = true;
  const engine = new StageEngine<Thing>([{ name: 'x', from: ['A'], delayMs: () => 1, next: (t) => (t.log.push('x'), 'B') }], () => alive);
  const t = thing();
  alive = false;
  engine.enter(t, 'A');
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(t.log, []);
  assert.equal(t.step, 'A');
});
