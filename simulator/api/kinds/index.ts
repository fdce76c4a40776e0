// Every kind's strategy (api/strategy.ts KindStrategy: defaults, validation, update rules, status, scale,
// conversions, deletion) registers itself when its file is loaded; this list loads them in a fixed order.
// A new kind: its ResourceDef line in api/registry.ts, its strategy in api/kinds/<kind>.ts, its line here.

import './deployment.ts';
import './replica-set.ts';
import './daemon-set.ts';
import './job.ts';
import './pod.ts';
import './service.ts';
import './namespace.ts';
import './ingress.ts';
import './config-data.ts';
import './event.ts';
import './rbac.ts';
import './certificates.ts';
import './custom-resource-definition.ts';
import '../custom-resource.ts';
import './body-versions.ts';
import './stateful-set.ts';
import './disruption-budget.ts';
import './resource-quota.ts';
import './autoscaler.ts';
import './volumes.ts';
import './limit-range.ts';
import './admission-registration.ts';
import './network-policy.ts';
import './pod-security-policy.ts';
