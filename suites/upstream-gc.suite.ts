// Garbage collection of what controllers made (upstream registry entries 56-62; spec 1.6 ownerReferences, 4.4
// DeleteOptions propagationPolicy, rule.ops.delete-dependents, controller.garbagecollector): a Deployment deleted
// in the background takes its ReplicaSet and pods; an RC deleted in the background takes its pods; in the
// foreground the RC stays until its pods are gone; with Orphan the ReplicaSet or pods stay without the owner's
// reference; three objects owning each other in a ring all go once one is deleted; a dependent that another live
// owner still holds survives a foreground delete of its first owner. Needs the garbage collector and the workload
// controllers; one node.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { expectTrue, fail, forRows } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer } from './harness/observe.ts';
import { read } from './harness/progress.ts';
import { compareRv } from './harness/list-watch.ts';
import {
  describePods,
  finishBound,
  isReady,
  live,
  mustCreate,
  mustDelete,
  moveBound,
  mustPatch,
  ownedBy,
  runningTemplate,
  podNamespace,
} from './harness/upstream-kit.ts';

const RCS: KindRef = { group: '', version: 'v1', kind: 'ReplicationController', resource: 'replicationcontrollers', namespaced: true };
const GC_ROWS = ['rule.ops.delete-dependents', 'query.delete.propagationPolicy', 'controller.garbagecollector'];

async function setUp(ctx: CheckContext): Promise<{ ns: string; pods: Observer }> {
  const ns = await podNamespace(ctx);
  return { ns, pods: await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`) };
}

/** Waits until the selector's pods are `n` and Ready; no pod at all: the workload controller never acted. */
async function running(ctx: CheckContext, pods: Observer, name: string, n: number): Promise<KubeObject[]> {
  const mine = (all: KubeObject[]) => live(all).filter((p) => p.metadata.labels?.name === name);
  const up = await pods.until(await finishBound(ctx), (all) => (mine(all).length === n && mine(all).every(isReady) ? mine(all) : undefined));
  if (!up) fail(`setup: ${name} did not run ${n} Ready pods: ${describePods(pods.list())} (its controller does not act?)`, 'controller.garbagecollector');
  return up;
}

async function rc(ctx: CheckContext, ns: string, name: string, replicas: number,
  pods: Observer): Promise<{ owner: KubeObject; path: string; podList: KubeObject[] }> {
  const owner = await mustCreate(ctx, `/api/v1/namespaces/${ns}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec: { replicas, selector: { name }, template: runningTemplate({ name }) } }, `RC ${name}`);
  return { owner, path: `/api/v1/namespaces/${ns}/replicationcontrollers/${name}`, podList: await running(ctx, pods, name, replicas) };
}

check(
  'upstream.gc.deployment-background-and-orphan',
  {
    rows: GC_ROWS,
    upstream: [56, 61],
    needs: { controllers: ['garbagecollector', 'deployment', 'replicaset'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'delete'])],
    title: 'a Deployment deleted in the background takes its ReplicaSet and pods; one deleted with Orphan leaves them, the ReplicaSet without its reference',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    const sets = await Observer.open(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets`);
    try {
      const mk = (name: string) =>
        mustCreate(ctx, `/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 2, selector: { matchLabels: { name } }, template: runningTemplate({ name }) } }, `Deployment ${name}`);
      const doomed = await mk('doomed');
      const kept = await mk('kept');
      await running(ctx, pods, 'doomed', 2);
      await running(ctx, pods, 'kept', 2);
      const setOf = (d: KubeObject) => sets.list().find((s) => ownedBy(s, d));
      await sets.until(await moveBound(ctx), () => (setOf(doomed) && setOf(kept) ? true : undefined));
      const doomedSet = setOf(doomed);
      const keptSet = setOf(kept);
      if (!doomedSet || !keptSet) fail(`setup: the Deployments' ReplicaSets carry no owner reference to them: ${sets.list().map((s) => `${s.metadata.name} ${JSON.stringify(s.metadata.ownerReferences)}`).join('; ')}`, GC_ROWS);
      await mustDelete(ctx, `/apis/apps/v1/namespaces/${ns}/deployments/doomed`, 'deleting Deployment doomed', 'Background');
      await mustDelete(ctx, `/apis/apps/v1/namespaces/${ns}/deployments/kept`, 'deleting Deployment kept', 'Orphan');
      const collected = (await pods.until(await finishBound(ctx), (all) => (live(all).some((p) => p.metadata.labels?.name === 'doomed') ? undefined : true))) && (await sets.until(await finishBound(ctx), () => (sets.objects.has(doomedSet.metadata.name!) ? undefined : true)));
      await forRows(['rule.ops.delete-dependents', 'controller.garbagecollector'], async () => {
        expectTrue(collected && !(await read(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets/${doomedSet.metadata.name}`)), `entry 56: after a background delete of its Deployment, its ReplicaSet or pods remain: ${describePods(pods.list())}`);
        const orphan = await read(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets/${keptSet.metadata.name}`);
        expectTrue(orphan !== undefined, 'entry 61: the ReplicaSet of a Deployment deleted with Orphan was deleted');
        expectTrue(!ownedBy(orphan, kept), `entry 61: the orphaned ReplicaSet still names the deleted Deployment: ${JSON.stringify(orphan.metadata.ownerReferences)}`);
        expectTrue(live(pods.list()).filter((p) => p.metadata.labels?.name === 'kept').length === 2, `entry 61: pods of the orphaned ReplicaSet: ${describePods(pods.list())}`);
      });
    } finally {
      pods.close();
      sets.close();
    }
  },
);

check(
  'upstream.gc.rc-background-foreground-orphan',
  {
    rows: [...GC_ROWS, 'query.delete.orphanDependents'],
    upstream: [57, 58, 62],
    needs: { controllers: ['garbagecollector', 'replicationcontroller'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(RCS, ['create', 'delete'])],
    title: 'RCs deleted in the background lose their pods; in the foreground the RC is still there (deletionTimestamp) until its pods are gone; with Orphan the pods stay without the reference',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    const rcs = await Observer.open(ctx, `/api/v1/namespaces/${ns}/replicationcontrollers`);
    try {
      const back = await rc(ctx, ns, 'back', 2, pods);
      const fore = await rc(ctx, ns, 'fore', 2, pods);
      const orphan = await rc(ctx, ns, 'orphan', 2, pods);
      await mustDelete(ctx, back.path, 'deleting RC back', 'Background');
      await mustDelete(ctx, orphan.path, 'deleting RC orphan', 'Orphan');
      await mustDelete(ctx, fore.path, 'deleting RC fore', 'Foreground');
      const mine = (name: string) => live(pods.list()).filter((p) => p.metadata.labels?.name === name);
      const done =
        (await rcs.until(await finishBound(ctx), (all) => (all.length === 0 ? true : undefined))) &&
        (await pods.until(await finishBound(ctx), (all) => (live(all).some((p) => p.metadata.labels?.name === 'back' || ownedBy(p, fore.owner)) ? undefined : true)));
      const left = () => `RCs ${[...rcs.objects.keys()].join(', ') || '(none)'}; pods ${describePods(pods.list())}`;
      if (!done) fail(`the three RCs were not collected as asked within ${(await finishBound(ctx)) / 1000} s: ${left()}\n${rcs.story((r) => (r.metadata.deletionTimestamp ? 'deleting' : ''))}`, GC_ROWS);
      // Entry 58: the RC went after its pods. Judged on the server's own order of changes (resourceVersions) where
      // they are decimal (etcd), else on the RC having waited with the foregroundDeletion finalizer.
      const rcGoneAt = rcs.log.find((c) => c.type === 'DELETED' && c.name === 'fore')?.object.metadata.resourceVersion;
      const podsGoneAt = pods.log.filter((c) => c.type === 'DELETED' && ownedBy(c.object, fore.owner)).map((c) => c.object.metadata.resourceVersion);
      const waited = rcs.log.some((c) => c.name === 'fore' && (c.object.metadata.finalizers ?? []).includes('foregroundDeletion'));
      const order = podsGoneAt.map((rv) => compareRv(rv, rcGoneAt));
      if (order.every((o) => o !== undefined))
        expectTrue(order.every((o) => o! < 0), `entry 58: the RC deleted in the foreground went (resourceVersion ${rcGoneAt}) before its pods (${podsGoneAt.join(', ')})\n${rcs.story()}\n${pods.story()}`, 'rule.ops.delete-dependents');
      else expectTrue(waited, `entry 58: the RC deleted in the foreground was never seen waiting with the foregroundDeletion finalizer (its deletion at ${rcGoneAt}, its pods' at ${podsGoneAt.join(', ')})\n${rcs.story((r) => JSON.stringify(r.metadata.finalizers ?? []))}`, 'rule.ops.delete-dependents');
      const orphans = mine('orphan');
      expectTrue(orphans.length === 2 && orphans.every((p) => !ownedBy(p, orphan.owner)), `entry 62: pods of the RC deleted with Orphan should stay, without its reference: ${describePods(orphans)}`, ['rule.ops.delete-dependents', 'query.delete.orphanDependents']);
    } finally {
      pods.close();
      rcs.close();
    }
  },
);

const ref = (o: KubeObject, block = false) => ({ apiVersion: 'v1', kind: o.kind ?? 'ConfigMap', name: o.metadata.name!, uid: o.metadata.uid!, ...(block ? { blockOwnerDeletion: true } : {}) });

check(
  'upstream.gc.cycle-and-second-owner',
  {
    rows: GC_ROWS,
    upstream: [59, 60],
    needs: { controllers: ['garbagecollector', 'replicationcontroller'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'patch', 'delete']), needs(RCS, ['create', 'delete'])],
    title: 'three ConfigMaps owning each other in a ring all go once one is deleted; pods that a second live RC also owns survive a foreground delete of the first RC, without deletionTimestamp',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const { ns, pods } = await setUp(ctx);
    try {
      // Entry 59: a ring a -> b -> c -> a (each owned by the previous, blockOwnerDeletion).
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const ring = [];
      for (const n of ['ring-a', 'ring-b', 'ring-c']) ring.push(await mustCreate(ctx, cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, labels: { ring: 'yes' } } }, `ConfigMap ${n}`));
      for (let i = 0; i < 3; i++) await mustPatch(ctx, `${cms}/${ring[i].metadata.name}`, { metadata: { ownerReferences: [ref({ ...ring[(i + 2) % 3], kind: 'ConfigMap' }, true)] } }, 'closing the ring');
      await mustDelete(ctx, `${cms}/ring-a`, 'deleting one ConfigMap of the ring', 'Background');
      // Entry 60: rc1 owns 2 pods; rc2 (whose selector matches none of them) is added to one pod as a second owner.
      const rc1 = await rc(ctx, ns, 'first', 2, pods);
      const rc2 = await mustCreate(ctx, `/api/v1/namespaces/${ns}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'second' }, spec: { replicas: 0, selector: { name: 'second' }, template: runningTemplate({ name: 'second' }) } }, 'RC second');
      const shared = rc1.podList[0];
      await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${shared.metadata.name}`, { metadata: { ownerReferences: [...(shared.metadata.ownerReferences ?? []), { apiVersion: 'v1', kind: 'ReplicationController', name: 'second', uid: rc2.metadata.uid }] } }, 'adding a second owner');
      await mustDelete(ctx, rc1.path, 'deleting RC first', 'Foreground');
      const deadline = performance.now() + (await finishBound(ctx));
      let ringLeft: string[] = ['?'];
      let firstThere = true;
      while (performance.now() < deadline && (ringLeft.length > 0 || firstThere)) {
        ringLeft = [];
        for (const n of ['ring-a', 'ring-b', 'ring-c']) if ((await ctx.client.get(`${cms}/${n}`)).status !== 404) ringLeft.push(n);
        firstThere = (await ctx.client.get(rc1.path)).status !== 404;
        await pods.until(500, () => undefined);
      }
      if (ringLeft.length === 3 && firstThere && pods.list().every((p) => !p.metadata.deletionTimestamp))
        fail('nothing was collected: no garbage collector acts on this target', 'controller.garbagecollector');
      expectTrue(ringLeft.length === 0, `entry 59: members of an ownership ring remain after one was deleted: ${ringLeft.join(', ')}`, 'rule.ops.delete-dependents');
      expectTrue(!firstThere, `entry 60: the RC deleted in the foreground is still there: ${JSON.stringify((await read(ctx, rc1.path))?.metadata)}`, 'rule.ops.delete-dependents');
      const survivor = pods.list().find((p) => p.metadata.uid === shared.metadata.uid);
      expectTrue(survivor !== undefined && !survivor.metadata.deletionTimestamp, `entry 60: the pod a second live owner still holds was ${survivor ? 'marked for deletion' : 'deleted'}: ${describePods(pods.list())}`, 'rule.ops.delete-dependents');
      const other = rc1.podList[1];
      expectTrue(!pods.list().some((p) => p.metadata.uid === other.metadata.uid && !p.metadata.deletionTimestamp), `entry 60: the pod only the deleted RC owned is still there: ${describePods(pods.list())}`, 'rule.ops.delete-dependents');
    } finally {
      pods.close();
    }
  },
);
