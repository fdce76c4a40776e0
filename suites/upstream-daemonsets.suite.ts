// DaemonSets on the target (upstream registry entries 94, 101-105; spec 1.7, 8.2 controller.daemonset): one pod
// per node a daemon may use, a deleted or failed one made again, node selection that follows node labels, a
// RollingUpdate that replaces every pod, and a rollback that restarts only the pods that changed. These need the
// daemonset controller and nodes that run pods (the `cluster` profile); with no usable node they are skipped with
// that reason; with one node, the parts that need a second node (pods elsewhere untouched) say so and are not
// judged. Nodes get only labels of the check's own (conformance.example.com/...), removed at the end.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { expectTrue, fail, forRows } from './harness/expect.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import type { KindRef } from './harness/fixtures.ts';
import { Observer } from './harness/observe.ts';
import { listItems } from './harness/progress.ts';
import {
  describePods,
  finishBound,
  isReady,
  labelNode,
  live,
  moveBound,
  mustCreate,
  mustDelete,
  mustPatch,
  setTemplate,
  nodeOf,
  runningTemplate,
  usableNodes,
} from './harness/upstream-kit.ts';

const DAEMONSETS: KindRef = { group: 'apps', version: 'v1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true };
const EXT_DAEMONSETS: KindRef = { group: 'extensions', version: 'v1beta1', kind: 'DaemonSet', resource: 'daemonsets', namespaced: true };
const REVISIONS: KindRef = { group: 'apps', version: 'v1', kind: 'ControllerRevision', resource: 'controllerrevisions', namespaced: true };
const CLUSTER = { controllers: ['daemonset'], nodes: 1 };

const imageOf = (p: KubeObject) => ((p.spec as { containers?: Array<{ image: string }> }).containers ?? [])[0]?.image;

/** Nodes to judge: the usable ones; a target without any skips (a daemon has nowhere to run). */
async function nodesOrSkip(ctx: CheckContext): Promise<string[]> {
  const nodes = (await usableNodes(ctx)).map((n) => n.metadata.name!);
  if (nodes.length === 0) ctx.skip('the target has no Ready, schedulable, untainted node: a daemon has nowhere to run (needs 1 node)');
  return nodes;
}

/** Exactly one live pod on each of `nodes` (and none elsewhere), each passing `ok`; else undefined. */
function onePerNode(nodes: string[], ok: (p: KubeObject) => boolean = () => true) {
  return (pods: KubeObject[]) => {
    const alive = live(pods);
    if (alive.length !== nodes.length) return undefined;
    const byNode = new Map(alive.map((p) => [nodeOf(p), p]));
    return nodes.every((n) => byNode.has(n) && ok(byNode.get(n)!)) ? alive : undefined;
  };
}

async function daemonSet(ctx: CheckContext, ref: KindRef, ns: string, name: string, spec: Record<string, unknown>): Promise<string> {
  const api = `/apis/${ref.group}/${ref.version}/namespaces/${ns}/daemonsets`;
  await mustCreate(ctx, api, { apiVersion: `${ref.group}/${ref.version}`, kind: 'DaemonSet', metadata: { name }, spec }, `DaemonSet ${ns}/${name}`);
  return `${api}/${name}`;
}

/** Waits for one Ready pod per node; fails with what it saw (no pod at all: the controller never acted). */
async function daemonsUp(ctx: CheckContext, pods: Observer, nodes: string[], what: string, ok: (p: KubeObject) => boolean = isReady): Promise<KubeObject[]> {
  const first = await pods.until(await moveBound(ctx), (all) => (all.length > 0 ? true : undefined));
  if (!first) fail(`${what}: no daemon pod appeared within ${(await moveBound(ctx)) / 1000} s: no daemonset controller acts on this target`);
  const up = await pods.until(await finishBound(ctx), onePerNode(nodes, ok));
  if (!up) fail(`${what}: expected exactly one Ready pod on each of ${nodes.length} node(s) (${nodes.join(', ')}) within ${(await finishBound(ctx)) / 1000} s; pods: ${describePods(pods.list())}\n${pods.story()}`);
  return up;
}

check(
  'upstream.daemonset.one-per-node-replaced',
  {
    rows: ['controller.daemonset', 'rule.daemon.control-loops'],
    upstream: [104, 101],
    needs: CLUSTER,
    requires: [NEEDS_NAMESPACES, needs(DAEMONSETS, ['create', 'get'])],
    title: 'a DaemonSet runs one pod on each usable node; a deleted daemon pod and a Failed one are replaced on the same node',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const nodes = await nodesOrSkip(ctx);
    const ns = await ctx.namespace();
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'app=daemon');
    try {
      await daemonSet(ctx, DAEMONSETS, ns, 'daemon', { selector: { matchLabels: { app: 'daemon' } }, template: runningTemplate({ app: 'daemon' }) });
      const up = await daemonsUp(ctx, pods, nodes, 'simple daemon (entry 104)');
      const replaced = async (victim: KubeObject, how: string, entry: number) => {
        const node = nodeOf(victim);
        const back = await pods.until(await finishBound(ctx), (all) => {
          const alive = live(all).filter((p) => nodeOf(p) === node);
          return alive.length === 1 && alive[0].metadata.uid !== victim.metadata.uid && isReady(alive[0]) ? alive[0] : undefined;
        });
        if (!back)
          fail(
            `entry ${entry}: after ${how} daemon pod ${victim.metadata.name} on ${node}, no single new Ready pod ran there within ${(await finishBound(ctx)) / 1000} s; pods: ${describePods(pods.list())}\n${pods.story()}`,
            'controller.daemonset',
          );
        return back;
      };
      await mustDelete(ctx, `/api/v1/namespaces/${ns}/pods/${up[0].metadata.name}`, 'deleting a daemon pod');
      const second = await replaced(up[0], 'deleting', 104);
      // Entry 101: a daemon pod whose phase is Failed is deleted and made again.
      await mustPatch(ctx, `/api/v1/namespaces/${ns}/pods/${second.metadata.name}/status`, { status: { phase: 'Failed' } }, 'marking a daemon pod Failed');
      await replaced(second, 'marking Failed', 101);
      const all = await pods.until(await finishBound(ctx), onePerNode(nodes, isReady));
      expectTrue(all, `after the replacements, one Ready pod per node again: ${describePods(pods.list())}`, 'controller.daemonset');
    } finally {
      pods.close();
    }
  },
);

check(
  'upstream.daemonset.node-selection',
  {
    rows: ['controller.daemonset'],
    upstream: [103],
    needs: CLUSTER,
    requires: [NEEDS_NAMESPACES, needs(EXT_DAEMONSETS, ['create', 'get', 'patch']), { group: '', version: 'v1', resource: 'nodes', verbs: ['list', 'patch'] }],
    title: 'extensions/v1beta1 DaemonSet with a nodeSelector: a pod only on the node labelled to match, gone when the label changes, back when the selector follows (pods elsewhere judged with 2+ nodes)',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const nodes = await nodesOrSkip(ctx);
    const node = nodes[0];
    const ns = await ctx.namespace();
    const key = `conformance.example.com/${ns.slice(-20)}`;
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'app=picky');
    const elsewhere: string[] = [];
    const watchElsewhere = (c: { object: KubeObject }) => {
      const n = nodeOf(c.object);
      if (n && n !== node && !elsewhere.includes(n)) elsewhere.push(n);
    };
    try {
      const path = await daemonSet(ctx, EXT_DAEMONSETS, ns, 'picky', {
        selector: { matchLabels: { app: 'picky' } },
        template: { ...runningTemplate({ app: 'picky' }), spec: { ...runningTemplate({}).spec, nodeSelector: { [key]: 'blue' } } },
      });
      await labelNode(ctx, node, key, 'blue');
      const on = await pods.until(await moveBound(ctx), (all) => (live(all).some((p) => nodeOf(p) === node) ? true : undefined), watchElsewhere);
      if (!on) fail(`no daemon pod came to node ${node} within ${(await moveBound(ctx)) / 1000} s of labelling it ${key}=blue: ${describePods(pods.list())}`, 'controller.daemonset');
      await labelNode(ctx, node, key, 'green');
      const off = await pods.until(await finishBound(ctx), (all) => (all.length === 0 ? true : undefined), watchElsewhere);
      if (!off) fail(`the daemon pod stayed after node ${node} was relabelled ${key}=green (selector blue): ${describePods(pods.list())}\n${pods.story()}`, 'controller.daemonset');
      await mustPatch(ctx, path, { spec: { template: { spec: { nodeSelector: { [key]: 'green' } } } } }, 'changing the DaemonSet nodeSelector to green', 'strategic');
      const back = await pods.until(await finishBound(ctx),
        (all) => (live(all).length === 1 && nodeOf(live(all)[0]) === node && isReady(live(all)[0]) ? true : undefined), watchElsewhere);
      if (!back) fail(`after the nodeSelector followed the label (green), no single Ready pod ran on ${node}: ${describePods(pods.list())}\n${pods.story()}`, 'controller.daemonset');
      if (nodes.length > 1)
        expectTrue(elsewhere.length === 0, `daemon pods ran on nodes without the label: ${elsewhere.join(', ')}`, 'controller.daemonset');
    } finally {
      pods.close();
      await ctx.client.patch(`/api/v1/nodes/${node}`, { metadata: { labels: { [key]: null } } }, 'merge');
    }
  },
);

check(
  'upstream.daemonset.rolling-update-and-rollback',
  {
    rows: ['controller.daemonset'],
    upstream: [105, 102, 94],
    needs: CLUSTER,
    requires: [NEEDS_NAMESPACES, needs(DAEMONSETS, ['create', 'get', 'patch']), needs(REVISIONS, ['list', 'create', 'patch', 'update', 'delete', 'deletecollection'])],
    title: 'RollingUpdate replaces every daemon pod and adds a ControllerRevision; rolling back from a stuck update restarts only the updated pod (2+ nodes) and reuses the old revision; revisions list, patch, update and delete',
    timeoutSeconds: 200,
    concurrent: true,
  },
  async (ctx) => {
    const nodes = await nodesOrSkip(ctx);
    const ns = await ctx.namespace();
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'app=roll');
    const revisions = async () => (await listItems(ctx, `/apis/apps/v1/namespaces/${ns}/controllerrevisions`)).filter((r) => r.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet'));
    try {
      const path = await daemonSet(ctx, DAEMONSETS, ns, 'roll', {
        selector: { matchLabels: { app: 'roll' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } },
        template: runningTemplate({ app: 'roll' }, { image: 'busybox:1.28' }),
      });
      await daemonsUp(ctx, pods, nodes, 'RollingUpdate daemon');
      const firstRevisions = await revisions();
      await forRows('controller.daemonset', () => expectTrue(firstRevisions.length >= 1, `entry 94: a DaemonSet has a ControllerRevision owned by it (found ${firstRevisions.length})`));
      // Entry 105: a template change replaces every pod.
      await setTemplate(ctx, path, runningTemplate({ app: 'roll' }, { image: 'busybox:1.29' }), 'changing the image');
      const updated = await pods.until(await finishBound(ctx), onePerNode(nodes, (p) => imageOf(p) === 'busybox:1.29' && isReady(p)));
      if (!updated) fail(`entry 105: the RollingUpdate did not give every node a Ready pod of the new template within ${(await finishBound(ctx)) / 1000} s: ${describePods(pods.list())}\n${pods.story()}`, 'controller.daemonset');
      const afterUpdate = await revisions();
      expectTrue(afterUpdate.length === firstRevisions.length + 1, `entry 94: the template change added one ControllerRevision (${firstRevisions.length} -> ${afterUpdate.length})`, 'controller.daemonset');
      // Entry 102: an update whose pods never become ready stalls at maxUnavailable 1; going back restarts only that pod.
      const good = new Map(updated.map((p) => [p.metadata.uid, nodeOf(p)]));
      await setTemplate(ctx, path, runningTemplate({ app: 'roll' }, { image: 'busybox:1.30', neverReady: true }), 'a bad update');
      const stuck = await pods.until(await finishBound(ctx), (all) => (live(all).some((p) => imageOf(p) === 'busybox:1.30') ? true : undefined));
      if (!stuck) fail(`entry 102: no pod of the bad template appeared: ${describePods(pods.list())}`, 'controller.daemonset');
      await setTemplate(ctx, path, runningTemplate({ app: 'roll' }, { image: 'busybox:1.29' }), 'the rollback');
      const rolledBack = await pods.until(await finishBound(ctx), onePerNode(nodes, (p) => imageOf(p) === 'busybox:1.29' && isReady(p)));
      if (!rolledBack) fail(`entry 102: after the rollback, not one Ready pod of the old template per node: ${describePods(pods.list())}\n${pods.story()}`, 'controller.daemonset');
      const restarted = [...good.keys()].filter((uid) => !rolledBack.some((p) => p.metadata.uid === uid));
      if (nodes.length > 1)
        expectTrue(
          restarted.length <= 1,
          `entry 102: the rollback restarted ${restarted.length} pods (${restarted.map((u) => good.get(u)).join(', ')}), only the one that took the bad template should go; pods: ${describePods(rolledBack)}\n${pods.story()}`,
          'controller.daemonset',
        );
      const afterRollback = await revisions();
      expectTrue(
        afterRollback.length === afterUpdate.length + 1,
        `entry 94: going back to an earlier template reuses its ControllerRevision: ${afterUpdate.length} revisions before the bad update, ${afterRollback.length} after the rollback (expected ${afterUpdate.length + 1})`,
        'controller.daemonset',
      );
      await revisionOperations(ctx, ns);
    } finally {
      pods.close();
    }
  },
);

/** Entry 94: ControllerRevision's own operations: create, list by label, patch, update, delete, delete as a collection. */
async function revisionOperations(ctx: CheckContext, ns: string): Promise<void> {
  const api = `/apis/apps/v1/namespaces/${ns}/controllerrevisions`;
  const mk = (name: string) => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name, labels: { set: 'mine' } }, data: { note: name }, revision: 1 });
  await mustCreate(ctx, api, mk('rev-a'), 'ControllerRevision rev-a');
  await mustCreate(ctx, api, mk('rev-b'), 'ControllerRevision rev-b');
  const listed = await listItems(ctx, api, 'set=mine');
  expectTrue(listed.map((r) => r.metadata.name).sort().join() === 'rev-a,rev-b', `entry 94: revisions listed by label: ${listed.map((r) => r.metadata.name).join(', ')}`, 'controller.daemonset');
  const patched = await mustPatch(ctx, `${api}/rev-a`, { metadata: { labels: { patched: 'yes' } } }, 'patching a ControllerRevision');
  expectTrue(patched.metadata.labels?.patched === 'yes', 'entry 94: a patched ControllerRevision shows the new label', 'controller.daemonset');
  const put = await ctx.client.replace(`${api}/rev-a`, { ...patched, revision: 2 });
  expectTrue(put.status === 200 && (put.object as { revision?: number } | undefined)?.revision === 2, `entry 94: an updated ControllerRevision reads revision 2: HTTP ${put.status}`, 'controller.daemonset');
  await mustDelete(ctx, `${api}/rev-a`, 'deleting a ControllerRevision');
  const dc = await ctx.client.delete(api, { query: { labelSelector: 'set=mine' } });
  expectTrue(dc.status === 200, `entry 94: delete of the revisions collection by label: HTTP ${dc.status}`, 'controller.daemonset');
  const left = await listItems(ctx, api, 'set=mine');
  expectTrue(left.length === 0, `entry 94: revisions left after the collection delete: ${left.map((r) => r.metadata.name).join(', ')}`, 'controller.daemonset');
}
