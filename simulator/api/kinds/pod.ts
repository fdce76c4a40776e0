// Pod (core/v1): the PodSpec defaults and validation of pod-spec.ts with images required, and the update
// rule that only the updatable Container fields (spec 2.2 rows without "Not updatable"),
// activeDeadlineSeconds and tolerations may change.

import type { KubeObject } from '../meta.ts';
import { registerKindRules } from '../strategy.ts';
import { defaultPodResources, defaultPodSpec, validatePodSpec, validatePodSpecUpdate } from './pod-spec.ts';
import { type Obj } from './util.ts';

registerKindRules('Pod', {
  applyDefaults: (obj: KubeObject) => {
    const spec = (obj.spec ??= {}) as Obj;
    defaultPodSpec(spec);
    defaultPodResources(spec);
  },
  validate: (obj) => validatePodSpec(obj.spec, 'spec', { imageRequired: true }),
  validateUpdate: (next, old) => validatePodSpecUpdate(next.spec, old.spec),
});
