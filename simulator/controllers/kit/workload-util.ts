// What the workload controllers (replicaset, replicationcontroller, deployment, daemonset, job, cronjob,
// endpoints, podgc) share, after client-go's controller utilities: pod states (active, ready, available after
// minReadySeconds), label selectors, controller references, pods made from a template, "expectations" (how
// many creates and deletes a controller still waits to see in its caches, so that a lagging cache never makes
// it create or delete twice), conditions that keep their transition time, and status writes as merge patches.

import type { EventHandler } from '../../client/informer.ts';
import type { KubeObject, OwnerReference } from '../../api/meta.ts';
import { matchesRequirements, requirementsOf, type LabelSelector } from '../../api/labels.ts';
import { ApiError, type ApiClient } from '../../client/api-client.ts';
import type { Condition, PodStatus } from '../../api/types/index.ts';
import { copyJson } from '../../util/json-value.ts';

export type Obj = Record<string, unknown>;

/** A pod's status (api/types). */
export type PodStatusView = PodStatus;

export const statusOf = (pod: KubeObject): PodStatusView => (pod.status ?? {}) as PodStatusView;
export const specOf = <T = Obj>(obj: KubeObject): T => (obj.spec ?? {}) as T;

/** Whole-second RFC 3339 UTC. */
export const rfc3339 = (d: Date = new Date()): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const isTerminated = (pod: KubeObject) => statusOf(pod).phase === 'Succeeded' || statusOf(pod).phase === 'Failed';
/** Counts toward replicas: not finished and not being deleted (controller.IsPodActive). */
export const isPodActive = (pod: KubeObject) => !isTerminated(pod) && !pod.metadata.deletionTimestamp;

export function readySince(pod: KubeObject): number | undefined {
  const c = (statusOf(pod).conditions ?? []).find((x) => x.type === 'Ready');
  if (c?.status !== 'True') return undefined;
  return Date.parse(c.lastTransitionTime ?? '') || 0;
}

export const isPodReady = (pod: KubeObject) => readySince(pod) !== undefined;

/** Ready for at least minReadySeconds (podutil.IsPodAvailable). */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now = Date.now()): boolean {
  const since = readySince(pod);
  if (since === undefined) return false;
  return minReadySeconds <= 0 || since + minReadySeconds * 1000 <= now;
}

/** ms until a ready pod becomes available, or undefined when it already is or is not ready. */
export function msUntilAvailable(pod: KubeObject, minReadySeconds: number, now = Date.now()): number | undefined {
  const since = readySince(pod);
  if (since === undefined || minReadySeconds <= 0) return undefined;
  const at = since + minReadySeconds * 1000;
  return at > now ? at - now : undefined;
}

/** A nil selector selects nothing; an empty one everything (metav1.LabelSelectorAsSelector). */
export function selectorMatches(selector: LabelSelector | undefined | null, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  return matchesRequirements(requirementsOf(selector), labels);
}

export const controllerRefOf = (obj: KubeObject): OwnerReference | undefined => (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true);

export function ownerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}


interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Obj;
}

/** A pod made from a template, owned by its controller (controller.GetPodFromTemplate). */
export function podFromTemplate(
  template: PodTemplate | undefined,
  owner: KubeObject,
  ref: OwnerReference,
  extra: { generateName?: string; labels?: Record<string, string>; nodeName?: string } = {},
): KubeObject {
  const spec = copyJson(template?.spec ?? {}) as Obj;
  if (extra.nodeName) spec.nodeName = extra.nodeName;
  const labels = { ...template?.metadata?.labels, ...extra.labels };
  const annotations = template?.metadata?.annotations;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: extra.generateName ?? `${owner.metadata.name}-`,
      namespace: owner.metadata.namespace ?? 'default',
      ...(Object.keys(labels).length ? { labels } : {}),
      ...(annotations && Object.keys(annotations).length ? { annotations: { ...annotations } } : {}),
      ownerReferences: [ref],
    },
    spec,
  };
}

export const isNotFound = (err: unknown) => err instanceof ApiError && err.code === 404;
export const isConflict = (err: unknown) => err instanceof ApiError && err.code === 409;

/** Creates; a 403 (the namespace is terminating) is not retried. Returns the created object or undefined. */
export async function createIn<T extends KubeObject>(client: ApiClient, path: string, obj: T, signal?: AbortSignal): Promise<T | undefined> {
  try {
    return await client.create<T>(path, obj, signal);
  } catch (err) {
    // A namespace being deleted refuses new content: nothing to do. Any other refusal (a quota's 403) is a failed
    // create the controller reports (FailedCreate event, ReplicaFailure condition), as 1.9's controllers do.
    if (err instanceof ApiError && err.code === 403 && /being terminated/.test(err.status?.message ?? '')) return undefined;
    throw err;
  }
}

/** Deletes an object, treating "already gone" as done. Background propagation, uid precondition when known. */
export async function deleteObject(client: ApiClient, path: string, uid?: string, signal?: AbortSignal, propagationPolicy = 'Background'): Promise<boolean> {
  try {
    await client.delete(path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy, ...(uid ? { preconditions: { uid } } : {}) }, signal);
    return true;
  } catch (err) {
    if (isNotFound(err) || isConflict(err)) return false;
    throw err;
  }
}

/**
 * Writes a status as a merge patch of the status subresource. Fields the old status had and the new one
 * lacks are sent as null, so that zero counts vanish as Go's omitempty makes them vanish.
 * Returns undefined when nothing changed or the object is gone.
 */
export async function writeStatus<T extends KubeObject>(
  client: ApiClient,
  /** The object's status subresource path. */
  statusPath: string,
  oldStatus: Obj | undefined,
  status: Obj,
  signal?: AbortSignal,
  resourceVersion?: string,
): Promise<T | undefined> {
  const patch: Obj = { ...status };
  for (const k of Object.keys(oldStatus ?? {})) if (!(k in status)) patch[k] = null;
  if (JSON.stringify(sortKeys(oldStatus ?? {})) === JSON.stringify(sortKeys(status))) return undefined;
  // The status was computed from a cached copy: with its resourceVersion as a precondition, a write that
  // someone else made in between (a condition set through /status) is not overwritten; the 409 sends the
  // key back to the queue to be computed again from the fresh object, as the real controllers' updates do.
  const body: Obj = resourceVersion ? { metadata: { resourceVersion }, status: patch } : { status: patch };
  try {
    return await client.patch<T>(statusPath, body, 'application/merge-patch+json', signal);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v as Obj).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sortKeys(x)]));
  return v;
}

/** Drops zero and empty values, as Go's omitempty does when the status is encoded. */
export function omitEmpty(status: Obj): Obj {
  return Object.fromEntries(
    Object.entries(status).filter(([, v]) => v !== 0 && v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0)),
  );
}

export type { Condition };

/** Sets a condition; the transition time stays when the status did not change. */
export function setCondition(conditions: Condition[] | undefined, c: Condition, opts: { updateTime?: boolean } = {}): Condition[] {
  const now = rfc3339();
  const list = [...(conditions ?? [])];
  const i = list.findIndex((x) => x.type === c.type);
  const old = i >= 0 ? list[i] : undefined;
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return list;
  const next: Condition = {
    type: c.type,
    status: c.status,
    ...(opts.updateTime ? { lastUpdateTime: now } : {}),
    lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now,
    ...(c.reason ? { reason: c.reason } : {}),
    ...(c.message ? { message: c.message } : {}),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

export const conditionOf = (conditions: Condition[] | undefined, type: string) => (conditions ?? []).find((c) => c.type === type);

/**
 * How many pod creations and deletions a controller (by key) has asked for and not yet seen in its informer
 * (client-go's ControllerExpectations). Until they are seen, or 5 minutes pass, the controller must not
 * compute replicas from its caches again.
 */
export class Expectations {
  private readonly pending = new Map<string, { adds: number; dels: Set<string>; at: number }>();
  constructor(private readonly ttlMs = 5 * 60_000) {}

  satisfied(key: string): boolean {
    const e = this.pending.get(key);
    if (!e) return true;
    if ((e.adds <= 0 && e.dels.size === 0) || Date.now() - e.at > this.ttlMs) {
      this.pending.delete(key);
      return true;
    }
    return false;
  }

  expectCreations(key: string, n: number): void {
    const e = this.pending.get(key) ?? { adds: 0, dels: new Set<string>(), at: 0 };
    e.adds += n;
    e.at = Date.now();
    this.pending.set(key, e);
  }

  expectDeletion(key: string, podKey: string): void {
    const e = this.pending.get(key) ?? { adds: 0, dels: new Set<string>(), at: 0 };
    e.dels.add(podKey);
    e.at = Date.now();
    this.pending.set(key, e);
  }

  creationObserved(key: string): void {
    const e = this.pending.get(key);
    if (e) e.adds--;
  }

  deletionObserved(key: string, podKey: string): void {
    this.pending.get(key)?.dels.delete(podKey);
  }

  forget(key: string): void {
    this.pending.delete(key);
  }
}

/**
 * Handlers for the pods a controller owns: each add, deletion start and delete counts against the owner's
 * expectations and syncs the owner again.
 */
export function ownedPodHandler(
  ownerKey: (pod: KubeObject) => string | undefined,
  expectations: Expectations,
  enqueue: (key: string) => void,
  podKey: (pod: KubeObject) => string,
): EventHandler {
  return {
    onAdd: (p) => {
      const k = ownerKey(p);
      if (!k) return;
      expectations.creationObserved(k);
      enqueue(k);
    },
    onUpdate: (old, p) => {
      const k = ownerKey(p);
      if (!k) return;
      if (p.metadata.deletionTimestamp && !old.metadata.deletionTimestamp) expectations.deletionObserved(k, podKey(p));
      enqueue(k);
    },
    onDelete: (p) => {
      const k = ownerKey(p);
      if (!k) return;
      expectations.deletionObserved(k, podKey(p));
      enqueue(k);
    },
  };
}

/** FNV-1a 32-bit, the hash of the real ComputeHash. */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  const bytes = Buffer.from(s, 'utf8');
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The pod-template-hash of a template (+ collisionCount): decimal uint32, as 1.9 prints it. */
export function templateHash(template: unknown, collisionCount?: number): string {
  const text = JSON.stringify(sortKeys(template ?? {})) + (collisionCount !== undefined && collisionCount !== null ? `/${collisionCount}` : '');
  return String(fnv32a(text));
}

/** Runs fn over items with at most `limit` at once (the real controllers' slow-start batches are simpler). */
export async function inBatches<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (i < items.length) {
      const item = items[i++];
      try {
        await fn(item);
      } catch (err) {
        errors.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (errors.length) throw errors[0];
}
