// Conversion between the versions that share storage (spec 9): apps/v1 <-> extensions/v1beta1 for
// Deployment, DaemonSet and ReplicaSet, and older apps versions accepted in request bodies.
// The versions share their JSON shape except for a few fields, which each kind's strategy converts
// (KindStrategy.conversion in api/kinds/<kind>.ts); this module holds the generic part.

import type { KubeObject, ObjectMeta } from './meta.ts';
import { registerStrategy, strategiesOf } from './strategy.ts';

const META_ORDER: Array<keyof ObjectMeta> = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'clusterName',
];

const META_KEYS: ReadonlySet<string> = new Set(META_ORDER);

/**
 * kind, apiVersion and metadata first (metadata in the real field order), status last, as the real server writes
 * them. `resourceVersion`, when given, replaces the object's own in the new metadata (the write paths put a
 * placeholder in its place; no second copy of the metadata to do it).
 */
export function canonicalObject(obj: KubeObject, resourceVersion?: string): KubeObject {
  const out: Record<string, unknown> = {};
  if (obj.kind !== undefined) out.kind = obj.kind;
  if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
  const meta: Record<string, unknown> = {};
  const src = (obj.metadata ?? {}) as Record<string, unknown>;
  // Every create and update passes here: plain loops, and a Set rather than `in` on the object being built.
  for (let i = 0; i < META_ORDER.length; i++) {
    const k = META_ORDER[i];
    const v = k === 'resourceVersion' && resourceVersion !== undefined ? resourceVersion : src[k];
    if (v !== undefined) meta[k] = v;
  }
  for (const k in src) if (!META_KEYS.has(k) && Object.hasOwn(src, k) && src[k] !== undefined) meta[k] = src[k];
  out.metadata = meta;
  for (const k of Object.keys(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata' || k === 'status') continue;
    out[k] = obj[k];
  }
  if (obj.status !== undefined) out.status = obj.status;
  return out as KubeObject;
}

/** From a request's version into the storage version. The input is a private copy and may be changed. */
export function toStorageVersion(obj: KubeObject, storageApiVersion: string): KubeObject {
  const from = obj.apiVersion;
  if (from === storageApiVersion) return obj;
  for (const s of strategiesOf(obj.kind)) s.conversion?.toStorage?.(obj, from ?? '', storageApiVersion);
  obj.apiVersion = storageApiVersion;
  return obj;
}

/** From storage into the version a request asked for. Returns the stored object itself when no change is needed. */
export function fromStorageVersion(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.apiVersion === apiVersion) return obj;
  const out: KubeObject = { ...obj, apiVersion };
  for (const s of strategiesOf(obj.kind)) s.conversion?.fromStorage?.(out, obj, apiVersion);
  return canonicalObject(out);
}

// ---- request bodies in an older version of the path's group (spec 9.1, 9.2) ----

/**
 * Registers how a body of an older version (apps/v1beta1 Deployment) becomes the path's version; the same as
 * a strategy with `conversion.bodies` (kept as a shorthand for modules that only add a body version).
 */
export function registerBodyConverter(apiVersion: string, kind: string, fn: (obj: KubeObject) => void): void {
  registerStrategy(kind, { conversion: { bodies: { [apiVersion]: fn } } });
}

/** Applies the converter of the body's version, if any; the caller then relabels the object with the path's version. */
export function convertBodyVersion(obj: KubeObject, fromApiVersion: string): void {
  const kind = obj.kind;
  if (kind === undefined) return;
  for (const s of strategiesOf(kind)) {
    const fn = s.conversion?.bodies?.[fromApiVersion];
    if (fn) return fn(obj);
  }
}
