// CustomResourceDefinition (apiextensions.k8s.io): stored as v1beta1 (the version 1.9 served), read and written
// through v1 too. The differences between the two are in where per-version settings live: v1beta1 has one
// `spec.version`, a `spec.validation` schema and `spec.subresources` for all versions (plus an optional
// `spec.versions` list); v1 has only `spec.versions`, each with its own `schema` and `subresources`. Storage
// keeps the v1beta1 shape with per-version settings inside `spec.versions` when they differ.
//
// What a CRD means for the API (served resources, names accepted, Established) is decided by the server's
// custom-resource controller (simulator/server/custom-resources.ts); this file holds the kind's own rules.

import type { KubeObject } from '../meta.ts';
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { registerStrategy } from '../strategy.ts';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdSubresources {
  status?: Record<string, never>;
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: CrdSubresources;
}

/** The storage (v1beta1) shape. */
export interface CrdSpec {
  group: string;
  version?: string;
  versions?: CrdVersion[];
  names: CrdNames;
  scope: 'Namespaced' | 'Cluster';
  validation?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: CrdSubresources;
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

export type Crd = KubeObject & { spec: CrdSpec; status?: CrdStatus };

/** One served version with its effective schema and subresources (its own, else the CRD's top-level ones). */
export interface EffectiveVersion {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: Record<string, unknown>;
  subresources: CrdSubresources;
}

export function effectiveVersions(spec: CrdSpec): EffectiveVersion[] {
  const versions: CrdVersion[] = spec.versions?.length ? spec.versions : spec.version ? [{ name: spec.version, served: true, storage: true }] : [];
  return versions.map((v) => ({
    name: v.name,
    served: v.served !== false,
    storage: !!v.storage,
    schema: v.schema?.openAPIV3Schema ?? spec.validation?.openAPIV3Schema,
    subresources: v.subresources ?? spec.subresources ?? {},
  }));
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const KIND = /^[A-Za-z][A-Za-z0-9]*$/;
const VERSION = /^v\d+((alpha|beta)\d+)?$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- v1 <-> v1beta1 (storage) ----

function toStorage(obj: KubeObject, fromApiVersion: string): void {
  if (fromApiVersion !== 'apiextensions.k8s.io/v1' || !isObj(obj.spec)) return;
  const spec = obj.spec as Record<string, unknown>;
  const versions = Array.isArray(spec.versions) ? (spec.versions as Record<string, unknown>[]) : [];
  const first = versions.find((v) => v.storage) ?? versions[0];
  if (first && typeof first.name === 'string') spec.version = first.name;
  // v1 has no conversion strategy other than None here (and no webhooks): dropped, as the storage shape has none.
  delete spec.conversion;
  delete spec.preserveUnknownFields;
}

function fromStorage(out: KubeObject, stored: KubeObject, apiVersion: string): void {
  if (apiVersion !== 'apiextensions.k8s.io/v1' || !isObj(stored.spec)) return;
  const spec = stored.spec as unknown as CrdSpec;
  const versions = effectiveVersions(spec).map((v) => {
    const o: Record<string, unknown> = { name: v.name, served: v.served, storage: v.storage };
    if (v.schema) o.schema = { openAPIV3Schema: v.schema };
    if (Object.keys(v.subresources).length) o.subresources = v.subresources;
    return o;
  });
  const next: Record<string, unknown> = { group: spec.group, names: spec.names, scope: spec.scope, versions, conversion: { strategy: 'None' } };
  out.spec = next;
}

// ---- defaults and validation (the real apiextensions validation, the parts a client meets) ----

function applyDefaults(obj: KubeObject): void {
  if (!isObj(obj.spec)) return;
  const spec = obj.spec as unknown as CrdSpec;
  const names = (isObj(spec.names) ? spec.names : undefined) as CrdNames | undefined;
  if (names) {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string') names.listKind = `${names.kind}List`;
  }
  if (Array.isArray(spec.versions)) for (const v of spec.versions) if (isObj(v) && v.served === undefined) v.served = true;
  if (spec.version && !spec.versions?.length) spec.versions = [{ name: spec.version, served: true, storage: true }];
}

function validate(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj.spec as Partial<CrdSpec> | undefined;
  if (!isObj(spec)) return [required('spec')];
  const group = spec.group;
  if (!group) errs.push(required('spec.group'));
  else if (typeof group !== 'string' || !DNS1123_SUBDOMAIN.test(group) || group.split('.').length < 2) errs.push(invalidValue('spec.group', group, 'should be a domain with at least one dot'));
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') errs.push(spec.scope === undefined ? required('spec.scope') : notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  const names = spec.names as Partial<CrdNames> | undefined;
  if (!isObj(names)) errs.push(required('spec.names'));
  else {
    if (!names.plural) errs.push(required('spec.names.plural'));
    else if (!DNS1123_LABEL.test(names.plural)) errs.push(invalidValue('spec.names.plural', names.plural, 'a DNS-1123 label must consist of lower case alphanumeric characters or \'-\''));
    if (names.singular && !DNS1123_LABEL.test(names.singular)) errs.push(invalidValue('spec.names.singular', names.singular, 'a DNS-1123 label must consist of lower case alphanumeric characters or \'-\''));
    if (!names.kind) errs.push(required('spec.names.kind'));
    else if (!KIND.test(names.kind)) errs.push(invalidValue('spec.names.kind', names.kind, 'may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?'));
    if (names.listKind && names.kind && names.listKind === names.kind) errs.push(invalidValue('spec.names.listKind', names.listKind, 'kind and listKind may not be the same'));
    const seen = new Set<string>();
    (names.shortNames ?? []).forEach((s, i) => {
      if (!DNS1123_LABEL.test(s)) errs.push(invalidValue(`spec.names.shortNames[${i}]`, s, 'a DNS-1123 label must consist of lower case alphanumeric characters or \'-\''));
      if (seen.has(s)) errs.push(duplicate(`spec.names.shortNames[${i}]`, s));
      seen.add(s);
    });
    if (group && names.plural && obj.metadata.name !== `${names.plural}.${group}`) {
      errs.push(invalidValue('metadata.name', obj.metadata.name, 'must be spec.names.plural+"."+spec.group'));
    }
  }
  const versions = effectiveVersions(spec as CrdSpec);
  if (versions.length === 0) errs.push(required('spec.versions', 'must have exactly one version marked as storage version'));
  else {
    const names = new Set<string>();
    versions.forEach((v, i) => {
      if (!VERSION.test(v.name)) errs.push(invalidValue(`spec.versions[${i}].name`, v.name, 'must be a DNS-1035 label like v1, v1beta1'));
      if (names.has(v.name)) errs.push(duplicate(`spec.versions[${i}].name`, v.name));
      names.add(v.name);
      if (v.schema !== undefined && !isObj(v.schema)) errs.push(invalidValue(`spec.versions[${i}].schema.openAPIV3Schema`, v.schema, 'must be an object'));
      const scale = v.subresources.scale;
      if (scale) {
        for (const p of ['specReplicasPath', 'statusReplicasPath'] as const) {
          if (!scale[p]) errs.push(required(`spec.subresources.scale.${p}`));
          else if (!/^\.[A-Za-z0-9_.]+$/.test(scale[p])) errs.push(invalidValue(`spec.subresources.scale.${p}`, scale[p], 'should be a json path under .spec or .status'));
        }
      }
    });
    const storage = versions.filter((v) => v.storage).length;
    if (storage !== 1) errs.push(invalidValue('spec.versions', spec.versions, 'must have exactly one version marked as storage version'));
    if (!versions.some((v) => v.served)) errs.push(invalidValue('spec.versions', spec.versions, 'must have at least one version marked as served'));
    if (spec.version && spec.versions?.length && spec.versions[0].name !== spec.version) {
      errs.push(invalidValue('spec.version', spec.version, 'must match the first version in spec.versions'));
    }
  }
  return errs;
}

function validateUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const a = obj.spec as Partial<CrdSpec> | undefined;
  const b = old.spec as Partial<CrdSpec> | undefined;
  // Once names were accepted, the group and scope cannot change (objects are stored under them).
  if (a?.group !== b?.group) errs.push(forbiddenField('spec.group', 'field is immutable'));
  if (a?.scope !== b?.scope) errs.push(forbiddenField('spec.scope', 'field is immutable'));
  return errs;
}

function prepareForCreate(obj: KubeObject): void {
  // The status is the server's (names accepted, Established); cleanup of the instances runs before the CRD goes.
  obj.status = { conditions: [], acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
  const fins = obj.metadata.finalizers ?? [];
  if (!fins.includes(CRD_CLEANUP_FINALIZER)) obj.metadata.finalizers = [...fins, CRD_CLEANUP_FINALIZER];
}

registerStrategy('CustomResourceDefinition', {
  applyDefaults,
  validate,
  validateUpdate,
  prepareForCreate,
  conversion: { toStorage, fromStorage },
});
