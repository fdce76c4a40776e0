// Job controller against a real simulator with simulated nodes (batch pods run 0.2 s by default here).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, phaseOf, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { jobController, type JobStatus } from './job.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  // Replacement pods after a failure wait 50 ms, 100 ms, ... instead of 10 s, 20 s, ...
  env = await startWorkloadEnv({ controllers: ['job'], factories: { job: () => jobController({ backoffMs: 50, maxBackoffMs: 400 }) } });
  api = new Api(env.url);
});
after(() => env.close());

const jobsPath = (ns: string, name = '') => `/apis/batch/v1/namespaces/${ns}/jobs${name ? `/${name}` : ''}`;
const js = (j: KubeObject | undefined) => (j?.status ?? {}) as JobStatus;
const finished = (j: KubeObject | undefined) => js(j).conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
const job = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { template: podTemplate({}, { restartPolicy: 'Never', annotations }), ...spec },
});

test('a Job with completions 3 and parallelism 2 completes, never running more than 2 pods at once', async () => {
  const ns = await api.namespace();
  await api.create(jobsPath(ns), job('work', { completions: 3, parallelism: 2 }));
  let maxActive = 0;
  const j = await eventually('job complete', async () => {
    const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
    maxActive = Math.max(maxActive, pods.filter((p) => !['Succeeded', 'Failed'].includes(phaseOf(p) ?? '')).length);
    const x = await api.get(jobsPath(ns, 'work'));
    return finished(x) && x;
  });
  assert.equal(finished(j)?.type, 'Complete');
  const s = js(j);
  assert.equal(s.succeeded, 3);
  assert.equal(s.active, undefined, 'active 0 is omitted');
  assert.ok(s.startTime && s.completionTime, 's.startTime && s.completionTime');
  assert.ok(Date.parse(s.completionTime!) >= Date.parse(s.startTime!), 'Date.parse(s.completionTime!) >= Date.parse(s.startTime!)');
  assert.ok(maxActive <= 2, `at most parallelism pods ran at once (saw ${maxActive})`);
  const pods = await api.list(`/api/v1/namespaces/${ns}/pods`);
  assert.equal(pods.filter((p) => phaseOf(p) === 'Succeeded').length, 3);
  for (const p of pods) {
    assert.equal(p.metadata.labels?.['job-name'], 'work');
    assert.deepEqual([p.metadata.ownerReferences?.[0].kind, p.metadata.ownerReferences?.[0].controller, p.metadata.ownerReferences?.[0].blockOwnerDeletion], ['Job', true, true]);
  }
});

test('a Job whose pods fail stops after backoffLimit retries with Failed/BackoffLimitExceeded', async () => {
  const ns = await api.namespace();
  await api.create(jobsPath(ns), job('bad', { backoffLimit: 2 }, { 'simulator.cluster.local/exit-code': '1', 'simulator.cluster.local/run-seconds': '0.05' }));
  const j = await eventually('job failed', async () => {
    const x = await api.get(jobsPath(ns, 'bad'));
    return finished(x) && x;
  });
  const c = finished(j)!;
  assert.equal(c.type, 'Failed');
  assert.equal(c.reason, 'BackoffLimitExceeded');
  assert.equal(js(j).failed, 3, 'the first run and 2 retries');
  assert.equal(js(j).succeeded, undefined);
  // No further pods after the job failed.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await api.list(`/api/v1/namespaces/${ns}/pods`)).length, 3);
});

test('a Job past activeDeadlineSeconds fails with DeadlineExceeded and its pods are deleted', async () => {
  const ns = await api.namespace();
  await api.create(jobsPath(ns), job('slow', { activeDeadlineSeconds: 1, parallelism: 2, completions: 2 }, { 'simulator.cluster.local/run-seconds': '60' }));
  const j = await eventually('deadline', async () => {
    const x = await api.get(jobsPath(ns, 'slow'));
    return finished(x) && x;
  });
  assert.equal(finished(j)?.reason, 'DeadlineExceeded');
  assert.equal(js(j).failed, 2);
  await eventually('pods gone', async () => (await api.list(`/api/v1/namespaces/${ns}/pods`)).length === 0);
});

test('a Job without completions completes when one pod succeeded and none is active', async () => {
  const ns = await api.namespace();
  await api.create(jobsPath(ns), job('any', { parallelism: 2, completions: null }));
  const j = await eventually('complete', async () => {
    const x = await api.get(jobsPath(ns, 'any'));
    return finished(x) && x;
  });
  assert.equal(finished(j)?.type, 'Complete');
  assert.ok((js(j).succeeded ?? 0) >= 1, '(js(j).succeeded ?? 0) >= 1');
});
