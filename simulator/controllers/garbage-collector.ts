// The garbage collector (--enable-garbage-collector, --concurrent-gc-syncs workers). Informers on every
// resource the API lets it list, watch and delete (read from discovery, events left out as in the real
// daemon) feed a graph of owner references (gc-graph.ts). Work items are object uids; a worker decides,
// from the graph and, for owners it cannot see, from a live GET:
//   - an object being deleted with the "orphan" finalizer: its owner reference is removed from every
//     dependent, then the finalizer is removed (and the server removes the object);
//   - an object being deleted with the "foregroundDeletion" finalizer: its dependents are deleted; once none
//     with blockOwnerDeletion is left, the finalizer is removed and the object goes;
//   - any other object with owner references: if an owner still exists (and is not itself waiting for its
//     dependents), references to gone or waiting owners are dropped; if none does, the object is deleted
//     (Background, or as its own finalizers ask) — this also collects dependents whose owners went while
//     the collector was not running, because every object with owners is looked at after the first sync.

import type { KubeObject, OwnerReference } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { collectionPathOf, discoverApiResources, hasVerbs, objectPathOf, resourceForKind, type ApiResource } from '../client/api-resources.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import {
  FOREGROUND_FINALIZER,
  GcGraph,
  ORPHAN_FINALIZER,
  hasFinalizer,
  isBeingDeleted,
  isDeletingDependents,
  isOrphaning,
  ownerRefsOf,
  type GraphNode,
} from './gc-graph.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';

/** Resources the real collector never watches. */
const IGNORED = new Set(['/events']);

const MERGE_PATCH = 'application/merge-patch+json';
const isStatus = (err: unknown, ...codes: number[]) => err instanceof ApiError && codes.includes(err.code);

/** Resources the collector watches: listable, watchable and deletable, one per group/resource. */
export function collectableResources(resources: readonly ApiResource[]): ApiResource[] {
  return resources.filter((r) => hasVerbs(r, 'list', 'watch', 'delete') && !IGNORED.has(`${r.group}/${r.resource}`));
}

type OwnerState = 'solid' | 'dangling' | 'waiting';

export class GarbageCollector implements Controller {
  readonly name = 'garbagecollector';
  readonly graph = new GcGraph();
  private resources: ApiResource[] = [];

  async run(ctx: ControllerContext): Promise<void> {
    const queue = new WorkQueue<string>({ name: 'garbage_collector_attempt_to_delete', metrics: ctx.metrics });
    let all: ApiResource[] | undefined;
    for (let delay = 200; !ctx.signal.aborted && !all; delay = Math.min(delay * 2, 5_000)) {
      try {
        all = await discoverApiResources(ctx.client, ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) return;
        ctx.log(`discovery failed: ${(err as Error).message}; retrying`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    if (!all) return;
    this.resources = all;
    const watched = collectableResources(all);
    ctx.log(`monitoring ${watched.length} resources: ${watched.map((r) => (r.group ? `${r.resource}.${r.group}` : r.resource)).join(', ')}`);

    const informers = watched.map((r) => {
      const path = collectionPathOf(r);
      const inf = ctx.informers.informerFor(path);
      inf.addEventHandler({
        onAdd: (obj) => this.observe(queue, path, r, obj),
        onUpdate: (_old, obj) => this.observe(queue, path, r, obj),
        onDelete: (obj) => this.forget(queue, path, obj),
      });
      return inf;
    });
    // Decisions need the whole graph: an owner missing only because its informer has not listed yet must
    // not get its dependents deleted (a live GET would catch it, but waiting saves those requests).
    for (const inf of informers) if (!(await inf.waitForSync(ctx.signal))) return;
    ctx.log(`graph synced: ${this.graph.size} objects`);
    await runWorkers(queue, ctx.options.int('--concurrent-gc-syncs'), (uid) => this.attemptToDelete(ctx, queue, uid), ctx.signal, {
      controller: this.name,
      metrics: ctx.metrics,
      log: ctx.log,
    });
  }

  /** An object was added or changed: update the graph and queue what may now need work. */
  private observe(queue: WorkQueue<string>, path: string, resource: ApiResource, obj: KubeObject): void {
    const uid = obj.metadata.uid;
    if (!uid) return;
    const old = this.graph.upsert(path, resource, obj);
    if (ownerRefsOf(obj).length > 0 || isOrphaning(obj) || isDeletingDependents(obj)) queue.add(uid);
    // An owner entering foreground deletion: its dependents are looked at (they will be deleted).
    if (isDeletingDependents(obj) && !(old && isDeletingDependents(old))) for (const d of this.graph.dependentsOf(uid)) queue.add(d.uid);
    // A dependent that changed its owners or started to go may unblock owners waiting for it.
    for (const r of [...ownerRefsOf(obj), ...(old ? ownerRefsOf(old) : [])]) {
      const owner = this.graph.get(r.uid);
      if (owner && isDeletingDependents(owner.object)) queue.add(owner.uid);
    }
  }

  /** An object went: its dependents may now be garbage, and owners waiting for it may go. */
  private forget(queue: WorkQueue<string>, path: string, obj: KubeObject): void {
    const node = this.graph.remove(path, obj);
    if (!node) return;
    for (const d of this.graph.dependentsOf(node.uid)) queue.add(d.uid);
    for (const r of ownerRefsOf(node.object)) {
      const owner = this.graph.get(r.uid);
      if (owner && isDeletingDependents(owner.object)) queue.add(owner.uid);
    }
  }

  private async attemptToDelete(ctx: ControllerContext, queue: WorkQueue<string>, uid: string): Promise<void> {
    const node = this.graph.get(uid);
    if (!node) return;
    const obj = node.object;
    if (isBeingDeleted(obj)) {
      if (hasFinalizer(obj, ORPHAN_FINALIZER)) return this.orphanDependents(ctx, node);
      if (hasFinalizer(obj, FOREGROUND_FINALIZER)) return this.processDeletingDependents(ctx, queue, node);
      return;
    }
    const refs = ownerRefsOf(obj);
    if (refs.length === 0) return;
    const states = new Map<string, OwnerState>();
    for (const ref of refs) states.set(ref.uid, await this.ownerState(ctx, obj, ref));
    const solid = refs.filter((r) => states.get(r.uid) === 'solid');
    const waiting = refs.filter((r) => states.get(r.uid) === 'waiting');
    if (solid.length > 0) {
      // Kept by a live owner; references to owners that are gone or waiting for their dependents are dropped.
      if (solid.length < refs.length) await this.removeOwnerRefs(ctx, node, new Set(refs.filter((r) => states.get(r.uid) !== 'solid').map((r) => r.uid)));
      return;
    }
    // No live owner: the object is garbage. With an owner waiting for it and dependents of its own, it is
    // deleted in the foreground too, so that the wait extends down the chain.
    let policy: 'Background' | 'Foreground' | 'Orphan' = 'Background';
    if (waiting.length > 0 && this.graph.dependentsOf(uid).length > 0) policy = 'Foreground';
    else if (hasFinalizer(obj, ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (hasFinalizer(obj, FOREGROUND_FINALIZER)) policy = 'Foreground';
    ctx.log(`deleting ${describe(node)} (owners gone or being deleted), propagation ${policy}`);
    await this.deleteObject(ctx, node, policy);
  }

  /** Whether an owner exists (solid), is gone or was replaced (dangling), or waits for its dependents. */
  private async ownerState(ctx: ControllerContext, dependent: KubeObject, ref: OwnerReference): Promise<OwnerState> {
    const known = this.graph.get(ref.uid);
    if (known) return isDeletingDependents(known.object) ? 'waiting' : 'solid';
    const resource = resourceForKind(this.resources, ref.apiVersion, ref.kind);
    if (!resource) {
      // Cannot be looked up: never delete on a guess.
      ctx.log(`owner ${ref.kind} ${ref.name} (${ref.apiVersion}) of ${dependent.metadata.namespace ?? ''}/${dependent.metadata.name}: kind not served; kept`);
      return 'solid';
    }
    try {
      const owner = await ctx.client.get(objectPathOf(resource, ref.name, dependent.metadata.namespace), undefined, ctx.signal);
      if (owner.metadata.uid !== ref.uid) return 'dangling';
      return isDeletingDependents(owner) ? 'waiting' : 'solid';
    } catch (err) {
      if (isStatus(err, 404)) return 'dangling';
      throw err;
    }
  }

  /** Orphan: every dependent loses its reference to the owner, then the owner loses its "orphan" finalizer. */
  private async orphanDependents(ctx: ControllerContext, owner: GraphNode): Promise<void> {
    for (const d of this.graph.dependentsOf(owner.uid)) await this.removeOwnerRefs(ctx, d, new Set([owner.uid]));
    await this.removeFinalizer(ctx, owner, ORPHAN_FINALIZER);
  }

  /** Foreground: dependents are deleted; the owner's finalizer goes once no blocking dependent is left. */
  private async processDeletingDependents(ctx: ControllerContext, queue: WorkQueue<string>, owner: GraphNode): Promise<void> {
    for (const d of this.graph.dependentsOf(owner.uid)) if (!isBeingDeleted(d.object)) queue.add(d.uid);
    if (this.graph.blockingDependentsOf(owner.uid).length > 0) return; // re-queued when one of them changes or goes
    await this.removeFinalizer(ctx, owner, FOREGROUND_FINALIZER);
  }

  /** Read-modify-write (merge patch carrying the resourceVersion read) of an object's metadata. */
  private async patchMeta(ctx: ControllerContext, node: GraphNode, change: (obj: KubeObject) => Record<string, unknown> | undefined): Promise<void> {
    const path = objectPathOf(node.resource, node.object.metadata.name!, node.object.metadata.namespace);
    for (let attempt = 0; ; attempt++) {
      let cur: KubeObject;
      try {
        cur = await ctx.client.get(path, undefined, ctx.signal);
      } catch (err) {
        if (isStatus(err, 404)) return;
        throw err;
      }
      if (cur.metadata.uid !== node.uid) return; // replaced by a namesake
      const metadata = change(cur);
      if (!metadata) return;
      try {
        await ctx.client.patch(path, { metadata: { ...metadata, resourceVersion: cur.metadata.resourceVersion } }, MERGE_PATCH, ctx.signal);
        return;
      } catch (err) {
        if (isStatus(err, 404)) return;
        if (isStatus(err, 409) && attempt < 5) continue;
        throw err;
      }
    }
  }

  private removeOwnerRefs(ctx: ControllerContext, node: GraphNode, uids: ReadonlySet<string>): Promise<void> {
    return this.patchMeta(ctx, node, (cur) => {
      const refs = ownerRefsOf(cur);
      const kept = refs.filter((r) => !uids.has(r.uid));
      if (kept.length === refs.length) return undefined;
      return { ownerReferences: kept.length > 0 ? kept : null };
    });
  }

  private removeFinalizer(ctx: ControllerContext, node: GraphNode, finalizer: string): Promise<void> {
    return this.patchMeta(ctx, node, (cur) => {
      if (!hasFinalizer(cur, finalizer)) return undefined;
      ctx.log(`removing finalizer ${finalizer} from ${describe(node)}`);
      return { finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer) };
    });
  }

  private async deleteObject(ctx: ControllerContext, node: GraphNode, policy: string): Promise<void> {
    const path = objectPathOf(node.resource, node.object.metadata.name!, node.object.metadata.namespace);
    try {
      await ctx.client.delete(path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy, preconditions: { uid: node.uid } }, ctx.signal);
    } catch (err) {
      // Gone already, or the name now belongs to another object (uid precondition).
      if (isStatus(err, 404, 409)) return;
      throw err;
    }
  }
}

function describe(node: GraphNode): string {
  const m = node.object.metadata;
  return `${node.resource.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name} (${node.uid})`;
}

export const garbageCollector = (): Controller => new GarbageCollector();
