// The namespace controller (--concurrent-namespace-syncs workers, --namespace-sync-period resync): when a
// namespace is terminating (deletionTimestamp set, "kubernetes" in spec.finalizers) it deletes every object
// in it, across every namespaced resource the API serves (read from discovery, so kinds it has never heard
// of are covered too), waits until they are gone (objects held by finalizers may linger until those go),
// then removes "kubernetes" through PUT .../finalize, after which the API server removes the namespace.
// Like the real one it reads the namespace's content with live lists, not caches: a namespace must never be
// finalized while an object the cache has not seen yet is still in it.

import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { ApiResourceCache, collectionPathOf, hasVerbs, objectPathOf, type ApiResource } from '../client/api-resources.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { every } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const NAMESPACE_FINALIZER = 'kubernetes';
const BACKGROUND = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };

/** Content is still in the namespace: check again after a short wait (not an error, so no error backoff). */
class ContentRemaining extends Error {
  constructor(readonly count: number) {
    super(`${count} object(s) remaining`);
  }
}

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string };
}

const isGone = (err: unknown) => err instanceof ApiError && err.code === 404;
/** The resource went away from the API (404/405): discovery is stale. */
const isUnserved = (err: unknown) => err instanceof ApiError && (err.code === 404 || err.code === 405);

export function isTerminatingWithContentFinalizer(ns: KubeObject): boolean {
  return !!ns.metadata.deletionTimestamp && ((ns as Namespace).spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER);
}

/** Resources the controller empties: namespaced, listable and deletable (as a collection or one by one). */
export function deletableNamespacedResources(resources: readonly ApiResource[]): ApiResource[] {
  return resources.filter((r) => r.namespaced && hasVerbs(r, 'list') && (hasVerbs(r, 'deletecollection') || hasVerbs(r, 'delete')));
}

async function listAll(ctx: ControllerContext, path: string): Promise<KubeObject[]> {
  const items: KubeObject[] = [];
  let cont: string | undefined;
  do {
    const page = await ctx.client.list(path, { limit: 500, continue: cont }, ctx.signal);
    items.push(...(page.items ?? []));
    cont = page.metadata?.continue || undefined;
  } while (cont);
  return items;
}

export class NamespaceController implements Controller {
  readonly name = 'namespace';

  async run(ctx: ControllerContext): Promise<void> {
    const discovery = new ApiResourceCache(ctx.client, 30_000);
    const queue = new WorkQueue<string>({ name: 'namespace', metrics: ctx.metrics });
    // Per namespace: how many times content was found remaining, to space the re-checks.
    const waits = new Map<string, number>();
    const informer = ctx.informers.informerFor(RESOURCE.namespaces.collection());
    const consider = (obj: KubeObject) => {
      if (isTerminatingWithContentFinalizer(obj)) queue.add(obj.metadata.name!);
    };
    informer.addEventHandler({ onAdd: consider, onUpdate: (_old, obj) => consider(obj), onDelete: (obj) => waits.delete(obj.metadata.name!) });
    // --namespace-sync-period: every terminating namespace is looked at again, whatever the watch said.
    const period = ctx.options.durationMs('--namespace-sync-period');
    const stopResync = every(period, ctx.signal, () => informer.list().forEach(consider));

    const reconcile = async (name: string) => {
      try {
        await this.sync(ctx, discovery, name);
        waits.delete(name);
      } catch (err) {
        if (!(err instanceof ContentRemaining)) throw err;
        const n = waits.get(name) ?? 0;
        waits.set(name, n + 1);
        queue.addAfter(name, Math.min(100 * 2 ** n, 2_000));
      }
    };
    try {
      await runWorkers(queue, ctx.options.int('--concurrent-namespace-syncs'), reconcile, ctx.signal, { controller: this.name, metrics: ctx.metrics, log: ctx.log });
    } finally {
      stopResync();
    }
  }

  /** One pass over a namespace: delete what is in it; finalize when nothing is left. */
  async sync(ctx: ControllerContext, discovery: ApiResourceCache, name: string): Promise<void> {
    const nsPath = RESOURCE.namespaces.named(name);
    let ns: Namespace;
    try {
      ns = await ctx.client.get<Namespace>(nsPath, undefined, ctx.signal);
    } catch (err) {
      if (isGone(err)) return;
      throw err;
    }
    if (!isTerminatingWithContentFinalizer(ns)) return;
    const remaining = await this.deleteContent(ctx, discovery, name);
    if (remaining > 0) throw new ContentRemaining(remaining);
    await this.finalize(ctx, nsPath, name);
    ctx.log(`namespace ${name}: empty, finalized`);
  }

  /** Deletes everything in the namespace; returns how many objects are still there afterwards. */
  private async deleteContent(ctx: ControllerContext, discovery: ApiResourceCache, namespace: string): Promise<number> {
    const resources = deletableNamespacedResources(await discovery.get(ctx.signal));
    // Kinds served by two groups (deployments in apps and extensions) share their objects: count each uid once
    // and do not delete through the second group what the first already deleted.
    const seen = new Set<string>();
    const deletedThrough: ApiResource[] = [];
    for (const r of resources) {
      const path = collectionPathOf(r, namespace);
      let items: KubeObject[];
      try {
        items = await listAll(ctx, path);
      } catch (err) {
        if (isUnserved(err)) {
          discovery.invalidate();
          continue;
        }
        throw err;
      }
      const live = items.filter((o) => !seen.has(o.metadata.uid ?? '') && !o.metadata.deletionTimestamp);
      for (const o of items) seen.add(o.metadata.uid ?? `${r.group}/${r.resource}/${o.metadata.name}`);
      if (items.length > 0) deletedThrough.push(r);
      if (live.length === 0) continue;
      if (hasVerbs(r, 'deletecollection')) {
        await ctx.client.delete(path, BACKGROUND, ctx.signal);
      } else {
        for (const o of live) {
          try {
            await ctx.client.delete(objectPathOf(r, o.metadata.name!, namespace), { ...BACKGROUND, preconditions: { uid: o.metadata.uid } }, ctx.signal);
          } catch (err) {
            if (!isGone(err) && !(err instanceof ApiError && err.code === 409)) throw err;
          }
        }
      }
    }
    // What is left: objects still draining (finalizers, grace periods). Only resources that had content.
    const left = new Set<string>();
    for (const r of deletedThrough) {
      try {
        for (const o of await listAll(ctx, collectionPathOf(r, namespace))) left.add(o.metadata.uid ?? `${r.group}/${r.resource}/${o.metadata.name}`);
      } catch (err) {
        if (!isUnserved(err)) throw err;
      }
    }
    return left.size;
  }

  /** PUT .../finalize with "kubernetes" taken out of spec.finalizers (re-read and retried on conflicts). */
  private async finalize(ctx: ControllerContext, nsPath: string, _name: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      let ns: Namespace;
      try {
        ns = await ctx.client.get<Namespace>(nsPath, undefined, ctx.signal);
      } catch (err) {
        if (isGone(err)) return;
        throw err;
      }
      const finalizers = ns.spec?.finalizers ?? [];
      if (!finalizers.includes(NAMESPACE_FINALIZER)) return;
      const body: Namespace = { ...ns, apiVersion: 'v1', kind: 'Namespace', spec: { ...ns.spec, finalizers: finalizers.filter((f) => f !== NAMESPACE_FINALIZER) } };
      try {
        await ctx.client.request('PUT', `${nsPath}/finalize`, { body, signal: ctx.signal });
        return;
      } catch (err) {
        if (isGone(err)) return;
        if (err instanceof ApiError && err.code === 409 && attempt < 5) continue;
        throw err;
      }
    }
  }
}

export const namespaceController = (): Controller => new NamespaceController();
