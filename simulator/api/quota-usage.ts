// What one object counts against a ResourceQuota (the real quota evaluators of 1.9): every object counts 1
// against `count/<resource>[.<group>]`; pods, services, replicationcontrollers, resourcequotas, secrets,
// configmaps and persistentvolumeclaims also against their bare name; a pod's compute resources against
// requests.cpu (= cpu), requests.memory (= memory), limits.cpu, limits.memory, summed over its containers (an
// init container counts when it asks for more than the sum); a Service of type NodePort/LoadBalancer against
// services.nodeports / services.loadbalancers. Terminal pods (Succeeded, Failed) count nothing. Scopes select
// which pods a quota counts. Used by quota admission (server) and the resourcequota controller alike.

import type { KubeObject } from './meta.ts';
import { formatQuantity, milliOf, parseQuantity, type ParsedQuantity } from './quantity-sum.ts';

export type Usage = Record<string, number>;

const LEGACY_COUNTS = new Set(['pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims']);

/** The quota names an object counts under, by resource and group. */
export function countNames(resource: string, group: string): string[] {
  const names = [group ? `count/${resource}.${group}` : `count/${resource}`];
  if (!group && LEGACY_COUNTS.has(resource)) names.push(resource);
  return names;
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
const isBestEffort = (pod: KubeObject) => [...containersOf(pod, 'containers'), ...containersOf(pod, 'initContainers')].every((c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0);
const isTerminating = (pod: KubeObject) => typeof (pod.spec as { activeDeadlineSeconds?: unknown } | undefined)?.activeDeadlineSeconds === 'number';

/** Whether a quota with these scopes counts the object (scopes only ever select pods). */
export function matchesScopes(obj: KubeObject, resource: string, group: string, scopes: string[]): boolean {
  if (scopes.length === 0) return true;
  if (!(resource === 'pods' && group === '')) return false;
  return scopes.every((s) => {
    switch (s) {
      case 'Terminating': return isTerminating(obj);
      case 'NotTerminating': return !isTerminating(obj);
      case 'BestEffort': return isBestEffort(obj);
      case 'NotBestEffort': return !isBestEffort(obj);
      default: return false;
    }
  });
}

/** Usage of one object in milli-units by quota resource name (only names the object counts under). */
export function usageOf(obj: KubeObject, resource: string, group: string): Usage {
  const u: Usage = {};
  if (resource === 'pods' && group === '' && isTerminalPod(obj)) return u;
  for (const n of countNames(resource, group)) u[n] = 1000;
  if (resource === 'pods' && group === '') {
    const req = podResources(obj, 'requests');
    const lim = podResources(obj, 'limits');
    for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
      if (req[r] !== undefined) {
        u[`requests.${r}`] = req[r];
        if (r !== 'ephemeral-storage') u[r] = req[r];
      }
      if (lim[r] !== undefined) u[`limits.${r}`] = lim[r];
    }
  }
  if (resource === 'services' && group === '') {
    const type = (obj.spec as { type?: string } | undefined)?.type;
    if (type === 'NodePort' || type === 'LoadBalancer') u['services.nodeports'] = 1000 * Math.max(1, ((obj.spec as { ports?: unknown[] }).ports ?? []).length);
    if (type === 'LoadBalancer') u['services.loadbalancers'] = 1000;
  }
  if (resource === 'persistentvolumeclaims' && group === '') {
    const storage = ((obj.spec as { resources?: { requests?: Record<string, unknown> } } | undefined)?.resources?.requests ?? {}).storage;
    if (storage !== undefined) u['requests.storage'] = milliOf(storage);
  }
  return u;
}

/** Pod compute resources a quota constrains must be set on every container (the real "must specify"). */
export function missingCompute(pod: KubeObject, hardNames: string[]): string[] {
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

/** The format a quota's hard value is written in, so that used amounts print the same way (64Mi, 500m). */
export function formatOf(v: unknown): ParsedQuantity['format'] {
  return parseQuantity(v)?.format ?? 'DecimalSI';
}

export function formatUsage(milli: number, hard: unknown): string {
  return formatQuantity(milli, formatOf(hard));
}
