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


// ---- autoscaling/v2beta1 over the v1 storage (1.9) ----
// A v2beta1 object keeps its CPU utilization target in v1's targetCPUUtilizationPercentage and every other metric
// in annotations, as 1.9's conversion does: spec.metrics in autoscaling.alpha.kubernetes.io/metrics,
// status.currentMetrics in .../current-metrics, status.conditions in .../conditions. A v1 write keeps the annotations,
// so metrics v1 cannot show survive it; a v2beta1 read puts them back.

export const HPA_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const HPA_CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';

const V2BETA1 = 'autoscaling/v2beta1';
const isCpuUtilization = (m: Obj, field: 'targetAverageUtilization' | 'currentAverageUtilization') =>
  m.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu' && typeof m.resource[field] === 'number';

/** v2beta1's defaults: minReplicas 1, and a CPU target of 80% when no metric is given (1.9 SetDefaults). */
function defaultV2beta1(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  setDefault(spec, 'minReplicas', 1);
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }];
}

function hpaToStorage(obj: KubeObject, from: string): void {
  if (from !== V2BETA1) return;
  const spec = (obj.spec ?? {}) as Obj;
  const status = (obj.status ?? {}) as Obj;
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  const metrics = (Array.isArray(spec.metrics) ? spec.metrics : []) as Obj[];
  const cpu = metrics.find((m) => isCpuUtilization(m, 'targetAverageUtilization'));
  const others = metrics.filter((m) => m !== cpu);
  delete spec.metrics;
  if (cpu) spec.targetCPUUtilizationPercentage = (cpu.resource as Obj).targetAverageUtilization;
  if (others.length) annotations[HPA_METRICS_ANNOTATION] = JSON.stringify(others);
  else delete annotations[HPA_METRICS_ANNOTATION];
  if (obj.status !== undefined) {
    const current = (Array.isArray(status.currentMetrics) ? status.currentMetrics : []) as Obj[];
    const currentCpu = current.find((m) => isCpuUtilization(m, 'currentAverageUtilization'));
    const otherCurrent = current.filter((m) => m !== currentCpu);
    delete status.currentMetrics;
    if (currentCpu) status.currentCPUUtilizationPercentage = (currentCpu.resource as Obj).currentAverageUtilization;
    if (otherCurrent.length) annotations[HPA_CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherCurrent);
    if (Array.isArray(status.conditions)) annotations[HPA_CONDITIONS_ANNOTATION] = JSON.stringify(status.conditions);
    delete status.conditions;
  }
  if (Object.keys(annotations).length || obj.metadata.annotations) obj.metadata.annotations = annotations;
}

function parseList(text: string | undefined): Obj[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as Obj[]) : [];
  } catch {
    return [];
  }
}

function hpaFromStorage(out: KubeObject, stored: KubeObject, apiVersion: string): void {
  if (apiVersion !== V2BETA1) return;
  const annotations = { ...(stored.metadata.annotations ?? {}) };
  const { targetCPUUtilizationPercentage: target, ...spec } = (stored.spec ?? {}) as Obj;
  const metrics: Obj[] = [];
  if (typeof target === 'number') metrics.push({ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: target } });
  metrics.push(...parseList(annotations[HPA_METRICS_ANNOTATION]));
  if (metrics.length) spec.metrics = metrics;
  out.spec = spec;
  if (stored.status !== undefined) {
    const { currentCPUUtilizationPercentage: current, ...status } = stored.status as Obj;
    const currentMetrics: Obj[] = [];
    if (typeof current === 'number') currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: current } });
    currentMetrics.push(...parseList(annotations[HPA_CURRENT_METRICS_ANNOTATION]));
    status.currentMetrics = currentMetrics.length ? currentMetrics : null;
    status.conditions = parseList(annotations[HPA_CONDITIONS_ANNOTATION]);
    out.status = status;
  }
  for (const a of [HPA_METRICS_ANNOTATION, HPA_CURRENT_METRICS_ANNOTATION, HPA_CONDITIONS_ANNOTATION]) delete annotations[a];
  const metadata = { ...stored.metadata };
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  else delete metadata.annotations;
  out.metadata = metadata;
}

/** Metric types of v2beta1 and what each needs (1.9's validation, reported at the v2beta1 paths). */
function validateV2beta1Metrics(obj: KubeObject): FieldError[] {
  const metrics = (obj.spec as Obj | undefined)?.metrics;
  if (!Array.isArray(metrics)) return [];
  const errs: FieldError[] = [];
  const TYPES = ['Object', 'Pods', 'Resource'];
  metrics.forEach((m, i) => {
    const path = `spec.metrics[${i}]`;
    if (!isObj(m) || !TYPES.includes(m.type as string)) return void errs.push(invalidValue(`${path}.type`, isObj(m) ? m.type ?? '' : m, 'must be either "Object", "Pods", or "Resource"'));
    const field = (m.type as string).toLowerCase();
    if (!isObj(m[field])) errs.push(required(`${path}.${field}`, `must populate information for the given metric source (only allowed when type is ${String(m.type)})`));
    const src = objAt(m, field) ?? {};
    if (m.type === 'Resource' && typeof src.targetAverageUtilization === 'number' && src.targetAverageUtilization < 1) {
      errs.push(invalidValue(`${path}.resource.targetAverageUtilization`, src.targetAverageUtilization, 'must be greater than 0'));
    }
    if (m.type === 'Resource' && src.targetAverageUtilization === undefined && src.targetAverageValue === undefined) {
      errs.push(required(`${path}.resource.targetAverageUtilization`, 'must set either a target raw value or a target utilization'));
    }
  });
  return errs;
}

registerStrategy('HorizontalPodAutoscaler', { conversion: { toStorage: hpaToStorage, fromStorage: hpaFromStorage } });

registerStrategy('HorizontalPodAutoscaler', {
  applyDefaults: (obj, def) => (def.version === 'v2beta1' ? defaultV2beta1(obj) : defaultAutoscaler(obj)),
  prepareForCreate: clearStatus,
  // v2beta1 metrics are checked as the request gave them (read back from the v1 form they are stored in).
  validate: (obj, def) => {
    if (def.version !== 'v2beta1') return validateAutoscaler(obj);
    const view = { ...obj } as KubeObject;
    hpaFromStorage(view, obj, V2BETA1);
    return [...validateAutoscaler(obj).filter((e) => !e.field.startsWith('spec.metrics')), ...validateV2beta1Metrics(view)];
  },
});
