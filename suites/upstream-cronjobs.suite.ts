// CronJob concurrency and suspend on the target (upstream registry entries 95-98; spec 2.3 CronJobSpec
// concurrencyPolicy and suspend, 3 rule.lifecycle.cronjob-concurrency): four batch/v1beta1 CronJobs of schedule
// "* * * * *" side by side in one namespace, each Job running for minutes: Allow runs a second Job beside the first,
// Replace deletes the running Job and starts the new one, Forbid starts nothing while its Job runs, a suspended
// CronJob starts nothing. The Allow and Replace Jobs of the second schedule are the witnesses that the second
// schedule came, so the check judges Forbid and suspend only once it has. Needs the cronjob and job controllers
// (`cluster` profile); a schedule comes once a minute, so the check waits up to two minutes on a target whose
// controllers keep wall-clock time.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check } from './harness/check.ts';
import { expectTrue, fail, forRows } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer, targetScaled } from './harness/observe.ts';
import { longBatchTemplate, mustCreate } from './harness/upstream-kit.ts';

const CRONJOBS: KindRef = { group: 'batch', version: 'v1beta1', kind: 'CronJob', resource: 'cronjobs', namespaced: true };
const POLICIES = { allow: 'Allow', forbid: 'Forbid', replace: 'Replace' } as const;

const ownerName = (j: KubeObject) => (j.metadata.ownerReferences ?? []).find((o) => o.kind === 'CronJob')?.name ?? j.metadata.name!.replace(/-\d+$/, '');

check(
  'upstream.cronjob.concurrency-and-suspend',
  {
    rows: ['rule.lifecycle.cronjob-concurrency', 'field.CronJobSpec.concurrencyPolicy', 'field.CronJobSpec.suspend', 'controller.cronjob'],
    upstream: [95, 96, 97, 98],
    needs: { controllers: ['cronjob', 'job'] },
    requires: [NEEDS_NAMESPACES, needs(CRONJOBS, ['create', 'get'])],
    title: 'at the second schedule of "* * * * *": Allow runs 2 Jobs at once, Replace deleted its first Job for a new one, Forbid and a suspended CronJob started none',
    timeoutSeconds: 240,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const jobs = await Observer.open(ctx, `/apis/batch/v1/namespaces/${ns}/jobs`);
    try {
      const api = `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`;
      const mk = (name: string, spec: Record<string, unknown>) =>
        mustCreate(
          ctx,
          api,
          { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: longBatchTemplate({ cron: name }) } }, ...spec } },
          `CronJob ${name}`,
        );
      for (const [name, policy] of Object.entries(POLICIES)) await mk(name, { concurrencyPolicy: policy });
      await mk('suspended', { suspend: true });
      // Every Job ever seen, per CronJob (the log keeps the deleted ones).
      const created = () => {
        const by: Record<string, Set<string>> = {};
        for (const c of jobs.log) if (c.type !== 'DELETED' && !c.object.metadata.deletionTimestamp) (by[ownerName(c.object)] ??= new Set()).add(c.object.metadata.uid!);
        return by;
      };
      const deleted = () => new Set(jobs.log.filter((c) => c.type === 'DELETED' || c.object.metadata.deletionTimestamp).map((c) => c.object.metadata.uid!));
      const minute = await targetScaled(ctx, 75_000);
      const first = await jobs.until(minute, () => (Object.keys(POLICIES).every((n) => (created()[n]?.size ?? 0) >= 1) ? true : undefined));
      if (!first) fail(`not every CronJob started a Job within ${minute / 1000} s of its creation: Jobs ${JSON.stringify(Object.fromEntries(Object.entries(created()).map(([k, v]) => [k, v.size])))}: no cronjob controller acts on this target`, 'controller.cronjob');
      const second = await jobs.until(minute, () => ((created().allow?.size ?? 0) >= 2 && (created().replace?.size ?? 0) >= 2 ? true : undefined));
      if (!second)
        fail(
          `entries 97/98: within ${minute / 1000} s of the first schedule, Allow and Replace should each have started a second Job: ${JSON.stringify(Object.fromEntries(Object.entries(created()).map(([k, v]) => [k, v.size])))}\n${jobs.story()}`,
          ['rule.lifecycle.cronjob-concurrency', 'field.CronJobSpec.concurrencyPolicy'],
        );
      // The controller passes over every CronJob at each schedule: give it a moment past the witnesses for Forbid.
      await jobs.hold(await targetScaled(ctx, 3_000));
      const by = created();
      const gone = deleted();
      await forRows(['rule.lifecycle.cronjob-concurrency', 'field.CronJobSpec.concurrencyPolicy'], () => {
        const allowLive = [...(by.allow ?? [])].filter((u) => !gone.has(u));
        expectTrue(allowLive.length >= 2, `entry 98: Allow should run its Jobs side by side; ${by.allow?.size} started, ${allowLive.length} still there`);
        const replaceLive = [...(by.replace ?? [])].filter((u) => !gone.has(u));
        const firstReplace = [...(by.replace ?? [])][0];
        expectTrue(gone.has(firstReplace) && replaceLive.length === 1, `entry 97: Replace should delete the running Job for the new one; ${by.replace?.size} started, still there: ${replaceLive.length}, first deleted: ${gone.has(firstReplace)}\n${jobs.story()}`);
        expectTrue((by.forbid?.size ?? 0) === 1, `entry 96: Forbid started ${by.forbid?.size} Jobs while its first still ran (expected 1)\n${jobs.story()}`);
      });
      expectTrue(!by.suspended, `entry 95: a suspended CronJob started ${by.suspended?.size} Jobs`, 'field.CronJobSpec.suspend');
    } finally {
      jobs.close();
    }
  },
);
