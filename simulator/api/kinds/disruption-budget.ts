// PodDisruptionBudget (policy/v1beta1, 1.9): minAvailable defaults to 1 when neither it nor maxUnavailable is
// set; both set is invalid; each is a non-negative count or a percentage of at most 100%; the selector is a
// well-formed LabelSelector. The spec cannot change after creation (1.9: "updates to poddisruptionbudget spec
// are forbidden."). Status is written by the disruption controller through /status.

import type { KubeObject } from '../meta.ts';
import { isDeepStrictEqual } from 'node:util';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, forbiddenField, invalidValue, required } from '../field-errors.ts';
import { percentOf, validateIntOrPercent } from './int-or-percent.ts';
import { validateLabelSelector } from './selector.ts';
import { type Obj, clearStatus, isObj, isUnset } from './util.ts';

export function defaultDisruptionBudget(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  if (isUnset(spec.minAvailable) && isUnset(spec.maxUnavailable)) spec.minAvailable = 1;
}

export function validateDisruptionBudget(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  if (!isUnset(spec.minAvailable) && !isUnset(spec.maxUnavailable)) errs.push(invalidValue('spec', spec, 'minAvailable and maxUnavailable cannot be both set'));
  for (const f of ['minAvailable', 'maxUnavailable']) {
    const v = spec[f];
    if (isUnset(v)) continue;
    errs.push(...validateIntOrPercent(v, `spec.${f}`));
    const pct = percentOf(v);
    if (pct !== undefined && pct > 100) errs.push(invalidValue(`spec.${f}`, v, 'must not be greater than 100%'));
  }
  if (isObj(spec.selector)) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const status = obj.status;
  if (isObj(status)) {
    for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) {
      if (typeof status[f] === 'number' && (status[f] as number) < 0) errs.push(invalidValue(`status.${f}`, status[f], 'must be greater than or equal to 0'));
    }
  }
  return errs;
}

registerStrategy('PodDisruptionBudget', {
  prepareForCreate: clearStatus,
  applyDefaults: defaultDisruptionBudget,
  validate: validateDisruptionBudget,
  validateUpdate: (next, old) => (isDeepStrictEqual(next.spec, old.spec) ? [] : [forbiddenField('spec', 'updates to poddisruptionbudget spec are forbidden.')]),
});
