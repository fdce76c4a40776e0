// Pod (core/v1): the PodSpec defaults and validation of pod-spec.ts with images required, and the update
// rule that only the updatable Container fields (spec 2.2 rows without "Not updatable"),
// activeDeadlineSeconds and tolerations may change.

import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { defaultPodResources, defaultPodSpec, validatePodSpec, validatePodSpecUpdate } from './pod-spec.ts';
import { type Obj } from './util.ts';

export const podStrategy: KindStrategy = {
  applyDefaults: (obj: KubeObject) => {
    const spec = (obj.spec ??= {}) as Obj;
    defaultPodSpec(spec);
    defaultPodResources(spec);
  },
  validate: (obj) => validatePodSpec(obj.spec, 'spec', { imageRequired: true }),
  validateUpdate: (next, old) => validatePodSpecUpdate(next.spec, old.spec),
  // A new pod is Pending; the kubelet owns the rest of its status (a client's qosClass is kept).
  prepareForCreate: (obj) => {
    const status = (obj.status ?? {}) as Record<string, unknown>;
    obj.status = { phase: 'Pending', ...(status.qosClass ? { qosClass: status.qosClass } : {}) };
  },
  deletion: {
    // Pods on a node go through graceful termination; unscheduled or finished pods go at once (real pod strategy).
    gracePeriodSeconds: (obj, opts) => {
      const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
      const phase = (obj.status as { phase?: string } | undefined)?.phase;
      if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
      return opts.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
    },
  },
};

registerStrategy('Pod', podStrategy);
