// The StatefulSet controller (1.9 stateful_set_control.go, one worker as 1.9 ran it): pods with stable names
// `<set>-<ordinal>` for ordinals 0..replicas-1, each labelled `controller-revision-hash` (the name of the
// ControllerRevision it was made from) and `statefulset.kubernetes.io/pod-name`, with hostname = pod name and
// subdomain = spec.serviceName. Revisions are ControllerRevisions (history.ts); status.currentRevision is the
// revision pods [0, currentReplicas) run, status.updateRevision the one of the current template.
//
// Per sync, in this order (each step may end the sync and wait for the next pod event):
//   1. failed pods are deleted (to be made again);
//   2. missing pods are created: OrderedReady one at a time, lowest ordinal first, each only once every lower
//      ordinal is Running and Ready and none is terminating; Parallel all at once. A pod made for an ordinal
//      below spec.updateStrategy.rollingUpdate.partition gets the current revision, any other the update one;
//   3. pods at ordinals >= replicas are deleted from the highest ordinal down: OrderedReady one at a time and
//      only while every other pod is healthy; Parallel all at once;
//   4. RollingUpdate: from the highest ordinal down to the partition, the first pod not at the update revision
//      is deleted (it comes back at the update revision in step 2), and the update waits for each updated pod
//      to be Running and Ready before the next. OnDelete: nothing; pods deleted by the user come back updated.
// When every pod is updated and ready the update revision becomes the current one. Revisions not in use are
// pruned to spec.revisionHistoryLimit. volumeClaimTemplates become pod volumes referring to claims
// `<template>-<set>-<ordinal>`; the claims are created when the API serves persistentvolumeclaims.

import type { KubeObject } from '../api/meta.ts';
import type { LabelSelector } from '../api/labels.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { claimPods } from './kit/claim.ts';
import type { PodIndex } from './kit/pod-index.ts';
import { LoopKit } from './kit/loop.ts';
import { controllerKeyResolver } from './kit/owner.ts';
import { ensureRevision, hashRevisionData, ownedRevisions, pruneRevisions, revisionsPath, templateOfRevision } from './kit/history.ts';
import {
  controllerRefOf,
  deleteObject,
  isConflict,
  isPodReady,
  omitEmpty,
  ownerRef,
  specOf,
  statusOf,
  writeStatus,
  type Obj,
} from './kit/workload-util.ts';
import { ApiError } from '../client/api-client.ts';
import { copyJson } from '../util/json-value.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const REVISION_LABEL = 'controller-revision-hash';
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Obj;
}

interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplate;
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  revisionHistoryLimit?: number;
  volumeClaimTemplates?: Array<{ metadata?: { name?: string; labels?: Record<string, string> }; spec?: Obj }>;
}

interface StatefulSetStatus {
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
}


/** The ordinal of a pod of the set, or -1 when the name is not `<set>-<n>`. */
export function ordinalOf(setName: string, podName: string): number {
  const prefix = `${setName}-`;
  if (!podName.startsWith(prefix)) return -1;
  const rest = podName.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : -1;
}

const isFailed = (p: KubeObject) => statusOf(p).phase === 'Failed';
const isRunningReady = (p: KubeObject) => statusOf(p).phase === 'Running' && isPodReady(p);
const isTerminating = (p: KubeObject) => !!p.metadata.deletionTimestamp;
const isHealthy = (p: KubeObject) => isRunningReady(p) && !isTerminating(p);
const revisionOf = (p: KubeObject) => p.metadata.labels?.[REVISION_LABEL];

/** The pod of one ordinal from a template (newStatefulSetPod). */
export function statefulPod(set: KubeObject, template: PodTemplate | undefined, revisionName: string, ordinal: number): KubeObject {
  const spec = specOf<StatefulSetSpec>(set);
  const name = `${set.metadata.name}-${ordinal}`;
  const podSpec = copyJson(template?.spec ?? {}) as Obj;
  podSpec.hostname = name;
  if (spec.serviceName) podSpec.subdomain = spec.serviceName;
  const claims = spec.volumeClaimTemplates ?? [];
  if (claims.length) {
    const volumes = ((podSpec.volumes as Obj[] | undefined) ?? []).filter((v) => !claims.some((c) => c.metadata?.name === v.name));
    for (const c of claims)
      volumes.push({ name: c.metadata?.name, persistentVolumeClaim: { claimName: `${c.metadata?.name}-${set.metadata.name}-${ordinal}` } });
    podSpec.volumes = volumes;
  }
  const annotations = template?.metadata?.annotations;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: set.metadata.namespace,
      labels: { ...template?.metadata?.labels, [REVISION_LABEL]: revisionName, [POD_NAME_LABEL]: name },
      ...(annotations && Object.keys(annotations).length ? { annotations: { ...annotations } } : {}),
      ownerReferences: [ownerRef(set, 'apps/v1', 'StatefulSet')],
    },
    spec: podSpec,
  };
}

export class StatefulSetController implements Controller {
  readonly name = 'statefulset';
  private events: EventRecorder | undefined;
  /** Whether the API serves persistentvolumeclaims (claims of volumeClaimTemplates are made then). */
  private claimsServed = true;

  async run(ctx: ControllerContext): Promise<void> {
    const loop = new LoopKit(ctx, this.name, 'statefulset-controller');
    this.events = loop.events;
    const queue = loop.queue;
    const sets = loop.informer(RESOURCE.statefulSets.collection());
    const { informer: podInformer, index: pods } = loop.pods(RESOURCE.pods.collection());
    const revisions = loop.informer(RESOURCE.controllerRevisions.collection());
    const ownerKey = controllerKeyResolver('StatefulSet', sets);
    // An orphan pod may be adopted by a set whose selector matches it (an orphan revision is not adopted here).
    const enqueueOwner = (orphansMayBeAdopted: boolean) => (o: KubeObject) => {
      const k = ownerKey(o);
      if (k) queue.add(k);
      else if (orphansMayBeAdopted && !controllerRefOf(o)) {
        for (const s of sets.list()) if (s.metadata.namespace === o.metadata.namespace) queue.add(keyOf(s));
      }
    };
    const onPod = enqueueOwner(true);
    const onRevision = enqueueOwner(false);
    sets.addEventHandler({ onAdd: (s) => queue.add(keyOf(s)), onUpdate: (_o, s) => queue.add(keyOf(s)), onDelete: () => {} });
    podInformer.addEventHandler({ onAdd: onPod, onUpdate: (_o, p) => onPod(p), onDelete: onPod });
    revisions.addEventHandler({ onAdd: onRevision, onUpdate: (_o, r) => onRevision(r), onDelete: onRevision });
    if (!(await loop.synced())) return;
    await loop.work(1, (key) => this.sync(ctx, key, sets, pods, revisions));
  }

  async sync(ctx: ControllerContext, key: string, sets: Informer, pods: PodIndex, revisionInformer: Informer): Promise<void> {
    const set = sets.get(key);
    if (!set || set.metadata.deletionTimestamp) return;
    const ns = set.metadata.namespace ?? 'default';
    const name = set.metadata.name ?? '';
    const spec = specOf<StatefulSetSpec>(set);
    const status = (set.status ?? {}) as StatefulSetStatus;
    const ref = refOf(set, 'apps/v1', 'StatefulSet');

    // Pods: adopt and release by selector, then keep only members (name `<set>-<n>`).
    const claimed = await claimPods(ctx.client, set, spec.selector, pods.claimable(ns, set.metadata.uid), 'apps/v1', 'StatefulSet', ctx.signal);
    const members = claimed.filter((p) => ordinalOf(name, p.metadata.name ?? '') >= 0);

    // Revisions.
    let owned = ownedRevisions(revisionInformer.list(), set);
    const ensured = await ensureRevision(
      ctx.client,
      set,
      spec.template,
      owned,
      { apiVersion: 'apps/v1', kind: 'StatefulSet', hashOf: hashRevisionData },
      ctx.signal,
    );
    owned = ensured.revisions;
    const updateRevision = ensured.revision;
    const updateName = updateRevision.metadata.name ?? '';
    const currentRevision = owned.find((r) => r.metadata.name === status.currentRevision) ?? updateRevision;
    const currentName = currentRevision.metadata.name ?? '';
    const currentTemplate = (templateOfRevision(currentRevision) ?? spec.template) as PodTemplate | undefined;

    const replicas = spec.replicas ?? 1;
    const parallel = spec.podManagementPolicy === 'Parallel';
    const rolling = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const partition = rolling ? Math.max(0, spec.updateStrategy?.rollingUpdate?.partition ?? 0) : 0;
    const slots: Array<KubeObject | undefined> = Array.from({ length: replicas });
    const condemned: KubeObject[] = [];
    for (const p of members) {
      const ord = ordinalOf(name, p.metadata.name ?? '');
      if (ord < replicas) slots[ord] = p;
      else condemned.push(p);
    }
    condemned.sort((a, b) => ordinalOf(name, b.metadata.name ?? '') - ordinalOf(name, a.metadata.name ?? ''));

    await this.reconcile(ctx, set, slots, condemned, { updateName, currentName, currentTemplate, parallel, rolling, partition, ns, ref });

    // Status from what is known now (the next pod event brings the rest).
    const live = members.filter((p) => !isTerminating(p) || ordinalOf(name, p.metadata.name ?? '') < replicas);
    const counted = members;
    const ready = counted.filter(isPodReady).length;
    const current = counted.filter((p) => revisionOf(p) === currentName).length;
    const updated = counted.filter((p) => revisionOf(p) === updateName).length;
    let next = {
      observedGeneration: set.metadata.generation,
      replicas: counted.length,
      readyReplicas: ready,
      currentReplicas: current,
      updatedReplicas: updated,
      currentRevision: currentName,
      updateRevision: updateName,
    };
    if (rolling && next.updatedReplicas === replicas && next.replicas === replicas && next.readyReplicas === replicas) {
      next = { ...next, currentRevision: updateName, currentReplicas: updated };
    } else if (!rolling && next.currentReplicas === 0 && next.updatedReplicas === replicas && next.replicas === replicas) {
      next = { ...next, currentRevision: updateName, currentReplicas: updated };
    }
    void live;
    const out: Obj = { replicas: next.replicas, ...omitEmpty({ ...next, replicas: undefined }) };
    if (ensured.collisionCount || status.collisionCount !== undefined) out.collisionCount = ensured.collisionCount;
    const keep = new Set([next.currentRevision, next.updateRevision, ...members.map(revisionOf).filter((x): x is string => !!x)]);
    await writeStatus(ctx.client, RESOURCE.statefulSets.object(ns, name, 'status'), set.status as Obj | undefined, out, ctx.signal, set.metadata.resourceVersion);
    await pruneRevisions(ctx.client, owned, keep, spec.revisionHistoryLimit ?? 10, ctx.signal);
  }

  private async reconcile(
    ctx: ControllerContext,
    set: KubeObject,
    slots: Array<KubeObject | undefined>,
    condemned: KubeObject[],
    o: {
      updateName: string;
      currentName: string;
      currentTemplate: PodTemplate | undefined;
      parallel: boolean;
      rolling: boolean;
      partition: number;
      ns: string;
      ref: ReturnType<typeof refOf>;
    },
  ): Promise<void> {
    const spec = specOf<StatefulSetSpec>(set);
    const setName = set.metadata.name ?? '';
    const monotonic = !o.parallel;
    // 1. Failed pods go.
    for (const p of slots) {
      if (p && isFailed(p) && !isTerminating(p)) {
        await this.deletePod(ctx, set, p, o.ref);
        if (monotonic) return;
      }
    }
    // 2. Missing pods, in order.
    for (let ord = 0; ord < slots.length; ord++) {
      const p = slots[ord];
      if (!p || isFailed(p)) {
        if (p && isFailed(p)) {
          if (monotonic) return;
          continue;
        }
        const useCurrent = o.rolling && ord < o.partition;
        const pod = statefulPod(set, useCurrent ? o.currentTemplate : spec.template, useCurrent ? o.currentName : o.updateName, ord);
        await this.createClaims(ctx, set, ord);
        await this.createPod(ctx, set, pod, o.ref);
        if (monotonic) return;
        continue;
      }
      if (monotonic && (isTerminating(p) || !isRunningReady(p))) return;
    }
    // 3. Condemned pods, highest ordinal first.
    for (const p of condemned) {
      if (isTerminating(p)) {
        if (monotonic) return;
        continue;
      }
      if (monotonic && slots.some((x) => !x || !isHealthy(x))) return;
      if (monotonic && condemned.some((x) => x !== p && !isHealthy(x) && !isTerminating(x))) return;
      await this.deletePod(ctx, set, p, o.ref);
      if (monotonic) return;
    }
    // 4. Rolling update from the highest ordinal down to the partition.
    if (!o.rolling) return;
    if (slots.some((x) => !x || !isHealthy(x))) return;
    for (let ord = slots.length - 1; ord >= o.partition; ord--) {
      const p = slots[ord]!;
      if (revisionOf(p) !== o.updateName && !isTerminating(p)) {
        await this.deletePod(ctx, set, p, o.ref);
        return;
      }
      if (!isHealthy(p)) return;
    }
    void setName;
  }

  private async createPod(ctx: ControllerContext, set: KubeObject, pod: KubeObject, ref: ReturnType<typeof refOf>): Promise<void> {
    try {
      await ctx.client.create(RESOURCE.pods.collection(pod.metadata.namespace ?? 'default'), pod, ctx.signal);
      this.events?.event(ref, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return; // the cache had not seen it yet
      if (err instanceof ApiError && err.code === 403 && /being terminated/.test(err.message)) return;
      this.events?.event(
        ref,
        'Warning',
        'FailedCreate',
        `create Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`,
      );
      throw err;
    }
  }

  private async deletePod(ctx: ControllerContext, set: KubeObject, pod: KubeObject, ref: ReturnType<typeof refOf>): Promise<void> {
    try {
      if (await deleteObject(ctx.client, RESOURCE.pods.of(pod), pod.metadata.uid, ctx.signal)) {
        this.events?.event(ref, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
      }
    } catch (err) {
      this.events?.event(
        ref,
        'Warning',
        'FailedDelete',
        `delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`,
      );
      throw err;
    }
  }

  private async createClaims(ctx: ControllerContext, set: KubeObject, ordinal: number): Promise<void> {
    const claims = specOf<StatefulSetSpec>(set).volumeClaimTemplates ?? [];
    if (!claims.length || !this.claimsServed) return;
    const ns = set.metadata.namespace ?? 'default';
    for (const c of claims) {
      const claimName = `${c.metadata?.name}-${set.metadata.name}-${ordinal}`;
      const labels = { ...specOf<StatefulSetSpec>(set).selector?.matchLabels, ...c.metadata?.labels };
      try {
        await ctx.client.create(
          RESOURCE.persistentVolumeClaims.collection(ns),
          { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: claimName, namespace: ns, labels }, spec: c.spec ?? {} },
          ctx.signal,
        );
      } catch (err) {
        if (
          err instanceof ApiError &&
          err.code === 404 &&
          /the server could not find the requested resource|page not found|not found/i.test(err.message) &&
          !/persistentvolumeclaims ".*" not found/.test(err.message)
        ) {
          this.claimsServed = false;
          return;
        }
        if (isConflict(err)) continue;
        throw err;
      }
    }
  }
}

export const statefulSetController = (): Controller => new StatefulSetController();
export { revisionsPath };
