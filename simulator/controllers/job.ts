// The Job controller (5 workers, as the 1.9 daemon hard-codes): runs pods from the template until
// `completions` succeeded (or, with completions unset, until one succeeded and none is active), at most
// `parallelism` at once (fewer when less work remains). Failed pods are replaced after a back-off that doubles
// from 10 s up to 6 min (the real DefaultJobBackOff/MaxJobBackOff; configurable here for tests) until more
// than backoffLimit pods failed (restartPolicy OnFailure: restarts count), then the job fails with reason
// BackoffLimitExceeded; after activeDeadlineSeconds from startTime it fails with DeadlineExceeded. Either
// way its active pods are deleted and counted as failed. Status: active, succeeded, failed, startTime,
// completionTime (on success), conditions Complete / Failed.

import type { KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { BURST_REPLICAS, claimPods, deletionRank } from './kit/claim.ts';
import type { PodIndex } from './kit/pod-index.ts';
import { LoopKit } from './kit/loop.ts';
import { controllerKeyResolver } from './kit/owner.ts';
import { jobFinished, jobStatus, type JobSpec, type JobStatus } from './kit/job-status.ts';

export type { JobSpec, JobStatus };
import {
  Expectations,
  createIn,
  deleteObject,
  inBatches,
  isPodActive,
  omitEmpty,
  ownerRef,
  podFromTemplate,
  rfc3339,
  specOf,
  statusOf,
  writeStatus,
  type Condition,
  type Obj,
  ownedPodHandler,
} from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export interface JobControllerOptions {
  workers?: number;
  /** First delay before a failed pod is replaced (default 10 s); doubles per failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
}


const restarts = (pod: KubeObject) =>
  ((pod.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses ?? []).reduce(
    (n, c) => n + (c.restartCount ?? 0),
    0,
  );

function jobCondition(type: 'Complete' | 'Failed', reason?: string, message?: string): Condition {
  const now = rfc3339();
  return { type, status: 'True', lastProbeTime: now, lastTransitionTime: now, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

export class JobController implements Controller {
  readonly name = 'job';
  /** Per job: failures seen, and when the next replacement pod may be created. */
  private readonly backoff = new Map<string, { failed: number; notBefore: number }>();
  private events: EventRecorder | undefined;

  constructor(private readonly opts: JobControllerOptions = {}) {}

  async run(ctx: ControllerContext): Promise<void> {
    const loop = new LoopKit(ctx, this.name, 'job-controller');
    this.events = loop.events;
    const queue = loop.queue;
    const jobs = loop.informer(RESOURCE.jobs.collection());
    const { informer: podInformer, index: pods } = loop.pods(RESOURCE.pods.collection());
    const expectations = new Expectations();
    const ownerKey = controllerKeyResolver('Job', jobs);
    jobs.addEventHandler({
      onAdd: (j) => queue.add(keyOf(j)),
      onUpdate: (_o, j) => queue.add(keyOf(j)),
      onDelete: (j) => {
        expectations.forget(keyOf(j));
        this.backoff.delete(keyOf(j));
      },
    });
    podInformer.addEventHandler(ownedPodHandler(ownerKey, expectations, (k) => queue.add(k), keyOf));
    if (!(await loop.synced())) return;
    await loop.work(this.opts.workers ?? 5, (key) => this.sync(ctx, key, jobs, pods, expectations, queue));
  }

  async sync(ctx: ControllerContext, key: string, jobs: Informer, pods: PodIndex, expectations: Expectations, queue: WorkQueue<string>): Promise<void> {
    const job = jobs.get(key);
    if (!job || jobFinished(job)) return;
    const spec = specOf<JobSpec>(job);
    const ns = job.metadata.namespace ?? 'default';
    const old = jobStatus(job);
    const owned = await claimPods(ctx.client, job, spec.selector, pods.claimable(ns, job.metadata.uid), 'batch/v1', 'Job', ctx.signal);
    const active = owned.filter(isPodActive);
    const succeeded = owned.filter((p) => statusOf(p).phase === 'Succeeded').length;
    let failed = owned.filter((p) => statusOf(p).phase === 'Failed').length;
    // Pods already gone keep counting: the status is the record of what failed and succeeded.
    failed = Math.max(failed, old.failed ?? 0);
    const succeededCount = Math.max(succeeded, old.succeeded ?? 0);
    const now = Date.now();
    const startTime = old.startTime ?? rfc3339(new Date(now));
    const conditions = [...(old.conditions ?? [])];
    const backoffLimit = spec.backoffLimit ?? 6;
    const restartPolicy = (spec.template?.spec as { restartPolicy?: string } | undefined)?.restartPolicy;
    const retries = restartPolicy === 'OnFailure' ? failed + active.reduce((n, p) => n + restarts(p), 0) : failed;
    const pastBackoff = restartPolicy === 'OnFailure' ? retries > backoffLimit || (backoffLimit === 0 && retries > 0) : failed > backoffLimit;
    // Number(): an int64 beyond 2^53 arrives as a BigInt (util/int64-json.ts); a time needs no more precision.
    const deadlineMs = spec.activeDeadlineSeconds ? Date.parse(startTime) + Number(spec.activeDeadlineSeconds) * 1000 : undefined;
    const pastDeadline = deadlineMs !== undefined && now >= deadlineMs;

    let activeCount = active.length;
    let completionTime = old.completionTime;
    let finished: [string, string] | undefined;
    if (pastBackoff || pastDeadline) {
      // The job failed: its running pods are killed and count as failed (1.9: failed += active).
      await inBatches(active, 20, async (p) => {
        if (await deleteObject(ctx.client, RESOURCE.pods.of(p), p.metadata.uid, ctx.signal))
          this.events?.event(refOf(job, 'batch/v1', 'Job'), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      });
      finished = pastDeadline
        ? ['DeadlineExceeded', 'Job was active longer than specified deadline']
        : ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'];
      failed += activeCount;
      activeCount = 0;
      conditions.push(
        pastDeadline
          ? jobCondition('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline')
          : jobCondition('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'),
      );
    } else {
      const complete =
        spec.completions === undefined || spec.completions === null ? succeededCount > 0 && activeCount === 0 : succeededCount >= spec.completions;
      if (complete) {
        conditions.push(jobCondition('Complete'));
        completionTime = rfc3339();
        finished = ['Completed', 'Job completed'];
      } else if (expectations.satisfied(key) && !job.metadata.deletionTimestamp) {
        activeCount += await this.manage(ctx, key, job, active, succeededCount, failed, expectations, queue);
      }
      if (deadlineMs !== undefined) queue.addAfter(key, Math.max(0, deadlineMs - now) + 20);
    }
    const status = omitEmpty({ startTime, completionTime, active: activeCount, succeeded: succeededCount, failed, conditions });
    await writeStatus(ctx.client, RESOURCE.jobs.of(job, 'status'), job.status as Obj | undefined, status, ctx.signal, job.metadata.resourceVersion);
    // After the status write, so that a retried sync does not record the end twice. 1.9 posts the failures as Normal.
    if (finished) this.events?.event(refOf(job, 'batch/v1', 'Job'), 'Normal', finished[0], finished[1]);
  }

  /** Creates or deletes pods toward the wanted number; returns the change in active pods. */
  private async manage(
    ctx: ControllerContext,
    key: string,
    job: KubeObject,
    active: KubeObject[],
    succeeded: number,
    failed: number,
    expectations: Expectations,
    queue: WorkQueue<string>,
  ): Promise<number> {
    const spec = specOf<JobSpec>(job);
    const parallelism = spec.parallelism ?? 1;
    let want: number;
    if (spec.completions === undefined || spec.completions === null) want = succeeded > 0 ? active.length : parallelism;
    else want = Math.min(Math.max(0, spec.completions - succeeded), parallelism);
    if (active.length > want) {
      const victims = [...active].sort(deletionRank).slice(0, active.length - want);
      for (const p of victims) expectations.expectDeletion(key, keyOf(p));
      await inBatches(victims, 20, async (p) => {
        if (!(await deleteObject(ctx.client, RESOURCE.pods.of(p), p.metadata.uid, ctx.signal))) expectations.deletionObserved(key, keyOf(p));
        else this.events?.event(refOf(job, 'batch/v1', 'Job'), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      });
      return -victims.length;
    }
    // At most BURST_REPLICAS creations per sync (as the ReplicaSet controller): a parallelism of 2^31-1 must
    // not become one array of two billion entries (it took the process down); the rest come on later syncs.
    const n = Math.min(want - active.length, BURST_REPLICAS);
    if (n <= 0) return 0;
    // Back-off after failures: replacement pods wait 10 s, 20 s, 40 s ... (capped).
    if (failed > 0) {
      const b = this.backoff.get(key);
      if (!b || b.failed !== failed) {
        const delay = Math.min(this.opts.maxBackoffMs ?? 360_000, (this.opts.backoffMs ?? 10_000) * 2 ** (failed - 1));
        this.backoff.set(key, { failed, notBefore: Date.now() + delay });
      }
      const wait = this.backoff.get(key)!.notBefore - Date.now();
      if (wait > 0) {
        queue.addAfter(key, wait);
        return 0;
      }
    }
    expectations.expectCreations(key, n);
    const ref = ownerRef(job, 'batch/v1', 'Job');
    let made = 0;
    await inBatches(Array.from({ length: n }), 20, async () => {
      let pod: KubeObject | undefined;
      try {
        pod = await createIn(ctx.client, RESOURCE.pods.collection(job.metadata.namespace ?? 'default'), podFromTemplate(spec.template, job, ref), ctx.signal);
        if (pod) this.events?.event(refOf(job, 'batch/v1', 'Job'), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
      } catch (err) {
        this.events?.event(refOf(job, 'batch/v1', 'Job'), 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
        throw err;
      } finally {
        if (!pod) expectations.creationObserved(key);
        else made++;
      }
    });
    return made;
  }
}

export const jobController = (opts?: JobControllerOptions): Controller => new JobController(opts);
