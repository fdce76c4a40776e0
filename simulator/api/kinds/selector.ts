// LabelSelector validation and the "selector must match the template labels" rule of the workloads
// (spec 2.4 DeploymentSpec.selector; the same rule holds for ReplicaSet, DaemonSet, Job and RC).

import { isDeepStrictEqual } from 'node:util';
import { labelKeyError, labelValueError, matchesRequirements, requirementsOf, type LabelSelector } from '../labels.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { type FieldError, invalidValue, notSupported, required, forbiddenField } from '../field-errors.ts';
import { type Obj, isObj, stringMap } from './util.ts';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** Structure of a LabelSelector object: keys, values, operators and their value lists. */
export function validateLabelSelector(sel: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [...validateLabels(sel.matchLabels, `${path}.matchLabels`)];
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((e, i) => {
    const ep = `${path}.matchExpressions[${i}]`;
    if (!isObj(e)) return;
    const values = Array.isArray(e.values) ? e.values : [];
    if (!OPERATORS.includes(e.operator as string)) errs.push(notSupported(`${ep}.operator`, e.operator ?? '', OPERATORS));
    else if ((e.operator === 'In' || e.operator === 'NotIn') && values.length === 0) errs.push(required(`${ep}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
    else if ((e.operator === 'Exists' || e.operator === 'DoesNotExist') && values.length > 0) errs.push(forbiddenField(`${ep}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
    const ke = typeof e.key === 'string' ? labelKeyError(e.key) : 'must be a string';
    if (ke) errs.push(invalidValue(`${ep}.key`, e.key, ke));
    values.forEach((v, j) => {
      const ve = typeof v === 'string' ? labelValueError(v) : 'must be a string';
      if (ve) errs.push(invalidValue(`${ep}.values[${j}]`, v, ve));
    });
  });
  return errs;
}

export function isEmptySelector(sel: unknown): boolean {
  if (!isObj(sel)) return true;
  const ml = isObj(sel.matchLabels) ? Object.keys(sel.matchLabels).length : 0;
  const me = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0;
  return ml + me === 0;
}

/**
 * The selector of a workload with a pod template: required and non-empty, well-formed, and matching the
 * template's labels (`selector does not match template labels`, reported at the template labels).
 */
export function validateWorkloadSelector(spec: Obj, path: string, opts: { templatePath?: string; what?: string } = {}): FieldError[] {
  const sel = spec.selector;
  if (!isObj(sel)) return [required(`${path}.selector`)];
  if (isEmptySelector(sel)) return [invalidValue(`${path}.selector`, sel, `empty selector is invalid for ${opts.what ?? 'deployment'}`)];
  const errs = validateLabelSelector(sel, `${path}.selector`);
  if (errs.length > 0) return errs;
  const template = isObj(spec.template) ? spec.template : undefined;
  const labels = stringMap(isObj(template?.metadata) ? template!.metadata.labels : undefined);
  if (!matchesRequirements(requirementsOf(sel as LabelSelector), labels)) {
    errs.push(invalidValue(`${opts.templatePath ?? `${path}.template`}.metadata.labels`, labels, '`selector` does not match template `labels`'));
  }
  return errs;
}

/** The selector of apps/v1 workloads and Jobs cannot change (`field is immutable`). */
export function validateSelectorImmutable(next: Obj | undefined, old: Obj | undefined, path: string): FieldError[] {
  if (isDeepStrictEqual(next?.selector, old?.selector)) return [];
  return [invalidValue(`${path}.selector`, next?.selector ?? null, 'field is immutable')];
}
