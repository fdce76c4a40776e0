// Claiming pods (adopt, release) and the order pods are deleted in, shared by the workload controllers (ReplicaSet,
// ReplicationController, Deployment for its ReplicaSets, DaemonSet, StatefulSet, Job), as the real
// ControllerRefManager and controller.ActivePods.

import type { KubeObject } from '../../api/meta.ts';
import type { LabelSelector } from '../../api/labels.ts';
import type { ApiClient } from '../../client/api-client.ts';
import { RESOURCE } from '../../client/resource-paths.ts';
import { controllerRefOf, isConflict, isNotFound, isPodActive, isPodReady, ownerRef, readySince, selectorMatches, specOf, statusOf } from './workload-util.ts';

/** Most pods created or deleted in one sync (the real burstReplicas). */
export const BURST_REPLICAS = 500;

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
  pathOf: (o: KubeObject) => string = (o) => RESOURCE.pods.of(o),
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
