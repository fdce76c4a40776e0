// Each controller has a rate limit of its own, as in the real daemon (a client per controller from one
// config): a Job whose thousands of pods keep the Job controller at its --x-api-qps does not slow the
// ReplicaSet controller down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Api, eventually, podTemplate, startWorkloadEnv } from '../../testing/workload-test-env.ts';

test('a Job creating pods at the limit does not hold up the ReplicaSet controller (a rate limit per controller)', async () => {
  const env = await startWorkloadEnv({ controllers: ['job', 'replicaset'], flags: ['--x-api-qps=4', '--x-api-burst=4'] });
  try {
    const api = new Api(env.url);
    const ns = await api.namespace();
    // Pods that never run (no node has the label): the Job controller keeps creating toward 10,000 at 4 per second.
    await api.create(`/apis/batch/v1/namespaces/${ns}/jobs`, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'flood' },
      spec: { parallelism: 10_000, template: { ...podTemplate({}, { restartPolicy: 'Never' }), spec: { ...podTemplate({}).spec, restartPolicy: 'Never', nodeSelector: { pool: 'none' } } } },
    });
    await eventually('the Job controller at its limit', async () => (await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=job-name%3Dflood`)).length >= 8);
    const start = Date.now();
    await api.create(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) },
    });
    await eventually('the ReplicaSet pods created', async () => (await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`)).length === 4);
    const ms = Date.now() - start;
    // Its own bucket: 4 creates (burst 4) and a status write within about a second. Sharing the Job
    // controller's bucket, they would wait behind its 20 creates in flight: 5 s or more.
    assert.ok(ms < 3_000, `the ReplicaSet's 4 pods took ${ms} ms`);
  } finally {
    await env.close();
  }
});
