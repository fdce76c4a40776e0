// Workloads seen through the API (spec 1.7, 1.9, 2.4, 2.5, 8.2): a Deployment becomes available, a write of
// its /scale changes the number of pods, a Job runs to completion. These need a controller daemon and nodes
// that run pods. A target without them shows no movement: each stage (ReplicaSet made, pods made, pods
// running) gets a bound, and a stage that never starts skips the check with the reason; a stage that starts
// but does not finish fails it.

import type { KubeList, KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail } from './harness/expect.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import type { KindRef } from './harness/fixtures.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { busyScaled, createOrFail } from './harness/progress.ts';

/** How long a target may take to show that a controller or a node acts at all. */
const NOTHING_MOVES_MS = busyScaled(20_000);
/** How long a started rollout or job may take to finish. */
const FINISH_MS = busyScaled(60_000);

const JOBS: KindRef = { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` until it returns a value (not undefined) or the time is up. */
async function within<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) return undefined;
    await sleep(200);
  }
}

// Only batch pods (restartPolicy Never) get a short run time: a container of a restartPolicy Always pod that
// exits is restarted after a back-off, not Ready meanwhile, so a Deployment of such pods would be available
// only in the moments all of them happen to run (a race the check would have to win).
const template = (labels: Record<string, string>, restartPolicy?: string) => ({
  metadata: { labels, ...(restartPolicy === 'Never' ? { annotations: { 'simulator.cluster.local/run-seconds': '0.5' } } : {}) },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 1'] }] },
});

async function pods(ctx: CheckContext, ns: string, selector: string): Promise<KubeObject[]> {
  const res = await ctx.client.get<KubeList>(`/api/v1/namespaces/${ns}/pods`, { query: { labelSelector: selector } });
  return (res.object?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);
}

const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
const running = (list: KubeObject[]) => list.filter((p) => phase(p) === 'Running').length;

async function read(ctx: CheckContext, path: string): Promise<KubeObject | undefined> {
  const res = await ctx.client.get(path);
  return res.status === 200 ? res.object : undefined;
}

const DEPLOYMENT_NEEDS = { controllers: ['deployment', 'replicaset'], nodes: 1 };

/** Creates a Deployment and waits, stage by stage, until it is available; skips when a stage never starts. */
async function availableDeployment(ctx: CheckContext, ns: string, name: string, replicas: number): Promise<string> {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
  const body = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: template({ app: name }) } };
  await createOrFail(ctx, `/apis/apps/v1/namespaces/${ns}/deployments`, body, `Deployment ${ns}/${name}`);
  const rs = await within(NOTHING_MOVES_MS, async () => {
    const list = (await ctx.client.get<KubeList>(`/apis/apps/v1/namespaces/${ns}/replicasets`)).object?.items ?? [];
    return list.length > 0 ? list : undefined;
  });
  if (!rs) ctx.nothingMoved('deployment', `no ReplicaSet appeared for a new Deployment within ${NOTHING_MOVES_MS / 1000} s`);
  const made = await within(NOTHING_MOVES_MS, async () => ((await pods(ctx, ns, `app=${name}`)).length > 0 ? true : undefined));
  if (!made) ctx.nothingMoved('replicaset', `the Deployment's ReplicaSet made no pods within ${NOTHING_MOVES_MS / 1000} s`);
  const run = await within(NOTHING_MOVES_MS, async () => (running(await pods(ctx, ns, `app=${name}`)) > 0 ? true : undefined));
  if (!run) ctx.nothingMoved('kubelet', `no pod reached Running within ${NOTHING_MOVES_MS / 1000} s: no node runs pods`);
  const done = await within(FINISH_MS, async () => {
    const d = await read(ctx, path);
    const s = (d?.status ?? {}) as { availableReplicas?: number; updatedReplicas?: number; observedGeneration?: number };
    return s.availableReplicas === replicas && s.updatedReplicas === replicas && (s.observedGeneration ?? 0) >= (d?.metadata.generation ?? 1) ? d : undefined;
  });
  if (!done) fail(`Deployment ${ns}/${name} did not become available with ${replicas} replicas within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`);
  return path;
}

check(
  'workloads.deployment-becomes-available',
  {
    upstream: [113],
    rows: ['controller.deployment', 'controller.replicaset', 'rule.daemon.control-loops', 'field.DeploymentSpec.replicas', 'field.DeploymentStatus.availableReplicas', 'field.DeploymentStatus.conditions'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    needs: DEPLOYMENT_NEEDS,
    title: 'a Deployment of 3 replicas becomes available: 3 Running pods, status and Available condition say so',
    timeoutSeconds: 150,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = await availableDeployment(ctx, ns, 'web', 3);
    // The condition in the same status as the 3 available replicas, waited for: a status written meanwhile from an
    // older view (controllers lag on a loaded machine) may show fewer for a moment; the row is about where it settles.
    const availableOf = (d: KubeObject | undefined) =>
      ((d?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'Available');
    const settled = await within(FINISH_MS, async () => {
      const d = await read(ctx, path);
      return (d?.status as { availableReplicas?: number } | undefined)?.availableReplicas === 3 && availableOf(d)?.status === 'True' ? d : undefined;
    });
    const d = settled ?? (await read(ctx, path));
    expectEqual(availableOf(d)?.status, 'True', `Available condition of an available Deployment (within ${FINISH_MS / 1000} s)`, 'field.DeploymentStatus.conditions');
    const list = await pods(ctx, ns, 'app=web');
    expectEqual(running(list), 3, 'Running pods of the Deployment', 'controller.replicaset');
  },
);

check(
  'workloads.scale-changes-pod-count',
  {
    upstream: [107, 113],
    rows: ['rule.ops.scale', 'controller.deployment', 'controller.replicaset'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get']), needs(DEPLOYMENTS, ['update'], 'scale')],
    needs: DEPLOYMENT_NEEDS,
    title: 'writing /scale of a Deployment changes the number of its pods, up and down',
    timeoutSeconds: 240,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = await availableDeployment(ctx, ns, 'scaled', 1);
    for (const n of [3, 1]) {
      // Read-modify-write of the Scale, retried on 409: the controllers keep writing the Deployment's status.
      const { res: put } = await replaceWithRetry(ctx, `${path}/scale`, (scale) => ({ ...scale, spec: { replicas: n } }));
      expectTrue(put.status === 200 || put.status === 201, `PUT ${path}/scale with replicas ${n}: ${describeResponse(put)}`, 'rule.ops.scale');
      const reached = await within(FINISH_MS, async () => {
        const list = await pods(ctx, ns, 'app=scaled');
        return list.length === n && running(list) === n ? true : undefined;
      });
      expectTrue(reached, `after scaling to ${n}, ${n} Running pods within ${FINISH_MS / 1000} s (now ${(await pods(ctx, ns, 'app=scaled')).length})`, 'rule.ops.scale');
    }
  },
);

check(
  'workloads.job-completes',
  {
    rows: ['controller.job', 'field.JobSpec.completions'],
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get'])],
    needs: { controllers: ['job'], nodes: 1 },
    title: 'a Job with completions 2 and parallelism 2 gets a Complete condition and succeeded 2',
    timeoutSeconds: 150,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = `/apis/batch/v1/namespaces/${ns}/jobs/once`;
    const body = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { completions: 2, parallelism: 2, template: template({}, 'Never') } };
    await createOrFail(ctx, `/apis/batch/v1/namespaces/${ns}/jobs`, body, `Job ${ns}/once`);
    const made = await within(NOTHING_MOVES_MS, async () => ((await pods(ctx, ns, 'job-name=once')).length > 0 ? true : undefined));
    if (!made) ctx.nothingMoved('job', `the Job made no pods within ${NOTHING_MOVES_MS / 1000} s`);
    const ran = await within(NOTHING_MOVES_MS, async () => ((await pods(ctx, ns, 'job-name=once')).some((p) => phase(p) !== 'Pending') ? true : undefined));
    if (!ran) ctx.nothingMoved('kubelet', `no pod of the Job left Pending within ${NOTHING_MOVES_MS / 1000} s: no node runs pods`);
    const job = await within(FINISH_MS, async () => {
      const j = await read(ctx, path);
      const conds = (j?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
      return conds.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') ? j : undefined;
    });
    if (!job) fail(`Job ${ns}/once did not finish within ${FINISH_MS / 1000} s: ${JSON.stringify((await read(ctx, path))?.status)}`, 'controller.job');
    const status = (job.status ?? {}) as { succeeded?: number; conditions?: Array<{ type: string; status: string }> };
    expectTrue(status.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'), `the Job completed (conditions ${JSON.stringify(status.conditions)})`, 'controller.job');
    expectEqual(status.succeeded, 2, 'status.succeeded of a Job with completions 2', 'field.JobSpec.completions');
  },
);
