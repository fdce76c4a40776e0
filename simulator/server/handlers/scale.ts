// The Scale representation of a workload (autoscaling/v1 for apps and core, extensions/v1beta1 for extensions):
// reading it from the parent, and checking a Scale body before the update path maps it onto the parent. Which
// selector a kind shows is its strategy's (KindStrategy.scale, simulator/api/kinds/).

import type { KubeObject } from '../../api/meta.ts';
import { parseApiVersion } from '../../api/meta.ts';
import type { ResourceDef, ScaleDef } from '../../api/registry.ts';
import { scaleSelector } from '../../api/strategy.ts';
import { ApiError, badRequest, invalid, invalidValue, type FieldError } from '../errors.ts';
import { selfLinkOf } from '../registry/system-meta.ts';
import { checkBodyType } from './common.ts';

export function scaleDefOf(def: ResourceDef): ScaleDef {
  const s = def.subresources.scale;
  if (!s || s === true) throw new ApiError(500, 'InternalError', 'scale subresource without a Scale type');
  return s;
}

/** The Scale view of a stored workload. */
export function scaleOf(def: ResourceDef, stored: KubeObject): KubeObject {
  const scale = scaleDefOf(def);
  const spec = (stored.spec ?? {}) as { replicas?: number };
  const status = (stored.status ?? {}) as { replicas?: number };
  const m = stored.metadata;
  // A custom resource's selector comes from its definition's own strategy (the CRD's labelSelectorPath).
  const selectorObj = def.strategy?.scale ? def.strategy.scale.selector(stored) : scaleSelector(stored);
  const selectorString = Object.entries(selectorObj?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  const statusOut: Record<string, unknown> = { replicas: status.replicas ?? 0 };
  if (scale.apiVersion === 'autoscaling/v1') {
    if (selectorString) statusOut.selector = selectorString;
  } else {
    if (selectorObj?.matchLabels) statusOut.selector = selectorObj.matchLabels;
    if (selectorString) statusOut.targetSelector = selectorString;
  }
  return {
    kind: 'Scale',
    apiVersion: scale.apiVersion,
    metadata: {
      name: m.name,
      namespace: m.namespace,
      selfLink: `${selfLinkOf(def, m.namespace, m.name!)}/scale`,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: spec.replicas ?? 0 },
    status: statusOut,
  };
}

/**
 * Checks a Scale body (PUT, or the result of a PATCH of the Scale view): its type, its name, spec.replicas an
 * integer >= 0. Answers the Scale with replicas settled and a precondition only when resourceVersion is a string.
 */
export function checkScaleBody(def: ResourceDef, name: string, raw: Record<string, unknown>): KubeObject {
  const scaleDef = scaleDefOf(def);
  if (raw.apiVersion !== undefined && raw.apiVersion !== scaleDef.apiVersion) {
    const gv = typeof raw.apiVersion === 'string' ? parseApiVersion(raw.apiVersion) : undefined;
    if (!gv) throw badRequest('the object provided is unrecognized: apiVersion must be a string');
    throw badRequest(`the API version in the data (${raw.apiVersion}) does not match the expected API version (${scaleDef.apiVersion})`);
  }
  checkBodyType(raw, 'Scale', ' in the data does not match the path');
  const meta = (raw.metadata ?? {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== name) throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  const spec = (raw.spec ?? {}) as Record<string, unknown>;
  const replicas = spec.replicas ?? 0;
  const errs: FieldError[] = [];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) errs.push(invalidValue('spec.replicas', replicas, 'must be an integer'));
  else if (replicas < 0) errs.push(invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'));
  else if (replicas > 2 ** 31 - 1) errs.push(invalidValue('spec.replicas', replicas, 'must be between -2147483648 and 2147483647, inclusive'));
  if (errs.length) throw invalid('Scale', scaleDef.apiVersion === 'autoscaling/v1' ? 'autoscaling' : 'extensions', name, errs);
  const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined;
  return { kind: 'Scale', apiVersion: scaleDef.apiVersion, metadata: { name, ...(rv !== undefined ? { resourceVersion: rv } : {}) }, spec: { replicas } };
}
