// Kind-specific rules (defaults, validation) register themselves with the strategy when loaded; loading
// is explicit (called at server start) so the order of registration is fixed.

import './deployment.ts';
import './replica-set.ts';
import './daemon-set.ts';
import './job.ts';
import './pod.ts';
import './service.ts';
import './config-data.ts';
import './event.ts';
import './rbac.ts';
import './body-versions.ts';

let loaded = false;

export function loadKindRules(): void {
  if (loaded) return;
  loaded = true;
}
