// LimitRange (core/v1): the ranges the LimitRanger admission step (server/admission/limit-ranger.ts) applies to
// pods and claims. Defaults of 1.9's LimitRangeItem defaulter for type Container: a missing default limit is the
// max, a missing default request the default limit, else the min. Validation as 1.9's ValidateLimitRange: the
// three types; Pod and PersistentVolumeClaim items take no defaults; quantities in order
// min <= defaultRequest <= default <= max; maxLimitRequestRatio at least 1.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported } from '../field-errors.ts';
import { QUANTITY_ERROR, parseQuantity } from '../quantity-sum.ts';
import { type Obj, isObj } from './util.ts';

const TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
type List = Record<string, unknown>;

function defaultItem(item: Obj): void {
  if (item.type !== 'Container') return;
  const def = (item.default ??= {}) as List;
  const req = (item.defaultRequest ??= {}) as List;
  for (const [k, v] of Object.entries((item.max ?? {}) as List)) def[k] ??= v;
  for (const [k, v] of Object.entries(def)) req[k] ??= v;
  for (const [k, v] of Object.entries((item.min ?? {}) as List)) req[k] ??= v;
  if (!Object.keys(def).length) delete item.default;
  if (!Object.keys(req).length) delete item.defaultRequest;
}

function milli(errs: FieldError[], path: string, v: unknown): number | undefined {
  const q = parseQuantity(v);
  if (!q) errs.push(invalidValue(path, v, QUANTITY_ERROR));
  else if (q.milli < 0) errs.push(invalidValue(path, v, 'must be greater than or equal to 0'));
  return q && q.milli >= 0 ? q.milli : undefined;
}

function validateItem(item: Obj, path: string, errs: FieldError[]): void {
  if (!TYPES.includes(item.type as string)) errs.push(notSupported(`${path}.type`, item.type ?? '', TYPES));
  const lists = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;
  const values: Record<string, Record<string, number | undefined>> = {};
  for (const l of lists) {
    values[l] = {};
    const list = item[l];
    if (list === undefined || list === null) continue;
    if (!isObj(list)) {
      errs.push(invalidValue(`${path}.${l}`, list, 'must be a map of resource names to quantities'));
      continue;
    }
    for (const [k, v] of Object.entries(list)) values[l][k] = milli(errs, `${path}.${l}[${k}]`, v);
  }
  if (item.type === 'Pod' || item.type === 'PersistentVolumeClaim') {
    for (const l of ['default', 'defaultRequest'] as const) {
      if (Object.keys(values[l]).length) errs.push(forbiddenField(`${path}.${l}`, `may not be specified when \`type\` is '${String(item.type)}'`));
    }
  }
  if (item.type === 'PersistentVolumeClaim' && !('storage' in values.min) && !('storage' in values.max)) {
    errs.push({ type: 'FieldValueRequired', field: `${path}.limits`, detail: 'either minimum or maximum storage value is required, but neither was provided' });
  }
  const keys = new Set(lists.flatMap((l) => Object.keys(values[l])));
  for (const k of keys) {
    const [max, min, def, req, ratio] = lists.map((l) => values[l][k]);
    const q = (l: string) => String((item[l] as List)[k]);
    if (min !== undefined && max !== undefined && min > max) errs.push(invalidValue(`${path}.min[${k}]`, q('min'), `min value ${q('min')} is greater than max value ${q('max')}`));
    if (req !== undefined && min !== undefined && min > req) errs.push(invalidValue(`${path}.defaultRequest[${k}]`, q('defaultRequest'), `min value ${q('min')} is greater than default request value ${q('defaultRequest')}`));
    if (req !== undefined && max !== undefined && req > max) errs.push(invalidValue(`${path}.defaultRequest[${k}]`, q('defaultRequest'), `default request value ${q('defaultRequest')} is greater than max value ${q('max')}`));
    if (req !== undefined && def !== undefined && req > def) errs.push(invalidValue(`${path}.defaultRequest[${k}]`, q('defaultRequest'), `default request value ${q('defaultRequest')} is greater than default limit value ${q('default')}`));
    if (def !== undefined && min !== undefined && min > def) errs.push(invalidValue(`${path}.default[${k}]`, q('default'), `min value ${q('min')} is greater than default value ${q('default')}`));
    if (def !== undefined && max !== undefined && def > max) errs.push(invalidValue(`${path}.default[${k}]`, q('default'), `default value ${q('default')} is greater than max value ${q('max')}`));
    if (ratio !== undefined && ratio < 1000) errs.push(invalidValue(`${path}.maxLimitRequestRatio[${k}]`, q('maxLimitRequestRatio'), `ratio ${q('maxLimitRequestRatio')} is less than 1`));
  }
}

export function validateLimitRange(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const limits = (obj.spec as Obj | undefined)?.limits;
  if (!Array.isArray(limits)) return errs;
  const types = new Set<string>();
  limits.forEach((item, i) => {
    const path = `spec.limits[${i}]`;
    if (!isObj(item)) return void errs.push(invalidValue(path, item, 'must be an object'));
    if (typeof item.type === 'string' && types.has(item.type)) errs.push(duplicate(`${path}.type`, item.type));
    if (typeof item.type === 'string') types.add(item.type);
    validateItem(item, path, errs);
  });
  return errs;
}

registerStrategy('LimitRange', {
  applyDefaults: (obj) => {
    const limits = (obj.spec as Obj | undefined)?.limits;
    if (Array.isArray(limits)) for (const item of limits) if (isObj(item)) defaultItem(item);
  },
  validate: validateLimitRange,
});
