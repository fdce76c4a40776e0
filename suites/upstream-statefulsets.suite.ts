// StatefulSets on the target (upstream registry entries 140-143, 145, 146; spec 8.2 controller.statefulset, 4.7
// scale): OrderedReady pods appear in ordinal order, each once the one before is Ready, go in reverse order, and a
// scale-up halts behind a pod that is not Ready; Parallel pods appear and go without waiting; /scale follows; a
// RollingUpdate with a partition updates only ordinals at or above it (a deleted pod below comes back at the old
// revision), without it every pod, one at a time, in reverse order; going back to the first template reuses its
// revision; a Failed pod is made again. Needs the statefulset controller and one node.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer, targetScaled } from './harness/observe.ts';
import { read } from './harness/progress.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { describePods, finishBound, isReady, label, live, moveBound, mustCreate, mustDelete, mustPatch, runningTemplate, setTemplate, statusOf, podNamespace } from './harness/upstream-kit.ts';

const STATEFULSETS: KindRef = { group: 'apps', version: 'v1', kind: 'StatefulSet', resource: 'statefulsets', namespaced: true };
const CLUSTER = { controllers: ['statefulset'], nodes: 1 };
const ordinal = (p: KubeObject) => Number(/-(\d+)$/.exec(p.metadata.name!)?.[1] ?? -1);

const setUp = podNamespace;

async function statefulSet(ctx: CheckContext, ns: string, name: string, replicas: number, spec: Record<string, unknown> = {},
  neverReady = false): Promise<string> {
  const api = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
  await mustCreate(
    ctx,
    api,
    { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: { replicas, serviceName: name, selector: { matchLabels: { set: name } }, template: runningTemplate({ set: name }, { neverReady }), ...spec } },
    `StatefulSet ${name}`,
  );
  return `${api}/${name}`;
}

const of = (all: KubeObject[], name: string) => all.filter((p) => p.metadata.labels?.set === name);

check(
  'upstream.statefulset.ordered-burst-halt',
  {
    rows: ['controller.statefulset'],
    upstream: [141, 140],
    needs: CLUSTER,
    requires: [NEEDS_NAMESPACES, needs(STATEFULSETS, ['create', 'patch'])],
    title: 'OrderedReady: pods 0,1,2 each made after the one before is Ready, removed 2,1,0; a pod that never becomes Ready halts the scale-up; Parallel makes and removes all at once',
    timeoutSeconds: 180,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await setUp(ctx);
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`);
    try {
      const orderBreaks: string[] = [];
      const onChange = (c: { type: string; object: KubeObject }, all: KubeObject[]) => {
        const p = c.object;
        if (p.metadata.labels?.set !== 'ordered') return;
        const k = ordinal(p);
        const peers = of(all, 'ordered');
        if (c.type === 'ADDED' && !peers.filter((q) => ordinal(q) < k).every((q) => isReady(q) && !q.metadata.deletionTimestamp) || (c.type === 'ADDED' && peers.filter((q) => ordinal(q) < k).length < k))
          orderBreaks.push(`${p.metadata.name} made while lower ordinals were ${describePods(peers.filter((q) => ordinal(q) < k))}`);
        if ((c.type === 'DELETED' || p.metadata.deletionTimestamp) && peers.some((q) => ordinal(q) > k)) orderBreaks.push(`${p.metadata.name} removed while ${peers.filter((q) => ordinal(q) > k).map((q) => q.metadata.name).join(',')} remained`);
      };
      const path = await statefulSet(ctx, ns, 'ordered', 3);
      const burst = await statefulSet(ctx, ns, 'burst', 3, { podManagementPolicy: 'Parallel' }, true);
      const halting = await statefulSet(ctx, ns, 'halting', 3, {}, true);
      const any = await pods.until(await moveBound(ctx), (all) => (all.length > 0 ? true : undefined), onChange);
      if (!any) fail(`no pod of three StatefulSets appeared within ${(await moveBound(ctx)) / 1000} s: no statefulset controller acts on this target`, 'controller.statefulset');
      const up = await pods.until(await finishBound(ctx), (all) => (live(of(all, 'ordered')).filter(isReady).length === 3 && live(of(all, 'burst')).length === 3 ? true : undefined), onChange);
      if (!up) fail(`entries 141/140: expected 3 Ready pods of 'ordered' and 3 (never Ready) of 'burst' (Parallel): ${describePods(pods.list())}\n${pods.story()}`, 'controller.statefulset');
      await pods.hold(await targetScaled(ctx, 2_000), onChange);
      const halted = of(pods.list(), 'halting');
      expectTrue(halted.length === 1 && ordinal(halted[0]) === 0, `entry 141: a StatefulSet whose pod 0 never becomes Ready should stop at that pod: ${describePods(halted)}`, 'controller.statefulset');
      await mustPatch(ctx, path, { spec: { replicas: 0 } }, 'scaling ordered to 0');
      await mustPatch(ctx, burst, { spec: { replicas: 0 } }, 'scaling burst to 0');
      const down = await pods.until(await finishBound(ctx), (all) => (of(all, 'ordered').length === 0 && of(all, 'burst').length === 0 ? true : undefined), onChange);
      if (!down) fail(`entries 141/140: scaled to 0, pods remain: ${describePods(pods.list())}\n${pods.story()}`, 'controller.statefulset');
      expectTrue(orderBreaks.length === 0, `entry 141: OrderedReady order broken: ${orderBreaks.slice(0, 4).join('; ')}\n${pods.story()}`, 'controller.statefulset');
      void halting;
    } finally {
      pods.close();
    }
  },
);

check(
  'upstream.statefulset.scale-partition-rollback-recreate',
  {
    rows: ['controller.statefulset', 'rule.ops.scale'],
    upstream: [143, 145, 146, 142],
    needs: CLUSTER,
    requires: [NEEDS_NAMESPACES, needs(STATEFULSETS, ['create', 'get', 'patch']), needs(STATEFULSETS, ['get', 'update'], 'scale')],
    title: '/scale reads 1 and an update to 3 runs 3 pods; partition 2 updates only pod 2 (deleted pod 1 returns at the old revision); partition 0 updates the rest one at a time; the first template again is the first revision; a Failed pod is made again',
    timeoutSeconds: 240,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await setUp(ctx);
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'set=web');
    try {
      const path = await statefulSet(ctx, ns, 'web', 1, { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } });
      const scale = await ctx.client.get(`${path}/scale`);
      expectTrue(scale.status === 200 && (scale.object?.spec as { replicas?: number } | undefined)?.replicas === 1, `entry 143: /scale of a StatefulSet of 1 replica: ${describeResponse(scale)}`, 'rule.ops.scale');
      const { res: put } = await replaceWithRetry(ctx, `${path}/scale`, (cur) => ({ ...cur, spec: { replicas: 3 } }));
      expectTrue(put.status === 200, `entry 143: PUT /scale with replicas 3: ${describeResponse(put)}`, 'rule.ops.scale');
      const three = await pods.until(await finishBound(ctx), (all) => (live(all).filter(isReady).length === 3 ? true : undefined));
      if (!three) fail(`entry 143: after /scale was set to 3, 3 Ready pods expected: ${describePods(pods.list())} (no statefulset controller acts when there are none)`, 'rule.ops.scale');
      const rev1 = statusOf<{ currentRevision?: string }>(await read(ctx, path)).currentRevision;
      const revOf = (n: number) => label(pods.list().find((p) => ordinal(p) === n && !p.metadata.deletionTimestamp) ?? ({ metadata: {} } as KubeObject), 'controller-revision-hash');
      // Entry 145: partition 2, new template: only pod 2 moves.
      await mustPatch(ctx, path, { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } } }, 'setting partition 2');
      await setTemplate(ctx, path, runningTemplate({ set: 'web' }, { image: 'busybox:1.29' }), 'a new template');
      const rev2 = await (async () => {
        const deadline = performance.now() + (await finishBound(ctx));
        while (performance.now() < deadline) {
          const s = statusOf<{ updateRevision?: string }>(await read(ctx, path));
          if (s.updateRevision && s.updateRevision !== rev1) return s.updateRevision;
          await pods.until(300, () => undefined);
        }
        return undefined;
      })();
      if (!rev2) fail(`entry 146: status.updateRevision never moved off ${rev1} after a template change`, 'controller.statefulset');
      const part = await pods.until(await finishBound(ctx), (all) => (live(all).length === 3 && all.every(isReady) && revOf(2) === rev2 ? true : undefined));
      if (!part) fail(`entry 145: pod 2 (at the partition) was not updated to ${rev2}: ${describePods(pods.list())}`, 'controller.statefulset');
      await pods.hold(await targetScaled(ctx, 1_000));
      expectTrue(revOf(0) === rev1 && revOf(1) === rev1, `entry 145: pods below partition 2 should stay at ${rev1}: ${describePods(pods.list())}`, 'controller.statefulset');
      const one = pods.list().find((p) => ordinal(p) === 1)!;
      await mustDelete(ctx, `/api/v1/namespaces/${ns}/pods/${one.metadata.name}`, 'deleting pod 1');
      const back = await pods.until(await finishBound(ctx), (all) => {
        const p = all.find((x) => ordinal(x) === 1 && x.metadata.uid !== one.metadata.uid);
        return p && isReady(p) ? p : undefined;
      });
      expectTrue(back && label(back, 'controller-revision-hash') === rev1, `entry 145: deleted pod 1 should come back at ${rev1} (below the partition): ${describePods(pods.list())}`, 'controller.statefulset');
      // Entry 146: partition 0: the rest one at a time, from the highest ordinal down.
      const breaks: string[] = [];
      const onChange = (_c: unknown, all: KubeObject[]) => {
        const unavailable = 3 - live(all).filter(isReady).length;
        if (unavailable > 1 && breaks.length < 3) breaks.push(describePods(all));
      };
      await mustPatch(ctx, path, { spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } } } }, 'setting partition 0');
      const all2 = await pods.until(await finishBound(ctx), (all) => (live(all).length === 3 && all.every(isReady) && [0, 1,
        2].every((n) => revOf(n) === rev2) ? true : undefined), onChange);
      if (!all2) fail(`entry 146: with partition 0 every pod should reach ${rev2}: ${describePods(pods.list())}\n${pods.story()}`, 'controller.statefulset');
      expectTrue(breaks.length === 0, `entry 146: pods were replaced more than one at a time: ${breaks.join(' | ')}`, 'controller.statefulset');
      const order = pods.log.filter((c) => c.type === 'ADDED' && label(c.object, 'controller-revision-hash') === rev2).map((c) => ordinal(c.object));
      expectEqual(order, [2, 1, 0], 'entry 146: ordinals in the order their updated pods were made', 'controller.statefulset');
      // Rollback: the first template again is the first revision, not a new one.
      await setTemplate(ctx, path, runningTemplate({ set: 'web' }), 'the first template again');
      const rolled = await pods.until(await finishBound(ctx), (all) => (live(all).length === 3 && all.every(isReady) && [0, 1,
        2].every((n) => revOf(n) === rev1) ? true : undefined));
      const s = statusOf<{ updateRevision?: string; currentRevision?: string }>(await read(ctx, path));
      expectTrue(s.updateRevision === rev1, `entry 146: going back to the first template should make ${rev1} the update revision again, got ${s.updateRevision}`, 'controller.statefulset');
      if (!rolled) fail(`entry 146: after the rollback every pod should be back at ${rev1}: ${describePods(pods.list())}`, 'controller.statefulset');
      // Entry 142: a Failed pod is deleted and made again.
      const victim = pods.list().find((p) => ordinal(p) === 0)!;
      await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}/status`, { status: { phase: 'Failed' } }, 'marking pod 0 Failed');
      const remade = await pods.until(await finishBound(ctx),
        (all) => (all.some((p) => ordinal(p) === 0 && p.metadata.uid !== victim.metadata.uid && isReady(p)) ? true : undefined));
      expectTrue(remade, `entry 142: a Failed pod of the StatefulSet was not made again: ${describePods(pods.list())}\n${pods.story()}`, 'controller.statefulset');
    } finally {
      pods.close();
    }
  },
);
