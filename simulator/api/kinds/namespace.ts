// Namespace (core/v1): the finalizer "kubernetes" holds a deleted namespace until the namespace controller has
// emptied it and cleared spec.finalizers through /finalize; the main resource and /status cannot change
// spec (real namespace strategies).

import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';

const specFinalizers = (obj: KubeObject): string[] => (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];

export const namespaceStrategy: KindStrategy = {
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
