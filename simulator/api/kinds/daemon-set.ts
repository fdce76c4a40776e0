// DaemonSet (apps/v1, extensions/v1beta1). Not tabulated by the spec; defaults follow the real 1.9
// defaulters (brief and wire-facts 5): apps/v1 updateStrategy RollingUpdate with maxUnavailable 1 and
// revisionHistoryLimit 10; extensions/v1beta1 updateStrategy OnDelete, selector and labels from the
// template, revisionHistoryLimit 10. templateGeneration starts at 1 (extensions spec field; in apps/v1
// the deprecated.daemonset.template.generation annotation, which conversion.ts maps between the two).

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { isDeepStrictEqual } from 'node:util';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, notSupported, required } from '../field-errors.ts';
import { isZeroIntOrPercent, percentOf, validateIntOrPercent } from './int-or-percent.ts';
import { validateSelectorImmutable, validateWorkloadSelector } from './selector.ts';
import { defaultLabelsFromTemplate, defaultSelectorFromTemplate, defaultTemplate, validateTemplate } from './template.ts';
import { type Obj, clearStatus, ensureObj, isObj, isUnset, nonNegative, objAt, setDefault } from './util.ts';

/** Where apps/v1 keeps the extensions/v1beta1 DaemonSet's spec.templateGeneration. */
export const DS_TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

export const DS_UPDATE_STRATEGIES = ['RollingUpdate', 'OnDelete'];
const REVISION_HISTORY_LIMIT = 10;

export function defaultDaemonSet(obj: KubeObject, def: ResourceDef): void {
  const extensions = def.group === 'extensions';
  if (extensions) {
    defaultSelectorFromTemplate(obj);
    defaultLabelsFromTemplate(obj);
  }
  const spec = (obj.spec ??= {}) as Obj;
  const strategy = ensureObj(spec, 'updateStrategy');
  if (isUnset(strategy.type) || strategy.type === '') strategy.type = extensions ? 'OnDelete' : 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') setDefault(ensureObj(strategy, 'rollingUpdate'), 'maxUnavailable', 1);
  setDefault(spec, 'revisionHistoryLimit', REVISION_HISTORY_LIMIT);
  defaultTemplate(objAt(spec, 'template'));
}

function prepareDaemonSetForCreate(obj: KubeObject, def: ResourceDef): void {
  clearStatus(obj);
  if (def.group === 'extensions') (obj.spec as Obj).templateGeneration = 1;
  else obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [DS_TEMPLATE_GENERATION]: '1' };
}

/**
 * A template change bumps the template generation (the real strategy's PrepareForUpdate). Stored objects are
 * apps/v1, where the generation lives in an annotation; clients of either version cannot set it themselves.
 */
function prepareDaemonSetForUpdate(obj: KubeObject, old: KubeObject): void {
  const oldGeneration = Number(old.metadata.annotations?.[DS_TEMPLATE_GENERATION] ?? 1);
  const changed = !isDeepStrictEqual((obj.spec as Obj | undefined)?.template, (old.spec as Obj | undefined)?.template);
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [DS_TEMPLATE_GENERATION]: String(changed ? oldGeneration + 1 : oldGeneration) };
}

export function validateDaemonSet(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  errs.push(...validateWorkloadSelector(spec, 'spec', { what: 'daemonset' }));
  errs.push(...validateTemplate(spec.template, 'spec.template', ['Always']));
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  nonNegative(errs, 'spec.revisionHistoryLimit', spec.revisionHistoryLimit);
  nonNegative(errs, 'spec.templateGeneration', spec.templateGeneration);
  const strategy = objAt(spec, 'updateStrategy');
  if (strategy) {
    if (!DS_UPDATE_STRATEGIES.includes(strategy.type as string)) errs.push(notSupported('spec.updateStrategy.type', strategy.type ?? '', DS_UPDATE_STRATEGIES));
    else if (strategy.type === 'RollingUpdate') {
      const ru = objAt(strategy, 'rollingUpdate');
      if (!ru) errs.push(required('spec.updateStrategy.rollingUpdate'));
      else {
        const p = 'spec.updateStrategy.rollingUpdate.maxUnavailable';
        errs.push(...validateIntOrPercent(ru.maxUnavailable, p));
        if (isZeroIntOrPercent(ru.maxUnavailable)) errs.push(invalidValue(p, ru.maxUnavailable, 'cannot be 0'));
        const pct = percentOf(ru.maxUnavailable);
        if (pct !== undefined && pct > 100) errs.push(invalidValue(p, ru.maxUnavailable, 'must not be greater than 100%'));
      }
    }
  }
  return errs;
}

export const daemonSetStrategy: KindStrategy = {
  applyDefaults: defaultDaemonSet,
  prepareForCreate: prepareDaemonSetForCreate,
  prepareForUpdate: prepareDaemonSetForUpdate,
  validate: validateDaemonSet,
  validateUpdate: (next, old, def) => (def.group === 'apps' && def.version !== 'v1beta1' ? validateSelectorImmutable(next.spec as Obj, old.spec as Obj, 'spec') : []),
  conversion: {
    // extensions/v1beta1 spec.templateGeneration <-> the apps/v1 annotation DS_TEMPLATE_GENERATION.
    toStorage(obj, from) {
      const spec = obj.spec as Obj | undefined;
      if (from !== 'extensions/v1beta1' || !spec || spec.templateGeneration === undefined) return;
      obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [DS_TEMPLATE_GENERATION]: String(spec.templateGeneration) };
      delete spec.templateGeneration;
    },
    fromStorage(out, stored, apiVersion) {
      const tg = stored.metadata.annotations?.[DS_TEMPLATE_GENERATION];
      if (apiVersion === 'extensions/v1beta1' && tg !== undefined) out.spec = { ...(stored.spec as object), templateGeneration: Number(tg) };
    },
  },
};

registerStrategy('DaemonSet', daemonSetStrategy);
