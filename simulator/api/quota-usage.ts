// What one object counts against a ResourceQuota (the quota evaluators of 1.9): every object counts 1 against
// `count/<resource>[.<group>]` (object count quota, new in 1.9); pods, services, replicationcontrollers,
// resourcequotas, secrets, configmaps and persistentvolumeclaims also against their bare name. A pod's compute
// resources count against requests.cpu (= cpu), requests.memory (= memory), limits.cpu, limits.memory and the
// ephemeral-storage three, summed over its containers (an init container counts when it asks for more than the
// sum); a pod that is terminal (Succeeded, Failed) or whose deletion grace period has run out counts only under
// count/pods. A Service counts its ports against services.nodeports when of type NodePort or LoadBalancer, and 1
// against services.loadbalancers when LoadBalancer (both 0 otherwise). A claim counts requests.storage and, per
// storage class, `<class>.storageclass.storage.k8s.io/requests.storage` and `/persistentvolumeclaims`. Scopes
// (Terminating, NotTerminating, BestEffort, NotBestEffort) select pods only. Used by quota admission (server)
// and the resourcequota controller alike, so both count the same way.

import type { KubeObject } from './meta.ts';
import { formatQuantity, milliOf, parseQuantity, type ParsedQuantity } from './quantity-sum.ts';

export type Usage = Record<string, number>;

const LEGACY_COUNTS = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims']);
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** The object count quota name of a resource: count/<resource> for core, count/<resource>.<group> otherwise. */
export const objectCountName = (resource: string, group: string) => (group ? `count/${resource}.${group}` : `count/${resource}`);

/** The quota names an object counts under, by resource and group. */
export function countNames(resource: string, group: string): string[] {
  const names = [objectCountName(resource, group)];
  if (!group && LEGACY_COUNTS.has(resource)) names.push(resource);
  return names;
}

const POD_NAMES = ['pods', 'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory', 'limits.ephemeral-storage'];
const SERVICE_NAMES = ['services', 'count/services', 'services.loadbalancers', 'services.nodeports'];

/** Whether a quota resource name is one the evaluator of this resource tracks (the evaluator's MatchingResources). */
export function tracks(name: string, resource: string, group: string): boolean {
  return evaluatorOf(resource, group).tracks?.(name) === true || countNames(resource, group).includes(name);
}

/** The resource (and group) a quota name counts, for names that count objects of one resource; undefined otherwise. */
export function resourceOfName(name: string): { resource: string; group: string } | undefined {
  if (LEGACY_COUNTS.has(name)) return { resource: name, group: '' };
  if (POD_NAMES.includes(name)) return { resource: 'pods', group: '' };
  if (SERVICE_NAMES.includes(name)) return { resource: 'services', group: '' };
  if (name === 'requests.storage' || name.includes(STORAGE_CLASS_SUFFIX)) return { resource: 'persistentvolumeclaims', group: '' };
  const m = /^count\/([a-z0-9-]+)(?:\.(.+))?$/.exec(name);
  if (m) return { resource: m[1], group: m[2] ?? '' };
  return undefined;
}

interface Container {
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

const containersOf = (pod: KubeObject, list: 'containers' | 'initContainers') => ((pod.spec as Record<string, unknown> | undefined)?.[list] as Container[] | undefined) ?? [];

/** Summed requests or limits of a pod, in milli-units, by resource name (cpu, memory...). */
export function podResources(pod: KubeObject, which: 'requests' | 'limits'): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of containersOf(pod, 'containers')) for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) sum[k] = (sum[k] ?? 0) + milliOf(v);
  for (const c of containersOf(pod, 'initContainers')) for (const [k, v] of Object.entries(c.resources?.[which] ?? {})) sum[k] = Math.max(sum[k] ?? 0, milliOf(v));
  return sum;
}

export const isTerminalPod = (pod: KubeObject) => ['Succeeded', 'Failed'].includes((pod.status as { phase?: string } | undefined)?.phase ?? '');

/** QuotaPod of 1.9: not terminal, and not past the end of its deletion grace period (a lost node's pods). */
export function chargedPod(pod: KubeObject, now = Date.now()): boolean {
  if (isTerminalPod(pod)) return false;
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (deletionTimestamp && typeof deletionGracePeriodSeconds === 'number' && now > Date.parse(deletionTimestamp) + deletionGracePeriodSeconds * 1000) return false;
  return true;
}

/** QoS class BestEffort: no container (init ones included) requests or limits a non-zero cpu or memory. */
export const isBestEffort = (pod: KubeObject) =>
  [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')].every((c) =>
    ['requests', 'limits'].every((w) => ['cpu', 'memory'].every((r) => milliOf(c.resources?.[w as 'requests' | 'limits']?.[r]) === 0)),
  );
const isTerminating = (pod: KubeObject) => {
  const ads = (pod.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds;
  return typeof ads === 'number' && ads >= 0;
};

/** Whether a quota with these scopes counts the object (scopes only ever select pods). */
export function matchesScopes(obj: KubeObject, resource: string, group: string, scopes: string[]): boolean {
  if (scopes.length === 0) return true;
  const inScope = evaluatorOf(resource, group).inScope;
  return inScope !== undefined && scopes.every((s) => inScope(obj, s));
}

const podInScope = (pod: KubeObject, scope: string): boolean => {
  switch (scope) {
    case 'Terminating': return isTerminating(pod);
    case 'NotTerminating': return !isTerminating(pod);
    case 'BestEffort': return isBestEffort(pod);
    case 'NotBestEffort': return !isBestEffort(pod);
    default: return false;
  }
};

/** Usage of one object in milli-units by quota resource name (only names the object counts under). */
export function usageOf(obj: KubeObject, resource: string, group: string, now = Date.now()): Usage {
  const evaluator = evaluatorOf(resource, group);
  if (evaluator.countsOnlyObject?.(obj, now)) return { [objectCountName(resource, group)]: 1000 };
  const u: Usage = {};
  for (const n of countNames(resource, group)) u[n] = 1000;
  return evaluator.usage ? Object.assign(u, evaluator.usage(obj)) : u;
}

/** Compute resources a quota limits (`hardNames`) that the object leaves unset: pods only (the real "must specify"). */
export function missingCompute(obj: KubeObject, resource: string, group: string, hardNames: string[]): string[] {
  return evaluatorOf(resource, group).missing?.(obj, hardNames) ?? [];
}

/** Whether an update is charged as well as a create (a Service's new type may add node ports or a load balancer). */
export const chargesUpdates = (resource: string, group: string): boolean => evaluatorOf(resource, group).chargesUpdates === true;

function podUsage(pod: KubeObject): Usage {
  const u: Usage = {};
  const req = podResources(pod, 'requests');
  const lim = podResources(pod, 'limits');
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (req[r] !== undefined) u[r] = u[`requests.${r}`] = req[r];
    if (lim[r] !== undefined) u[`limits.${r}`] = lim[r];
  }
  return u;
}

function podMissing(pod: KubeObject, hardNames: string[]): string[] {
  const out: string[] = [];
  const containers = [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')];
  for (const name of hardNames) {
    const m = /^(requests|limits)\.(cpu|memory)$/.exec(name) ?? (name === 'cpu' || name === 'memory' ? [name, 'requests', name] : null);
    if (!m) continue;
    const [, which, r] = m;
    if (containers.some((c) => c.resources?.[which as 'requests' | 'limits']?.[r] === undefined)) out.push(name);
  }
  return [...new Set(out)].sort();
}

function serviceUsage(svc: KubeObject): Usage {
  const spec = (svc.spec ?? {}) as { type?: string; ports?: unknown[] };
  const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
  return {
    'services.nodeports': spec.type === 'NodePort' || spec.type === 'LoadBalancer' ? ports * 1000 : 0,
    'services.loadbalancers': spec.type === 'LoadBalancer' ? 1000 : 0,
  };
}

function claimUsage(claim: KubeObject): Usage {
  const u: Usage = {};
  const spec = (claim.spec ?? {}) as { resources?: { requests?: Record<string, unknown> }; storageClassName?: string };
  const storage = spec.resources?.requests?.storage;
  const cls = claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? spec.storageClassName ?? '';
  if (storage !== undefined) u['requests.storage'] = milliOf(storage);
  if (cls) {
    u[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = 1000;
    if (storage !== undefined) u[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = milliOf(storage);
  }
  return u;
}

const claimTracks = (name: string): boolean => {
  if (name === 'requests.storage') return true;
  const i = name.indexOf(STORAGE_CLASS_SUFFIX);
  return i > 0 && ['requests.storage', 'persistentvolumeclaims'].includes(name.slice(i + STORAGE_CLASS_SUFFIX.length));
};

/**
 * What a kind counts beyond its object counts (1.9's evaluators of pods, services and persistent volume claims);
 * every other kind has the generic evaluator: object counts only, creates only, no scopes.
 */
interface QuotaEvaluator {
  /** Quota names tracked beyond the object counts. */
  tracks?(name: string): boolean;
  /** Usage beyond the object counts. */
  usage?(obj: KubeObject): Usage;
  /** The object counts only under count/<resource> (a pod that no longer runs). */
  countsOnlyObject?(obj: KubeObject, now: number): boolean;
  /** Whether one scope of a quota selects the object; without it no scoped quota counts the kind. */
  inScope?(obj: KubeObject, scope: string): boolean;
  /** Names of hardNames the object must set before a quota limiting them admits it. */
  missing?(obj: KubeObject, hardNames: string[]): string[];
  chargesUpdates?: boolean;
}

const EVALUATORS: Record<string, QuotaEvaluator> = {
  '/pods': { tracks: (n) => POD_NAMES.includes(n), usage: podUsage, countsOnlyObject: (p, now) => !chargedPod(p, now), inScope: podInScope, missing: podMissing },
  '/services': { tracks: (n) => SERVICE_NAMES.includes(n), usage: serviceUsage, chargesUpdates: true },
  '/persistentvolumeclaims': { tracks: claimTracks, usage: claimUsage },
};
const GENERIC: QuotaEvaluator = {};

function evaluatorOf(resource: string, group: string): QuotaEvaluator {
  return EVALUATORS[`${group}/${resource}`] ?? GENERIC;
}

/** The format a quota's hard value is written in, so that used amounts print the same way (64Mi, 500m). */
export function formatOf(v: unknown): ParsedQuantity['format'] {
  return parseQuantity(v)?.format ?? 'DecimalSI';
}

export function formatUsage(milli: number, hard: unknown): string {
  return formatQuantity(milli, formatOf(hard));
}
