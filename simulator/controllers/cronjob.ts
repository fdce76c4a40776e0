// The CronJob controller, shaped like the 1.9 one: a loop that looks at every CronJob every check interval
// (10 s in 1.9; configurable here, with an injectable clock, so tests can be fast) and, per CronJob:
// - drops finished or vanished Jobs from status.active;
// - unless suspended or being deleted, finds the schedule times missed since lastScheduleTime (or creation;
//   no earlier than now - startingDeadlineSeconds) — more than 100 is an error — and acts on the latest:
//   too late for startingDeadlineSeconds: skipped; concurrencyPolicy Forbid with an active Job: skipped;
//   Replace: the active Jobs (and their pods) are deleted first; then a Job `<cronjob>-<unix seconds of the
//   scheduled time>` is created from jobTemplate, owned by the CronJob, added to status.active, and
//   lastScheduleTime is set;
// - deletes the oldest finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit.
// Schedules: five cron fields (cron-parser, local time as the real daemon), the @yearly.. @hourly
// descriptors, and `@every <Go duration>` (robfig/cron: start time truncated to the second plus the delay),
// which is what lets a test run a CronJob every second.

import type { CronJobStatus } from '../api/types/index.ts';
import { CronExpressionParser } from 'cron-parser';
import type { KubeObject, ObjectMeta } from '../api/meta.ts';
import { parseDurationMs } from '../util/go-duration.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import type { Informer } from '../client/informer.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { jobFinished, jobStatus, type JobSpec } from './kit/job-status.ts';
import { controllerRefOf, createIn, deleteObject, isConflict, ownerRef, rfc3339, selectorMatches, specOf, writeStatus, type Obj } from './kit/workload-util.ts';
import { sleep } from '../client/timers.ts';
import { copyJson } from '../util/json-value.ts';
import { RESOURCE } from '../client/resource-paths.ts';
import { isJsonNumber } from '../util/int64-json.ts';

export const MAX_MISSED_START_TIMES = 100;

export interface CronJobSpec {
  schedule?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate?: { metadata?: ObjectMeta; spec?: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}


export interface CronJobControllerOptions {
  /** How often every CronJob is looked at (default 10 s). */
  checkIntervalMs?: number;
  now?: () => Date;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The schedule's next time strictly after `after`. */
export function nextScheduleTime(schedule: string, after: Date): Date {
  const s = schedule.trim();
  if (s.startsWith('@every ')) {
    // robfig/cron ConstantDelaySchedule: at least one second, whole seconds.
    const delay = Math.max(1000, Math.floor(parseDurationMs(s.slice(7).trim()) / 1000) * 1000);
    return new Date(Math.floor(after.getTime() / 1000) * 1000 + delay);
  }
  const expr = DESCRIPTORS[s] ?? s;
  return CronExpressionParser.parse(expr, { currentDate: after }).next().toDate();
}

/** Schedule times in (earliest, now], oldest first; throws when more than 100 were missed. */
export function unmetScheduleTimes(cj: KubeObject, now: Date): Date[] {
  const spec = specOf<CronJobSpec>(cj);
  const status = (cj.status ?? {}) as CronJobStatus;
  let earliest = new Date(Date.parse(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '') || now.getTime());
  // An int64 beyond 2^53 arrives as a BigInt (util/int64-json.ts): a Number is precise enough for a time.
  if (isJsonNumber(spec.startingDeadlineSeconds)) {
    const deadline = new Date(now.getTime() - Number(spec.startingDeadlineSeconds) * 1000);
    if (deadline > earliest) earliest = deadline;
  }
  const out: Date[] = [];
  if (earliest > now) return out;
  for (let t = nextScheduleTime(spec.schedule ?? '', earliest); t <= now; t = nextScheduleTime(spec.schedule ?? '', t)) {
    out.push(t);
    if (out.length > MAX_MISSED_START_TIMES) throw new Error('Too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew.');
  }
  return out;
}


export class CronJobController implements Controller {
  readonly name = 'cronjob';
  private events: EventRecorder | undefined;
  constructor(private readonly opts: CronJobControllerOptions = {}) {}

  async run(ctx: ControllerContext): Promise<void> {
    this.events = new EventRecorder(ctx.client, { component: 'cronjob-controller' }, { log: ctx.log, signal: ctx.signal });
    const cronJobs = ctx.informers.informerFor(RESOURCE.cronJobs.collection());
    const jobs = ctx.informers.informerFor(RESOURCE.jobs.collection());
    const pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    if (!(await cronJobs.waitForSync(ctx.signal)) || !(await jobs.waitForSync(ctx.signal))) return;
    const interval = this.opts.checkIntervalMs ?? 10_000;
    while (!ctx.signal.aborted) {
      const started = Date.now();
      for (const cj of cronJobs.list()) {
        if (ctx.signal.aborted) return;
        try {
          await this.syncOne(ctx, cj, jobs, pods);
        } catch (err) {
          if (!ctx.signal.aborted) ctx.log(`cronjob ${cj.metadata.namespace}/${cj.metadata.name}: ${(err as Error).message}`);
        }
      }
      await sleep(Math.max(0, interval - (Date.now() - started)), ctx.signal);
    }
  }

  async syncOne(ctx: ControllerContext, cj: KubeObject, jobs: Informer, pods: Informer): Promise<void> {
    const now = this.opts.now?.() ?? new Date();
    const ns = cj.metadata.namespace ?? 'default';
    const spec = specOf<CronJobSpec>(cj);
    const oldStatus = (cj.status ?? {}) as CronJobStatus;
    const owned = jobs.list().filter((j) => j.metadata.namespace === ns && controllerRefOf(j)?.uid === cj.metadata.uid);
    const byUid = new Map(owned.map((j) => [j.metadata.uid, j]));
    // Active list: only jobs that still exist and have not finished.
    const sawCompleted: string[] = [];
    let active = (oldStatus.active ?? []).filter((ref) => {
      const j = byUid.get(ref.uid);
      if (j && jobFinished(j)) sawCompleted.push(j.metadata.name ?? '');
      return j && !jobFinished(j);
    });
    const cjRef = () => refOf(cj, 'batch/v1beta1', 'CronJob');
    let lastScheduleTime = oldStatus.lastScheduleTime;
    const write = async () => {
      const status: Obj = { ...(active.length ? { active } : {}), ...(lastScheduleTime ? { lastScheduleTime } : {}) };
      await writeStatus(ctx.client, RESOURCE.cronJobs.of(cj, 'status'), cj.status as Obj | undefined, status, ctx.signal, cj.metadata.resourceVersion);
      for (const name of sawCompleted.splice(0)) this.events?.event(cjRef(), 'Normal', 'SawCompletedJob', `Saw completed job: ${name}`);
    };
    if (cj.metadata.deletionTimestamp || spec.suspend) return write();
    const times = unmetScheduleTimes({ ...cj, status: { ...oldStatus, lastScheduleTime } }, now);
    if (times.length > 0) {
      const scheduled = times[times.length - 1];
      const tooLate = isJsonNumber(spec.startingDeadlineSeconds) && scheduled.getTime() + Number(spec.startingDeadlineSeconds) * 1000 < now.getTime();
      const policy = spec.concurrencyPolicy ?? 'Allow';
      if (tooLate) {
        ctx.log(`cronjob ${ns}/${cj.metadata.name}: missed starting window for ${rfc3339(scheduled)}`);
      } else if (policy === 'Forbid' && active.length > 0) {
        // Skipped: the previous run is unfinished. lastScheduleTime stays, so the run is looked at again.
      } else {
        if (policy === 'Replace') {
          for (const ref of active) await this.deleteJob(ctx, cj, byUid.get(ref.uid), pods);
          active = [];
        }
        const job = await this.createJob(ctx, cj, scheduled);
        if (job) {
          this.events?.event(cjRef(), 'Normal', 'SuccessfulCreate', `Created job ${job.metadata.name}`);
          active = [...active, { kind: 'Job', namespace: ns, name: job.metadata.name ?? '', uid: job.metadata.uid ?? '', apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion }];
        }
        lastScheduleTime = rfc3339(scheduled);
      }
    }
    await write();
    await this.cleanupHistory(ctx, cj, spec, owned, pods);
  }

  private async createJob(ctx: ControllerContext, cj: KubeObject, scheduled: Date): Promise<KubeObject | undefined> {
    const spec = specOf<CronJobSpec>(cj);
    const ns = cj.metadata.namespace ?? 'default';
    const name = `${cj.metadata.name}-${Math.floor(scheduled.getTime() / 1000)}`;
    const t = spec.jobTemplate ?? {};
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: ns,
        ...(t.metadata?.labels ? { labels: { ...t.metadata.labels } } : {}),
        ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        ownerReferences: [ownerRef(cj, 'batch/v1beta1', 'CronJob')],
      },
      spec: copyJson(t.spec ?? {}),
    };
    try {
      return await createIn(ctx.client, RESOURCE.jobs.collection(ns), job, ctx.signal);
    } catch (err) {
      // Already made for this time (an earlier pass whose status write was lost): not a second run.
      if (isConflict(err)) return ctx.client.get(RESOURCE.jobs.object(ns, name), undefined, ctx.signal);
      throw err;
    }
  }

  /** Deletes a job and its pods (the 1.9 controller removes the pods itself, not relying on the collector). */
  private async deleteJob(ctx: ControllerContext, cj: KubeObject, job: KubeObject | undefined, pods: Informer): Promise<void> {
    if (!job) return;
    const ns = job.metadata.namespace ?? 'default';
    if (await deleteObject(ctx.client, RESOURCE.jobs.object(ns, job.metadata.name ?? ''), job.metadata.uid, ctx.signal)) {
      this.events?.event(refOf(cj, 'batch/v1beta1', 'CronJob'), 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
    }
    const selector = specOf<JobSpec>(job).selector;
    for (const p of pods.list()) {
      if (p.metadata.namespace === ns && controllerRefOf(p)?.uid === job.metadata.uid && selectorMatches(selector, p.metadata.labels)) {
        await deleteObject(ctx.client, RESOURCE.pods.of(p), p.metadata.uid, ctx.signal);
      }
    }
  }

  private async cleanupHistory(ctx: ControllerContext, cj: KubeObject, spec: CronJobSpec, owned: KubeObject[], pods: Informer): Promise<void> {
    const started = (j: KubeObject) => Date.parse(jobStatus(j).startTime ?? j.metadata.creationTimestamp ?? '') || 0;
    for (const [kind, limit] of [['Complete', spec.successfulJobsHistoryLimit], ['Failed', spec.failedJobsHistoryLimit]] as const) {
      if (typeof limit !== 'number') continue;
      const finished = owned.filter((j) => jobFinished(j) === kind && !j.metadata.deletionTimestamp).sort((a, b) => started(a) - started(b));
      for (const j of finished.slice(0, Math.max(0, finished.length - limit))) await this.deleteJob(ctx, cj, j, pods);
    }
  }
}

export const cronJobController = (opts?: CronJobControllerOptions): Controller => new CronJobController(opts);
