// The resourcequota controller (1.9 pkg/controller/resourcequota): for every ResourceQuota it writes
// status.hard (a copy of spec.hard) and status.used: for each name in hard that an evaluator tracks, the summed
// usage (api/quota-usage.ts, the same counting the API server's quota admission does) of the objects in the
// quota's namespace that its scopes select. Object counts: pods, services, replicationcontrollers, secrets,
// configmaps, resourcequotas, persistentvolumeclaims, services.loadbalancers, services.nodeports and
// `count/<resource>[.<group>]` of any namespaced resource the API serves (informers started on demand, the
// preferred version of the group read from discovery; 0 while the API does not serve the resource); compute
// resources of non-terminal pods. Names no evaluator tracks keep what status.used had (absent stays absent, as in
// the real controller).
//
// When: a quota is queued when it is added, when its spec.hard changes (or differs from status.hard), when a
// counted object is deleted or changes its usage (a pod going terminal, a Service changing type), and every
// --resource-quota-sync-period for a full recount (the only thing that corrects a status.used edited by hand or
// a charge admission made for a create that then failed). Creates are not followed: admission charged them.
// Quotas whose status lacks hard or used for a name of spec.hard go to a second queue served first by its own
// workers, as the real "missing usage" queue; each queue has --concurrent-resource-quota-syncs workers.
// Writes are PUTs of /status carrying the resourceVersion the usage was computed against: a 409 (admission
// charged a create in between) computes again from the fresh quota.

import { parseApiVersion, type KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { formatUsage, matchesScopes, resourceOfName, tracks, usageOf } from '../api/quota-usage.ts';
import { isConflict, isNotFound } from './kit/workload-util.ts';
import { isDeepStrictEqual } from 'node:util';
import { RESOURCE, groupPath, groupVersionPath } from '../client/resource-paths.ts';
import { resourcePath } from '../client/api-client.ts';

interface QuotaView {
  spec?: { hard?: Record<string, string>; scopes?: string[] };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/** Makes the handler that queues a namespace's quotas tracking a resource. */
type Replenish = (resource: string, group: string) => (obj: KubeObject) => void;

const view = (q: KubeObject) => q as unknown as QuotaView;
const rKey = (resource: string, group: string) => `${resource}.${group}`;

/** The core kinds the real controller always watches (its replenishment informers). */
const CORE = ['pods', 'services', 'replicationcontrollers', 'persistentvolumeclaims', 'secrets', 'configmaps', 'resourcequotas'];
const DISCOVERY_TTL_MS = 30_000;

/** Whether the quota's status is complete for its spec (hard copied, a used value for every hard name). */
export function hasUsageStats(q: KubeObject): boolean {
  const { spec, status } = view(q);
  if (!isDeepStrictEqual(spec?.hard ?? {}, status?.hard ?? {})) return false;
  return Object.keys(status?.hard ?? {}).every((n) => n in (status?.used ?? {}));
}

export class ResourceQuotaController implements Controller {
  readonly name = 'resourcequota';
  /** Informers of counted resources by "<resource>.<group>". */
  private readonly counted = new Map<string, Informer>();
  /** Group → preferred version and the namespaced resources it serves (discovery, kept 30 s). */
  private discovery = new Map<string, { version: string; resources: Set<string> } | null>();
  private discoveryAt = 0;

  async run(ctx: ControllerContext): Promise<void> {
    const workers = Math.max(1, ctx.options.int('--concurrent-resource-quota-syncs'));
    const periodMs = ctx.options.durationMs('--resource-quota-sync-period');
    const quotas = ctx.informers.informerFor(RESOURCE.resourceQuotas.collection());
    const queue = new WorkQueue<string>({ name: 'resourcequota_primary', metrics: ctx.metrics });
    const missing = new WorkQueue<string>({ name: 'resourcequota_priority', metrics: ctx.metrics });
    const enqueue = (q: KubeObject) => (hasUsageStats(q) ? queue : missing).add(keyOf(q));
    quotas.addEventHandler({
      onAdd: enqueue,
      // Only spec changes drive a recount (admission's own status writes must not: they are what it counts).
      onUpdate: (o, q) => {
        const [a, b] = [view(o).spec, view(q).spec];
        if (!isDeepStrictEqual(a?.hard, b?.hard) || !isDeepStrictEqual(a?.scopes, b?.scopes) || !hasUsageStats(q)) enqueue(q);
      },
    });
    /** Queues the quotas of the object's namespace that track something of this resource. */
    const replenish = (resource: string, group: string) => (obj: KubeObject) => {
      for (const q of quotas.list()) {
        if (q.metadata.namespace !== obj.metadata.namespace) continue;
        if (Object.keys(view(q).spec?.hard ?? {}).some((n) => tracks(n, resource, group))) queue.add(keyOf(q));
      }
    };
    // Only what the API serves (PersistentVolumeClaims may not be); others are looked up when a quota names them.
    for (const r of CORE) {
      const path = await this.pathOf(ctx, r, '');
      if (path) this.watch(ctx, r, '', path, replenish);
    }
    if (!(await quotas.waitForSync(ctx.signal))) return;
    for (const inf of this.counted.values()) if (!(await inf.waitForSync(ctx.signal))) return;
    ctx.log(`resourcequota: ${workers} worker(s) per queue, full resync every ${periodMs} ms`);
    const timer = periodMs > 0 ? setInterval(() => quotas.list().forEach((q) => queue.add(keyOf(q))), periodMs) : undefined;
    ctx.signal.addEventListener('abort', () => clearInterval(timer), { once: true });
    const sync = (key: string) => this.sync(ctx, key, quotas, replenish, (k) => queue.addAfter(k, 100));
    const opts = { controller: this.name, metrics: ctx.metrics, log: ctx.log };
    await Promise.all([runWorkers(queue, workers, sync, ctx.signal, opts), runWorkers(missing, workers, sync, ctx.signal, opts)]);
    clearInterval(timer);
  }

  private watch(ctx: ControllerContext, resource: string, group: string, path: string, replenish: Replenish): Informer {
    const inf = ctx.informers.informerFor(path);
    const onChange = replenish(resource, group);
    inf.addEventHandler({
      onDelete: onChange,
      // A change of usage (a pod going terminal, a Service changing type) gives back or takes; creates were
      // charged by admission and are not followed.
      onUpdate: (o, n) => {
        if (o !== n && !isDeepStrictEqual(usageOf(o, resource, group), usageOf(n, resource, group))) onChange(n);
      },
    });
    this.counted.set(rKey(resource, group), inf);
    return inf;
  }

  /** The collection path of a namespaced resource of a group, from discovery; undefined when not served. */
  private async pathOf(ctx: ControllerContext, resource: string, group: string): Promise<string | undefined> {
    if (Date.now() - this.discoveryAt > DISCOVERY_TTL_MS) {
      this.discovery = new Map();
      this.discoveryAt = Date.now();
    }
    if (!this.discovery.has(group)) {
      try {
        let version = 'v1';
        if (group) {
          const g = (await ctx.client.request<{ preferredVersion?: { groupVersion?: string } }>('GET', groupPath(group), { signal: ctx.signal })).body;
          if (!g.preferredVersion?.groupVersion) throw new Error(`discovery of ${group}: no preferred version`);
          version = parseApiVersion(g.preferredVersion.groupVersion).version;
        }
        const base = groupVersionPath(group, version);
        const list = (await ctx.client.request<{ resources?: Array<{ name?: string; namespaced?: boolean; verbs?: string[] }> }>('GET', base, { signal: ctx.signal })).body;
        const resources = new Set((list.resources ?? []).filter((r) => r.name && !r.name.includes('/') && r.namespaced && (r.verbs ?? []).includes('list') && (r.verbs ?? []).includes('watch')).map((r) => r.name!));
        this.discovery.set(group, { version, resources });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        this.discovery.set(group, null);
      }
    }
    const d = this.discovery.get(group);
    return d && d.resources.has(resource) ? resourcePath({ group, version: d.version, resource }) : undefined;
  }

  async sync(ctx: ControllerContext, key: string, quotas: Informer, replenish: Replenish, requeue: (key: string) => void): Promise<void> {
    const q = quotas.get(key);
    if (!q) return;
    const ns = q.metadata.namespace ?? '';
    const hard = { ...(view(q).spec?.hard ?? {}) };
    const scopes = view(q).spec?.scopes ?? [];
    const oldUsed = view(q).status?.used ?? {};
    // Which resources the hard names count, and their objects.
    const byResource = new Map<string, { resource: string; group: string }>();
    for (const n of Object.keys(hard)) {
      const r = resourceOfName(n);
      if (r) byResource.set(rKey(r.resource, r.group), r);
    }
    const sums: Record<string, number> = {};
    const known = new Set<string>();
    const now = Date.now();
    for (const [k, { resource, group }] of byResource) {
      let inf = this.counted.get(k);
      if (!inf) {
        const path = await this.pathOf(ctx, resource, group);
        if (!path) continue; // not served: counted 0 below
        inf = this.watch(ctx, resource, group, path, replenish);
        if (!(await inf.waitForSync(ctx.signal))) return;
      }
      const names = Object.keys(hard).filter((n) => tracks(n, resource, group));
      for (const n of names) {
        known.add(n);
        sums[n] ??= 0;
      }
      for (const obj of inf.list()) {
        if (obj.metadata.namespace !== ns || !matchesScopes(obj, resource, group, scopes)) continue;
        const u = usageOf(obj, resource, group, now);
        for (const n of names) sums[n] += u[n] ?? 0;
      }
    }
    const used: Record<string, string> = {};
    for (const n of Object.keys(hard)) {
      if (known.has(n)) used[n] = formatUsage(sums[n], hard[n]);
      // A resource the API does not serve (yet): nothing of it can exist.
      else if (resourceOfName(n)) used[n] = '0';
      else if (n in oldUsed) used[n] = oldUsed[n];
    }
    const status = { hard, used };
    if (isDeepStrictEqual(view(q).status ?? {}, status)) return;
    try {
      await ctx.client.update(RESOURCE.resourceQuotas.of(q, 'status'), { ...q, apiVersion: 'v1', kind: 'ResourceQuota', status }, ctx.signal);
    } catch (err) {
      if (isNotFound(err)) return;
      // Admission charged a create (or the spec changed) since the cached copy: compute again from the fresh one.
      if (isConflict(err)) return requeue(key);
      throw err;
    }
  }
}

export const resourceQuotaController = (): Controller => new ResourceQuotaController();
