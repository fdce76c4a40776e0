// LimitRanger (the 1.9 admission plugin): the LimitRanges of a pod's namespace give its containers default
// limits and requests on create (type Container: `default`, `defaultRequest`), recorded in the annotation
// kubernetes.io/limit-ranger, and refuse pods and claims outside the ranges with 403 Forbidden:
//   min       requests (Container; Pod: the sum over containers; PersistentVolumeClaim: storage) at least this;
//   max       limits (Container, Pod) or requests (PersistentVolumeClaim) at most this;
//   maxLimitRequestRatio   limit / request at most this.
// Only pod creates are defaulted; pod creates and updates and claim creates are checked, as in 1.9.

import type { KubeObject } from '../../api/meta.ts';
import { milliOf } from '../../api/quantity-sum.ts';
import { forbidden } from '../errors.ts';
import type { AdmissionAttributes, AdmissionHook } from './attributes.ts';
import type { ServerContext } from '../context.ts';
import { ObjectCache } from '../object-cache.ts';

type Resources = Record<string, string>;
interface LimitItem { type?: string; max?: Resources; min?: Resources; default?: Resources; defaultRequest?: Resources; maxLimitRequestRatio?: Resources }
interface Container { name?: string; resources?: { limits?: Resources; requests?: Resources } }

export const LIMIT_RANGER_ANNOTATION = 'kubernetes.io/limit-ranger';

/** The LimitRanges of a namespace, from a cache following the store (the store itself until it has listed). */
async function limitItems(ctx: ServerContext, cache: ObjectCache, namespace: string): Promise<LimitItem[]> {
  const prefix = `/registry/limitranges/${namespace}/`;
  const ranges = cache.list(prefix) ?? (await ctx.store.list(prefix)).items.map((i) => i.value);
  return ranges.flatMap((r) => ((r.spec as { limits?: LimitItem[] } | undefined)?.limits ?? []));
}

/**
 * Container defaults: each resource of `default` a missing limit, of `defaultRequest` a missing request (the
 * LimitRange's own defaults, api/kinds/limit-range.ts, already filled these from max, default and min).
 */
function applyContainerDefaults(pod: KubeObject, items: LimitItem[]): boolean {
  const limits: Resources = {};
  const requests: Resources = {};
  for (const it of items) {
    if (it.type !== 'Container') continue;
    Object.assign(requests, it.defaultRequest ?? {});
    Object.assign(limits, it.default ?? {});
  }
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[] };
  const notes: string[] = [];
  const each = (containers: Container[] | undefined, prefix: string) => {
    for (const c of containers ?? []) {
      const res = (c.resources ??= {});
      const fill = (field: 'limits' | 'requests', values: Resources): string[] => {
        const set: string[] = [];
        for (const [r, v] of Object.entries(values)) {
          if ((res[field] ??= {})[r] !== undefined) continue;
          res[field]![r] = v;
          set.push(r);
        }
        // Nothing to fill and nothing there: no empty map is added (a pod in a namespace whose LimitRange names
        // only PersistentVolumeClaims got a 500 here, Object.keys of the missing map).
        if (res[field] !== undefined && Object.keys(res[field]).length === 0) delete res[field];
        return set.sort();
      };
      const setRequests = fill('requests', requests);
      const setLimits = fill('limits', limits);
      if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${prefix} ${c.name ?? ''}`);
      if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${prefix} ${c.name ?? ''}`);
    }
  };
  each(spec.initContainers, 'init container');
  each(spec.containers, 'container');
  if (!notes.length) return false;
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  return true;
}

/** The Go %f of a ratio (six decimals), as 1.9's message prints it. */
const ratioText = (x: number) => x.toFixed(6);

function checkRange(errs: string[], what: string, item: LimitItem, requests: Resources, limits: Resources, requestOnlyMax = false): void {
  for (const [r, min] of Object.entries(item.min ?? {})) {
    const req = requests[r];
    if (req === undefined) errs.push(`minimum ${r} usage per ${what} is ${min}.  No request is specified.`);
    else if (milliOf(req) < milliOf(min)) errs.push(`minimum ${r} usage per ${what} is ${min}, but request is ${req}.`);
  }
  for (const [r, max] of Object.entries(item.max ?? {})) {
    const lim = requestOnlyMax ? requests[r] : limits[r];
    if (lim === undefined) errs.push(`maximum ${r} usage per ${what} is ${max}.  No ${requestOnlyMax ? 'request' : 'limit'} is specified.`);
    else if (milliOf(lim) > milliOf(max)) errs.push(`maximum ${r} usage per ${what} is ${max}, but ${requestOnlyMax ? 'request' : 'limit'} is ${lim}.`);
  }
  for (const [r, ratio] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const req = requests[r];
    const lim = limits[r];
    if (req === undefined || milliOf(req) === 0) {
      errs.push(`${r} max limit to request ratio per ${what} is ${ratio}, but no request is specified or request is 0.`);
      continue;
    }
    if (lim === undefined) {
      errs.push(`${r} max limit to request ratio per ${what} is ${ratio}, but no limit is specified or limit is 0.`);
      continue;
    }
    const actual = milliOf(lim) / milliOf(req);
    if (actual > milliOf(ratio) / 1000) errs.push(`${r} max limit to request ratio per ${what} is ${ratio}, but provided ratio is ${ratioText(actual)}.`);
  }
}

function sum(containers: Container[], field: 'limits' | 'requests'): Resources {
  const out: Record<string, number> = {};
  for (const c of containers) for (const [r, v] of Object.entries(c.resources?.[field] ?? {})) out[r] = (out[r] ?? 0) + milliOf(v);
  // Sums are compared in milli-units; the text is only shown in messages.
  return Object.fromEntries(Object.entries(out).map(([r, m]) => [r, m % 1000 === 0 ? String(m / 1000) : `${m}m`]));
}

function podErrors(pod: KubeObject, items: LimitItem[]): string[] {
  const errs: string[] = [];
  const containers = ((pod.spec ?? {}) as { containers?: Container[] }).containers ?? [];
  for (const it of items) {
    if (it.type === 'Container') for (const c of containers) checkRange(errs, 'Container', it, c.resources?.requests ?? {}, c.resources?.limits ?? {});
    else if (it.type === 'Pod') checkRange(errs, 'Pod', it, sum(containers, 'requests'), sum(containers, 'limits'));
  }
  return errs;
}

function claimErrors(claim: KubeObject, items: LimitItem[]): string[] {
  const errs: string[] = [];
  const requests = ((claim.spec ?? {}) as { resources?: { requests?: Resources } }).resources?.requests ?? {};
  for (const it of items) if (it.type === 'PersistentVolumeClaim') checkRange(errs, 'PersistentVolumeClaim', it, requests, requests, true);
  return errs;
}

function refuse(attrs: AdmissionAttributes, errs: string[]): never {
  const message = errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`;
  throw forbidden({ group: attrs.def.group, resource: attrs.def.resource }, attrs.name, message);
}

function applies(attrs: AdmissionAttributes): 'pod' | 'claim' | undefined {
  if (!attrs.object || !attrs.namespace || attrs.subresource !== undefined || attrs.def.group !== '') return undefined;
  if (attrs.def.resource === 'pods' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) return 'pod';
  if (attrs.def.resource === 'persistentvolumeclaims' && attrs.operation === 'CREATE') return 'claim';
  return undefined;
}

/** LimitRanger: defaults, then the ranges, in the mutating phase (the defaults must be in before they are checked). */
export function limitRanger(ctx: ServerContext): { hook: AdmissionHook; close(): void } {
  const cache = new ObjectCache(ctx.store, '/registry/limitranges/');
  void cache.start();
  const hook: AdmissionHook = async (attrs) => {
    const what = applies(attrs);
    if (!what) return;
    const items = await limitItems(ctx, cache, attrs.namespace!);
    if (!items.length) return;
    const obj = attrs.object!;
    if (what === 'pod' && attrs.operation === 'CREATE' && applyContainerDefaults(obj, items)) attrs.mutated = true;
    const errs = what === 'pod' ? podErrors(obj, items) : claimErrors(obj, items);
    if (errs.length) refuse(attrs, errs);
  };
  return { hook, close: () => cache.close() };
}
