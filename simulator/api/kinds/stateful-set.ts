// StatefulSet (apps/v1; apps/v1beta2 and apps/v1beta1 as 1.9 served them, same storage) and ControllerRevision
// (apps/v1 and both betas). Defaults of the real 1.9 defaulters: podManagementPolicy OrderedReady, replicas 1,
// revisionHistoryLimit 10; updateStrategy RollingUpdate with partition 0 in apps/v1 and apps/v1beta2, OnDelete in
// apps/v1beta1, which also takes selector and labels from the template. Validation as ValidateStatefulSet: the
// policy and strategy enums, a non-negative partition, the workload selector rules, restartPolicy Always, no
// activeDeadlineSeconds; on update only replicas, template and updateStrategy may change. A ControllerRevision
// needs data and a non-negative revision, and its data never changes.

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { isDeepStrictEqual } from 'node:util';
import { registerStrategy } from '../strategy.ts';
import { registerBodyConverter } from '../conversion.ts';
import { type FieldError, forbiddenField, invalidValue, required } from '../field-errors.ts';
import { validateWorkloadSelector } from './selector.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate, defaultTemplate, validateTemplate } from './template.ts';
import { type Obj, clearStatus, ensureObj, isObj, isUnset, nonNegative, objAt, setDefault } from './util.ts';

export const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel'];
export const STS_UPDATE_STRATEGIES = ['RollingUpdate', 'OnDelete'];

export function defaultStatefulSet(obj: KubeObject, def: ResourceDef): void {
  defaultStatefulSetIn(obj, def.version === 'v1beta1');
}

/** The defaults of apps/v1beta1 (v1beta1 true) or of apps/v1 and apps/v1beta2. */
function defaultStatefulSetIn(obj: KubeObject, v1beta1: boolean): void {
  if (v1beta1) {
    defaultSelectorFromTemplate(obj);
    defaultLabelsFromTemplate(obj);
  }
  const spec = (obj.spec ??= {}) as Obj;
  if (isUnset(spec.podManagementPolicy) || spec.podManagementPolicy === '') spec.podManagementPolicy = 'OrderedReady';
  const strategy = ensureObj(spec, 'updateStrategy');
  if (isUnset(strategy.type) || strategy.type === '') strategy.type = v1beta1 ? 'OnDelete' : 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!v1beta1) setDefault(ensureObj(strategy, 'rollingUpdate'), 'partition', 0);
    else if (isObj(strategy.rollingUpdate)) setDefault(strategy.rollingUpdate, 'partition', 0);
  }
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultTemplate(objAt(spec, 'template'));
}

export function validateStatefulSet(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy;
  if (isUnset(policy) || policy === '') errs.push(required('spec.podManagementPolicy', ''));
  else if (!POD_MANAGEMENT_POLICIES.includes(policy as string)) errs.push(invalidValue('spec.podManagementPolicy', policy, `must be 'OrderedReady' or 'Parallel'`));
  const strategy = objAt(spec, 'updateStrategy') ?? {};
  const type = strategy.type;
  if (isUnset(type) || type === '') errs.push(required('spec.updateStrategy', ''));
  else if (type === 'OnDelete') {
    if (!isUnset(strategy.rollingUpdate)) errs.push(invalidValue('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, `only allowed for updateStrategy 'RollingUpdate'`));
  } else if (type === 'RollingUpdate') {
    const ru = objAt(strategy, 'rollingUpdate');
    if (ru) nonNegative(errs, 'spec.updateStrategy.rollingUpdate.partition', ru.partition);
  } else errs.push(invalidValue('spec.updateStrategy', strategy, `must be 'RollingUpdate' or 'OnDelete'`));
  nonNegative(errs, 'spec.replicas', spec.replicas);
  errs.push(...validateWorkloadSelector(spec, 'spec', { what: 'statefulset' }));
  errs.push(...validateTemplate(spec.template, 'spec.template', ['Always']));
  const templateSpec = objAt(objAt(spec, 'template'), 'spec');
  if (templateSpec && !isUnset(templateSpec.activeDeadlineSeconds)) errs.push(forbiddenField('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  if (!isUnset(spec.serviceName) && typeof spec.serviceName !== 'string') errs.push(invalidValue('spec.serviceName', spec.serviceName, 'must be a string'));
  return errs;
}

/** 1.9 ValidateStatefulSetUpdate: everything but replicas, template and updateStrategy is fixed. */
export function validateStatefulSetUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const strip = (o: KubeObject) => {
    const s = { ...((o.spec ?? {}) as Obj) };
    delete s.replicas;
    delete s.template;
    delete s.updateStrategy;
    return s;
  };
  if (isDeepStrictEqual(strip(next), strip(old))) return [];
  return [forbiddenField('spec', "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden")];
}

// An apps/v1beta1 body posted to an apps/v1 path is defaulted in its own version first (conversion.ts).
registerBodyConverter('apps/v1beta1', 'StatefulSet', (obj) => defaultStatefulSetIn(obj, true));

registerStrategy('StatefulSet', {
  prepareForCreate: clearStatus,
  applyDefaults: defaultStatefulSet,
  validate: (obj) => validateStatefulSet(obj),
  validateUpdate: (next, old) => validateStatefulSetUpdate(next, old),
});

// ---- ControllerRevision ----

export function validateControllerRevision(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (isUnset(obj.data)) errs.push(required('data'));
  if (!isUnset(obj.revision) && (typeof obj.revision !== 'number' || !Number.isInteger(obj.revision))) errs.push(invalidValue('revision', obj.revision, 'must be an integer'));
  else nonNegative(errs, 'revision', obj.revision);
  return errs;
}

registerStrategy('ControllerRevision', {
  validate: validateControllerRevision,
  validateUpdate: (next, old) => (isDeepStrictEqual(next.data, old.data) ? [] : [invalidValue('data', next.data ?? null, 'field is immutable')]),
});
