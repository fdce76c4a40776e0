// The test helper's contract with the frameworks, driven here by recording hooks of both shapes (node:test's
// before/after with { timeout }, and Vitest's and Jest's beforeAll/afterAll with a number), run in the order a
// framework runs them: a namespace per test, deleted after it also when the test failed, the simulator stopped at the
// end with its client config gone; waitFor resolves from a watch and times out with WaitTimeoutError.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { KubeApiError, useSimulator, WaitTimeoutError, type KubeObject, type TestHooks } from './testing.ts';

type Fn = () => Promise<void>;

function recordingHooks(style: 'node' | 'jest') {
  const hooks: Record<string, Fn> = {};
  const timeouts: unknown[] = [];
  const rec = (name: string) => (fn: Fn, t?: unknown) => {
    hooks[name] = fn;
    timeouts.push(t);
  };
  const given: TestHooks =
    style === 'node'
      ? { before: rec('all'), after: rec('end'), beforeEach: rec('each'), afterEach: rec('afterEach') }
      : { beforeAll: rec('all'), afterAll: rec('end'), beforeEach: rec('each'), afterEach: rec('afterEach') };
  return { given, hooks, timeouts };
}

test('Jest/Vitest-shaped hooks: a namespace per test, removed also after a failing test, the simulator stopped', async () => {
  const { given, hooks, timeouts } = recordingHooks('jest');
  const sim = useSimulator(given, { noControllers: true, nodes: 0, hookTimeoutMs: 45_000 });
  assert.deepEqual(timeouts, [45_000, 45_000, 45_000, 45_000], 'a number, as Jest and Vitest take it');
  assert.throws(() => sim.url, /only inside tests/);
  await hooks.all();
  try {
    await hooks.each();
    const first = sim.namespace;
    const cms = `/api/v1/namespaces/${first}/configmaps`;
    const later = sim.waitFor(`${cms}/late`, (o: KubeObject) => (o.data as Record<string, string> | undefined)?.ready === 'yes', { timeoutMs: 20_000 });
    await sim.client.create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' }, data: { ready: 'no' } });
    await sim.client.patch(`${cms}/late`, { data: { ready: 'yes' } });
    assert.equal(((await later).data as Record<string, string>).ready, 'yes', 'waitFor saw the change on its watch');
    await assert.rejects(sim.waitFor(`${cms}/late`, () => false, { timeoutMs: 300 }), (e) => e instanceof WaitTimeoutError && e.last?.metadata.name === 'late');
    await assert.rejects(sim.client.get(`${cms}/missing`), (e) => e instanceof KubeApiError && e.code === 404 && e.reason === 'NotFound');
    // The test "fails" here; the framework still runs afterEach.
    await hooks.afterEach();
    assert.throws(() => sim.namespace, /only inside tests/);
    const ns = await sim.client.get(`/api/v1/namespaces/${first}`).catch((e: KubeApiError) => e);
    assert.ok(ns instanceof KubeApiError || (ns.status as { phase?: string }).phase === 'Terminating', 'the namespace is being deleted');
    await hooks.each();
    assert.notEqual(sim.namespace, first, 'the next test gets a fresh namespace');
    await hooks.afterEach();
  } finally {
    const path = sim.kubeconfigPath;
    await hooks.end();
    assert.equal(existsSync(path), false, 'the client config is gone after the after hook');
  }
});

test('node:test-shaped hooks get { timeout }; a hook set without an after hook is refused', () => {
  const { given, timeouts } = recordingHooks('node');
  useSimulator(given);
  assert.deepEqual(timeouts, [{ timeout: 60_000 }, { timeout: 60_000 }, { timeout: 60_000 }, { timeout: 60_000 }]);
  assert.throws(() => useSimulator({ before: () => 0, beforeEach: () => 0, afterEach: () => 0 }), /no after\/afterAll/);
});
