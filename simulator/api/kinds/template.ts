// Pod templates inside workloads: where they sit, their defaults and their validation, and the label
// defaults some versions take from them (selector and metadata.labels from template labels).

import type { KubeObject } from '../meta.ts';
import { validateLabels, validateAnnotations } from '../validation/object-meta.ts';
import { type FieldError, notSupported } from '../field-errors.ts';
import { defaultPodSpec, validatePodSpec } from './pod-spec.ts';
import { type Obj, isObj, objAt, objAtPath } from './util.ts';

/** Defaults of the pod template at spec.<path> (template or jobTemplate.spec.template). */
export function defaultTemplate(template: Obj | undefined): void {
  if (!template) return;
  const spec = objAt(template, 'spec');
  if (spec) defaultPodSpec(spec);
}

/**
 * Template validation: labels and annotations, the pod spec (images optional, spec 2.2), and the
 * restart policies the owning controller supports (Always for Deployment/RS/DS/RC; OnFailure or Never
 * for Jobs).
 */
export function validateTemplate(template: unknown, path: string, restartPolicies: string[]): FieldError[] {
  if (!isObj(template)) return [{ type: 'FieldValueRequired', field: path }];
  const errs: FieldError[] = [];
  const meta = objAt(template, 'metadata');
  if (meta) errs.push(...validateLabels(meta.labels, `${path}.metadata.labels`), ...validateAnnotations(meta.annotations, `${path}.metadata.annotations`));
  errs.push(...validatePodSpec(template.spec, `${path}.spec`, { imageRequired: false }));
  const rp = objAt(template, 'spec')?.restartPolicy;
  if (typeof rp === 'string' && !restartPolicies.includes(rp) && !errs.some((e) => e.field === `${path}.spec.restartPolicy`)) {
    errs.push(notSupported(`${path}.spec.restartPolicy`, rp, restartPolicies));
  }
  return errs;
}

/** The template's labels, or undefined when there are none. */
export function templateLabels(obj: KubeObject, templatePath = 'spec.template'): Record<string, string> | undefined {
  const labels = objAtPath(obj, `${templatePath}.metadata`)?.labels;
  return isObj(labels) && Object.keys(labels).length > 0 ? (labels as Record<string, string>) : undefined;
}

/** metadata.labels <- template labels when the object has none (extensions workloads, RC, Job). */
export function defaultLabelsFromTemplate(obj: KubeObject, templatePath = 'spec.template'): void {
  const labels = templateLabels(obj, templatePath);
  if (labels && Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...labels };
}

/** spec.selector <- {matchLabels: template labels} when unset (extensions workloads). */
export function defaultSelectorFromTemplate(obj: KubeObject): void {
  const spec = obj.spec as Obj | undefined;
  const labels = templateLabels(obj);
  if (spec && labels && (spec.selector === undefined || spec.selector === null)) spec.selector = { matchLabels: { ...labels } };
}
