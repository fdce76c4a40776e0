// The test helper's hook shapes, without a framework: node:test's before/after get { timeout }, and a hook set
// without an after hook is refused (nothing would stop the simulator). What the helper does under the frameworks
// themselves (a namespace per test, deleted after a failing one, waitFor on a watch and its WaitTimeoutError,
// KubeApiError, the simulator stopped and its client config gone) is checked under node:test, Vitest and Jest
// by lib/package.test.ts, against the packed package.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSimulator, type TestHooks } from './testing.ts';

test('node:test-shaped hooks get { timeout }, Jest/Vitest-shaped ones a number; a hook set without an after hook is refused', () => {
  const timeouts: unknown[] = [];
  const rec = (_fn: unknown, t?: unknown) => void timeouts.push(t);
  const node: TestHooks = { before: rec, after: rec, beforeEach: rec, afterEach: rec };
  useSimulator(node);
  assert.deepEqual(timeouts, [{ timeout: 60_000 }, { timeout: 60_000 }, { timeout: 60_000 }, { timeout: 60_000 }]);
  timeouts.length = 0;
  const sim = useSimulator({ beforeAll: rec, afterAll: rec, beforeEach: rec, afterEach: rec }, { hookTimeoutMs: 45_000 });
  assert.deepEqual(timeouts, [45_000, 45_000, 45_000, 45_000]);
  assert.throws(() => sim.url, /only inside tests/);
  assert.throws(() => useSimulator({ before: () => 0, beforeEach: () => 0, afterEach: () => 0 }), /no after\/afterAll/);
});
