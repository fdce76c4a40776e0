// The ReplicaSet controller (--concurrent-replicaset-syncs workers), whose logic the ReplicationController
// controller shares (replicationcontroller.ts), as in the real daemon: keep spec.replicas active pods
// matching the selector. Pods it makes carry an ownerReference with controller and blockOwnerDeletion true;
// orphans that match are adopted and owned pods that stop matching are released (ownerReference patches).
// Creates and deletes are counted as expectations so that a lagging pod cache never causes a second round.
// Pods chosen for deletion are the least far along first (unscheduled, pending, not ready, ready for a
// shorter time, more restarts, newer), as the real ActivePods ordering has it. Status: replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas (ready for minReadySeconds), observedGeneration.

import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import type { ApiClient } from '../client/api-client.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import {
  Expectations, controllerRefOf, createIn, deleteObject, inBatches, isConflict, isNotFound, isPodActive, isPodAvailable, isPodReady, msUntilAvailable,
  omitEmpty, ownerRef, podFromTemplate, podPath, podsPath, readySince, selectorMatches, specOf, statusOf, writeStatus, type Obj,
} from './workload-util.ts';

/** Most pods created or deleted in one sync (the real burstReplicas). */
export const BURST_REPLICAS = 500;

export interface ReplicaKind {
  controller: string;
  /** Cluster-wide collection path watched. */
  informerPath: string;
  apiVersion: string;
  kind: string;
  workersOption: string;
  objectPath(namespace: string, name: string): string;
  selectorOf(obj: KubeObject): LabelSelector | undefined;
}

interface ReplicaSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: unknown;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Obj };
}

export const REPLICA_SET_KIND: ReplicaKind = {
  controller: 'replicaset',
  informerPath: '/apis/apps/v1/replicasets',
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  workersOption: '--concurrent-replicaset-syncs',
  objectPath: (ns, name) => `/apis/apps/v1/namespaces/${encodeURIComponent(ns)}/replicasets/${encodeURIComponent(name)}`,
  selectorOf: (obj) => specOf<ReplicaSpec>(obj).selector as LabelSelector | undefined,
};

/**
 * Pods by namespace, and by controlling owner, from the shared pod informer (the controllers' cheap index). A
 * ReplicaSet's sync reads its own pods and the namespace's orphans (the only ones it may adopt) instead of every
 * pod of the namespace: with a thousand ReplicaSets of a hundred pods each, the namespace scan was most of the
 * controller's CPU.
 */
export class PodIndex {
  private readonly byNs = new Map<string, Map<string, KubeObject>>();
  /** Controller uid -> pods (key -> pod); pods with no controller under '' per namespace in orphans. */
  private readonly byOwner = new Map<string, Map<string, KubeObject>>();
  private readonly orphans = new Map<string, Map<string, KubeObject>>();
  /** Where each pod is filed in byOwner/orphans (key -> owner uid, or '' for an orphan). */
  private readonly filed = new Map<string, string>();
  constructor(readonly informer: Informer) {
    const put = (p: KubeObject) => {
      const n = p.metadata.namespace ?? '';
      let m = this.byNs.get(n);
      if (!m) this.byNs.set(n, (m = new Map()));
      m.set(p.metadata.name ?? '', p);
      this.file(p);
    };
    informer.addEventHandler({
      onAdd: put,
      onUpdate: (_o, p) => put(p),
      onDelete: (p) => {
        this.byNs.get(p.metadata.namespace ?? '')?.delete(p.metadata.name ?? '');
        this.unfile(p);
      },
    });
  }

  private file(p: KubeObject): void {
    const key = keyOf(p);
    const owner = controllerRefOf(p)?.uid ?? '';
    const was = this.filed.get(key);
    if (was !== undefined && was !== owner) this.unfile(p);
    this.filed.set(key, owner);
    const index = owner ? this.byOwner : this.orphans;
    const slot = owner || (p.metadata.namespace ?? '');
    let m = index.get(slot);
    if (!m) index.set(slot, (m = new Map()));
    m.set(key, p);
  }

  private unfile(p: KubeObject): void {
    const key = keyOf(p);
    const owner = this.filed.get(key);
    if (owner === undefined) return;
    this.filed.delete(key);
    const index = owner ? this.byOwner : this.orphans;
    const slot = owner || (p.metadata.namespace ?? '');
    const m = index.get(slot);
    m?.delete(key);
    if (m?.size === 0) index.delete(slot);
  }

  inNamespace(ns: string): KubeObject[] {
    return [...(this.byNs.get(ns)?.values() ?? [])];
  }

  /** The pods an owner may claim: those it controls and the namespace's orphans (claimPods skips the rest anyway). */
  claimable(ns: string, ownerUid: string | undefined): KubeObject[] {
    const own = ownerUid ? this.byOwner.get(ownerUid) : undefined;
    const orphans = this.orphans.get(ns);
    const out: KubeObject[] = [];
    if (own) for (const p of own.values()) if ((p.metadata.namespace ?? '') === ns) out.push(p);
    if (orphans) for (const p of orphans.values()) out.push(p);
    return out;
  }
}

/** Deletion order: pods that are least far along go first (controller.ActivePods). */
export function deletionRank(a: KubeObject, b: KubeObject): number {
  const scheduled = (p: KubeObject) => (specOf<{ nodeName?: string }>(p).nodeName ? 1 : 0);
  const phase = (p: KubeObject) => ({ Pending: 0, Unknown: 1, Running: 2 } as Record<string, number>)[statusOf(p).phase ?? 'Pending'] ?? 0;
  const ready = (p: KubeObject) => (isPodReady(p) ? 1 : 0);
  const restarts = (p: KubeObject) =>
    ((p.status as { containerStatuses?: Array<{ restartCount?: number }> } | undefined)?.containerStatuses ?? []).reduce(
      (n, c) => Math.max(n, c.restartCount ?? 0),
      0,
    );
  const created = (p: KubeObject) => Date.parse(p.metadata.creationTimestamp ?? '') || 0;
  return (
    scheduled(a) - scheduled(b) ||
    phase(a) - phase(b) ||
    ready(a) - ready(b) ||
    (isPodReady(a) && isPodReady(b) ? (readySince(b) ?? 0) - (readySince(a) ?? 0) : 0) ||
    restarts(b) - restarts(a) ||
    created(b) - created(a)
  );
}

/**
 * Adopts matching orphans and releases owned objects that no longer match; returns the ones it controls.
 * Pods by default; the Deployment controller claims ReplicaSets with it (pathOf).
 */
export async function claimPods(
  client: ApiClient,
  owner: KubeObject,
  selector: LabelSelector | undefined,
  pods: KubeObject[],
  apiVersion: string,
  kind: string,
  signal: AbortSignal,
  pathOf: (o: KubeObject) => string = podPath,
): Promise<KubeObject[]> {
  const uid = owner.metadata.uid;
  const out: KubeObject[] = [];
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    // Another owner's pod (most of a namespace with many ReplicaSets) is skipped before its labels are matched.
    if (ref && ref.uid !== uid) continue;
    const matches = selectorMatches(selector, pod.metadata.labels);
    if (ref) {
      if (matches || owner.metadata.deletionTimestamp) {
        out.push(pod);
        continue;
      }
      // Release: the pod's labels no longer match.
      const refs = (pod.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
      await client.patch(pathOf(pod), { metadata: { ownerReferences: refs.length ? refs : null, resourceVersion: pod.metadata.resourceVersion } }, 'application/merge-patch+json', signal).catch((err: unknown) => {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      });
      continue;
    }
    // Adopt: a matching orphan that is alive, while the owner is not being deleted.
    if (!matches || !isPodActive(pod) || owner.metadata.deletionTimestamp) continue;
    try {
      const refs = [...(pod.metadata.ownerReferences ?? []), ownerRef(owner, apiVersion, kind)];
      out.push(
        await client.patch(
          pathOf(pod),
          { metadata: { ownerReferences: refs, resourceVersion: pod.metadata.resourceVersion } },
          'application/merge-patch+json',
          signal,
        ),
      );
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return out;
}

export class ReplicaManager implements Controller {
  readonly name: string;
  private events: EventRecorder | undefined;
  constructor(private readonly k: ReplicaKind) {
    this.name = k.controller;
  }

  async run(ctx: ControllerContext): Promise<void> {
    const k = this.k;
    this.events = new EventRecorder(
      ctx.client,
      { component: k.controller === 'replicaset' ? 'replicaset-controller' : 'replication-controller' },
      { log: ctx.log, signal: ctx.signal },
    );
    const owners = ctx.informers.informerFor(k.informerPath);
    const podInformer = ctx.informers.informerFor('/api/v1/pods');
    const pods = new PodIndex(podInformer);
    const queue = new WorkQueue<string>({ name: k.controller, metrics: ctx.metrics });
    const expectations = new Expectations();

    const ownerKeyOf = (pod: KubeObject): string | undefined => {
      const ref = controllerRefOf(pod);
      if (!ref || ref.kind !== k.kind) return undefined;
      const key = `${pod.metadata.namespace}/${ref.name}`;
      return owners.get(key)?.metadata.uid === ref.uid ? key : undefined;
    };
    /** Owners whose selector matches an orphan pod (they may adopt it). */
    const matchingOwners = (pod: KubeObject) =>
      owners.listIn(pod.metadata.namespace ?? '').filter((o) => selectorMatches(k.selectorOf(o), pod.metadata.labels)).map(keyOf);

    owners.addEventHandler({
      onAdd: (o) => queue.add(keyOf(o)),
      onUpdate: (_old, o) => queue.add(keyOf(o)),
      onDelete: (o) => expectations.forget(keyOf(o)),
    });
    podInformer.addEventHandler({
      onAdd: (pod) => {
        const key = ownerKeyOf(pod);
        if (key) {
          expectations.creationObserved(key);
          queue.add(key);
        } else if (!controllerRefOf(pod)) matchingOwners(pod).forEach((o) => queue.add(o));
      },
      onUpdate: (old, pod) => {
        const key = ownerKeyOf(pod);
        if (pod.metadata.deletionTimestamp && !old.metadata.deletionTimestamp && key) expectations.deletionObserved(key, keyOf(pod));
        const oldKey = ownerKeyOf(old);
        if (oldKey && oldKey !== key) queue.add(oldKey);
        if (key) queue.add(key);
        else if (!controllerRefOf(pod)) matchingOwners(pod).forEach((o) => queue.add(o));
      },
      onDelete: (pod) => {
        const key = ownerKeyOf(pod);
        if (!key) return;
        expectations.deletionObserved(key, keyOf(pod));
        queue.add(key);
      },
    });
    if (!(await owners.waitForSync(ctx.signal)) || !(await podInformer.waitForSync(ctx.signal))) return;
    const sync = (key: string) => this.sync(ctx, key, owners, pods, expectations, queue);
    await runWorkers(queue, ctx.options.int(k.workersOption), sync, ctx.signal, { controller: k.controller, metrics: ctx.metrics, log: ctx.log });
  }

  private async sync(
    ctx: ControllerContext,
    key: string,
    owners: Informer,
    pods: PodIndex,
    expectations: Expectations,
    queue: WorkQueue<string>,
  ): Promise<void> {
    const k = this.k;
    const owner = owners.get(key);
    if (!owner) {
      expectations.forget(key);
      return;
    }
    const ns = owner.metadata.namespace ?? 'default';
    const spec = specOf<ReplicaSpec>(owner);
    const selector = k.selectorOf(owner);
    const controlled = await claimPods(ctx.client, owner, selector, pods.claimable(ns, owner.metadata.uid), k.apiVersion, k.kind, ctx.signal);
    const active = controlled.filter(isPodActive);
    const want = spec.replicas ?? 1;
    let manageError: unknown;
    if (expectations.satisfied(key) && !owner.metadata.deletionTimestamp) {
      try {
        await this.manage(ctx, key, owner, active, want, expectations);
      } catch (err) {
        manageError = err;
      }
    }
    const minReady = spec.minReadySeconds ?? 0;
    const templateLabels = spec.template?.metadata?.labels ?? {};
    const now = Date.now();
    const status = {
      replicas: active.length,
      ...omitEmpty({
        fullyLabeledReplicas: active.filter((p) => Object.entries(templateLabels).every(([l, v]) => p.metadata.labels?.[l] === v)).length,
        readyReplicas: active.filter(isPodReady).length,
        availableReplicas: active.filter((p) => isPodAvailable(p, minReady, now)).length,
        observedGeneration: owner.metadata.generation,
      }),
      ...(manageError ? { conditions: [replicaFailure(owner, (manageError as Error).message)] } : {}),
    };
    await writeStatus(ctx.client, k.objectPath(ns, owner.metadata.name ?? ''), owner.status as Obj | undefined, status, ctx.signal, owner.metadata.resourceVersion).catch(
      (err: unknown) => {
        // 409: the owner changed since its cached copy was read. Its watch event queues this key again and the
        // status is computed from the newer copy then; a rate-limited retry only added a sync (and at a thousand
        // ReplicaSets, the queue's overall limit of ten retries a second put them minutes apart).
        if (!isConflict(err)) throw err;
      },
    );
    // Ready pods that become available later: look again then (the real controller's AddAfter on minReadySeconds).
    const waits = active.map((p) => msUntilAvailable(p, minReady, now)).filter((ms): ms is number => ms !== undefined);
    if (waits.length) queue.addAfter(key, Math.min(...waits) + 50);
    if (manageError) throw manageError;
  }

  private async manage(ctx: ControllerContext, key: string, owner: KubeObject, active: KubeObject[], want: number, expectations: Expectations): Promise<void> {
    const k = this.k;
    const ns = owner.metadata.namespace ?? 'default';
    const diff = active.length - want;
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      expectations.expectCreations(key, n);
      const template = specOf<ReplicaSpec>(owner).template;
      const ref = ownerRef(owner, k.apiVersion, k.kind);
      await inBatches(Array.from({ length: n }), 50, async () => {
        let created: KubeObject | undefined;
        try {
          created = await createIn(ctx.client, podsPath(ns), podFromTemplate(template, owner, ref), ctx.signal);
          if (created) this.events?.event(refOf(owner, k.apiVersion, k.kind), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        } catch (err) {
          this.events?.event(refOf(owner, k.apiVersion, k.kind), 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
          throw err;
        } finally {
          if (!created) expectations.creationObserved(key); // it will never be seen
        }
      });
    } else if (diff > 0) {
      const victims = [...active].sort(deletionRank).slice(0, Math.min(diff, BURST_REPLICAS));
      for (const p of victims) expectations.expectDeletion(key, keyOf(p));
      await inBatches(victims, 50, async (p) => {
        const done = await deleteObject(ctx.client, podPath(p), p.metadata.uid, ctx.signal).catch((err: unknown) => {
          expectations.deletionObserved(key, keyOf(p));
          this.events?.event(refOf(owner, k.apiVersion, k.kind), 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
          throw err;
        });
        if (done) this.events?.event(refOf(owner, k.apiVersion, k.kind), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        if (!done) expectations.deletionObserved(key, keyOf(p));
      });
    }
  }
}

export const replicaSetController = (): Controller => new ReplicaManager(REPLICA_SET_KIND);

/**
 * The ReplicaFailure condition after a failed create. An existing one stays as it is (its lastTransitionTime by
 * the real SetCondition's rule): a new timestamp or message on every failed sync would make every sync a status
 * write, and the write's watch event would requeue the key at once, around the work queue's backoff.
 */
function replicaFailure(owner: KubeObject, message: string): Record<string, unknown> {
  const old = ((owner.status as { conditions?: Array<Record<string, unknown>> } | undefined)?.conditions ?? []).find(
    (c) => c.type === 'ReplicaFailure' && c.status === 'True' && c.reason === 'FailedCreate',
  );
  // The message names a generated pod, different on each attempt: the first failure's stays.
  if (old) return old;
  return { type: 'ReplicaFailure', status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: 'FailedCreate', message };
}
