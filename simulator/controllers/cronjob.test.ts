// CronJob controller: schedule arithmetic with a fixed clock, and runs against a real simulator with
// `@every 1s` schedules (robfig/cron's constant-delay descriptor, which the API accepts) and a 100 ms check
// interval instead of 10 s.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { cronJobController, nextScheduleTime, unmetScheduleTimes } from './cronjob.ts';
import { jobController } from './job.ts';
import { jobFinished } from './kit/job-status.ts';

test('next schedule times: five fields, descriptors, @every', () => {
  const t = new Date('2018-01-01T10:07:30.500Z');
  assert.equal(nextScheduleTime('@every 1s', t).toISOString(), '2018-01-01T10:07:31.000Z');
  assert.equal(nextScheduleTime('@every 1m30s', t).toISOString(), '2018-01-01T10:09:00.000Z');
  const five = nextScheduleTime('*/5 * * * *', t);
  assert.equal(five.getUTCMinutes() % 5, 0);
  assert.ok(five > t && five.getTime() - t.getTime() <= 5 * 60_000, 'five > t && five.getTime() - t.getTime() <= 5 * 60_000');
  const hourly = nextScheduleTime('@hourly', t);
  assert.equal(hourly.getMinutes(), 0);
  assert.ok(hourly > t, 'hourly > t');
});

test('missed times: from lastScheduleTime, bounded by startingDeadlineSeconds, more than 100 is an error', () => {
  const cj = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ metadata: { creationTimestamp: '2018-01-01T10:00:00Z' }, spec: { schedule: '* * * * *', ...spec }, status });
  const now = new Date('2018-01-01T10:05:30Z');
  assert.equal(unmetScheduleTimes(cj({}), now).length, 5);
  assert.equal(unmetScheduleTimes(cj({}, { lastScheduleTime: '2018-01-01T10:04:00Z' }), now).length, 1);
  assert.equal(unmetScheduleTimes(cj({ startingDeadlineSeconds: 90 }), now).length, 1);
  assert.throws(() => unmetScheduleTimes(cj({}), new Date('2018-01-01T12:00:00Z')), /Too many missed start times/);
  assert.equal(unmetScheduleTimes(cj({ startingDeadlineSeconds: 600 }), new Date('2018-01-01T12:00:00Z')).length, 10);
});

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({
    controllers: ['cronjob', 'job'],
    factories: { cronjob: () => cronJobController({ checkIntervalMs: 100 }), job: () => jobController({ backoffMs: 50 }) },
  });
  api = new Api(env.url);
});
after(() => env.close());

const cjPath = (ns: string, name = '') => `/apis/batch/v1beta1/namespaces/${ns}/cronjobs${name ? `/${name}` : ''}`;
const cronJob = (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '@every 1s', jobTemplate: { metadata: { labels: { from: name } }, spec: { template: podTemplate({}, { restartPolicy: 'Never', annotations }) } }, ...spec },
});
const jobsOf = async (ns: string) => api.list(`/apis/batch/v1/namespaces/${ns}/jobs`);

test('a CronJob creates Jobs on schedule, records lastScheduleTime and active, and keeps successfulJobsHistoryLimit', async () => {
  const ns = await api.namespace();
  await api.create(cjPath(ns), cronJob('tick', { successfulJobsHistoryLimit: 2 }, { 'simulator.cluster.local/run-seconds': '0.1' }));
  const seen = new Set<string>();
  await eventually('4 jobs seen', async () => {
    for (const j of await jobsOf(ns)) seen.add(j.metadata.name!);
    return seen.size >= 4;
  }, 30_000, 50);
  for (const name of seen) assert.match(name, /^tick-\d{10}$/, 'named <cronjob>-<unix seconds>');
  const cj = await api.get(cjPath(ns, 'tick'));
  assert.ok((cj?.status as { lastScheduleTime?: string }).lastScheduleTime, '(cj?.status as { lastScheduleTime?: string }).lastScheduleTime');
  const jobs = await jobsOf(ns);
  const j = jobs[0];
  assert.equal(j.metadata.labels?.from, 'tick');
  assert.deepEqual([j.metadata.ownerReferences?.[0].kind, j.metadata.ownerReferences?.[0].apiVersion, j.metadata.ownerReferences?.[0].controller], ['CronJob', 'batch/v1beta1', true]);
  await eventually('history limit', async () => (await jobsOf(ns)).filter((x) => jobFinished(x) === 'Complete').length <= 2 && seen.size >= 4);
});

test('concurrencyPolicy Forbid never runs two Jobs at once; suspend stops new runs', async () => {
  const ns = await api.namespace();
  await api.create(cjPath(ns), cronJob('forbid', { concurrencyPolicy: 'Forbid' }, { 'simulator.cluster.local/run-seconds': '2.5' }));
  const first = await eventually('first job', async () => (await jobsOf(ns))[0]);
  await new Promise((r) => setTimeout(r, 1500));
  const during = await jobsOf(ns);
  assert.equal(during.length, 1, 'no second job while the first runs');
  const cj = await api.get(cjPath(ns, 'forbid'));
  assert.deepEqual((cj?.status as { active?: Array<{ name: string }> }).active?.map((a) => a.name), [first.metadata.name]);
  await api.patch(cjPath(ns, 'forbid'), { spec: { suspend: true } });
  await eventually('first finished', async () => jobFinished((await jobsOf(ns))[0]));
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await jobsOf(ns)).length, 1, 'suspended: no new job');
});

test('concurrencyPolicy Replace deletes the running Job for the next one', async () => {
  const ns = await api.namespace();
  await api.create(cjPath(ns), cronJob('replace', { concurrencyPolicy: 'Replace' }, { 'simulator.cluster.local/run-seconds': '60' }));
  const first = await eventually('first job', async () => (await jobsOf(ns))[0]);
  const second = await eventually('replaced', async () => {
    const jobs = (await jobsOf(ns)).filter((j) => !j.metadata.deletionTimestamp);
    return jobs.length === 1 && jobs[0].metadata.name !== first.metadata.name && jobs[0];
  });
  // The controller deletes and creates first and writes its status after: wait for the status to follow.
  const active = await eventually('active names the new Job', async () => {
    const cj = await api.get(cjPath(ns, 'replace'));
    const names = (cj?.status as { active?: Array<{ name: string }> }).active?.map((a) => a.name);
    return names?.length === 1 && names[0] === second.metadata.name && names;
  });
  assert.deepEqual(active, [second.metadata.name]);
});
