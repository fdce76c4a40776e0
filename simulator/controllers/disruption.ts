// The disruption controller (1.9 pkg/controller/disruption): PodDisruptionBudget status from the pods the budget
// selects (a nil or empty selector selects none) and their controllers:
//   expectedPods   minAvailable as a count: the number of selected pods; maxUnavailable or a percentage: the
//                  summed spec.replicas of the pods' controllers (ReplicationController, Deployment through its
//                  ReplicaSet, ReplicaSet, StatefulSet; each counted once);
//   desiredHealthy minAvailable (count, or the percentage of expectedPods rounded up), or expectedPods minus
//                  maxUnavailable (a percentage rounded up), at least 0;
//   currentHealthy selected pods that are Ready, not being deleted and not in disruptedPods;
//   disruptionsAllowed = max(0, currentHealthy - desiredHealthy); observedGeneration = metadata.generation.
// disruptedPods (written by the eviction subresource) keeps a pod until it is being deleted or gone, or for 2
// minutes at most. A budget whose pods have no controller when one is needed gets disruptionsAllowed 0 and a
// NoControllers warning event. Budgets are looked at again on every change of a selected pod, and every 30 s.

import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { percentOf } from '../api/kinds/int-or-percent.ts';
import { controllerRefOf, isNotFound, isPodReady, selectorMatches, type Obj } from './kit/workload-util.ts';
import { isDeepStrictEqual } from 'node:util';
import { every } from '../client/timers.ts';
import { RESOURCE, type ResourcePaths } from '../client/resource-paths.ts';

const DELETION_TIMEOUT_MS = 2 * 60_000;
const RESYNC_MS = 30_000;

interface PdbSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelector;
}

/**
 * The controllers whose replica count a pod's PDB reads (the real disruption controller's finders), by kind; a
 * ReplicaSet controlled by a Deployment counts the Deployment's replicas.
 */
const SCALED_KINDS: Record<string, { paths: ResourcePaths; scaledBy?: { kind: string; paths: ResourcePaths } }> = {
  ReplicationController: { paths: RESOURCE.replicationControllers },
  ReplicaSet: { paths: RESOURCE.replicaSets, scaledBy: { kind: RESOURCE.deployments.kind, paths: RESOURCE.deployments } },
  StatefulSet: { paths: RESOURCE.statefulSets },
};

const isEmptySelector = (s: LabelSelector | undefined) => !s || (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0);

export class DisruptionController implements Controller {
  readonly name = 'disruption';
  private events: EventRecorder | undefined;

  async run(ctx: ControllerContext): Promise<void> {
    this.events = new EventRecorder(ctx.client, { component: 'controllermanager' }, { log: ctx.log, signal: ctx.signal });
    const pdbs = ctx.informers.informerFor(RESOURCE.podDisruptionBudgets.collection());
    const pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    const queue = new WorkQueue<string>({ name: 'disruption', metrics: ctx.metrics });
    const forPod = (p: KubeObject) => {
      for (const b of pdbs.list()) {
        if (b.metadata.namespace !== p.metadata.namespace) continue;
        const sel = (b.spec as PdbSpec | undefined)?.selector;
        if (!isEmptySelector(sel) && selectorMatches(sel, p.metadata.labels)) queue.add(keyOf(b));
      }
    };
    pdbs.addEventHandler({ onAdd: (b) => queue.add(keyOf(b)), onUpdate: (_o, b) => queue.add(keyOf(b)), onDelete: () => {} });
    pods.addEventHandler({ onAdd: forPod, onUpdate: (o, p) => { forPod(o); forPod(p); }, onDelete: forPod });
    if (!(await pdbs.waitForSync(ctx.signal)) || !(await pods.waitForSync(ctx.signal))) return;
    const stopResync = every(RESYNC_MS, ctx.signal, () => pdbs.list().forEach((b) => queue.add(keyOf(b))));
    await runWorkers(queue, 1, (key) => this.sync(ctx, key, pdbs, pods, queue), ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
    stopResync();
  }

  /** spec.replicas of a pod's controller, by uid; undefined when it has none the controller knows. */
  private async controllerScale(
    ctx: ControllerContext,
    pod: KubeObject,
    cache: Map<string, { uid: string; replicas: number } | null>,
  ): Promise<{ uid: string; replicas: number } | undefined> {
    const ref = controllerRefOf(pod);
    if (!ref) return undefined;
    const ns = pod.metadata.namespace ?? 'default';
    const key = `${ref.kind}/${ref.uid}`;
    if (cache.has(key)) return cache.get(key) ?? undefined;
    const get = async (path: string) =>
      ctx.client.get(path, undefined, ctx.signal).catch((err: unknown) => (isNotFound(err) ? undefined : Promise.reject(err)));
    let out: { uid: string; replicas: number } | undefined;
    const scaled = Object.hasOwn(SCALED_KINDS, ref.kind) ? SCALED_KINDS[ref.kind] : undefined;
    if (scaled) {
      const owner = await get(scaled.paths.object(ns, ref.name));
      if (owner && owner.metadata.uid === ref.uid) {
        out = { uid: owner.metadata.uid!, replicas: Number((owner.spec as Obj).replicas ?? 1) };
        // A ReplicaSet of a Deployment: the Deployment's replicas count.
        const up = scaled.scaledBy;
        const dref = up ? controllerRefOf(owner) : undefined;
        if (up && dref && dref.kind === up.kind) {
          const d = await get(up.paths.object(ns, dref.name));
          if (d && d.metadata.uid === dref.uid) out = { uid: d.metadata.uid!, replicas: Number((d.spec as Obj).replicas ?? 1) };
        }
      }
    }
    cache.set(key, out ?? null);
    return out;
  }

  async sync(ctx: ControllerContext, key: string, pdbs: Informer, podInformer: Informer, queue: WorkQueue<string>): Promise<void> {
    const pdb = pdbs.get(key);
    if (!pdb) return;
    const ns = pdb.metadata.namespace ?? 'default';
    const spec = (pdb.spec ?? {}) as PdbSpec;
    const pods = isEmptySelector(spec.selector)
      ? []
      : podInformer.list().filter((p) => p.metadata.namespace === ns && selectorMatches(spec.selector, p.metadata.labels));
    let expected = 0;
    let desired = 0;
    let failed = '';
    const needsControllers = spec.maxUnavailable !== undefined && spec.maxUnavailable !== null ? true : percentOf(spec.minAvailable) !== undefined;
    if (needsControllers) {
      const cache = new Map<string, { uid: string; replicas: number } | null>();
      const seen = new Set<string>();
      for (const p of pods) {
        const scale = await this.controllerScale(ctx, p, cache);
        if (!scale) {
          failed = `found no controllers for pod "${p.metadata.name}"`;
          break;
        }
        if (seen.has(scale.uid)) continue;
        seen.add(scale.uid);
        expected += scale.replicas;
      }
      if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
        const pct = percentOf(spec.maxUnavailable);
        const maxUnavailable = pct !== undefined ? Math.ceil((pct * expected) / 100) : Number(spec.maxUnavailable);
        desired = Math.max(0, expected - maxUnavailable);
      } else {
        desired = Math.ceil(((percentOf(spec.minAvailable) ?? 0) * expected) / 100);
      }
    } else {
      expected = pods.length;
      desired = Number(spec.minAvailable ?? 0);
    }
    // disruptedPods: kept until the pod is being deleted or gone, or for DELETION_TIMEOUT.
    const now = Date.now();
    const disrupted: Record<string, string> = {};
    let nextExpiry: number | undefined;
    const byName = new Map(pods.map((p) => [p.metadata.name ?? '', p]));
    for (const [name, at] of Object.entries(((pdb.status as Obj | undefined)?.disruptedPods ?? {}) as Record<string, string>)) {
      const p = byName.get(name);
      if (!p || p.metadata.deletionTimestamp) continue;
      const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
      if (expires <= now) continue;
      disrupted[name] = at;
      nextExpiry = Math.min(nextExpiry ?? expires, expires);
    }
    const healthy = pods.filter((p) => !p.metadata.deletionTimestamp && isPodReady(p) && !(p.metadata.name! in disrupted)).length;
    if (failed) {
      this.events?.event(refOf(pdb, 'policy/v1beta1', 'PodDisruptionBudget'), 'Warning', 'NoControllers', failed);
    }
    const status: Obj = {
      observedGeneration: pdb.metadata.generation ?? 1,
      disruptedPods: disrupted,
      disruptionsAllowed: failed ? 0 : Math.max(0, healthy - desired),
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
    };
    const old = (pdb.status ?? {}) as Obj;
    // disruptedPods is a map: names that went must be removed explicitly in a merge patch.
    const patchStatus: Obj = {
      ...status,
      disruptedPods: { ...Object.fromEntries(Object.keys((old.disruptedPods ?? {}) as Obj).map((k) => [k, null])), ...disrupted },
    };
    if (!isDeepStrictEqual(old, status)) {
      await ctx.client.patch(RESOURCE.podDisruptionBudgets.object(ns, pdb.metadata.name ?? '', 'status'), { metadata: { resourceVersion: pdb.metadata.resourceVersion }, status: patchStatus }, 'application/merge-patch+json', ctx.signal).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    if (nextExpiry !== undefined) queue.addAfter(key, nextExpiry - now + 50);
  }
}

export const disruptionController = (): Controller => new DisruptionController();
