// The replica manager the ReplicaSet and ReplicationController controllers share (replicaset.ts and
// replicationcontroller.ts declare their kind), as in the real daemon: keep spec.replicas active pods
// matching the selector. Pods it makes carry an ownerReference with controller and blockOwnerDeletion true;
// orphans that match are adopted and owned pods that stop matching are released (ownerReference patches).
// Creates and deletes are counted as expectations so that a lagging pod cache never causes a second round.
// Pods chosen for deletion are the least far along first (unscheduled, pending, not ready, ready for a
// shorter time, more restarts, newer), as the real ActivePods ordering has it. Status: replicas,
// fullyLabeledReplicas, readyReplicas, availableReplicas (ready for minReadySeconds), observedGeneration.

import type { KubeObject } from '../../api/meta.ts';
import type { LabelSelector } from '../../api/labels.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { keyOf, type Informer } from '../../client/informer.ts';
import { refOf, type EventRecorder } from '../../client/event-recorder.ts';
import type { WorkQueue } from '../../client/work-queue.ts';
import { BURST_REPLICAS, claimPods, deletionRank } from './claim.ts';
import type { PodIndex } from './pod-index.ts';
import { LoopKit } from './loop.ts';
import { controllerKeyResolver } from './owner.ts';
import {
  Expectations, controllerRefOf, createIn, deleteObject, inBatches, isConflict, isPodActive, isPodAvailable, isPodReady, msUntilAvailable,
  omitEmpty, ownerRef, podFromTemplate, selectorMatches, specOf, writeStatus, type Obj,
} from './workload-util.ts';
import { RESOURCE, type ResourcePaths } from '../../client/resource-paths.ts';

export interface ReplicaKind {
  controller: string;
  /** The events' source component. */
  component: string;
  /** The owners' resource (paths, apiVersion and kind of the owner references), from the API's resource table. */
  owners: ResourcePaths;
  workersOption: string;
  selectorOf(obj: KubeObject): LabelSelector | undefined;
}

export interface ReplicaSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: unknown;
  template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Obj };
}


export class ReplicaManager implements Controller {
  readonly name: string;
  private events: EventRecorder | undefined;
  constructor(private readonly k: ReplicaKind) {
    this.name = k.controller;
  }

  async run(ctx: ControllerContext): Promise<void> {
    const k = this.k;
    const loop = new LoopKit(ctx, k.controller, k.component);
    this.events = loop.events;
    const queue = loop.queue;
    const owners = loop.informer(k.owners.collection());
    const { informer: podInformer, index: pods } = loop.pods(RESOURCE.pods.collection());
    const expectations = new Expectations();
    const ownerKeyOf = controllerKeyResolver(k.owners.kind, owners);
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
    if (!(await loop.synced())) return;
    await loop.work(ctx.options.int(k.workersOption), (key) => this.sync(ctx, key, owners, pods, expectations, queue));
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
    const controlled = await claimPods(ctx.client, owner, selector, pods.claimable(ns, owner.metadata.uid), k.owners.apiVersion, k.owners.kind, ctx.signal);
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
    await writeStatus(ctx.client, k.owners.object(ns, owner.metadata.name ?? '', 'status'), owner.status as Obj | undefined, status, ctx.signal, owner.metadata.resourceVersion).catch(
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
      const ref = ownerRef(owner, k.owners.apiVersion, k.owners.kind);
      await inBatches(Array.from({ length: n }), 50, async () => {
        let created: KubeObject | undefined;
        try {
          created = await createIn(ctx.client, RESOURCE.pods.collection(ns), podFromTemplate(template, owner, ref), ctx.signal);
          if (created) this.events?.event(refOf(owner, k.owners.apiVersion, k.owners.kind), 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
        } catch (err) {
          this.events?.event(refOf(owner, k.owners.apiVersion, k.owners.kind), 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
          throw err;
        } finally {
          if (!created) expectations.creationObserved(key); // it will never be seen
        }
      });
    } else if (diff > 0) {
      const victims = [...active].sort(deletionRank).slice(0, Math.min(diff, BURST_REPLICAS));
      for (const p of victims) expectations.expectDeletion(key, keyOf(p));
      await inBatches(victims, 50, async (p) => {
        const done = await deleteObject(ctx.client, RESOURCE.pods.of(p), p.metadata.uid, ctx.signal).catch((err: unknown) => {
          expectations.deletionObserved(key, keyOf(p));
          this.events?.event(refOf(owner, k.owners.apiVersion, k.owners.kind), 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
          throw err;
        });
        if (done) this.events?.event(refOf(owner, k.owners.apiVersion, k.owners.kind), 'Normal', 'SuccessfulDelete', `Deleted pod: ${p.metadata.name}`);
        if (!done) expectations.deletionObserved(key, keyOf(p));
      });
    }
  }
}


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
