// Deployment (spec 2.4): defaults and validation of apps/v1 from the DeploymentSpec, DeploymentStrategy and
// RollingUpdateDeployment rows; extensions/v1beta1 keeps the defaults of its own version (wire-facts 5):
// selector and labels from the template, maxUnavailable/maxSurge 1, and no revisionHistoryLimit or
// progressDeadlineSeconds. Objects are stored in apps/v1 exactly as defaulted in the request's version,
// so an extensions object reads back through extensions with its own defaults; read through apps/v1 it
// shows those two fields unset, as a 1.9 server (storage version extensions/v1beta1) did.

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { type FieldError, forbiddenField, invalidValue, notSupported } from '../field-errors.ts';
import { loadSpecTables } from '../../../spec-tables/index.ts';
import { isZeroIntOrPercent, percentOf, validateIntOrPercent } from './int-or-percent.ts';
import { validateSelectorImmutable, validateWorkloadSelector } from './selector.ts';
import { isZeroValue, tableDefault, tableEnum } from './table.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate, defaultTemplate, validateTemplate } from './template.ts';
import { APPS_V1BETA1_REVISION_HISTORY_LIMIT } from './body-versions.ts';
import { type Obj, clearStatus, ensureObj, isObj, isUnset, nonNegative, objAt, setDefault } from './util.ts';

/**
 * Where apps/v1 keeps the extensions/v1beta1 Deployment's spec.rollbackTo.revision, as the real apps/v1
 * conversion does (k8s.io/api apps/v1 DeprecatedRollbackTo): the revision in decimal. Written by the rollback
 * subresource and by extensions/v1beta1 writes that carry spec.rollbackTo; read back into spec.rollbackTo (and
 * removed from the annotations) by extensions/v1beta1 reads; visible as is through apps/v1. The Deployment
 * controller clears it once it has acted on it.
 */
export const DEPLOYMENT_ROLLBACK_TO = 'deprecated.deployment.rollback.to';

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

/**
 * apps/v1beta1 as a 1.9 server defaulted it: selector and labels from the template and two old ReplicaSets kept
 * (wire-facts 5, PR #49924), the rest as apps/v1 (progressDeadlineSeconds 600, 25% / 25%).
 */
export function defaultAppsV1beta1Deployment(obj: KubeObject): void {
  defaultSelectorFromTemplate(obj);
  defaultLabelsFromTemplate(obj);
  setDefault((obj.spec ??= {}) as Obj, 'revisionHistoryLimit', APPS_V1BETA1_REVISION_HISTORY_LIMIT);
  defaultAppsDeployment(obj);
}

/** The versions whose Deployment has spec.rollbackTo and a mutable selector (1.9's extensions and apps/v1beta1). */
const OLD_DEPLOYMENT_VERSIONS: ReadonlySet<string> = new Set(['extensions/v1beta1', 'apps/v1beta1']);

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
/** The rows of RollingUpdateDeployment fields that may not be zero together, found once (a walk over every row per validation). */
let notZeroWhenZeroRows: ReturnType<typeof loadSpecTables>['fields'] | undefined;

export function validateRollingUpdate(ru: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['maxUnavailable', 'maxSurge']) errs.push(...validateIntOrPercent(ru[f], `${path}.${f}`));
  const pct = percentOf(ru.maxUnavailable);
  if (pct !== undefined && pct > 100) errs.push(invalidValue(`${path}.maxUnavailable`, ru.maxUnavailable, 'must not be greater than 100%'));
  for (const row of (notZeroWhenZeroRows ??= loadSpecTables().fields.filter((f) => f.type === 'RollingUpdateDeployment' && f.notZeroWhenZero))) {
    const other = row.notZeroWhenZero!;
    // The real validator reports the pair once, at maxUnavailable.
    if (row.name !== 'maxUnavailable') continue;
    if (isZeroIntOrPercent(ru[row.name]) && isZeroIntOrPercent(ru[other])) errs.push(invalidValue(`${path}.${row.name}`, ru[row.name], `may not be 0 when \`${other}\` is 0`));
  }
  return errs;
}

export function validateDeploymentUpdate(next: KubeObject, old: KubeObject, def: ResourceDef): FieldError[] {
  // The selector is immutable from apps/v1beta2 on; extensions/v1beta1 and apps/v1beta1 keep its old mutability (real strategy).
  if (OLD_DEPLOYMENT_VERSIONS.has(`${def.group}/${def.version}`)) return [];
  return validateSelectorImmutable(next.spec as Obj | undefined, old.spec as Obj | undefined, 'spec');
}

/** extensions/v1beta1 and apps/v1beta1 spec.rollbackTo <-> the apps/v1 annotation DEPLOYMENT_ROLLBACK_TO. */
function rollbackToStorage(obj: KubeObject, from: string): void {
  const spec = obj.spec as Obj | undefined;
  if (!OLD_DEPLOYMENT_VERSIONS.has(from) || !spec) return;
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[DEPLOYMENT_ROLLBACK_TO];
  const rollbackTo = spec.rollbackTo as { revision?: unknown } | null | undefined;
  if (rollbackTo && typeof rollbackTo === 'object') annotations[DEPLOYMENT_ROLLBACK_TO] = String(Number(rollbackTo.revision ?? 0) || 0);
  if (Object.keys(annotations).length > 0 || obj.metadata.annotations !== undefined) obj.metadata.annotations = annotations;
  delete spec.rollbackTo;
}

function rollbackFromStorage(out: KubeObject, stored: KubeObject, apiVersion: string): void {
  if (!OLD_DEPLOYMENT_VERSIONS.has(apiVersion)) return;
  const rb = stored.metadata.annotations?.[DEPLOYMENT_ROLLBACK_TO];
  if (rb === undefined) return;
  const annotations = { ...stored.metadata.annotations };
  delete annotations[DEPLOYMENT_ROLLBACK_TO];
  const metadata = { ...stored.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  out.metadata = metadata;
  out.spec = { ...(stored.spec as object), rollbackTo: { revision: Number(rb) || 0 } };
}

export const deploymentStrategy: KindStrategy = {
  applyDefaults: (obj, def) => {
    if (def.group === 'extensions') defaultExtensionsDeployment(obj);
    else if (def.version === 'v1beta1') defaultAppsV1beta1Deployment(obj);
    else defaultAppsDeployment(obj);
  },
  validate: (obj) => validateDeployment(obj),
  validateUpdate: validateDeploymentUpdate,
  prepareForCreate: clearStatus,
  conversion: { toStorage: rollbackToStorage, fromStorage: rollbackFromStorage },
};

registerStrategy('Deployment', deploymentStrategy);
