// A small stand-in for the spec-table rows, shaped like spec-tables/index.ts, for unit tests that should not
// depend on the whole table. The full table is exercised by options.spec-table.test.ts.

import type { OptionRowLike } from '../controllers/config/options.ts';
import type { FeatureGateRowLike } from '../controllers/config/feature-gates.ts';
import type { ControllerRowLike } from '../controllers/config/controller-selection.ts';

const row = (name: string, type: string, dflt: unknown, group: string, purpose: string, constraints?: unknown[]): OptionRowLike =>
  ({ id: `option.${name.slice(2)}`, name, type, default: dflt, defaultText: dflt === null ? 'none' : String(dflt), purpose, group, constraints }) as OptionRowLike;

export const FIXTURE_OPTIONS: OptionRowLike[] = [
  row('--address', 'ip', '0.0.0.0', 'generic', 'Address served on.'),
  row('--port', 'int32', 10252, 'generic', 'Port of the HTTP service.'),
  row('--allocate-node-cidrs', 'flag', false, 'nodes', 'Allocate pod CIDRs.'),
  row('--attach-detach-reconcile-sync-period', 'duration', '1m0s', 'volumes', 'Reconcile wait; must exceed one second.', [
    { text: 'must exceed one second', greaterThan: '1s' },
  ]),
  row('--cluster-cidr', 'string', null, 'nodes', 'Pod CIDR range.', [{ text: 'needs --allocate-node-cidrs true', requires: '--allocate-node-cidrs' }]),
  row('--service-cluster-ip-range', 'string', null, 'nodes', 'Service CIDR.', [{ text: 'needs --allocate-node-cidrs true', requires: '--allocate-node-cidrs' }]),
  row('--concurrent_rc_syncs', 'int32', 5, 'controllers', 'Replication controllers synced at once.'),
  row('--controller-start-interval', 'duration', null, 'generic', 'Interval between starting controllers.'),
  row('--controllers', 'stringSlice', ['*'], 'controllers', 'Controllers to enable.', [{ valuesFrom: 'controllers' }]),
  row('--feature-gates', 'mapStringBool', null, 'generic', 'key=value pairs for feature gates.', [{ valuesFrom: 'featureGates' }]),
  row('--horizontal-pod-autoscaler-tolerance', 'float', 0.1, 'autoscaling', 'Tolerance.'),
  row('--insecure-experimental-approve-all-kubelet-csrs-for-group', 'string', null, 'certificates', 'Has no effect.'),
  row('--x-api-qps', 'float32', 20, 'api-client', 'Queries per second.'),
  row('--x-api-burst', 'int32', 30, 'api-client', 'Burst.'),
  row('--x-api-content-type', 'string', 'application/vnd.kubernetes.protobuf', 'api-client', 'Content type.'),
  row('--leader-elect', 'flag', true, 'leader-election', 'Gain leadership first.'),
  row('--leader-elect-lease-duration', 'duration', '15s', 'leader-election', 'Lease.'),
  row('--leader-elect-renew-deadline', 'duration', '10s', 'leader-election', 'Renew deadline.', [{ atMost: '--leader-elect-lease-duration' }]),
  row('--leader-elect-resource-lock', 'string', 'endpoints', 'leader-election', 'Lock type.', [{ oneOf: ['endpoints', 'configmaps'] }]),
  row('--leader-elect-retry-period', 'duration', '2s', 'leader-election', 'Retry.'),
  row('--profiling', 'flag', true, 'profiling', 'Profiling.'),
  row('--contention-profiling', 'flag', false, 'profiling', 'Contention profiling.', [{ requires: '--profiling' }]),
  row('--version', 'version[=true]', null, 'generic', 'Print version and exit.'),
];

export const FIXTURE_GATES: FeatureGateRowLike[] = [
  { id: 'gate.APIListChunking', name: 'APIListChunking', stage: 'beta', default: true },
  { id: 'gate.AllAlpha', name: 'AllAlpha', stage: 'alpha', default: false },
  { id: 'gate.CPUManager', name: 'CPUManager', stage: 'alpha', default: false },
  { id: 'gate.PVCProtection', name: 'PVCProtection', stage: 'alpha', default: false },
  { id: 'gate.SupportIPVSProxyMode', name: 'SupportIPVSProxyMode', stage: 'beta', default: false },
  { id: 'gate.AllowExtTrafficLocalEndpoints', name: 'AllowExtTrafficLocalEndpoints', stage: null, default: true },
];

export const FIXTURE_CONTROLLERS: ControllerRowLike[] = ['attachdetach', 'bootstrapsigner', 'deployment', 'namespace', 'route', 'tokencleaner'].map((name) => ({
  id: `controller.${name}`,
  name,
  enabledByDefault: name !== 'bootstrapsigner' && name !== 'tokencleaner',
}));
