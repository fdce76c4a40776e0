// ResourceQuota (core/v1): spec.hard names standard quota resources (or qualified names such as
// count/deployments.apps and requests.nvidia.com/gpu) with non-negative quantities; scopes are the 1.9 four.
// status (hard and used) is written by the resourcequota controller through /status and checked the same way.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, notSupported } from '../field-errors.ts';
import { QUANTITY_ERROR, parseQuantity } from '../quantity-sum.ts';
import { type Obj, clearStatus, isObj } from './util.ts';

/** helper.IsStandardQuotaResourceName of 1.9. */
export const STANDARD_QUOTA_RESOURCES = [
  'pods', 'services', 'replicationcontrollers', 'resourcequotas', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers', 'cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu',
  'limits.memory', 'requests.storage', 'ephemeral-storage', 'requests.ephemeral-storage', 'limits.ephemeral-storage',
];
export const QUOTA_SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort'];
const QUALIFIED = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

function validateResourceList(list: unknown, path: string, errs: FieldError[]): void {
  if (!isObj(list)) return;
  for (const [name, v] of Object.entries(list)) {
    const p = `${path}[${name}]`;
    if (!QUALIFIED.test(name) && !/^[a-z0-9.-]+\/[a-z0-9.-]+$/.test(name)) errs.push(invalidValue(p, name, "name part must consist of alphanumeric characters, '-', '_' or '.'"));
    else if (!name.includes('/') && !STANDARD_QUOTA_RESOURCES.includes(name)) errs.push(invalidValue(p, name, 'must be a standard resource for quota'));
    const q = parseQuantity(v);
    if (!q) errs.push(invalidValue(p, v, QUANTITY_ERROR));
    else if (q.milli < 0) errs.push(invalidValue(p, v, 'must be greater than or equal to 0'));
  }
}

export function validateResourceQuota(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (obj.spec ?? {}) as Obj;
  validateResourceList(spec.hard, 'spec.hard', errs);
  if (Array.isArray(spec.scopes)) {
    spec.scopes.forEach((s, i) => {
      if (!QUOTA_SCOPES.includes(s as string)) errs.push(notSupported(`spec.scopes[${i}]`, s, QUOTA_SCOPES));
    });
    const scopes = spec.scopes as string[];
    if ((scopes.includes('Terminating') && scopes.includes('NotTerminating')) || (scopes.includes('BestEffort') && scopes.includes('NotBestEffort'))) {
      errs.push(invalidValue('spec.scopes', scopes, 'conflicting scopes'));
    }
  }
  const status = (obj.status ?? {}) as Obj;
  validateResourceList(status.hard, 'status.hard', errs);
  validateResourceList(status.used, 'status.used', errs);
  return errs;
}

registerStrategy('ResourceQuota', { prepareForCreate: clearStatus, validate: validateResourceQuota });
