// Per-kind behaviour in the style of the real server's registry strategies: what a create or update may set,
// which parts a subresource owns, defaults and validation. Kind-specific rules plug in through `kindRules`.

import type { KubeObject } from './meta.ts';
import type { ResourceDef } from './registry.ts';
import type { FieldError } from './field-errors.ts';

export interface KindRules {
  /** Fills defaults in place (the object is a private copy). */
  applyDefaults?(obj: KubeObject, def: ResourceDef): void;
  /** Kind-specific validation of a complete object. */
  validate?(obj: KubeObject, def: ResourceDef): FieldError[];
  /** Kind-specific update rules (immutable fields). */
  validateUpdate?(obj: KubeObject, old: KubeObject, def: ResourceDef): FieldError[];
  /** Create-time adjustments after defaulting (e.g. Job selectors that need the uid). */
  prepareForCreate?(obj: KubeObject, def: ResourceDef): void;
  /** Update-time adjustments of the stored form, after status is carried over (e.g. DaemonSet templateGeneration). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, def: ResourceDef): void;
}

const rulesByKind = new Map<string, KindRules[]>();

/** Registers rules for a kind (any group). Several modules may add rules for one kind; all apply in order. */
export function registerKindRules(kind: string, rules: KindRules): void {
  const list = rulesByKind.get(kind) ?? [];
  list.push(rules);
  rulesByKind.set(kind, list);
}

export function kindRules(kind: string): KindRules[] {
  return rulesByKind.get(kind) ?? [];
}

/** Kinds whose spec/status split means a create starts with an empty status. */
const CLEAR_STATUS_ON_CREATE = new Set(['Deployment', 'DaemonSet', 'ReplicaSet', 'ReplicationController', 'Job', 'CronJob', 'Service', 'Ingress']);

export function prepareForCreate(obj: KubeObject, def: ResourceDef): void {
  if (CLEAR_STATUS_ON_CREATE.has(def.kind) && def.subresources.status) {
    if (def.kind === 'Service') obj.status = { loadBalancer: {} };
    else if (def.kind === 'Ingress') obj.status = { loadBalancer: {} };
    else delete obj.status;
  }
  if (def.kind === 'Namespace') {
    const spec = (obj.spec ??= {}) as { finalizers?: string[] };
    const fin = spec.finalizers ?? [];
    if (!fin.includes('kubernetes')) spec.finalizers = [...fin, 'kubernetes'];
    obj.status = { phase: 'Active' };
  }
  if (def.kind === 'Pod') {
    const status = (obj.status ?? {}) as Record<string, unknown>;
    obj.status = { phase: 'Pending', ...(status.qosClass ? { qosClass: status.qosClass } : {}) };
  }
  for (const r of kindRules(def.kind)) r.prepareForCreate?.(obj, def);
}

/**
 * Update of the main resource: status is owned by /status (spec 1.8, 4.10), and a namespace's finalizers are
 * owned by /finalize.
 */
export function prepareForUpdate(obj: KubeObject, old: KubeObject, def: ResourceDef): void {
  if (def.subresources.status) {
    if (old.status === undefined) delete obj.status;
    else obj.status = old.status;
  }
  if (def.kind === 'Namespace') {
    obj.spec = old.spec;
  }
  for (const r of kindRules(def.kind)) r.prepareForUpdate?.(obj, old, def);
}

/** Update through /status: only status changes; everything else is taken from the stored object. */
export function prepareForStatusUpdate(obj: KubeObject, old: KubeObject): KubeObject {
  const next: KubeObject = { ...old, metadata: { ...old.metadata } };
  if (obj.status === undefined) delete next.status;
  else next.status = obj.status;
  // Labels and annotations may change through status in the real server; keep the rest of metadata.
  if (obj.metadata?.labels !== undefined) next.metadata.labels = obj.metadata.labels;
  if (obj.metadata?.annotations !== undefined) next.metadata.annotations = obj.metadata.annotations;
  return next;
}

/** /finalize on a namespace: only spec.finalizers changes. */
export function prepareForFinalize(obj: KubeObject, old: KubeObject): KubeObject {
  const spec = (obj.spec ?? {}) as { finalizers?: string[] };
  return { ...old, metadata: { ...old.metadata }, spec: { ...(old.spec as object), finalizers: spec.finalizers ?? [] } };
}

export function applyDefaults(obj: KubeObject, def: ResourceDef): void {
  for (const r of kindRules(def.kind)) r.applyDefaults?.(obj, def);
}

export function validateKind(obj: KubeObject, def: ResourceDef): FieldError[] {
  return kindRules(def.kind).flatMap((r) => r.validate?.(obj, def) ?? []);
}

export function validateKindUpdate(obj: KubeObject, old: KubeObject, def: ResourceDef): FieldError[] {
  return kindRules(def.kind).flatMap((r) => r.validateUpdate?.(obj, old, def) ?? []);
}
