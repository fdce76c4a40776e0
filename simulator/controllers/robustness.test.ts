// Controllers never stall and never flood (issue 17): an object a controller cannot handle is retried with
// backoff, reported with a Warning event, and never stops the controller for other objects; a ReplicaSet whose
// pods can never be created writes a bounded number of events (client-go's spam filter and aggregation), not
// about a hundred a second.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import type { JobStatus } from './job.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['job', 'replicaset'] });
  api = new Api(env.url);
});
after(() => env.close());

// A pod template without an image: valid in a workload (images may come later) but never a valid pod, so
// every pod create of its controller fails with 422.
const imageless = (labels: Record<string, string>, restartPolicy?: string) => ({
  metadata: { labels },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: [{ name: 'main' }] },
});

interface Ev extends KubeObject {
  reason: string;
  message: string;
  type: string;
  count?: number;
  involvedObject: { kind: string; name: string };
}

async function eventsOf(ns: string, kind: string, name: string): Promise<Ev[]> {
  return ((await api.list(`/api/v1/namespaces/${ns}/events`)) as Ev[]).filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

test('a Job whose pods cannot be created gets a Warning event and backs off; a valid Job elsewhere still completes', async () => {
  const badNs = await api.namespace('bad');
  const goodNs = await api.namespace('good');
  await api.create(`/apis/batch/v1/namespaces/${badNs}/jobs`, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'broken' }, spec: { template: imageless({}, 'Never') } });
  const warning = await eventually('a FailedCreate Warning for the broken Job', async () => (await eventsOf(badNs, 'Job', 'broken')).find((e) => e.type === 'Warning' && e.reason === 'FailedCreate'));
  assert.match(warning.message, /Error creating/);
  await api.create(`/apis/batch/v1/namespaces/${goodNs}/jobs`, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'fine' }, spec: { completions: 2, template: podTemplate({}, { restartPolicy: 'Never' }) } });
  const done = await eventually('the valid Job completes', async () => {
    const j = await api.get(`/apis/batch/v1/namespaces/${goodNs}/jobs/fine`);
    return ((j?.status ?? {}) as JobStatus).conditions?.some((c) => c.type === 'Complete' && c.status === 'True') && j;
  }, 60_000);
  assert.equal(((done.status ?? {}) as JobStatus).succeeded, 2);
  // The broken Job is still retried (with backoff), never given up on and never crashing the loop.
  const failed = (await eventsOf(badNs, 'Job', 'broken')).filter((e) => e.reason === 'FailedCreate');
  assert.ok(failed.length >= 1, 'failed.length >= 1');
});

test('a ReplicaSet whose pods cannot be created writes a few dozen events at most, not thousands', async () => {
  const ns = await api.namespace('flood');
  await api.create(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'stuck' },
    spec: { replicas: 3, selector: { matchLabels: { app: 'stuck' } }, template: imageless({ app: 'stuck' }) },
  });
  await eventually('FailedCreate events', async () => (await eventsOf(ns, 'ReplicaSet', 'stuck')).some((e) => e.reason === 'FailedCreate'));
  // Before the fix this was about 100 events a second: after 8 s, many hundreds.
  await new Promise((r) => setTimeout(r, 8000));
  const events = await eventsOf(ns, 'ReplicaSet', 'stuck');
  const writes = events.reduce((n, e) => n + (e.count ?? 1), 0);
  assert.ok(events.length <= 30, `${events.length} Event objects`);
  assert.ok(writes <= 30, `${writes} event writes (burst 25 per object)`);
  // Similar FailedCreate messages (each names another generated pod) collapse into one combined Event.
  assert.ok(events.some((e) => e.message.startsWith('(combined from similar events): ')), events.map((e) => e.message).join('\n'));
});
