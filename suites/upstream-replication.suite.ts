// Replication on the target (upstream registry entries 120, 125, 128, 130, 134-136, 138, 139; spec 1.6 owner
// references, 8.2 controller.replicaset, controller.replicationcontroller, controller.job): a ReplicaSet or
// ReplicationController adopts a matching pod that has no controller and releases one whose labels stop matching
// (making a replacement); a Job adopts an orphaned pod of its own selector again and releases a relabelled one; a
// Job runs `parallelism` pods and its pods go with it; a ReplicationController whose pods exceed a quota says so in
// a ReplicaFailure condition, gone once it fits. Needs those controllers, resource quota and one node.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer } from './harness/observe.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { conditionsOf, read } from './harness/progress.ts';
import {
  controllerOf,
  describePods,
  finishBound,
  isReady,
  live,
  longBatchTemplate,
  moveBound,
  mustCreate,
  mustDelete,
  mustPatch,
  ownedBy,
  runningTemplate,
  specReplicas,
  statusOf,
  podNamespace,
} from './harness/upstream-kit.ts';

const REPLICASETS: KindRef = { group: 'apps', version: 'v1', kind: 'ReplicaSet', resource: 'replicasets', namespaced: true };
const RCS: KindRef = { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true };
const JOBS: KindRef = { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true };
const PODS: KindRef = { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true };

async function setUp(ctx: CheckContext): Promise<{ ns: string; pods: Observer }> {
  const ns = await podNamespace(ctx);
  return { ns, pods: await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`) };
}

const bareCollection = (ref: KindRef, ns: string) => `/${ref.group ? `apis/${ref.group}` : 'api'}/${ref.version}/namespaces/${ns}/${ref.resource}`;

/**
 * Adoption and release through a ReplicaSet or ReplicationController of 1 replica: a pod made first, matching its
 * selector, is adopted (no second pod made); relabelled, it is released (its controller reference removed) and a
 * new pod takes its place. Returns the controller's path.
 */
async function adoptAndRelease(ctx: CheckContext, ns: string, pods: Observer, ref: KindRef, name: string, rows: string[], entries: string): Promise<string> {
  const pod = await mustCreate(ctx, `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-orphan`, ...runningTemplate({ name }).metadata }, spec: runningTemplate({}).spec }, 'a pod without controller');
  const selector = ref.kind === 'ReplicaSet' ? { matchLabels: { name } } : { name };
  const owner = await mustCreate(
    ctx,
    bareCollection(ref, ns),
    { apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version, kind: ref.kind, metadata: { name }, spec: { replicas: 1, selector, template: runningTemplate({ name }) } },
    `${ref.kind} ${name}`,
  );
  const matching = (all: KubeObject[]) => live(all).filter((p) => p.metadata.labels?.name === name);
  // Adopted (or, when the controller made a pod before it saw this one, settled at one pod either way).
  const settledPod = await pods.until(await finishBound(ctx), (all) => {
    const m = matching(all);
    return m.length === 1 && controllerOf(m[0])?.uid === owner.metadata.uid && isReady(m[0]) ? m[0] : undefined;
  });
  if (!settledPod) fail(`entry ${entries}: the ${ref.kind} of 1 replica should own exactly one Ready matching pod, having adopted the pod made first (or replaced it): ${describePods(pods.list())}\n${pods.story()}`, rows);
  const adopted = pods.log.some((c) => c.object.metadata.uid === pod.metadata.uid && controllerOf(c.object)?.uid === owner.metadata.uid);
  expectTrue(adopted || !pods.objects.has(pod.metadata.name!), `entry ${entries}: the matching pod without controller was neither adopted nor replaced: ${describePods(pods.list())}`, rows);
  await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${settledPod.metadata.name}`, { metadata: { labels: { name: 'released' } } }, 'relabelling the owned pod');
  const released = await pods.until(await finishBound(ctx), (all) => {
    const p = all.find((x) => x.metadata.uid === settledPod.metadata.uid);
    return p && !ownedBy(p, owner) && matching(all).length === 1 && isReady(matching(all)[0]) ? p : undefined;
  });
  if (!released) fail(`entry ${entries}: the relabelled pod should lose its controller reference and a new pod take its place: ${describePods(pods.list())}\n${pods.story()}`, rows);
  return `${bareCollection(ref, ns)}/${name}`;
}

check(
  'upstream.replicaset.adopt-release-scale',
  {
    rows: ['controller.replicaset', 'rule.ops.scale'],
    upstream: [130, 128],
    needs: { controllers: ['replicaset'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(REPLICASETS, ['create', 'get', 'patch', 'update']), needs(PODS, ['create', 'patch'])],
    title: 'an apps/v1 ReplicaSet adopts a matching orphan pod, releases it when relabelled, runs 2 pods once patched to 2 replicas, and takes a replace',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    try {
      const path = await adoptAndRelease(ctx, ns, pods, REPLICASETS, 'adopt-rs', ['controller.replicaset'], '130');
      await mustPatch(ctx, path, { spec: { replicas: 2 } }, 'patching the ReplicaSet to 2 replicas');
      const two = await pods.until(await finishBound(ctx), (all) => (live(all).filter((p) => p.metadata.labels?.name === 'adopt-rs' && isReady(p)).length === 2 ? true : undefined));
      if (!two) fail(`entry 128: the ReplicaSet patched to 2 replicas did not run 2 Ready pods: ${describePods(pods.list())}`, 'rule.ops.scale');
      // Read-modify-write retried on 409: the controller writes the ReplicaSet's status in between.
      const { res: put } = await replaceWithRetry(ctx, path, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { replaced: 'yes' } } }));
      expectTrue(put.status === 200 && put.object?.metadata.labels?.replaced === 'yes', `entry 128: PUT of the ReplicaSet with a new label: ${describeResponse(put)}`, 'controller.replicaset');
    } finally {
      pods.close();
    }
  },
);

check(
  'upstream.replicationcontroller.adopt-release-scale-lifecycle',
  {
    rows: ['controller.replicationcontroller', 'rule.ops.scale'],
    upstream: [134, 136, 135, 139],
    needs: { controllers: ['replicationcontroller'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(RCS, ['create', 'get', 'patch', 'delete']), needs(RCS, ['get', 'update'], 'scale'), needs(PODS, ['create', 'patch'])],
    title: 'a ReplicationController adopts a matching orphan pod and releases it when relabelled; /scale reads 1 and an update to 2 runs 2 pods; get, patch and delete each verified',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    try {
      const path = await adoptAndRelease(ctx, ns, pods, RCS, 'adopt-rc', ['controller.replicationcontroller'], '134/136');
      const scale = await ctx.client.get(`${path}/scale`);
      expectTrue(scale.status === 200 && (scale.object?.spec as { replicas?: number } | undefined)?.replicas === 1, `entry 135: GET /scale of an RC of 1 replica: ${describeResponse(scale)}`, 'rule.ops.scale');
      const { res: put } = await replaceWithRetry(ctx, `${path}/scale`, (cur) => ({ ...cur, spec: { replicas: 2 } }));
      expectTrue(put.status === 200, `entry 135: PUT /scale with replicas 2: ${describeResponse(put)}`, 'rule.ops.scale');
      expectEqual(specReplicas(await read(ctx, path)), 2, 'entry 135: spec.replicas of the RC after its /scale was set to 2', 'rule.ops.scale');
      const two = await pods.until(await finishBound(ctx), (all) => (live(all).filter((p) => p.metadata.labels?.name === 'adopt-rc' && isReady(p)).length === 2 ? true : undefined));
      if (!two) fail(`entry 135: the RC scaled to 2 did not run 2 Ready pods: ${describePods(pods.list())}`, 'controller.replicationcontroller');
      const patched = await mustPatch(ctx, path, { metadata: { labels: { patched: 'yes' } } }, 'patching the RC');
      expectTrue(patched.metadata.labels?.patched === 'yes' && (await read(ctx, path))?.metadata.labels?.patched === 'yes', 'entry 139: a label patched onto the RC reads back', 'controller.replicationcontroller');
      await mustDelete(ctx, path, 'deleting the RC', 'Background');
      const gone = await pods.until(await finishBound(ctx), (all) => (live(all).filter((p) => p.metadata.labels?.name === 'adopt-rc').length === 0 ? true : undefined));
      expectTrue((await ctx.client.get(path)).status === 404, 'entry 139: the deleted RC still reads', 'controller.replicationcontroller');
      expectTrue(gone, `entry 139: the RC's pods remain after its background delete: ${describePods(pods.list())}`, 'controller.replicationcontroller');
    } finally {
      pods.close();
    }
  },
);

check(
  'upstream.job.adopt-release-parallelism-delete',
  {
    rows: ['controller.job', 'field.JobSpec.parallelism', 'rule.ops.delete-dependents'],
    upstream: [120, 125],
    needs: { controllers: ['job', 'garbagecollector'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(JOBS, ['create', 'get', 'delete']), needs(PODS, ['patch'])],
    title: 'a Job of parallelism 2 runs 2 pods; one orphaned is adopted again, one relabelled out of its selector is released and replaced; its pods go with it',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    try {
      const job = await mustCreate(
        ctx,
        `/apis/batch/v1/namespaces/${ns}/jobs`,
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'adopt' }, spec: { parallelism: 2, completions: 4, template: longBatchTemplate({ role: 'adopt' }) } },
        'Job adopt',
      );
      const path = `/apis/batch/v1/namespaces/${ns}/jobs/adopt`;
      const mine = (all: KubeObject[]) => live(all).filter((p) => ownedBy(p, job));
      const two = await pods.until(await finishBound(ctx), (all) => (mine(all).length === 2 ? mine(all) : undefined));
      if (!two) fail(`entry 125: a Job of parallelism 2 should run 2 pods: ${describePods(pods.list())} (no job controller acts when there are none)`, 'field.JobSpec.parallelism');
      expectTrue((statusOf<{ active?: number }>(await read(ctx, path)).active ?? 0) <= 2, 'entry 125: status.active of a Job of parallelism 2 is at most 2', 'field.JobSpec.parallelism');
      const [a, b] = two;
      await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${a.metadata.name}`, { metadata: { ownerReferences: null } }, 'orphaning a Job pod');
      const readopted = await pods.until(await finishBound(ctx), (all) => {
        const p = all.find((x) => x.metadata.uid === a.metadata.uid);
        return p && controllerOf(p)?.uid === job.metadata.uid ? p : undefined;
      });
      if (!readopted) fail(`entry 120: the orphaned pod ${a.metadata.name} (still matching the Job's selector) was not adopted again: ${describePods(pods.list())}\n${pods.story()}`, 'controller.job');
      await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${b.metadata.name}`, { metadata: { labels: { 'controller-uid': null, 'job-name': null } } }, 'relabelling a Job pod out of its selector');
      const released = await pods.until(await finishBound(ctx), (all) => {
        const p = all.find((x) => x.metadata.uid === b.metadata.uid);
        return p && !ownedBy(p, job) && mine(all).length === 2 ? p : undefined;
      });
      if (!released) fail(`entry 120: the relabelled pod ${b.metadata.name} should be released and replaced: ${describePods(pods.list())}\n${pods.story()}`, 'controller.job');
      await mustDelete(ctx, path, 'deleting the Job', 'Background');
      const gone = await pods.until(await finishBound(ctx), (all) => (mine(all).length === 0 ? true : undefined));
      expectTrue(gone, `entry 125: pods of the deleted Job remain: ${describePods(mine(pods.list()))}`, 'rule.ops.delete-dependents');
      expectTrue(pods.list().some((p) => p.metadata.uid === b.metadata.uid && !p.metadata.deletionTimestamp), 'entry 120: the released pod was deleted with the Job that no longer owned it', 'controller.job');
    } finally {
      pods.close();
    }
  },
);

check(
  'upstream.replicationcontroller.quota-condition',
  {
    rows: ['controller.replicationcontroller', 'controller.resourcequota'],
    upstream: [138],
    needs: { controllers: ['replicationcontroller', 'resourcequota'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(RCS, ['create', 'get', 'patch']), { group: '', version: 'v1', resource: 'resourcequotas', verbs: ['create'] }],
    title: 'an RC of 3 replicas under a quota of 2 pods gets a ReplicaFailure condition; scaled to 2 the condition goes',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    pods.close();
    await mustCreate(ctx, `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'two-pods' }, spec: { hard: { pods: '2' } } }, 'ResourceQuota two-pods');
    const quotaPath = `/api/v1/namespaces/${ns}/resourcequotas/two-pods`;
    const quotas = await Observer.open(ctx, `/api/v1/namespaces/${ns}/resourcequotas`);
    const counted = await quotas.until(await moveBound(ctx), (all) =>
      all.some((q) => (statusOf<{ hard?: Record<string, string> }>(q).hard ?? {}).pods === '2') ? true : undefined,
    );
    quotas.close();
    if (!counted) fail(`the quota's status.hard was never set within ${(await moveBound(ctx)) / 1000} s: no resourcequota controller acts on this target: ${JSON.stringify((await read(ctx, quotaPath))?.status)}`, 'controller.resourcequota');
    await mustCreate(ctx, bareCollection(RCS, ns), { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'over' }, spec: { replicas: 3, selector: { name: 'over' }, template: runningTemplate({ name: 'over' }) } }, 'RC over');
    const rcs = await Observer.open(ctx, bareCollection(RCS, ns));
    try {
      const failure = (all: KubeObject[]) => conditionsOf(all.find((r) => r.metadata.name === 'over')).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
      const shown = await rcs.until(await finishBound(ctx), failure);
      if (!shown) fail(`entry 138: an RC whose pods exceed the quota has no ReplicaFailure condition: ${JSON.stringify(rcs.list()[0]?.status)}`, 'controller.replicationcontroller');
      await mustPatch(ctx, `${bareCollection(RCS, ns)}/over`, { spec: { replicas: 2 } }, 'scaling the RC to fit the quota');
      const cleared = await rcs.until(await finishBound(ctx), (all) => (failure(all) ? undefined : true));
      expectTrue(cleared, `entry 138: the ReplicaFailure condition stayed after the RC was scaled to fit: ${JSON.stringify(rcs.list()[0]?.status)}`, 'controller.replicationcontroller');
    } finally {
      rcs.close();
    }
  },
);
