// Namespace (core/v1): the finalizer "kubernetes" holds a deleted namespace until the namespace controller has
// emptied it and cleared spec.finalizers through /finalize; the main resource and /status cannot change
// spec (real namespace strategies).

import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { invalidValue, notSupported, type FieldError } from '../field-errors.ts';
import { finalizerNameErrors } from '../validation/object-meta.ts';

const PHASES = ['Active', 'Terminating'];

/**
 * The real ValidateNamespace and ValidateNamespaceStatusUpdate: spec.finalizers are finalizer names (`""` would
 * hold the namespace Terminating forever), and the phase follows deletionTimestamp: Active only without it,
 * Terminating only with it (the real field path is "status.Phase").
 */
function validateNamespace(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const fins = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
  if (Array.isArray(fins)) {
    fins.forEach((f, i) => {
      if (typeof f !== 'string') errs.push(invalidValue(`spec.finalizers[${i}]`, f, 'must be a string'));
      else for (const m of finalizerNameErrors(f)) errs.push(invalidValue(`spec.finalizers[${i}]`, f, m));
    });
  }
  const phase = (obj.status as { phase?: unknown } | undefined)?.phase;
  if (phase !== undefined && phase !== null && phase !== '' && !PHASES.includes(phase as string)) errs.push(notSupported('status.phase', phase, PHASES));
  else if (!obj.metadata.deletionTimestamp && phase !== 'Active') errs.push(invalidValue('status.Phase', phase ?? '', "may only be 'Active' if `deletionTimestamp` is empty"));
  else if (obj.metadata.deletionTimestamp && phase !== 'Terminating') errs.push(invalidValue('status.Phase', phase ?? '', "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  return errs;
}

const specFinalizers = (obj: KubeObject): string[] => (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];

export const namespaceStrategy: KindStrategy = {
  validate: validateNamespace,
  prepareForCreate: (obj) => {
    const spec = (obj.spec ??= {}) as { finalizers?: string[] };
    const fin = spec.finalizers ?? [];
    if (!fin.includes('kubernetes')) spec.finalizers = [...fin, 'kubernetes'];
    obj.status = { phase: 'Active' };
  },
  // spec.finalizers is owned by /finalize.
  prepareForUpdate: (obj, old) => {
    obj.spec = old.spec;
  },
  deletion: {
    holdingFinalizers: specFinalizers,
    prepareForDelete: (next, old) => {
      next.status = { ...(old.status as object), phase: 'Terminating' };
    },
  },
};

registerStrategy('Namespace', namespaceStrategy);

/** PUT namespaces/<name>/finalize: only spec.finalizers changes. */
export function prepareForFinalize(obj: KubeObject, old: KubeObject): KubeObject {
  const spec = (obj.spec ?? {}) as { finalizers?: string[] };
  return { ...old, metadata: { ...old.metadata }, spec: { ...(old.spec as object), finalizers: spec.finalizers ?? [] } };
}
