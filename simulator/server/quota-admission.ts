// ResourceQuota admission (the 1.9 ResourceQuota admission plugin), for creates (and updates of Services, whose
// type decides node ports and load balancers). It judges against what the resourcequota controller wrote in
// status, never spec: a quota counts for a request when status.hard names something the object's evaluator
// tracks and its scopes select the object. For each such quota, in name order, the request is refused with
// 403 Forbidden when
//   - a pod leaves unset a compute resource the quota limits: `failed quota: <quota>: must specify limits.cpu`;
//   - the status lacks a used value for a name of status.hard: `status unknown for quota: <quota>`;
//   - status.used + the object's usage would pass status.hard: `exceeded quota: <quota>, requested: pods=1,
//     used: pods=2, limited: pods=2` (only the exceeded resources, sorted).
// A quota the controller has not yet looked at (no status.hard) limits nothing, as in 1.9: admission only ever
// reads status. Otherwise the object's usage is added to status.used of each such quota before the object is
// stored (one compare-and-swap write per quota, judged again against the fresh quota inside the swap), so that
// two creates racing for the last unit cannot both pass; the resourcequota controller later recomputes used
// from what exists, which is how deletions give their usage back. dryRun judges without writing.

import type { KubeObject } from '../api/meta.ts';
import { milliOf } from '../api/quantity-sum.ts';
import { chargesUpdates, formatOf, formatUsage, matchesScopes, missingCompute, tracks, usageOf, type Usage } from '../api/quota-usage.ts';
import { formatQuantity } from '../api/quantity-sum.ts';
import type { AdmissionAttributes, AdmissionHook } from './admission/attributes.ts';
import type { ServerContext } from './context.ts';
import { forbidden } from './errors.ts';
import { groupResource } from './registry/system-meta.ts';
import { LIVE_LOOKUP_TTL_MS } from './object-cache.ts';
import { copyJson } from '../util/json-value.ts';
import { collectionKey, listStored, sharedStorage, STORAGE_REFS, updateStored } from './registry/storage.ts';

interface QuotaView {
  spec?: { hard?: Record<string, string>; scopes?: string[] };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

const pretty = (names: string[], values: (n: string) => string) => names.map((n) => `${n}=${values(n)}`).join(',');

/** Usage the request adds: the object's on create; new minus old on an update (a Service changing type). */
function deltaOf(attrs: AdmissionAttributes): Usage {
  const { def, object, oldObject } = attrs;
  const usage = usageOf(object!, def.resource, def.group);
  if (attrs.operation !== 'UPDATE' || !oldObject) return usage;
  const old = usageOf(oldObject, def.resource, def.group);
  return Object.fromEntries(Object.entries(usage).map(([n, v]) => [n, v - (old[n] ?? 0)]));
}

/**
 * Judges one quota: undefined when it does not count for this request, else the usage it would hold after it
 * (the names the request changes). Throws the 403 when it refuses.
 */
function judge(attrs: AdmissionAttributes, quota: KubeObject, delta: Usage): Record<string, string> | undefined {
  const { def, object } = attrs;
  const q = quota as unknown as QuotaView;
  const hard = q.status?.hard ?? {};
  const hardNames = Object.keys(hard);
  const refuse = (why: string) => forbidden(groupResource(def), attrs.name, why);
  if (!hardNames.some((n) => tracks(n, def.resource, def.group))) return undefined;
  if (!matchesScopes(object!, def.resource, def.group, q.spec?.scopes ?? [])) return undefined;
  const missing = missingCompute(object!, def.resource, def.group, hardNames);
  if (missing.length) throw refuse(`failed quota: ${quota.metadata.name}: must specify ${missing.join(',')}`);
  const used = q.status?.used ?? {};
  if (!hardNames.every((n) => n in used)) throw refuse(`status unknown for quota: ${quota.metadata.name}`);
  const requested = Object.keys(delta).filter((n) => n in hard && delta[n] !== 0).sort();
  const next: Record<string, number> = Object.fromEntries(requested.map((n) => [n, milliOf(used[n]) + delta[n]]));
  const exceeded = requested.filter((n) => next[n] > milliOf(hard[n]));
  if (exceeded.length) {
    throw refuse(
      `exceeded quota: ${quota.metadata.name}, requested: ${pretty(exceeded, (n) => formatUsage(delta[n], hard[n]))}, used: ${pretty(exceeded, (n) => formatQuantity(milliOf(used[n]), formatOf(used[n])))}, limited: ${pretty(exceeded, (n) => formatQuantity(milliOf(hard[n]), formatOf(hard[n])))}`,
    );
  }
  return Object.fromEntries(requested.map((n) => [n, formatUsage(Math.max(0, next[n]), hard[n])]));
}

/**
 * The quotas of a namespace as the real quota accessor finds them: from the informer's cache (object-cache.ts);
 * when it holds none (or is not synced), from the store, at most once per LIVE_LOOKUP_TTL_MS per namespace (its
 * live-lookup LRU), so a quota just created through another server is not missed for long. The memory store's
 * cache is exact (its watch events arrive before the write returns): nothing to look up there.
 */
function cachedQuotasOf(ctx: ServerContext, namespace: string): KubeObject[] | 'live' | 'unsynced' {
  const listers = ctx.listers;
  const cached = listers?.resourceQuotas.list(collectionKey(STORAGE_REFS.resourceQuotas, namespace));
  if (!cached || !listers) return 'unsynced';
  if (cached.length > 0 || !sharedStorage(ctx)) return cached;
  const last = listers.quotaLiveLookups.get(namespace);
  if (last !== undefined && ctx.now().getTime() - last < LIVE_LOOKUP_TTL_MS) return cached;
  return 'live';
}

/** The store's answer, when the cache does not have one (cachedQuotasOf); a live lookup is remembered. */
async function quotasOf(ctx: ServerContext, namespace: string, live: boolean): Promise<KubeObject[]> {
  const lookups = ctx.listers?.quotaLiveLookups;
  if (live && lookups) {
    lookups.delete(namespace);
    lookups.set(namespace, ctx.now().getTime());
    if (lookups.size > 10_000) lookups.delete(lookups.keys().next().value!);
  }
  const { items } = await listStored(ctx, STORAGE_REFS.resourceQuotas, namespace, { serializable: true });
  return items.map((it) => it.value);
}

export function quotaAdmission(ctx: ServerContext): AdmissionHook {
  // Not async itself: most writes are not charged (updates of anything but Services, namespaces without quotas
  // in the cache), and those are answered without a promise.
  return (attrs) => {
    const { def, namespace, object } = attrs;
    if (!namespace || !object || def.virtual || def.computed || attrs.subresource) return;
    if (!(attrs.operation === 'CREATE' || (attrs.operation === 'UPDATE' && chargesUpdates(def.resource, def.group)))) return;
    const cached = cachedQuotasOf(ctx, namespace);
    if (Array.isArray(cached)) return cached.length === 0 ? undefined : charge(ctx, attrs, cached);
    return charge(ctx, attrs, quotasOf(ctx, namespace, cached === 'live'));
  };
}

/** Judges the request against the namespace's quotas and charges those that count it. */
async function charge(ctx: ServerContext, attrs: AdmissionAttributes, quotasOrPending: KubeObject[] | Promise<KubeObject[]>): Promise<void> {
  const { namespace } = attrs;
  const quotas = await quotasOrPending;
  if (quotas.length === 0) return;
  const delta = deltaOf(attrs);
  const charged: string[] = [];
  for (const quota of quotas.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))) {
    const after = judge(attrs, quota, delta);
    if (after && Object.keys(after).length) charged.push(quota.metadata.name!);
  }
  if (attrs.dryRun) return;
  for (const name of charged) {
    await updateStored(ctx, STORAGE_REFS.resourceQuotas, namespace, name, (cur) => {
      if (!cur) return undefined;
      const after = judge(attrs, cur.value, delta);
      if (!after || !Object.keys(after).length) return undefined;
      const next = copyJson(cur.value) as KubeObject;
      const status = next.status as { used: Record<string, string> };
      status.used = { ...status.used, ...after };
      next.metadata.resourceVersion = '0';
      return next;
    });
  }
}
