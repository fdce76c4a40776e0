// HorizontalPodAutoscaler (autoscaling/v1, 1.9): minReplicas defaults to 1; maxReplicas at least 1 and at least
// minReplicas; scaleTargetRef needs kind and a path-segment name; targetCPUUtilizationPercentage at least 1
// (reported at the internal v2 path the 1.9 server validated, spec.metrics[0].resource.targetAverageUtilization).
// The controller's conditions live in the autoscaling.alpha.kubernetes.io/conditions annotation in v1.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, required } from '../field-errors.ts';
import { type Obj, clearStatus, isObj, isUnset, objAt, setDefault } from './util.ts';

export function defaultAutoscaler(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  setDefault(spec, 'minReplicas', 1);
}

const PATH_SEGMENT_BAD = ['.', '..'];

export function validateAutoscaler(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  const ref = objAt(spec, 'scaleTargetRef') ?? {};
  if (typeof ref.kind !== 'string' || ref.kind === '') errs.push(required('spec.scaleTargetRef.kind'));
  else if (PATH_SEGMENT_BAD.includes(ref.kind) || /[/%]/.test(ref.kind)) errs.push(invalidValue('spec.scaleTargetRef.kind', ref.kind, 'may not contain \'/\' or \'%\''));
  if (typeof ref.name !== 'string' || ref.name === '') errs.push(required('spec.scaleTargetRef.name'));
  else if (PATH_SEGMENT_BAD.includes(ref.name)) errs.push(invalidValue('spec.scaleTargetRef.name', ref.name, `may not be '${ref.name}'`));
  else if (/[/%]/.test(ref.name)) errs.push(invalidValue('spec.scaleTargetRef.name', ref.name, "may not contain '/' or '%'"));
  const min = spec.minReplicas;
  if (typeof min === 'number' && min < 1) errs.push(invalidValue('spec.minReplicas', min, 'must be greater than 0'));
  const max = spec.maxReplicas;
  if (isUnset(max) || typeof max !== 'number' || max < 1) errs.push(invalidValue('spec.maxReplicas', max ?? 0, 'must be greater than 0'));
  else if (typeof min === 'number' && max < min) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const target = spec.targetCPUUtilizationPercentage;
  if (typeof target === 'number' && target < 1) errs.push(invalidValue('spec.metrics[0].resource.targetAverageUtilization', target, 'must be greater than 0'));
  return errs;
}

registerStrategy('HorizontalPodAutoscaler', { applyDefaults: defaultAutoscaler, prepareForCreate: clearStatus, validate: validateAutoscaler });
