// ReplicaSet (apps/v1, extensions/v1beta1) and ReplicationController (core/v1). The spec does not
// tabulate their fields ("not shown", 2.1), so defaults follow the real server (wire-facts 5 and the
// 1.9 defaulters): replicas 1; extensions ReplicaSets and RCs take selector and labels from the template.

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, required } from '../field-errors.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { validateSelectorImmutable, validateWorkloadSelector } from './selector.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate, defaultTemplate, templateLabels, validateTemplate } from './template.ts';
import { type Obj, clearStatus, isObj, nonNegative, objAt, setDefault } from './util.ts';

const DEFAULT_REPLICAS = 1; // real SetDefaults_ReplicaSet / SetDefaults_ReplicationController

export function defaultReplicaSet(obj: KubeObject, def: ResourceDef): void {
  if (def.group === 'extensions') {
    defaultSelectorFromTemplate(obj);
    defaultLabelsFromTemplate(obj);
  }
  const spec = (obj.spec ??= {}) as Obj;
  setDefault(spec, 'replicas', DEFAULT_REPLICAS);
  defaultTemplate(objAt(spec, 'template'));
}

export function validateReplicaSet(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  errs.push(...validateWorkloadSelector(spec, 'spec', { what: 'replicaset' }));
  errs.push(...validateTemplate(spec.template, 'spec.template', ['Always']));
  return errs;
}

export const replicaSetStrategy: KindStrategy = {
  applyDefaults: defaultReplicaSet,
  prepareForCreate: clearStatus,
  validate: validateReplicaSet,
  validateUpdate: (next, old, def) => (def.group === 'apps' && def.version !== 'v1beta1' ? validateSelectorImmutable(next.spec as Obj, old.spec as Obj, 'spec') : []),
};

registerStrategy('ReplicaSet', replicaSetStrategy);

// ---- ReplicationController: the selector is a plain map ----

export function defaultReplicationController(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  const labels = templateLabels(obj);
  if (labels && (!isObj(spec.selector) || Object.keys(spec.selector).length === 0)) spec.selector = { ...labels };
  defaultLabelsFromTemplate(obj);
  setDefault(spec, 'replicas', DEFAULT_REPLICAS);
  defaultTemplate(objAt(spec, 'template'));
}

export function validateReplicationController(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  const selector = isObj(spec.selector) ? (spec.selector as Record<string, string>) : {};
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (!isObj(spec.template)) {
    errs.push(required('spec.template'));
    return errs;
  }
  const labels = templateLabels(obj) ?? {};
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  errs.push(...validateTemplate(spec.template, 'spec.template', ['Always']));
  return errs;
}

export const replicationControllerStrategy: KindStrategy = {
  applyDefaults: defaultReplicationController,
  validate: validateReplicationController,
  prepareForCreate: clearStatus,
  // The Scale shows the plain selector map as a LabelSelector.
  scale: { selector: (obj) => ({ matchLabels: (obj.spec as { selector?: Record<string, string> } | undefined)?.selector }) },
};

registerStrategy('ReplicationController', replicationControllerStrategy);
