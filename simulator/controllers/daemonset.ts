// The DaemonSet controller (2 workers, as 1.9): one pod per eligible node. In 1.9 the controller places
// daemon pods itself (spec.nodeName set at creation; the scheduler is not involved). A node is eligible when
// it matches the template's nodeSelector and has no NoSchedule/NoExecute taint the pod does not tolerate
// (spec.unschedulable does not keep daemons away, as in 1.9). Pods on ineligible nodes and extra pods on a
// node are deleted; failed daemon pods are deleted so that they are replaced. Pods carry the labels
// pod-template-generation and controller-revision-hash. Updates: RollingUpdate (apps/v1 default) replaces
// pods of an older template, at most maxUnavailable (default 1) unavailable at a time; OnDelete waits for the
// user to delete them. History as 1.9 keeps it (history.ts): one apps/v1 ControllerRevision per template,
// named `<set>-<SafeEncodeString(hash)>`, labelled with the template's labels plus controller-revision-hash =
// the hash the pods carry, annotated with the DaemonSet's annotations (so `kubectl rollout history` shows
// kubernetes.io/change-cause), data = the template replace patch that `kubectl rollout undo` applies; revisions
// not current and not run by a pod are pruned beyond spec.revisionHistoryLimit (default 10). Status:
// currentNumberScheduled, numberMisscheduled, desiredNumberScheduled, numberReady, updatedNumberScheduled,
// numberAvailable, numberUnavailable, observedGeneration, collisionCount (when a revision name collided).

import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import { scaledValue } from '../api/kinds/int-or-percent.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { claimPods } from './kit/claim.ts';
import type { PodIndex } from './kit/pod-index.ts';
import { LoopKit } from './kit/loop.ts';
import { controllerKeyResolver, controllerNameOf } from './kit/owner.ts';
import { ensureRevision, ownedRevisions, pruneRevisions, safeEncode, type HistoryOwner } from './kit/history.ts';
import {
  Expectations,
  createIn,
  deleteObject,
  inBatches,
  isPodActive,
  isPodAvailable,
  isPodReady,
  msUntilAvailable,
  omitEmpty,
  ownerRef,
  podFromTemplate,
  specOf,
  statusOf,
  templateHash,
  writeStatus,
  type Obj,
  ownedPodHandler,
} from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}

interface DaemonSetSpec {
  selector?: LabelSelector;
  template?: {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] } & Obj;
  };
  minReadySeconds?: number;
  templateGeneration?: number;
  revisionHistoryLimit?: number;
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string } };
}

const tolerates = (tolerations: Toleration[], taint: { key?: string; value?: string; effect?: string }) =>
  tolerations.some(
    (t) =>
      (!t.effect || t.effect === taint.effect) &&
      (t.key === undefined || t.key === '' ? t.operator === 'Exists' : t.key === taint.key) &&
      (t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '')),
  );

/** Whether the daemon pod should run on the node (nodeSelector, taints). */
export function shouldRun(spec: DaemonSetSpec, node: KubeObject): boolean {
  const selector = spec.template?.spec?.nodeSelector ?? {};
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const taints = ((node.spec as { taints?: Array<{ key?: string; value?: string; effect?: string }> } | undefined)?.taints ?? []).filter(
    (t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute',
  );
  const tolerations = spec.template?.spec?.tolerations ?? [];
  return taints.every((t) => tolerates(tolerations, t));
}

const nodeOf = (pod: KubeObject) => specOf<{ nodeName?: string }>(pod).nodeName ?? '';

export class DaemonSetController implements Controller {
  readonly name = 'daemonset';
  private events: EventRecorder | undefined;

  async run(ctx: ControllerContext): Promise<void> {
    const loop = new LoopKit(ctx, this.name, 'daemonset-controller');
    this.events = loop.events;
    const queue = loop.queue;
    const sets = loop.informer(RESOURCE.daemonSets.collection());
    const nodes = loop.informer(RESOURCE.nodes.collection());
    const { informer: podInformer, index: pods } = loop.pods(RESOURCE.pods.collection());
    const expectations = new Expectations();
    const ownerKey = controllerKeyResolver('DaemonSet', sets);
    const all = () => sets.list().forEach((ds) => queue.add(keyOf(ds)));
    sets.addEventHandler({ onAdd: (ds) => queue.add(keyOf(ds)), onUpdate: (_o, ds) => queue.add(keyOf(ds)), onDelete: (ds) => expectations.forget(keyOf(ds)) });
    nodes.addEventHandler({
      onAdd: all,
      onUpdate: (o, n) => {
        // Heartbeats change only condition times: not a reason to look at every DaemonSet.
        if (JSON.stringify(o.metadata.labels) !== JSON.stringify(n.metadata.labels) || JSON.stringify(o.spec) !== JSON.stringify(n.spec)) all();
      },
      onDelete: all,
    });
    podInformer.addEventHandler(ownedPodHandler(ownerKey, expectations, (k) => queue.add(k), keyOf));
    const revisions = loop.informer(RESOURCE.controllerRevisions.collection());
    // A revision names its DaemonSet by name alone: queued whether or not the cached set has the uid.
    const revisionOwner = (r: KubeObject) => {
      const name = controllerNameOf(r, 'DaemonSet');
      if (name !== undefined) queue.add(`${r.metadata.namespace}/${name}`);
    };
    revisions.addEventHandler({ onAdd: revisionOwner, onDelete: revisionOwner });
    if (!(await loop.synced())) return;
    await loop.work(2, (key) => this.sync(ctx, key, sets, nodes, pods, expectations, queue, revisions));
  }

  async sync(
    ctx: ControllerContext, key: string, sets: Informer, nodes: Informer, pods: PodIndex, expectations: Expectations,
    queue: WorkQueue<string>, revisionInformer: Informer,
  ): Promise<void> {
    const ds = sets.get(key);
    if (!ds) return;
    const spec = specOf<DaemonSetSpec>(ds);
    const ns = ds.metadata.namespace ?? 'default';
    // The revision of the current template (made, or an older one brought back to the top).
    const hashOf = (t: unknown, collisions: number) => templateHash(t, collisions || undefined);
    const historyOwner: HistoryOwner = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      hashOf: (t, c) => safeEncode(hashOf(t, c)),
      extraLabels: (t, c) => ({ 'controller-revision-hash': hashOf(t, c) }),
      annotations: ds.metadata.annotations,
    };
    const owned0 = ownedRevisions(revisionInformer.list(), ds);
    const ensured = ds.metadata.deletionTimestamp ? undefined : await ensureRevision(ctx.client, ds, spec.template, owned0, historyOwner, ctx.signal);
    const hash =
      ensured?.revision.metadata.labels?.['controller-revision-hash'] ?? hashOf(spec.template, Number((ds.status as Obj | undefined)?.collisionCount ?? 0));
    const generation = String(spec.templateGeneration ?? ds.metadata.generation ?? 1);
    const isCurrent = (p: KubeObject) => p.metadata.labels?.['controller-revision-hash'] === hash;
    const owned = (await claimPods(ctx.client, ds, spec.selector, pods.claimable(ns, ds.metadata.uid), 'apps/v1', 'DaemonSet', ctx.signal)).filter(
      (p) => !p.metadata.deletionTimestamp,
    );
    const byNode = new Map<string, KubeObject[]>();
    for (const p of owned) byNode.set(nodeOf(p), [...(byNode.get(nodeOf(p)) ?? []), p]);
    const minReady = spec.minReadySeconds ?? 0;
    const eligible = nodes.list().filter((n) => shouldRun(spec, n));
    const eligibleNames = new Set(eligible.map((n) => n.metadata.name ?? ''));

    if (expectations.satisfied(key) && !ds.metadata.deletionTimestamp) {
      const toCreate: string[] = [];
      const toDelete: KubeObject[] = [];
      for (const node of eligible) {
        const name = node.metadata.name ?? '';
        const here = byNode.get(name) ?? [];
        const failed = here.filter((p) => statusOf(p).phase === 'Failed');
        toDelete.push(...failed);
        const alive = here.filter(isPodActive);
        if (alive.length === 0 && failed.length === 0) toCreate.push(name);
        else if (alive.length > 1)
          toDelete.push(
            ...alive.sort((a, b) => (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '')).slice(0, alive.length - 1),
          );
      }
      for (const [node, list] of byNode) if (!eligibleNames.has(node)) toDelete.push(...list);
      // RollingUpdate: replace old-template pods while few enough are unavailable.
      if ((spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        const maxUnavailable = Math.max(1, scaledValue(spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1, eligible.length, 'up'));
        let unavailable = eligible.filter((n) => !(byNode.get(n.metadata.name ?? '') ?? []).some((p) => isPodAvailable(p, minReady))).length;
        for (const node of eligible) {
          const old = (byNode.get(node.metadata.name ?? '') ?? []).filter((p) => isPodActive(p) && !isCurrent(p) && !toDelete.includes(p));
          for (const p of old) {
            const wasAvailable = isPodAvailable(p, minReady);
            if (wasAvailable && unavailable >= maxUnavailable) continue;
            toDelete.push(p);
            if (wasAvailable) unavailable++;
          }
        }
      }
      for (const p of toDelete) expectations.expectDeletion(key, keyOf(p));
      expectations.expectCreations(key, toCreate.length);
      const ref = ownerRef(ds, 'apps/v1', 'DaemonSet');
      await inBatches(toDelete, 20, async (p) => {
        if (!(await deleteObject(ctx.client, RESOURCE.pods.of(p), p.metadata.uid, ctx.signal))) expectations.deletionObserved(key, keyOf(p));
        else this.events?.event(refOf(ds, 'apps/v1', 'DaemonSet'), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
      });
      await inBatches(toCreate, 20, async (nodeName) => {
        let pod: KubeObject | undefined;
        try {
          const labels = { 'controller-revision-hash': hash, 'pod-template-generation': generation };
          pod = await createIn(ctx.client, RESOURCE.pods.collection(ns), podFromTemplate(spec.template, ds, ref, { labels, nodeName }), ctx.signal);
          if (pod) this.events?.event(refOf(ds, 'apps/v1', 'DaemonSet'), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`);
        } catch (err) {
          this.events?.event(refOf(ds, 'apps/v1', 'DaemonSet'), 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
          throw err;
        } finally {
          if (!pod) expectations.creationObserved(key);
        }
      });
    }

    const active = owned.filter(isPodActive);
    const scheduledOn = (names: Set<string>) => [...byNode.keys()].filter((n) => names.has(n) && (byNode.get(n) ?? []).some(isPodActive));
    const current = scheduledOn(eligibleNames);
    const misscheduled = [...byNode.keys()].filter((n) => !eligibleNames.has(n) && (byNode.get(n) ?? []).some(isPodActive));
    const available = active.filter((p) => eligibleNames.has(nodeOf(p)) && isPodAvailable(p, minReady)).length;
    if (ensured) {
      // Revisions neither current nor run by a pod, beyond the limit, oldest first.
      const running = new Set(owned.map((p) => p.metadata.labels?.['controller-revision-hash']));
      const live = new Set(
        ensured.revisions
          .filter((r) => r === ensured.revision || running.has(r.metadata.labels?.['controller-revision-hash']))
          .map((r) => r.metadata.name ?? ''),
      );
      await pruneRevisions(ctx.client, ensured.revisions, live, spec.revisionHistoryLimit ?? 10, ctx.signal);
    }
    const collisionCount = ensured?.collisionCount ?? Number((ds.status as Obj | undefined)?.collisionCount ?? 0);
    const status = {
      currentNumberScheduled: current.length,
      numberMisscheduled: misscheduled.length,
      desiredNumberScheduled: eligible.length,
      numberReady: active.filter((p) => eligibleNames.has(nodeOf(p)) && isPodReady(p)).length,
      ...omitEmpty({
        observedGeneration: ds.metadata.generation,
        updatedNumberScheduled: active.filter((p) => eligibleNames.has(nodeOf(p)) && isCurrent(p)).length,
        numberAvailable: available,
        numberUnavailable: Math.max(0, eligible.length - available),
        collisionCount,
      }),
    };
    await writeStatus(ctx.client, RESOURCE.daemonSets.of(ds, 'status'), ds.status as Obj | undefined, status, ctx.signal, ds.metadata.resourceVersion);
    const waits = active.map((p) => msUntilAvailable(p, minReady)).filter((ms): ms is number => ms !== undefined);
    if (waits.length) queue.addAfter(key, Math.min(...waits) + 50);
  }
}

export const daemonSetController = (): Controller => new DaemonSetController();
