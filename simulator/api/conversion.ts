// Conversion between the versions that share storage (spec 9): apps/v1 <-> extensions/v1beta1 for
// Deployment, DaemonSet and ReplicaSet, and older apps versions accepted in request bodies.
// The versions share their JSON shape except for a few fields, which are handled here.

import type { KubeObject, ObjectMeta } from './meta.ts';

const META_ORDER: Array<keyof ObjectMeta> = [
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'clusterName',
];

/** kind, apiVersion and metadata first (metadata in the real field order), status last, as the real server writes them. */
export function canonicalObject(obj: KubeObject): KubeObject {
  const out: Record<string, unknown> = {};
  if (obj.kind !== undefined) out.kind = obj.kind;
  if (obj.apiVersion !== undefined) out.apiVersion = obj.apiVersion;
  const meta: Record<string, unknown> = {};
  const src = (obj.metadata ?? {}) as Record<string, unknown>;
  for (const k of META_ORDER) if (src[k] !== undefined) meta[k] = src[k];
  for (const k of Object.keys(src)) if (!(k in meta) && src[k] !== undefined) meta[k] = src[k];
  out.metadata = meta;
  for (const k of Object.keys(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata' || k === 'status') continue;
    out[k] = obj[k];
  }
  if (obj.status !== undefined) out.status = obj.status;
  return out as KubeObject;
}

/** Where apps/v1 keeps the extensions/v1beta1 DaemonSet's spec.templateGeneration. */
export const DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/**
 * Where apps/v1 keeps the extensions/v1beta1 Deployment's spec.rollbackTo.revision, as the real apps/v1
 * conversion does (k8s.io/api apps/v1 DeprecatedRollbackTo): the revision in decimal. Written by the rollback
 * subresource and by extensions/v1beta1 writes that carry spec.rollbackTo; read back into spec.rollbackTo (and
 * removed from the annotations) by extensions/v1beta1 reads; visible as is through apps/v1. The Deployment
 * controller clears it once it has acted on it.
 */
export const DEPLOYMENT_ROLLBACK_TO = 'deprecated.deployment.rollback.to';

/** From a request's version into the storage version. The input is a private copy and may be changed. */
export function toStorageVersion(obj: KubeObject, storageApiVersion: string): KubeObject {
  const from = obj.apiVersion;
  if (from === storageApiVersion) return obj;
  if (from === 'extensions/v1beta1' && storageApiVersion === 'apps/v1') {
    const spec = obj.spec as Record<string, unknown> | undefined;
    if (spec) {
      if (obj.kind === 'Deployment') {
        const annotations = { ...(obj.metadata.annotations ?? {}) };
        delete annotations[DEPLOYMENT_ROLLBACK_TO];
        const rollbackTo = spec.rollbackTo as { revision?: unknown } | null | undefined;
        if (rollbackTo && typeof rollbackTo === 'object') annotations[DEPLOYMENT_ROLLBACK_TO] = String(Number(rollbackTo.revision ?? 0) || 0);
        if (Object.keys(annotations).length > 0 || obj.metadata.annotations !== undefined) obj.metadata.annotations = annotations;
        delete spec.rollbackTo;
      }
      if (obj.kind === 'DaemonSet' && spec.templateGeneration !== undefined) {
        obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [DS_TEMPLATE_GENERATION]: String(spec.templateGeneration) };
        delete spec.templateGeneration;
      }
    }
  }
  obj.apiVersion = storageApiVersion;
  return obj;
}

/** From storage into the version a request asked for. Returns the stored object itself when no change is needed. */
export function fromStorageVersion(obj: KubeObject, apiVersion: string): KubeObject {
  if (obj.apiVersion === apiVersion) return obj;
  const out: KubeObject = { ...obj, apiVersion };
  if (apiVersion === 'extensions/v1beta1' && obj.kind === 'DaemonSet') {
    const tg = obj.metadata.annotations?.[DS_TEMPLATE_GENERATION];
    if (tg !== undefined) out.spec = { ...(obj.spec as object), templateGeneration: Number(tg) };
  }
  if (apiVersion === 'extensions/v1beta1' && obj.kind === 'Deployment') {
    const rb = obj.metadata.annotations?.[DEPLOYMENT_ROLLBACK_TO];
    if (rb !== undefined) {
      const annotations = { ...obj.metadata.annotations };
      delete annotations[DEPLOYMENT_ROLLBACK_TO];
      const metadata = { ...obj.metadata };
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
      else delete metadata.annotations;
      out.metadata = metadata;
      out.spec = { ...(obj.spec as object), rollbackTo: { revision: Number(rb) || 0 } };
    }
  }
  return canonicalObject(out);
}

// ---- request bodies in an older version of the path's group (spec 9.1, 9.2) ----

type BodyConverter = (obj: KubeObject) => void;
const bodyConverters = new Map<string, BodyConverter>();

/**
 * Registers how a body of an older version (apps/v1beta1 Deployment) becomes the path's version: that
 * version's own defaults first (the real server defaults a body in the version it is written in), then
 * the field changes between the versions. Kinds register their converters (simulator/api/kinds).
 */
export function registerBodyConverter(apiVersion: string, kind: string, fn: BodyConverter): void {
  bodyConverters.set(`${apiVersion}/${kind}`, fn);
}

/** Applies the converter of the body's version, if any; the caller then relabels the object with the path's version. */
export function convertBodyVersion(obj: KubeObject, fromApiVersion: string): void {
  bodyConverters.get(`${fromApiVersion}/${obj.kind}`)?.(obj);
}
