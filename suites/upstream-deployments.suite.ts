// Deployment strategies on the target (upstream registry entries 108-112; spec 2.4 DeploymentStrategy,
// RollingUpdateDeployment, DeploymentSpec.revisionHistoryLimit; 3 rule.lifecycle.deployment-strategy): Recreate
// removes every old pod before a new one starts; RollingUpdate stays within maxSurge and maxUnavailable and adopts a
// matching ReplicaSet; old ReplicaSets beyond revisionHistoryLimit are deleted; scaling in the middle of a rollout
// spreads the change over the sets in proportion; a change during an unfinished rollout rolls over to the newest
// template. Judged on every state a watch showed. Needs the deployment and replicaset controllers and one node.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { expectTrue, fail } from './harness/expect.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer } from './harness/observe.ts';
import {
  describePods,
  finishBound,
  isReady,
  live,
  moveBound,
  mustCreate,
  mustPatch,
  setTemplate,
  phase,
  runningTemplate,
  specReplicas,
  statusOf,
  usableNodes,
} from './harness/upstream-kit.ts';

const CLUSTER = { controllers: ['deployment', 'replicaset'], nodes: 1 };
const REQUIRES = [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'patch'])];
type Containers = { containers?: Array<{ image: string }> };
/** The first container's image of a pod or of a workload's template. */
const imageOf = (o: KubeObject) => (((o.spec as { template?: { spec?: Containers } }).template?.spec ?? (o.spec as Containers)).containers ?? [])[0]?.image;

const describeSets = (sets: KubeObject[]) =>
  sets.map((r) => `${r.metadata.name} image=${imageOf(r)} spec=${specReplicas(r)} available=${statusOf<{ availableReplicas?: number }>(r).availableReplicas ?? 0}`).join('; ') || '(no ReplicaSets)';

async function needNode(ctx: CheckContext): Promise<void> {
  if ((await usableNodes(ctx)).length === 0) ctx.skip('the target has no Ready, schedulable node: no pod can run (needs 1 node)');
}

interface Rollout {
  ns: string;
  path: string;
  pods: Observer;
  sets: Observer;
  close(): void;
}

async function deployment(ctx: CheckContext, name: string, replicas: number, spec: Record<string, unknown>, image = 'busybox:1.28'): Promise<Rollout> {
  await needNode(ctx);
  const ns = await ctx.namespace();
  const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, `app=${name}`);
  const sets = await Observer.open(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets`);
  const api = `/apis/apps/v1/namespaces/${ns}/deployments`;
  await mustCreate(
    ctx,
    api,
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas, selector: { matchLabels: { app: name } }, template: runningTemplate({ app: name }, { image }), ...spec } },
    `Deployment ${ns}/${name}`,
  );
  return { ns, path: `${api}/${name}`, pods, sets, close: () => (pods.close(), sets.close()) };
}

/** Waits for `n` Ready pods of `image` and nothing else; fails with what it saw (no ReplicaSet: no controller acted). */
async function settled(ctx: CheckContext, r: Rollout, n: number, image: string, what: string, rows: string[]): Promise<KubeObject[]> {
  const any = await r.sets.until(await moveBound(ctx), (s) => (s.length > 0 ? true : undefined));
  if (!any) fail(`${what}: no ReplicaSet appeared within ${(await moveBound(ctx)) / 1000} s: no deployment controller acts on this target`, rows);
  const done = await r.pods.until(await finishBound(ctx), (all) => {
    const alive = live(all);
    return alive.length === n && all.length === n && alive.every((p) => imageOf(p) === image && isReady(p)) ? alive : undefined;
  });
  if (!done) fail(`${what}: expected ${n} Ready pods of ${image} and no other within ${(await finishBound(ctx)) / 1000} s; pods: ${describePods(r.pods.list())}; sets: ${describeSets(r.sets.list())}\n${r.pods.story()}`, rows);
  return done;
}

check(
  'upstream.deployment.recreate',
  {
    rows: ['rule.lifecycle.deployment-strategy', 'field.DeploymentStrategy.type', 'field.DeploymentSpec.strategy', 'controller.deployment'],
    upstream: [108],
    needs: CLUSTER,
    requires: REQUIRES,
    title: 'Recreate: after a template change no pod of the new template exists while a pod of the old one is still there and not finished',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const r = await deployment(ctx, 'recreate', 2, { strategy: { type: 'Recreate' } });
    try {
      const rows = ['rule.lifecycle.deployment-strategy', 'field.DeploymentStrategy.type'];
      await settled(ctx, r, 2, 'busybox:1.28', 'Recreate Deployment', rows);
      await setTemplate(ctx, r.path, runningTemplate({ app: 'recreate' }, { image: 'busybox:1.29' }), 'changing the template');
      const overlaps: string[] = [];
      const onChange = (_c: unknown, pods: KubeObject[]) => {
        const fresh = pods.filter((p) => imageOf(p) === 'busybox:1.29');
        const old = pods.filter((p) => imageOf(p) === 'busybox:1.28' && phase(p) !== 'Succeeded' && phase(p) !== 'Failed');
        if (fresh.length && old.length && overlaps.length < 5) overlaps.push(`new ${fresh.map((p) => p.metadata.name).join(',')} beside old ${old.map((p) => `${p.metadata.name}(${phase(p)})`).join(',')}`);
      };
      const done = await r.pods.until(await finishBound(ctx), (all) => (all.length === 2 && all.every((p) => imageOf(p) === 'busybox:1.29' && isReady(p)) ? true : undefined), onChange);
      expectTrue(overlaps.length === 0, `entry 108: a pod of the new template existed while old pods were not gone: ${overlaps.join('; ')}\n${r.pods.story()}`, rows);
      if (!done) fail(`entry 108: the Recreate rollout did not end with 2 Ready new pods: ${describePods(r.pods.list())}\n${r.pods.story()}`, rows);
    } finally {
      r.close();
    }
  },
);

check(
  'upstream.deployment.rolling-update',
  {
    rows: ['field.RollingUpdateDeployment.maxSurge', 'field.RollingUpdateDeployment.maxUnavailable', 'field.DeploymentStrategy.rollingUpdate', 'controller.deployment'],
    upstream: [109],
    needs: CLUSTER,
    requires: REQUIRES,
    title: 'RollingUpdate adopts a matching ReplicaSet and replaces its pods with the ReplicaSets never above replicas+maxSurge nor available below replicas-maxUnavailable',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await needNode(ctx);
    const ns = await ctx.namespace();
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'app=rolling');
    const sets = await Observer.open(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets`);
    const rows = ['field.RollingUpdateDeployment.maxSurge', 'field.RollingUpdateDeployment.maxUnavailable'];
    try {
      // A ReplicaSet made first, whose labels match the Deployment's selector: the Deployment adopts it.
      await mustCreate(
        ctx,
        `/apis/apps/v1/namespaces/${ns}/replicasets`,
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rolling-old', labels: { app: 'rolling' } }, spec: { replicas: 3, selector: { matchLabels: { app: 'rolling' } }, template: runningTemplate({ app: 'rolling' }) } },
        'ReplicaSet rolling-old',
      );
      const up = await sets.until(await finishBound(ctx),
        (all) => (all.some((s) => statusOf<{ availableReplicas?: number }>(s).availableReplicas === 3) ? true : undefined));
      if (!up) fail(`the ReplicaSet made first did not report 3 available pods: ${describePods(pods.list())}; ${describeSets(sets.list())} (replicaset controller)`, 'controller.replicaset');
      await mustCreate(
        ctx,
        `/apis/apps/v1/namespaces/${ns}/deployments`,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'rolling' },
          spec: { replicas: 3, selector: { matchLabels: { app: 'rolling' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } }, template: runningTemplate({ app: 'rolling' }, { image: 'busybox:1.29' }) },
        },
        'Deployment rolling',
      );
      const breaches: string[] = [];
      const onChange = () => {
        const all = sets.list();
        const total = all.reduce((n, s) => n + specReplicas(s), 0);
        const available = all.reduce((n, s) => n + (statusOf<{ availableReplicas?: number }>(s).availableReplicas ?? 0), 0);
        if ((total > 4 || available < 2) && breaches.length < 5) breaches.push(`${describeSets(all)} (sum of replicas ${total} > 4 or available ${available} < 2)`);
      };
      const done = await sets.until(
        await finishBound(ctx),
        (all) => {
          const fresh = all.find((s) => imageOf(s) === 'busybox:1.29');
          const old = all.find((s) => s.metadata.name === 'rolling-old');
          const freshDone = fresh && specReplicas(fresh) === 3 && (statusOf<{ availableReplicas?: number }>(fresh).availableReplicas ?? 0) === 3;
          return freshDone && old && specReplicas(old) === 0 ? { old, fresh } : undefined;
        },
        onChange,
      );
      if (!done) {
        if (!sets.list().some((s) => imageOf(s) === 'busybox:1.29')) fail(`no ReplicaSet of the Deployment's template appeared: no deployment controller acts on this target; sets: ${describeSets(sets.list())}`, 'controller.deployment');
        fail(`entry 109: the rollout did not end with the new ReplicaSet at 3 available and rolling-old at 0: ${describeSets(sets.list())}\n${sets.story((s) => `spec=${specReplicas(s)}`)}`, rows);
      }
      expectTrue(breaches.length === 0, `entry 109: the rollout left maxSurge 1 / maxUnavailable 1 of 3 replicas: ${breaches.join('\n')}`, rows);
      const owner = (done.old.metadata.ownerReferences ?? []).find((o) => o.controller);
      expectTrue(owner?.kind === 'Deployment' && owner.name === 'rolling', `entry 109: the matching ReplicaSet made first was adopted by the Deployment (its controller reference: ${JSON.stringify(owner)})`, 'controller.deployment');
    } finally {
      pods.close();
      sets.close();
    }
  },
);

check(
  'upstream.deployment.rollover-and-history',
  {
    rows: ['field.DeploymentSpec.revisionHistoryLimit', 'controller.deployment', 'field.DeploymentSpec.template'],
    upstream: [112, 110],
    needs: CLUSTER,
    requires: REQUIRES,
    title: 'a template change during a stuck rollout rolls over to the newest template (the stuck set scaled to 0); with revisionHistoryLimit 1 the oldest set is deleted, one old set kept',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const r = await deployment(ctx, 'rollover', 2, { revisionHistoryLimit: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } });
    try {
      await settled(ctx, r, 2, 'busybox:1.28', 'rollover Deployment', ['controller.deployment']);
      const first = r.sets.list().find((s) => imageOf(s) === 'busybox:1.28')!;
      await setTemplate(ctx, r.path, runningTemplate({ app: 'rollover' }, { image: 'busybox:1.29', neverReady: true }), 'a template whose pods never become ready');
      const stuck = await r.pods.until(await finishBound(ctx), (all) => (all.some((p) => imageOf(p) === 'busybox:1.29') ? true : undefined));
      if (!stuck) fail(`no pod of the second template appeared: ${describeSets(r.sets.list())}`, 'controller.deployment');
      await setTemplate(ctx, r.path, runningTemplate({ app: 'rollover' }, { image: 'busybox:1.30' }), 'the newest template');
      const done = await r.sets.until(await finishBound(ctx), (all) => {
        const newest = all.find((s) => imageOf(s) === 'busybox:1.30');
        const ok = newest && specReplicas(newest) === 2 && (statusOf<{ availableReplicas?: number }>(newest).availableReplicas ?? 0) === 2;
        return ok && all.length === 2 && all.every((s) => s === newest || specReplicas(s) === 0) ? all : undefined;
      });
      if (!done)
        fail(
          `entry 112/110: expected the newest set at 2 available and exactly one old set at 0 (revisionHistoryLimit 1) within ${(await finishBound(ctx)) / 1000} s: ${describeSets(r.sets.list())}\n${r.sets.story((s) => `image=${imageOf(s)} spec=${specReplicas(s)}`)}`,
          ['controller.deployment', 'field.DeploymentSpec.revisionHistoryLimit'],
        );
      expectTrue(!done.some((s) => s.metadata.uid === first.metadata.uid), `entry 110: the oldest ReplicaSet (${first.metadata.name}) is kept beyond revisionHistoryLimit 1: ${describeSets(done)}`, 'field.DeploymentSpec.revisionHistoryLimit');
      const pods = await r.pods.until(await finishBound(ctx), (all) => (all.length === 2 && all.every((p) => imageOf(p) === 'busybox:1.30') ? true : undefined));
      expectTrue(pods, `entry 112: pods after the rollover: ${describePods(r.pods.list())}`, 'controller.deployment');
    } finally {
      r.close();
    }
  },
);

check(
  'upstream.deployment.proportional-scaling',
  {
    rows: ['field.RollingUpdateDeployment.maxSurge', 'field.RollingUpdateDeployment.maxUnavailable', 'rule.ops.scale', 'controller.deployment'],
    upstream: [111],
    needs: CLUSTER,
    requires: [...REQUIRES, needs(DEPLOYMENTS, ['patch'], 'scale')],
    title: 'a rollout stuck at replicas 4, maxSurge 2, maxUnavailable 1 (3 old + 3 new) scaled to 8 grows both sets in proportion to 5 + 5',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const r = await deployment(ctx, 'proportional', 4, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 1 } } });
    try {
      await settled(ctx, r, 4, 'busybox:1.28', 'proportional Deployment', ['controller.deployment']);
      await setTemplate(ctx, r.path, runningTemplate({ app: 'proportional' }, { image: 'busybox:1.29', neverReady: true }), 'a template whose pods never become ready');
      const pair = (oldWant: number, newWant: number) => (all: KubeObject[]) => {
        const old = all.find((s) => imageOf(s) === 'busybox:1.28');
        const fresh = all.find((s) => imageOf(s) === 'busybox:1.29');
        return old && fresh && specReplicas(old) === oldWant && specReplicas(fresh) === newWant ? { old, fresh } : undefined;
      };
      const stuck = await r.sets.until(await finishBound(ctx), pair(3, 3));
      if (!stuck) fail(`entry 111: the stuck rollout should hold 3 old + 3 new (replicas 4 + maxSurge 2, 4 - maxUnavailable 1 available): ${describeSets(r.sets.list())}`, ['field.RollingUpdateDeployment.maxSurge', 'field.RollingUpdateDeployment.maxUnavailable']);
      await mustPatch(ctx, `${r.path}/scale`, { spec: { replicas: 8 } }, 'scaling the Deployment to 8');
      const grown = await r.sets.until(await finishBound(ctx), pair(5, 5));
      if (!grown) fail(`entry 111: scaled to 8 mid-rollout, the sets should grow in proportion (3:3 of 10 = 5 + 5): ${describeSets(r.sets.list())}\n${r.sets.story((s) => `image=${imageOf(s)} spec=${specReplicas(s)}`)}`, 'controller.deployment');
    } finally {
      r.close();
    }
  },
);
