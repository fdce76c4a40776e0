// Deployment (spec 2.4): defaults and validation of apps/v1 from the DeploymentSpec, DeploymentStrategy and
// RollingUpdateDeployment rows; extensions/v1beta1 keeps the defaults of its own version (wire-facts 5):
// selector and labels from the template, maxUnavailable/maxSurge 1, and no revisionHistoryLimit or
// progressDeadlineSeconds. Objects are stored in apps/v1 exactly as defaulted in the request's version,
// so an extensions object reads back through extensions with its own defaults; read through apps/v1 it
// shows those two fields unset, as a 1.9 server (storage version extensions/v1beta1) did.

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { registerKindRules } from '../strategy.ts';
import { type FieldError, forbiddenField, invalidValue, notSupported } from '../field-errors.ts';
import { loadSpecTables } from '../../../spec-tables/index.ts';
import { isZeroIntOrPercent, percentOf, validateIntOrPercent } from './int-or-percent.ts';
import { validateSelectorImmutable, validateWorkloadSelector } from './selector.ts';
import { isZeroValue, tableDefault, tableEnum } from './table.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate, defaultTemplate, validateTemplate } from './template.ts';
import { type Obj, ensureObj, isObj, isUnset, nonNegative, objAt, setDefault } from './util.ts';

/** Sets a DeploymentSpec field to its table default unless set; zero defaults stay implicit (omitempty). */
function specDefault(spec: Obj, field: string): void {
  const v = tableDefault('DeploymentSpec', field);
  if (!isZeroValue(v)) setDefault(spec, field, v);
}

/** apps/v1 (and the body versions converted into it) from the spec rows. */
export function defaultAppsDeployment(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  for (const f of ['replicas', 'revisionHistoryLimit', 'progressDeadlineSeconds', 'minReadySeconds']) specDefault(spec, f);
  defaultStrategy(spec, () => ({
    maxUnavailable: tableDefault('RollingUpdateDeployment', 'maxUnavailable'),
    maxSurge: tableDefault('RollingUpdateDeployment', 'maxSurge'),
  }));
  defaultTemplate(objAt(spec, 'template'));
}

/** extensions/v1beta1 as a 1.9 server defaulted it (wire-facts 5). */
export function defaultExtensionsDeployment(obj: KubeObject): void {
  defaultSelectorFromTemplate(obj);
  defaultLabelsFromTemplate(obj);
  const spec = (obj.spec ??= {}) as Obj;
  specDefault(spec, 'replicas');
  defaultStrategy(spec, () => ({ maxUnavailable: 1, maxSurge: 1 }));
  defaultTemplate(objAt(spec, 'template'));
}

/** strategy.type from the table; rollingUpdate only for RollingUpdate (spec 2.4), its fields from `values`. */
function defaultStrategy(spec: Obj, values: () => { maxUnavailable: unknown; maxSurge: unknown }): void {
  const strategy = ensureObj(spec, 'strategy');
  if (isUnset(strategy.type) || strategy.type === '') strategy.type = tableDefault('DeploymentStrategy', 'type');
  if (strategy.type !== 'RollingUpdate') return;
  const ru = ensureObj(strategy, 'rollingUpdate');
  const v = values();
  setDefault(ru, 'maxUnavailable', v.maxUnavailable);
  setDefault(ru, 'maxSurge', v.maxSurge);
}

export function validateDeployment(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [{ type: 'FieldValueRequired', field: 'spec' }];
  const errs: FieldError[] = [];
  nonNegative(errs, 'spec.replicas', spec.replicas);
  errs.push(...validateWorkloadSelector(spec, 'spec', { what: 'deployment' }));
  errs.push(...validateTemplate(spec.template, 'spec.template', ['Always']));
  errs.push(...validateStrategy(spec.strategy, 'spec.strategy'));
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  nonNegative(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  if (typeof spec.progressDeadlineSeconds === 'number') {
    nonNegative(errs, 'spec.progressDeadlineSeconds', spec.progressDeadlineSeconds);
    const minReady = typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0;
    if (spec.progressDeadlineSeconds <= minReady) errs.push(invalidValue('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  const rollbackTo = objAt(spec, 'rollbackTo');
  if (rollbackTo) nonNegative(errs, 'spec.rollbackTo.revision', rollbackTo.revision);
  return errs;
}

function validateStrategy(strategy: unknown, path: string): FieldError[] {
  if (!isObj(strategy)) return [];
  const types = tableEnum('DeploymentStrategy', 'type');
  if (!types.includes(strategy.type as string)) return [notSupported(`${path}.type`, strategy.type ?? '', types)];
  const ru = objAt(strategy, 'rollingUpdate');
  if (strategy.type === 'Recreate') {
    return ru ? [forbiddenField(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (!ru) return [{ type: 'FieldValueRequired', field: `${path}.rollingUpdate`, detail: 'this should be defaulted and never be nil' }];
  return validateRollingUpdate(ru, `${path}.rollingUpdate`);
}

/** maxSurge/maxUnavailable: counts or percentages; maxUnavailable at most 100%; the pair not both zero (rows' notZeroWhenZero). */
export function validateRollingUpdate(ru: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['maxUnavailable', 'maxSurge']) errs.push(...validateIntOrPercent(ru[f], `${path}.${f}`));
  const pct = percentOf(ru.maxUnavailable);
  if (pct !== undefined && pct > 100) errs.push(invalidValue(`${path}.maxUnavailable`, ru.maxUnavailable, 'must not be greater than 100%'));
  for (const row of loadSpecTables().fields.filter((f) => f.type === 'RollingUpdateDeployment' && f.notZeroWhenZero)) {
    const other = row.notZeroWhenZero!;
    // The real validator reports the pair once, at maxUnavailable.
    if (row.name !== 'maxUnavailable') continue;
    if (isZeroIntOrPercent(ru[row.name]) && isZeroIntOrPercent(ru[other])) errs.push(invalidValue(`${path}.${row.name}`, ru[row.name], `may not be 0 when \`${other}\` is 0`));
  }
  return errs;
}

export function validateDeploymentUpdate(next: KubeObject, old: KubeObject, def: ResourceDef): FieldError[] {
  // The selector is immutable in apps/v1; extensions/v1beta1 keeps its old mutability (real strategy).
  if (def.group !== 'apps') return [];
  return validateSelectorImmutable(next.spec as Obj | undefined, old.spec as Obj | undefined, 'spec');
}

registerKindRules('Deployment', {
  applyDefaults: (obj, def) => (def.group === 'extensions' ? defaultExtensionsDeployment(obj) : defaultAppsDeployment(obj)),
  validate: (obj) => validateDeployment(obj),
  validateUpdate: validateDeploymentUpdate,
});
