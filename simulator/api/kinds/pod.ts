// Pod (core/v1): the PodSpec defaults and validation of pod-spec.ts with images required, and the update
// rule that only the updatable Container fields (spec 2.2 rows without "Not updatable"),
// activeDeadlineSeconds and tolerations may change.

import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { defaultPodResources, defaultPodSpec, validatePodSpec, validatePodSpecUpdate } from './pod-spec.ts';
import { type Obj } from './util.ts';
import { milliOf } from '../quantity-sum.ts';

export const podStrategy: KindStrategy = {
  applyDefaults: (obj: KubeObject) => {
    const spec = (obj.spec ??= {}) as Obj;
    defaultPodSpec(spec);
    defaultPodResources(spec);
  },
  validate: (obj) => validatePodSpec(obj.spec, 'spec', { imageRequired: true }),
  validateUpdate: (next, old) => validatePodSpecUpdate(next.spec, old.spec),
  // A new pod is Pending with its QOS class (the 1.9 pod strategy sets both); the kubelet owns the rest of its status.
  prepareForCreate: (obj) => {
    obj.status = { phase: 'Pending', qosClass: qosClassOf(obj.spec as Obj | undefined) };
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

/**
 * The QOS class of a pod from its containers' cpu and memory (1.9 qos.GetPodQOS): none requested or limited:
 * BestEffort; every container limiting both with requests equal to the limits (a missing request defaults to its
 * limit): Guaranteed; else Burstable.
 */
export function qosClassOf(spec: Obj | undefined): string {
  const containers = ((spec?.containers ?? []) as Array<{ resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }>);
  const requests: Record<string, number> = {};
  const limits: Record<string, number> = {};
  let guaranteed = true;
  for (const c of containers) {
    for (const name of ['cpu', 'memory']) {
      const limit = c.resources?.limits?.[name];
      const request = c.resources?.requests?.[name] ?? limit;
      if (request !== undefined && milliOf(request) > 0) requests[name] = (requests[name] ?? 0) + milliOf(request);
      if (limit !== undefined && milliOf(limit) > 0) limits[name] = (limits[name] ?? 0) + milliOf(limit);
      else guaranteed = false;
    }
  }
  if (Object.keys(requests).length === 0 && Object.keys(limits).length === 0) return 'BestEffort';
  if (guaranteed && ['cpu', 'memory'].every((n) => requests[n] === limits[n])) return 'Guaranteed';
  return 'Burstable';
}
