// The garbage collector's picture of the cluster: every object of every watched resource, keyed by uid,
// with its owner references and the reverse index (owner uid -> dependent uids). An owner that is not
// (or no longer) in the graph still keeps its dependents index, so that they can be found and collected.
// Kinds served by two groups (deployments in apps and extensions) reach the graph through two informers
// with the same uid: a node stays while any informer still has the object.

import type { KubeObject, OwnerReference } from '../api/meta.ts';
import type { ApiResource } from '../client/api-resources.ts';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface GraphNode {
  uid: string;
  /** The latest object seen by any informer. */
  object: KubeObject;
  /** Where to read, patch and delete it (the first resource it was seen through). */
  resource: ApiResource;
  /** Informer paths currently holding the object. */
  sources: Set<string>;
}

export const ownerRefsOf = (obj: KubeObject): OwnerReference[] => obj.metadata.ownerReferences ?? [];
export const hasFinalizer = (obj: KubeObject, f: string) => (obj.metadata.finalizers ?? []).includes(f);
export const isBeingDeleted = (obj: KubeObject) => !!obj.metadata.deletionTimestamp;
/** The owner is in foreground deletion: it waits for its dependents before it goes. */
export const isDeletingDependents = (obj: KubeObject) => isBeingDeleted(obj) && hasFinalizer(obj, FOREGROUND_FINALIZER);
export const isOrphaning = (obj: KubeObject) => isBeingDeleted(obj) && hasFinalizer(obj, ORPHAN_FINALIZER);

export class GcGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** Uids of the objects that name `ownerUid` among their owners (present in the graph). */
  dependentsOf(ownerUid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const d of this.dependents.get(ownerUid) ?? []) {
      const n = this.nodes.get(d);
      if (n && ownerRefsOf(n.object).some((r) => r.uid === ownerUid)) out.push(n);
    }
    return out;
  }

  /** Dependents that hold up a foreground deletion of the owner (blockOwnerDeletion: true). */
  blockingDependentsOf(ownerUid: string): GraphNode[] {
    return this.dependentsOf(ownerUid).filter((n) => ownerRefsOf(n.object).some((r) => r.uid === ownerUid && r.blockOwnerDeletion === true));
  }

  /** Records an added or updated object; returns the previous object, if any. */
  upsert(source: string, resource: ApiResource, obj: KubeObject): KubeObject | undefined {
    const uid = obj.metadata.uid;
    if (!uid) return undefined;
    const node = this.nodes.get(uid);
    const old = node?.object;
    if (node) {
      node.object = obj;
      node.sources.add(source);
    } else {
      this.nodes.set(uid, { uid, object: obj, resource, sources: new Set([source]) });
    }
    if (old) for (const r of ownerRefsOf(old)) this.dependents.get(r.uid)?.delete(uid);
    for (const r of ownerRefsOf(obj)) {
      let set = this.dependents.get(r.uid);
      if (!set) this.dependents.set(r.uid, (set = new Set()));
      set.add(uid);
    }
    return old;
  }

  /** An informer saw the object go; returns the node when no informer holds it any more. */
  remove(source: string, obj: KubeObject): GraphNode | undefined {
    const uid = obj.metadata.uid;
    const node = uid ? this.nodes.get(uid) : undefined;
    if (!node) return undefined;
    node.sources.delete(source);
    if (node.sources.size > 0) return undefined;
    this.nodes.delete(node.uid);
    for (const r of ownerRefsOf(node.object)) {
      const set = this.dependents.get(r.uid);
      set?.delete(node.uid);
      if (set && set.size === 0) this.dependents.delete(r.uid);
    }
    return node;
  }

  nodesList(): GraphNode[] {
    return [...this.nodes.values()];
  }
}
