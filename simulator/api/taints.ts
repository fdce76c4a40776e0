// Taints and tolerations as the 1.9 scheduler and node controller read them, and the node-controller taint
// keys of 1.9 (renamed to node.kubernetes.io/not-ready and .../unreachable in 1.10).

import type { KubeObject } from './meta.ts';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** Added with TaintBasedEvictions when Ready is False / Unknown (NoExecute, rate-limited per zone). */
export const TAINT_NOT_READY = 'node.alpha.kubernetes.io/notReady';
export const TAINT_UNREACHABLE = 'node.alpha.kubernetes.io/unreachable';

/** TaintNodesByCondition: condition (status True) -> NoSchedule taint key. */
export const CONDITION_TAINTS: Record<string, string> = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  OutOfDisk: 'node.kubernetes.io/out-of-disk',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  NetworkUnavailable: 'node.kubernetes.io/network-unavailable',
};

export const taintsOf = (node: KubeObject | undefined): Taint[] => ((node?.spec as { taints?: Taint[] } | undefined)?.taints ?? []).filter((t) => t && typeof t.key === 'string');
export const tolerationsOf = (pod: KubeObject): Toleration[] => (pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations ?? [];

/** v1.Toleration.ToleratesTaint: effect empty or equal; Exists (an empty key matches every key) or Equal. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if ((t.key ?? '') !== '' && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if ((t.key ?? '') === '') return false;
  return (t.value ?? '') === (taint.value ?? '');
}

/** Whether every taint of the given effects is tolerated (the scheduler's PodToleratesNodeTaints). */
export function toleratesAll(pod: KubeObject, taints: Taint[], effects: string[]): boolean {
  const tols = tolerationsOf(pod);
  return taints.filter((t) => effects.includes(t.effect)).every((taint) => tols.some((t) => tolerates(t, taint)));
}
