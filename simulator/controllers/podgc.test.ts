// Pod garbage collector: terminated pods beyond --terminated-pod-gc-threshold, oldest first; orphans of
// nodes that no longer exist.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Api, eventually, phaseOf, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { podGCController } from './podgc.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['podgc'], flags: ['--terminated-pod-gc-threshold=2'], factories: { podgc: () => podGCController({ checkIntervalMs: 100 }) } });
  api = new Api(env.url);
});
after(() => env.close());

test('terminated pods beyond the threshold are deleted, oldest first; running pods stay', async () => {
  const ns = await api.namespace();
  const mk = (name: string, restartPolicy: string) =>
    api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: { 'simulator.cluster.local/run-seconds': '0.05' } }, spec: { restartPolicy, containers: [{ name: 'main', image: 'busybox:1.28' }] } });
  await mk('keep-running', 'Always');
  for (const n of ['done-1', 'done-2', 'done-3', 'done-4']) {
    await mk(n, 'Never');
    await new Promise((r) => setTimeout(r, 1100)); // distinct whole-second creation times, so "oldest" is defined
  }
  const left = await eventually('collected down to 2', async () => {
    const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
    const done = pods.filter((p) => phaseOf(p) === 'Succeeded');
    return done.length === 2 && pods;
  });
  assert.deepEqual(left.filter((p) => phaseOf(p) === 'Succeeded').map((p) => p.metadata.name).sort(), ['done-3', 'done-4']);
  assert.ok(left.some((p) => p.metadata.name === 'keep-running'), "left.some((p) => p.metadata.name === 'keep-running')");
});

test('pods bound to a node that does not exist are force-deleted', async () => {
  const ns = await api.namespace();
  await api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'lost' }, spec: { nodeName: 'no-such-node', containers: [{ name: 'main', image: 'busybox:1.28' }] } });
  await eventually('orphan deleted', async () => (await api.get(`/api/v1/namespaces/${ns}/pods/lost`)) === undefined);
});
