// Validation of ObjectMeta on create and update (names, labels, annotations, finalizers, owner references).

import type { KubeObject, ObjectMeta } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { nameErrors } from '../names.ts';
import { labelKeyError, labelValueError } from '../labels.ts';
import { type FieldError, required, invalidValue, tooLong } from '../field-errors.ts';

const ANNOTATIONS_MAX_BYTES = 256 * 1024;

export function validateObjectMeta(def: ResourceDef, meta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (!meta.name && !meta.generateName) {
    errs.push(required('metadata.name', 'name or generateName is required'));
  }
  // The prefix is checked even once a name was generated from it, as the real validator does.
  if (meta.generateName) for (const m of nameErrors(meta.generateName, def.nameRule, true)) errs.push(invalidValue('metadata.generateName', meta.generateName, m));
  if (meta.name) for (const m of nameErrors(meta.name, def.nameRule)) errs.push(invalidValue('metadata.name', meta.name, m));
  if (def.namespaced) {
    if (!meta.namespace) errs.push(required('metadata.namespace'));
  }
  errs.push(...validateLabels(meta.labels, 'metadata.labels'));
  errs.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  (meta.finalizers ?? []).forEach((f, i) => {
    if (typeof f !== 'string') {
      errs.push(invalidValue(`metadata.finalizers[${i}]`, f, 'must be a string'));
      return;
    }
    // The apiextensions server (CRDs and the custom resources they define) validates ObjectMeta with apimachinery's
    // generic rules: a finalizer need only be a qualified name (its own customresourcecleanup.apiextensions.k8s.io has
    // no "/"); the standard-name rule is core validation's, for the built-in kinds.
    for (const e of finalizerNameErrors(f, { qualifiedOnly: def.group === 'apiextensions.k8s.io' || !!def.customResourceDefinition })) errs.push(invalidValue(`metadata.finalizers[${i}]`, f, e));
  });
  (meta.ownerReferences ?? []).forEach((r, i) => {
    const p = `metadata.ownerReferences[${i}]`;
    if (!r || typeof r !== 'object') {
      errs.push(invalidValue(p, r, 'must be an object'));
      return;
    }
    if (!r.apiVersion) errs.push(invalidValue(`${p}.apiVersion`, r.apiVersion ?? '', 'version must not be empty'));
    if (!r.kind) errs.push(invalidValue(`${p}.kind`, r.kind ?? '', 'kind must not be empty'));
    if (!r.name) errs.push(invalidValue(`${p}.name`, r.name ?? '', 'name must not be empty'));
    if (!r.uid) errs.push(invalidValue(`${p}.uid`, r.uid ?? '', 'uid must not be empty'));
  });
  const controllers = (meta.ownerReferences ?? []).filter((r) => r && r.controller === true);
  if (controllers.length > 1) errs.push(invalidValue('metadata.ownerReferences', meta.ownerReferences, 'Only one reference can have Controller set to true'));
  return errs;
}

/** Finalizers the real server knows without a domain prefix (apimachinery's standard finalizer names). */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * The real ValidateFinalizerName: a qualified name, and one without a "domain/" prefix must be a standard
 * finalizer (`plainword` is refused: nothing would ever remove it, and the object would never go).
 */
export function finalizerNameErrors(f: string, opts: { qualifiedOnly?: boolean } = {}): string[] {
  const e = labelKeyError(f);
  if (e) return [e];
  if (!opts.qualifiedOnly && !f.includes('/') && !STANDARD_FINALIZERS.has(f)) return ['name is neither a standard finalizer name nor is it fully qualified'];
  return [];
}

export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null) return errs;
  if (typeof labels !== 'object' || Array.isArray(labels)) return [invalidValue(path, labels, 'must be a map of string keys to string values')];
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    const ke = labelKeyError(k);
    if (ke) errs.push(invalidValue(path, k, ke));
    if (typeof v !== 'string') errs.push(invalidValue(`${path}.${k}`, v, 'must be a string'));
    else {
      const ve = labelValueError(v);
      if (ve) errs.push(invalidValue(path, v, ve));
    }
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations === undefined || annotations === null) return errs;
  if (typeof annotations !== 'object' || Array.isArray(annotations)) return [invalidValue(path, annotations, 'must be a map of string keys to string values')];
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    const ke = labelKeyError(k.toLowerCase());
    if (ke) errs.push(invalidValue(path, k, ke));
    if (typeof v !== 'string') errs.push(invalidValue(`${path}.${k}`, v, 'must be a string'));
    else total += k.length + Buffer.byteLength(v);
  }
  if (total > ANNOTATIONS_MAX_BYTES) errs.push(tooLong(path, ANNOTATIONS_MAX_BYTES));
  return errs;
}

/** Update rules of metadata: uid, creationTimestamp, namespace and name are immutable. */
export function validateObjectMetaUpdate(next: ObjectMeta, old: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  const immutable: Array<keyof ObjectMeta> = ['name', 'namespace', 'uid', 'creationTimestamp'];
  for (const f of immutable) {
    // null is how a client without the field (e.g. a protobuf body) says "unset": the stored value is kept.
    if (next[f] !== undefined && next[f] !== null && next[f] !== old[f]) errs.push(invalidValue(`metadata.${f}`, next[f], 'field is immutable'));
  }
  if (old.deletionTimestamp) {
    const added = (next.finalizers ?? []).filter((f) => !(old.finalizers ?? []).includes(f));
    if (added.length > 0) errs.push({ type: 'FieldValueForbidden', field: 'metadata.finalizers', detail: `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}` });
  }
  return errs;
}

export function typeOfMeta(obj: KubeObject): FieldError[] {
  if (obj.metadata === undefined) return [];
  if (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) return [invalidValue('metadata', obj.metadata, 'must be an object')];
  return [];
}
