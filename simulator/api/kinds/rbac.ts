// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding: defaults and validation as
// the real 1.9 server (rbac/v1 defaults.go, rbac/validation). Rules need verbs; resource rules need apiGroups and
// resources; non-resource URLs only in cluster roles and never mixed with resources; a binding's roleRef is in
// the rbac group, names Role or ClusterRole (a ClusterRoleBinding only ClusterRole) and cannot change; subjects
// are User, Group (rbac group) or ServiceAccount (core group, DNS-subdomain name, namespace when cluster-wide).

import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { nameErrors } from '../names.ts';
import { type FieldError, invalidValue, notSupported, required } from '../field-errors.ts';
import { validateLabelSelector } from './selector.ts';
import { isObj, type Obj } from './util.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** SetDefaults_Subject: User and Group subjects belong to the rbac group; ServiceAccount stays in core. */
function defaultSubjects(subjects: unknown): void {
  for (const s of list(subjects)) {
    if (!isObj(s) || (typeof s.apiGroup === 'string' && s.apiGroup !== '')) continue;
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
  }
}

/** SetDefaults_RoleBinding / ClusterRoleBinding: an empty roleRef.apiGroup is the rbac group. */
function defaultBinding(obj: KubeObject): void {
  const o = obj as KubeObject & { roleRef?: unknown; subjects?: unknown };
  if (isObj(o.roleRef) && (o.roleRef.apiGroup === undefined || o.roleRef.apiGroup === null || o.roleRef.apiGroup === '')) o.roleRef.apiGroup = RBAC_GROUP;
  defaultSubjects(o.subjects);
}

export function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): FieldError[] {
  const r: Obj = isObj(rule) ? rule : {};
  const errs: FieldError[] = [];
  if (list(r.verbs).length === 0) errs.push(required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = list(r.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalidValue(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (list(r.apiGroups).length > 0 || list(r.resources).length > 0) errs.push(invalidValue(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    return errs;
  }
  if (list(r.apiGroups).length === 0) errs.push(required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (list(r.resources).length === 0) errs.push(required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  return list((obj as { rules?: unknown }).rules).flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

function validateAggregationRule(obj: KubeObject): FieldError[] {
  const agg = (obj as { aggregationRule?: unknown }).aggregationRule;
  if (agg === undefined || agg === null) return [];
  const selectors = isObj(agg) ? list(agg.clusterRoleSelectors) : [];
  if (selectors.length === 0) return [required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((s, i) => validateLabelSelector(isObj(s) ? s : {}, `aggregationRule.clusterRoleSelectors[${i}]`));
}

export function validateSubject(subject: unknown, namespaced: boolean, path: string): FieldError[] {
  const s: Obj = isObj(subject) ? subject : {};
  const errs: FieldError[] = [];
  const name = typeof s.name === 'string' ? s.name : '';
  const apiGroup = typeof s.apiGroup === 'string' ? s.apiGroup : '';
  if (name === '') errs.push(required(`${path}.name`));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name !== '') for (const m of nameErrors(name, 'dns1123-subdomain')) errs.push(invalidValue(`${path}.name`, name, m));
      if (apiGroup !== '') errs.push(notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && (typeof s.namespace !== 'string' || s.namespace === '')) errs.push(required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(`${path}.kind`, s.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const o = obj as KubeObject & { roleRef?: unknown; subjects?: unknown };
  const ref: Obj = isObj(o.roleRef) ? o.roleRef : {};
  const errs: FieldError[] = [];
  const apiGroup = typeof ref.apiGroup === 'string' ? ref.apiGroup : '';
  if (apiGroup !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind as string)) errs.push(notSupported('roleRef.kind', ref.kind ?? '', kinds));
  const name = typeof ref.name === 'string' ? ref.name : '';
  if (name === '') errs.push(required('roleRef.name'));
  else for (const m of nameErrors(name, 'path-segment')) errs.push(invalidValue('roleRef.name', name, m));
  list(o.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

/** A binding's roleRef is immutable: changing the role means a new binding. */
function roleRefUnchanged(next: KubeObject, old: KubeObject): FieldError[] {
  const n = (next as { roleRef?: unknown }).roleRef;
  const o = (old as { roleRef?: unknown }).roleRef;
  return isDeepStrictEqual(n, o) ? [] : [invalidValue('roleRef', n ?? null, 'cannot change roleRef')];
}

registerStrategy('Role', { validate: (o) => validateRules(o, true) });
registerStrategy('ClusterRole', { validate: (o) => [...validateRules(o, false), ...validateAggregationRule(o)] });
registerStrategy('RoleBinding', { applyDefaults: defaultBinding, validate: (o) => validateBinding(o, true), validateUpdate: roleRefUnchanged });
registerStrategy('ClusterRoleBinding', { applyDefaults: defaultBinding, validate: (o) => validateBinding(o, false), validateUpdate: roleRefUnchanged });
