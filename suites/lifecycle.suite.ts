// Life cycle and status seen through the API (spec 2.2-2.5, 3): container statuses of running pods, Deployment
// and Job status once they ran, a paused Deployment, Job backoffLimit and activeDeadlineSeconds, Deployment
// progressDeadlineSeconds, CronJob runs. They need a controller daemon and nodes that run pods; every stage has
// a bound, and a stage that never starts skips the check with the reason (a target without nodes is not
// wrong). How a pod is made to fail or never become ready is target-specific: the pod-template annotations of
// the simulated nodes (simulator/nodes/README.md) are set, and when the target's pods do not fail (or do become
// ready) the check is skipped with that reason. All checks here are concurrent: they wait side by side.

import type { DeploymentStatus } from '../simulator/api/types/index.ts';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail, forRows } from './harness/expect.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NOTHING_MOVES_MS, busyScaled, conditionsOf, createOrFail, listItems, livePods, phaseOf, podTemplate, read, within } from './harness/progress.ts';
import { isRfc3339Utc, shapeFindings, jsonFieldRows } from './harness/shapes.ts';
import { specTables } from './harness/spec.ts';

const JOBS: KindRef = { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true };
const CRONJOBS: KindRef = { group: 'batch', version: 'v1beta1', kind: 'CronJob', resource: 'cronjobs', namespaced: true };
const FINISH_MS = busyScaled(45_000);
const FAIL_ANNOTATION = { 'simulator.cluster.local/exit-code': '1' };
const NEVER_READY_ANNOTATION = { 'simulator.cluster.local/never-ready': 'true' };


async function createDeployment(
  ctx: CheckContext,
  ns: string,
  name: string,
  replicas: number,
  extra: { annotations?: Record<string, string>; spec?: Record<string, unknown> } = {},
): Promise<string> {
  const body = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }, { annotations: extra.annotations }), ...extra.spec },
  };
  await createOrFail(ctx, `/apis/apps/v1/namespaces/${ns}/deployments`, body, `Deployment ${ns}/${name}`);
  return `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
}

/** Waits until pods of the selector exist and one is Running; fails naming the loop when a stage never starts. */
async function runningPods(ctx: CheckContext, ns: string, selector: string, what: string, controller: string): Promise<void> {
  const made = await within(NOTHING_MOVES_MS, async () => ((await livePods(ctx, ns, selector)).length > 0 ? true : undefined));
  if (!made) ctx.nothingMoved(controller, `${what} made no pods within ${NOTHING_MOVES_MS / 1000} s`);
  const run = await within(NOTHING_MOVES_MS, async () => ((await livePods(ctx, ns, selector)).some((p) => phaseOf(p) !== 'Pending') ? true : undefined));
  if (!run) ctx.nothingMoved('kubelet', `no pod of ${what} left Pending within ${NOTHING_MOVES_MS / 1000} s: no node runs pods`);
}

const DEPLOYMENT_NEEDS = { controllers: ['deployment', 'replicaset'], nodes: 1 };
const JOB_NEEDS = { controllers: ['job'], nodes: 1 };

const CONTAINER_STATUS_ROWS = () => jsonFieldRows(specTables(), ['v1 Pod']).filter((r) => r.type === 'ContainerStatus');
const DEPLOYMENT_STATUS_ROWS = [
  'field.DeploymentStatus.replicas',
  'field.DeploymentStatus.updatedReplicas',
  'field.DeploymentStatus.readyReplicas',
  'field.DeploymentStatus.unavailableReplicas',
  'field.DeploymentStatus.observedGeneration',
  'field.DeploymentStatus.collisionCount',
  'field.Deployment.status',
];

check(
  'lifecycle.running-pod-status',
  {
    rows: [...CONTAINER_STATUS_ROWS().map((r) => r.id), 'type.ContainerStatus', ...DEPLOYMENT_STATUS_ROWS],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    needs: DEPLOYMENT_NEEDS,
    title: 'Running pods of an available Deployment carry container statuses of the spec (containerID <runtime>://<id>, ready, restartCount); DeploymentStatus counts say 2',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = await createDeployment(ctx, ns, 'st', 2);
    await runningPods(ctx, ns, 'app=st', 'Deployment st', 'deployment or replicaset');
    const d = await within(FINISH_MS, async () => {
      const o = await read(ctx, path);
      const s = (o?.status ?? {}) as DeploymentStatus;
      return s.availableReplicas === 2 && s.updatedReplicas === 2 && (s.observedGeneration ?? 0) >= (o?.metadata.generation ?? 1) ? o : undefined;
    });
    if (!d)
      fail(
        `Deployment ${ns}/st did not become available with 2 replicas within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`,
        DEPLOYMENT_STATUS_ROWS,
      );
    const s = (d.status ?? {}) as DeploymentStatus;
    await forRows(DEPLOYMENT_STATUS_ROWS, () => {
      const { findings } = shapeFindings(
        specTables(),
        jsonFieldRows(specTables(), ['apps/v1 Deployment']).filter((r) => r.type === 'DeploymentStatus' || r.id === 'field.Deployment.status'),
        [{ kind: 'apps/v1 Deployment', body: d, where: `GET ${path}` }],
      );
      if (findings.length) fail(findings.map((f) => `${f.row}: ${f.message}`).join('\n'), [...new Set(findings.map((f) => f.row))]);
    });
    expectEqual(s.replicas, 2, 'status.replicas of an available Deployment of 2', 'field.DeploymentStatus.replicas');
    expectEqual(s.updatedReplicas, 2, 'status.updatedReplicas', 'field.DeploymentStatus.updatedReplicas');
    expectEqual(s.readyReplicas, 2, 'status.readyReplicas', 'field.DeploymentStatus.readyReplicas');
    expectTrue(
      (s.unavailableReplicas ?? 0) === 0,
      `status.unavailableReplicas of a fully available Deployment is 0 or absent (got ${s.unavailableReplicas})`,
      'field.DeploymentStatus.unavailableReplicas',
    );
    expectTrue(
      (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 1),
      `status.observedGeneration ${s.observedGeneration} reached metadata.generation ${d.metadata.generation}`,
      'field.DeploymentStatus.observedGeneration',
    );
    if (s.collisionCount !== undefined)
      expectTrue(
        Number.isInteger(s.collisionCount) && s.collisionCount >= 0,
        `status.collisionCount is a non-negative integer (got ${s.collisionCount})`,
        'field.DeploymentStatus.collisionCount',
      );

    const csRows = CONTAINER_STATUS_ROWS();
    const pods = (await livePods(ctx, ns, 'app=st')).filter((p) => phaseOf(p) === 'Running');
    expectTrue(pods.length > 0, `Running pods of an available Deployment (got ${pods.length})`, 'type.ContainerStatus');
    for (const pod of pods) {
      const where = `pod ${pod.metadata.name}`;
      const statuses = ((pod.status as { containerStatuses?: Array<Record<string, unknown>> } | undefined)?.containerStatuses ?? []);
      const names = ((pod.spec as { containers?: Array<{ name: string; image: string }> }).containers ?? []);
      expectEqual(statuses.map((c) => c.name).sort(), names.map((c) => c.name).sort(), `${where}: one container status per container, by name`, [
        'type.ContainerStatus',
        'field.ContainerStatus.name',
      ]);
      const { findings, present } = shapeFindings(specTables(), csRows, [{ kind: 'v1 Pod', body: pod, where }]);
      if (findings.length) fail(findings.map((f) => `${f.row}: ${f.message}`).join('\n'), [...new Set(findings.map((f) => f.row))]);
      for (const id of [
        'field.ContainerStatus.name',
        'field.ContainerStatus.image',
        'field.ContainerStatus.imageID',
        'field.ContainerStatus.containerID',
        'field.ContainerStatus.ready',
        'field.ContainerStatus.restartCount',
        'field.ContainerStatus.state',
      ]) {
        expectTrue(present.has(id), `${where}: a running container's status has ${id.split('.').pop()}`, id);
      }
      const podReady = conditionsOf(pod).some((c) => c.type === 'Ready' && c.status === 'True');
      for (const cs of statuses) {
        expectTrue(
          typeof cs.containerID === 'string' && /^[A-Za-z0-9][A-Za-z0-9+.-]*:\/\/\S+$/.test(cs.containerID),
          `${where}: containerID ${JSON.stringify(cs.containerID)} has the form <runtime>://<container_id>`,
          'field.ContainerStatus.containerID',
        );
        expectTrue(
          Number.isInteger(cs.restartCount) && (cs.restartCount as number) >= 0,
          `${where}: restartCount ${JSON.stringify(cs.restartCount)} is a non-negative integer`,
          'field.ContainerStatus.restartCount',
        );
        if (podReady) expectEqual(cs.ready, true, `${where}: ready of a container in a Ready pod (no readiness probe)`, 'field.ContainerStatus.ready');
        const spec = names.find((c) => c.name === cs.name);
        expectTrue(
          typeof cs.image === 'string' && cs.image !== '' && spec !== undefined && cs.image.includes(spec.image.split(':')[0]),
          `${where}: image ${JSON.stringify(cs.image)} names the container's image ${spec?.image}`,
          'field.ContainerStatus.image',
        );
      }
    }
  },
);

check(
  'lifecycle.job-status',
  {
    rows: ['field.JobStatus.active', 'field.JobStatus.succeeded', 'field.JobStatus.failed', 'field.JobStatus.startTime', 'field.JobStatus.completionTime', 'field.JobStatus.conditions', 'field.JobSpec.parallelism', 'field.JobSpec.template', 'field.Job.status'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    needs: JOB_NEEDS,
    title: 'a Job of completions 2, parallelism 1 never runs 2 pods at once; once complete, startTime and completionTime are RFC 3339 UTC, succeeded 2',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const body = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'serial' },
      spec: { completions: 2, parallelism: 1, template: podTemplate({ role: 'serial' }, { restartPolicy: 'Never' }) },
    };
    await createOrFail(ctx, `/apis/batch/v1/namespaces/${ns}/jobs`, body, `Job ${ns}/serial`);
    const path = `/apis/batch/v1/namespaces/${ns}/jobs/serial`;
    await runningPods(ctx, ns, 'role=serial', 'Job serial', 'job');
    let maxActive = 0;
    let maxRunning = 0;
    let sawStartWhileActive: unknown;
    const done = await within(FINISH_MS, async () => {
      const j = await read(ctx, path);
      const st = (j?.status ?? {}) as { active?: number; startTime?: string };
      maxActive = Math.max(maxActive, st.active ?? 0);
      if ((st.active ?? 0) > 0 && sawStartWhileActive === undefined) sawStartWhileActive = st.startTime ?? null;
      const pods = await livePods(ctx, ns, 'role=serial');
      maxRunning = Math.max(maxRunning, pods.filter((p) => phaseOf(p) === 'Running').length);
      return conditionsOf(j).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') ? j : undefined;
    });
    if (!done) fail(`Job ${ns}/serial did not finish within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`);
    expectTrue(
      maxActive <= 1 && maxRunning <= 1,
      `at most parallelism (1) pods at once: status.active reached ${maxActive}, Running pods ${maxRunning}`,
      'field.JobSpec.parallelism',
    );
    const st = (done.status ?? {}) as Record<string, unknown>;
    const { findings } = shapeFindings(
      specTables(),
      jsonFieldRows(specTables(), ['batch/v1 Job']).filter((r) => r.type === 'JobStatus' || r.id === 'field.Job.status'),
      [{ kind: 'batch/v1 Job', body: done, where: `GET ${path}` }],
    );
    if (findings.length) fail(findings.map((f) => `${f.row}: ${f.message}`).join('\n'), [...new Set(findings.map((f) => f.row))]);
    expectTrue(
      conditionsOf(done).some((c) => c.type === 'Complete' && c.status === 'True'),
      `the Job completed (conditions ${JSON.stringify(st.conditions)})`,
      'field.JobStatus.conditions',
    );
    expectEqual(st.succeeded, 2, 'status.succeeded of a complete Job of completions 2', 'field.JobStatus.succeeded');
    expectTrue(isRfc3339Utc(st.startTime), `status.startTime ${JSON.stringify(st.startTime)} of a Job that ran is RFC 3339 UTC`, 'field.JobStatus.startTime');
    if (sawStartWhileActive !== undefined && sawStartWhileActive !== null)
      expectTrue(
        isRfc3339Utc(sawStartWhileActive),
        `status.startTime while active ${JSON.stringify(sawStartWhileActive)} is RFC 3339 UTC`,
        'field.JobStatus.startTime',
      );
    expectTrue(
      isRfc3339Utc(st.completionTime),
      `status.completionTime ${JSON.stringify(st.completionTime)} of a complete Job is RFC 3339 UTC`,
      'field.JobStatus.completionTime',
    );
    expectTrue((st.active ?? 0) === 0, `status.active of a complete Job is 0 or absent (got ${JSON.stringify(st.active)})`, 'field.JobStatus.active');
    expectTrue(
      (st.failed ?? 0) === 0,
      `status.failed of a Job whose pods all succeeded is 0 or absent (got ${JSON.stringify(st.failed)})`,
      'field.JobStatus.failed',
    );
    // The pods are the template's.
    const pods = await listItems(ctx, `/api/v1/namespaces/${ns}/pods`, 'role=serial');
    for (const p of pods)
      expectEqual(
        ((p.spec as { containers?: Array<{ image?: string }> }).containers ?? []).map((c) => c.image),
        ['busybox:1.28'],
        `images of pod ${p.metadata.name} of the Job`,
        'field.JobSpec.template',
      );
  },
);

check(
  'lifecycle.deployment-paused',
  {
    rows: ['field.DeploymentSpec.paused', 'field.DeploymentSpec.template', 'field.DeploymentSpec.strategy'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'patch'])],
    needs: { controllers: ['deployment'] },
    title: 'a template change of a paused Deployment rolls out no new ReplicaSet (once observed); after resuming it does',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = await createDeployment(ctx, ns, 'pz', 1, { spec: { strategy: { type: 'Recreate' } } });
    const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const first = await within(NOTHING_MOVES_MS, async () => {
      const l = await listItems(ctx, rsPath);
      return l.length > 0 ? l : undefined;
    });
    if (!first)
      return ctx.nothingMoved('deployment', `no ReplicaSet appeared for a new Deployment within ${NOTHING_MOVES_MS / 1000} s`);
    const pause = await ctx.client.patch(path, { spec: { paused: true } }, 'merge');
    expectTrue(pause.status === 200, `pausing with a merge patch: ${describeResponse(pause)}`, 'field.DeploymentSpec.paused');
    expectEqual(
      (pause.object?.spec as { strategy?: { type?: string; rollingUpdate?: unknown } }).strategy?.type,
      'Recreate',
      'spec.strategy.type as sent',
      'field.DeploymentSpec.strategy',
    );
    expectTrue(
      (pause.object?.spec as { strategy?: { rollingUpdate?: unknown } }).strategy?.rollingUpdate === undefined,
      'spec.strategy.rollingUpdate is present only for RollingUpdate',
      'field.DeploymentSpec.strategy',
    );
    const changed = await ctx.client.patch(path, { spec: { template: { metadata: { annotations: { revision: 'two' } } } } }, 'merge');
    expectTrue(changed.status === 200, `changing the template of a paused Deployment: ${describeResponse(changed)}`, 'field.DeploymentSpec.template');
    const gen = changed.object?.metadata.generation ?? 0;
    const seen = await within(NOTHING_MOVES_MS, async () => {
      const o = await read(ctx, path);
      return ((o?.status as DeploymentStatus | undefined)?.observedGeneration ?? 0) >= gen ? o : undefined;
    });
    if (!seen)
      ctx.nothingMoved(
        'deployment',
        `the controller did not report observedGeneration ${gen} of the paused Deployment within ${NOTHING_MOVES_MS / 1000} s, so no moment shows it saw the change`,
      );
    const during = await listItems(ctx, rsPath);
    expectEqual(
      during.length,
      first.length,
      `ReplicaSets of a paused Deployment after a template change it has observed (${during.map((r) => r.metadata.name).join(', ')})`,
      'field.DeploymentSpec.paused',
    );
    const resume = await ctx.client.patch(path, { spec: { paused: false } }, 'merge');
    expectTrue(resume.status === 200, `resuming: ${describeResponse(resume)}`, 'field.DeploymentSpec.paused');
    const rolled = await within(FINISH_MS, async () => {
      const l = await listItems(ctx, rsPath);
      return l.some(
        (rs) => ((rs.spec as { template?: { metadata?: { annotations?: Record<string, string> } } }).template?.metadata?.annotations ?? {}).revision === 'two',
      )
        ? l
        : undefined;
    });
    expectTrue(rolled, `after resuming, a ReplicaSet with the changed template appears within ${FINISH_MS / 1000} s`, [
      'field.DeploymentSpec.paused',
      'field.DeploymentSpec.template',
    ]);
  },
);

check(
  'lifecycle.job-backoff',
  {
    rows: ['rule.lifecycle.job-backoff', 'field.JobSpec.backoffLimit'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    needs: JOB_NEEDS,
    title: 'a Job whose pods fail, with backoffLimit 1, is retried once and then marked Failed',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const body = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'fails' },
      spec: { backoffLimit: 1, template: podTemplate({ role: 'fails' }, { restartPolicy: 'Never', annotations: FAIL_ANNOTATION }) },
    };
    await createOrFail(ctx, `/apis/batch/v1/namespaces/${ns}/jobs`, body, `Job ${ns}/fails`);
    const path = `/apis/batch/v1/namespaces/${ns}/jobs/fails`;
    await runningPods(ctx, ns, 'role=fails', 'Job fails', 'job');
    const firstFailure = await within(NOTHING_MOVES_MS, async () => {
      const pods = await listItems(ctx, `/api/v1/namespaces/${ns}/pods`, 'role=fails');
      if (pods.some((p) => phaseOf(p) === 'Failed')) return true;
      if (pods.some((p) => phaseOf(p) === 'Succeeded'))
        ctx.skip('the pod of the Job succeeded: this target does not make pods fail through the pod-template annotation simulator.cluster.local/exit-code');
      return undefined;
    });
    if (!firstFailure)
      ctx.skip(
        `no pod of the Job failed within ${NOTHING_MOVES_MS / 1000} s: this target does not make pods fail through the annotation simulator.cluster.local/exit-code`,
      );
    const failed = await within(FINISH_MS, async () => {
      const j = await read(ctx, path);
      return conditionsOf(j).some((c) => (c.type === 'Failed' || c.type === 'Complete') && c.status === 'True') ? j : undefined;
    });
    if (!failed)
      fail(
        `Job ${ns}/fails (backoffLimit 1, every pod fails) was not marked failed within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`,
      );
    const st = (failed.status ?? {}) as { failed?: number; succeeded?: number };
    expectTrue(
      conditionsOf(failed).some((c) => c.type === 'Failed' && c.status === 'True'),
      `the Job is marked failed (conditions ${JSON.stringify(conditionsOf(failed))})`,
      'rule.lifecycle.job-backoff',
    );
    expectTrue(
      (st.failed ?? 0) >= 2,
      `the Job was retried backoffLimit (1) times before being marked failed: status.failed ${st.failed}, expected 2 failed pods`,
      ['rule.lifecycle.job-backoff', 'field.JobSpec.backoffLimit'],
    );
  },
);

check(
  'lifecycle.job-active-deadline',
  {
    rows: ['rule.lifecycle.job-active-deadline', 'field.JobSpec.activeDeadlineSeconds'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    needs: JOB_NEEDS,
    title: 'a Job still running after activeDeadlineSeconds 2 is ended: Failed, no active pods',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    // The pod would run for 120 s (annotation of simulated nodes; a real image "sleep 120" does the same).
    const tpl = podTemplate({ role: 'slow' }, { restartPolicy: 'Never', annotations: { 'simulator.cluster.local/run-seconds': '120' } });
    tpl.spec.containers[0].command = ['sh', '-c', 'sleep 120'];
    const body = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'slow' }, spec: { activeDeadlineSeconds: 2, template: tpl } };
    await createOrFail(ctx, `/apis/batch/v1/namespaces/${ns}/jobs`, body, `Job ${ns}/slow`);
    const path = `/apis/batch/v1/namespaces/${ns}/jobs/slow`;
    const started = await within(NOTHING_MOVES_MS, async () => {
      const j = await read(ctx, path);
      return (j?.status as { startTime?: string } | undefined)?.startTime ? j : undefined;
    });
    if (!started) ctx.nothingMoved('job', `the Job got no startTime within ${NOTHING_MOVES_MS / 1000} s`);
    const ended = await within(FINISH_MS, async () => {
      const j = await read(ctx, path);
      return conditionsOf(j).some((c) => (c.type === 'Failed' || c.type === 'Complete') && c.status === 'True') ? j : undefined;
    });
    if (!ended)
      fail(`Job ${ns}/slow (activeDeadlineSeconds 2) was not ended within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`, [
        'rule.lifecycle.job-active-deadline',
        'field.JobSpec.activeDeadlineSeconds',
      ]);
    expectTrue(
      conditionsOf(ended).some((c) => c.type === 'Failed' && c.status === 'True'),
      `a Job ended by its deadline is failed, not complete (conditions ${JSON.stringify(conditionsOf(ended))})`,
      'rule.lifecycle.job-active-deadline',
    );
    const idle = await within(FINISH_MS, async () => {
      const j = await read(ctx, path);
      const active = (j?.status as { active?: number } | undefined)?.active ?? 0;
      const running = (await livePods(ctx, ns, 'role=slow')).filter((p) => phaseOf(p) === 'Running' || phaseOf(p) === 'Pending');
      return active === 0 && running.length === 0 ? true : undefined;
    });
    expectTrue(
      idle,
      `after the deadline the Job has no active pods within ${FINISH_MS / 1000} s (status ${JSON.stringify((await read(ctx, path))?.status)})`,
      'rule.lifecycle.job-active-deadline',
    );
  },
);

check(
  'lifecycle.deployment-progress-deadline',
  {
    rows: ['rule.lifecycle.deployment-progress-deadline', 'field.DeploymentSpec.progressDeadlineSeconds'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    needs: DEPLOYMENT_NEEDS,
    title: 'a Deployment whose pods never become ready gets Progressing with reason ProgressDeadlineExceeded after progressDeadlineSeconds 2',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = await createDeployment(ctx, ns, 'stuck', 1, { annotations: NEVER_READY_ANNOTATION, spec: { progressDeadlineSeconds: 2 } });
    await runningPods(ctx, ns, 'app=stuck', 'Deployment stuck', 'deployment or replicaset');
    const exceeded = await within(FINISH_MS, async () => {
      const d = await read(ctx, path);
      if (((d?.status as DeploymentStatus | undefined)?.readyReplicas ?? 0) > 0)
        ctx.skip("the Deployment's pod became ready: this target does not hold pods unready through the annotation simulator.cluster.local/never-ready");
      return conditionsOf(d).some((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded') ? d : undefined;
    }, 300);
    if (!exceeded)
      fail(
        `Deployment ${ns}/stuck (progressDeadlineSeconds 2, pod never ready) has no Progressing condition with reason ProgressDeadlineExceeded within ${FINISH_MS / 1000} s: ${JSON.stringify(conditionsOf(await read(ctx, path)))}`,
      );
    const cond = conditionsOf(exceeded).find((c) => c.type === 'Progressing')!;
    expectEqual(
      cond.status,
      'False',
      'status of the Progressing condition with reason ProgressDeadlineExceeded',
      'rule.lifecycle.deployment-progress-deadline',
    );
    // Processing continues: the Deployment still has its pod.
    expectTrue(
      (await livePods(ctx, ns, 'app=stuck')).length >= 1,
      'a Deployment past its progress deadline keeps its pods (processing continues)',
      'rule.lifecycle.deployment-progress-deadline',
    );
  },
);

/** The 1.9 CronJob controller looks every 10 s; plus slack, stretched on a busy machine. */
const CRON_LAG_MS = busyScaled(13_000);

check(
  'lifecycle.cronjob-runs',
  {
    upstream: [95],
    rows: ['field.CronJobSpec.schedule', 'field.CronJobSpec.jobTemplate', 'field.CronJobSpec.suspend', 'field.CronJobStatus.active', 'field.CronJobStatus.lastScheduleTime', 'controller.cronjob'],
    requires: [NEEDS_NAMESPACES, needs(CRONJOBS, ['create', 'get']), needs(JOBS, ['list'])],
    needs: { controllers: ['cronjob'] },
    title: 'a CronJob of schedule "* * * * *" creates a Job from its jobTemplate at the next minute (status.active, lastScheduleTime); a suspended one does not',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const msToMinute = 60_000 - (Date.now() % 60_000);
    const ns = await ctx.namespace();
    const path = `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`;
    const tpl = podTemplate({ role: 'cron' }, { restartPolicy: 'Never', annotations: { 'simulator.cluster.local/run-seconds': '30' } });
    tpl.spec.containers[0].command = ['sh', '-c', 'sleep 30'];
    const mk = (name: string, suspend: boolean) => ({
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: { name },
      spec: { schedule: '* * * * *', suspend, startingDeadlineSeconds: 200, jobTemplate: { metadata: { labels: { from: name } }, spec: { template: tpl } } },
    });
    const live = await createOrFail(ctx, path, mk('every', false), `CronJob ${ns}/every`);
    const asleep = await createOrFail(ctx, path, mk('asleep', true), `CronJob ${ns}/asleep`);
    const jobsPath = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const ownedBy = (j: KubeObject, owner: KubeObject) =>
      (j.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid) || j.metadata.labels?.from === owner.metadata.name;
    // A Job may come before the wall-clock minute (a target whose controller clock runs ahead, as the embedded
    // simulator's does); past the boundary it must come within the controller's check interval. The check waits
    // for the next minute however far it is (at most 60 s): a cluster must be judged, not skipped.
    const waitMs = msToMinute + CRON_LAG_MS;
    const job = await within(waitMs, async () => (await listItems(ctx, jobsPath)).find((j) => ownedBy(j, live)), 500);
    if (!job)
      return ctx.nothingMoved(
        'cronjob',
        `no Job appeared within ${Math.round(waitMs / 1000)} s of creating a CronJob of schedule "* * * * *" (the next minute was ${Math.round(msToMinute / 1000)} s away)`,
      );
    const tplOf = (o: unknown) =>
      JSON.stringify(
        ((o as { spec?: { template?: { spec?: { containers?: Array<{ image?: string; command?: string[] }> } } } }).spec?.template?.spec?.containers ?? []).map(
          (c) => [c.image, c.command],
        ),
      );
    expectEqual(
      tplOf(job),
      tplOf({ spec: { template: tpl } }),
      `containers of Job ${job.metadata.name} made by the CronJob, against its jobTemplate`,
      'field.CronJobSpec.jobTemplate',
    );
    const status = await within(CRON_LAG_MS, async () => {
      const c = await read(ctx, `${path}/every`);
      const st = (c?.status ?? {}) as { active?: Array<{ name?: string }>; lastScheduleTime?: string };
      return st.lastScheduleTime && (st.active ?? []).length > 0 ? st : undefined;
    });
    expectTrue(
      status,
      `the CronJob's status shows the running Job in active and a lastScheduleTime (got ${JSON.stringify((await read(ctx, `${path}/every`))?.status)})`,
      ['field.CronJobStatus.active', 'field.CronJobStatus.lastScheduleTime'],
    );
    expectTrue(
      isRfc3339Utc(status.lastScheduleTime) && Date.parse(status.lastScheduleTime!) % 60_000 === 0,
      `lastScheduleTime ${status.lastScheduleTime} is an RFC 3339 UTC time on a minute of the schedule`,
      ['field.CronJobStatus.lastScheduleTime', 'field.CronJobSpec.schedule'],
    );
    expectTrue(
      status.active!.every((r) => typeof r === 'object' && r !== null) && status.active!.some((r) => r.name === job.metadata.name),
      `status.active ${JSON.stringify(status.active)} refers to Job ${job.metadata.name}`,
      'field.CronJobStatus.active',
    );
    // The suspended CronJob was due at the same minute; by the time the other one's status is written the
    // controller has passed over it.
    const asleepJobs = (await listItems(ctx, jobsPath)).filter((j) => ownedBy(j, asleep));
    expectEqual(asleepJobs.map((j) => j.metadata.name), [], 'Jobs of a suspended CronJob', 'field.CronJobSpec.suspend');
    const asleepStatus = ((await read(ctx, `${path}/asleep`))?.status ?? {}) as { lastScheduleTime?: string };
    expectTrue(
      !asleepStatus.lastScheduleTime,
      `a suspended CronJob has no lastScheduleTime (got ${asleepStatus.lastScheduleTime})`,
      'field.CronJobSpec.suspend',
    );
  },
);
