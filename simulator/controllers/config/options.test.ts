import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OptionDefs, parseCommandLine, formatHelp, UsageError, type DaemonOptions } from './options.ts';
import { validateOptions } from './option-rules.ts';
import { FIXTURE_OPTIONS, FIXTURE_GATES, FIXTURE_CONTROLLERS } from '../../testing/test-fixtures.ts';
import { MINUTE, SECOND, MILLISECOND } from '../../util/go-duration.ts';

const defs = new OptionDefs(FIXTURE_OPTIONS);
const tables = { featureGates: FIXTURE_GATES, controllers: FIXTURE_CONTROLLERS };

function run(...argv: string[]): DaemonOptions {
  const r = parseCommandLine(argv, defs);
  assert.equal(r.action, 'run');
  return (r as { options: DaemonOptions }).options;
}

function usageError(argv: string[], pattern: RegExp) {
  assert.throws(
    () => {
      const r = parseCommandLine(argv, defs);
      if (r.action === 'run') validateOptions(r.options, tables);
    },
    (err: unknown) => {
      assert.ok(err instanceof UsageError, `expected UsageError, got ${err}`);
      assert.equal(err.exitCode, 2);
      assert.doesNotMatch(err.message, /\n/);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

test('defaults come from the rows', () => {
  const o = run();
  assert.equal(o.string('--address'), '0.0.0.0');
  assert.equal(o.int('--port'), 10252);
  assert.equal(o.bool('--leader-elect'), true);
  assert.equal(o.duration('--attach-detach-reconcile-sync-period'), MINUTE);
  assert.equal(o.duration('--controller-start-interval'), 0n);
  assert.deepEqual(o.slice('--controllers'), ['*']);
  assert.equal(o.float('--x-api-qps'), Math.fround(20));
  assert.equal(o.wasSet('--port'), false);
});

test('--flag=value and --flag value', () => {
  const o = run('--port=8080', '--address', '::1', '--leader-elect-lease-duration', '1.5h', '--x-api-qps=2.5');
  assert.equal(o.int('--port'), 8080);
  assert.equal(o.string('--address'), '::1');
  assert.equal(o.duration('--leader-elect-lease-duration'), 90n * MINUTE);
  assert.equal(o.float('--x-api-qps'), 2.5);
  assert.equal(o.wasSet('--port'), true);
});

test('booleans: bare, =true|false, Go spellings; a bare flag never eats the next argument', () => {
  assert.equal(run('--leader-elect=false').bool('--leader-elect'), false);
  assert.equal(run('--leader-elect=F').bool('--leader-elect'), false);
  assert.equal(run('--allocate-node-cidrs').bool('--allocate-node-cidrs'), true);
  usageError(['--allocate-node-cidrs', 'false'], /unexpected argument "false"/);
  usageError(['--leader-elect=yes'], /invalid argument "yes" for "--leader-elect" flag: expected a boolean/);
});

test('int32: Go base prefixes and range', () => {
  assert.equal(run('--port', '0x10').int('--port'), 16);
  assert.equal(run('--port', '010').int('--port'), 8);
  assert.equal(run('--concurrent_rc_syncs=-3').int('--concurrent_rc_syncs'), -3);
  usageError(['--port', 'abc'], /^invalid argument "abc" for "--port" flag: expected an int32/);
  usageError(['--port=2147483648'], /value out of range, expected an int32/);
  usageError(['--port=1.0'], /expected an int32/);
  usageError(['--port='], /invalid argument "" for "--port"/);
  usageError(['--port=70000'], /expected a port number from 0 to 65535/);
});

test('the underscore name is accepted exactly as written (and in its normalised spelling)', () => {
  assert.equal(run('--concurrent_rc_syncs', '7').int('--concurrent_rc_syncs'), 7);
  assert.equal(run('--concurrent-rc-syncs=9').int('--concurrent_rc_syncs'), 9);
});

test('durations in Go syntax', () => {
  assert.equal(run('--leader-elect-retry-period=300ms').duration('--leader-elect-retry-period'), 300n * MILLISECOND);
  usageError(['--leader-elect-retry-period=5'], /for "--leader-elect-retry-period" flag: expected a duration/);
  usageError(['--leader-elect-retry-period=1d'], /expected a duration/);
});

test('floats: float and float32', () => {
  assert.equal(run('--horizontal-pod-autoscaler-tolerance=1e-3').float('--horizontal-pod-autoscaler-tolerance'), 0.001);
  assert.equal(run('--x-api-qps=0.1').float('--x-api-qps'), Math.fround(0.1));
  usageError(['--x-api-qps=fast'], /expected a 32-bit floating-point number/);
  usageError(['--x-api-qps=1e39'], /value out of range/);
});

test('ip v4 and v6', () => {
  assert.equal(run('--address=127.0.0.1').string('--address'), '127.0.0.1');
  assert.equal(run('--address=2001:0db8:0:0:0:0:0:1').string('--address'), '2001:db8::1');
  assert.equal(run('--address=::ffff:10.0.0.1').string('--address'), '10.0.0.1');
  usageError(['--address=300.1.1.1'], /invalid argument "300.1.1.1" for "--address" flag: expected an IPv4 or IPv6 address/);
  usageError(['--address=localhost'], /expected an IPv4 or IPv6 address/);
});

test('stringSlice: comma-separated and repeatable, first use replaces the default', () => {
  assert.deepEqual(run('--controllers=namespace,deployment').slice('--controllers'), ['namespace', 'deployment']);
  assert.deepEqual(run('--controllers', '*', '--controllers', '-route,namespace').slice('--controllers'), ['*', '-route', 'namespace']);
  assert.deepEqual(run('--controllers="a,b",c').slice('--controllers'), ['a,b', 'c']);
  usageError(['--controllers=a"b'], /for "--controllers" flag: expected comma-separated values/);
});

test('mapStringBool: Key=true,Other=false, repeated uses merge', () => {
  const o = run('--feature-gates=CPUManager=true,APIListChunking=false', '--feature-gates', 'PVCProtection=1');
  assert.deepEqual(o.map('--feature-gates'), { CPUManager: true, APIListChunking: false, PVCProtection: true });
  usageError(['--feature-gates=CPUManager'], /missing bool value for CPUManager/);
  usageError(['--feature-gates=CPUManager=maybe'], /invalid value of CPUManager: maybe/);
});

test('--version and --version=true|raw ask for the version; --version=false does not', () => {
  assert.deepEqual(parseCommandLine(['--version'], defs), { action: 'version', mode: 'true' });
  assert.deepEqual(parseCommandLine(['--port=1', '--version=true'], defs), { action: 'version', mode: 'true' });
  assert.deepEqual(parseCommandLine(['--version=raw'], defs), { action: 'version', mode: 'raw' });
  assert.equal(parseCommandLine(['--version=false'], defs).action, 'run');
  usageError(['--version=maybe'], /for "--version" flag: expected true, false or raw/);
});

test('unknown options, missing values and bad syntax', () => {
  usageError(['--no-such-option'], /^unknown flag: --no-such-option$/);
  usageError(['--port'], /flag needs an argument: --port/);
  usageError(['-p'], /unknown shorthand flag: "p" in -p/);
  usageError(['---port=1'], /bad flag syntax: ---port=1/);
  assert.equal(parseCommandLine(['--help'], defs).action, 'help');
  assert.equal(parseCommandLine(['-h'], defs).action, 'help');
  // "--" ends the options, so what follows is a stray argument.
  usageError(['--', '--port=1'], /unexpected argument "--port=1"/);
});

test('cross-option rules', () => {
  usageError(['--cluster-cidr=10.0.0.0/16'], /for "--cluster-cidr" flag: needs --allocate-node-cidrs=true/);
  usageError(['--service-cluster-ip-range=10.96.0.0/12'], /"--service-cluster-ip-range" flag: needs --allocate-node-cidrs=true/);
  validateOptions(run('--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/16', '--service-cluster-ip-range=fd00::/108'), tables);
  usageError(['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0'], /expected a CIDR/);
  usageError(['--leader-elect-renew-deadline=20s'], /"--leader-elect-renew-deadline" flag: must be at most --leader-elect-lease-duration \(15s\)/);
  validateOptions(run('--leader-elect-renew-deadline=15s'), tables);
  usageError(['--leader-elect-retry-period=10s'], /"--leader-elect-retry-period" flag: must be below --leader-elect-renew-deadline \(10s\)/);
  usageError(['--attach-detach-reconcile-sync-period=1s'], /invalid argument "1s" for "--attach-detach-reconcile-sync-period" flag: must exceed one second/);
  validateOptions(run('--attach-detach-reconcile-sync-period=1001ms'), tables);
  usageError(['--leader-elect-resource-lock=leases'], /"--leader-elect-resource-lock" flag: expected one of endpoints, configmaps/);
  usageError(['--feature-gates=NoSuchGate=true'], /invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate/);
  usageError(['--controllers=*,-nosuch'], /for "--controllers" flag: "nosuch" is not in the list of known controllers/);
  usageError(['--x-api-content-type=text/plain'], /expected application\/json or application\/vnd.<vendor>.protobuf/);
});

test('a switch that needs another switch is only noted; the no-effect option is noted', () => {
  const v = validateOptions(run('--profiling=false', '--contention-profiling', '--insecure-experimental-approve-all-kubelet-csrs-for-group=system:nodes'), tables);
  assert.ok(v.notes.some((n) => /--contention-profiling has no effect because --profiling is off/.test(n)), 'v.notes.some((n) => /--contention-profiling has no effect because --profiling is off/.test(n))');
  assert.ok(v.notes.some((n) => /--insecure-experimental-approve-all-kubelet-csrs-for-group is accepted but has no effect/.test(n)), 'v.notes.some((n) => /--insecure-experimental-approve-all-kubelet-csrs-for-group is accepted but has…');
  assert.deepEqual(validateOptions(run(), tables).notes, []);
});

test('validated options carry gates and controllers', () => {
  const v = validateOptions(run('--feature-gates=AllAlpha=true,PVCProtection=false', '--controllers=*,tokencleaner,-route'), tables);
  assert.equal(v.gates.enabled('CPUManager'), true);
  assert.equal(v.gates.enabled('PVCProtection'), false);
  assert.equal(v.gates.enabled('SupportIPVSProxyMode'), false);
  assert.deepEqual(v.controllers.enabled, ['attachdetach', 'deployment', 'namespace', 'tokencleaner']);
});

test('/configz keys and values', () => {
  const cfg = run('--leader-elect-lease-duration=90s').toConfig();
  assert.equal(cfg.leaderElectLeaseDuration, '1m30s');
  assert.equal(cfg.attachDetachReconcileSyncPeriod, '1m0s');
  assert.equal(cfg.controllerStartInterval, '0s');
  assert.equal(cfg.concurrentRcSyncs, 5);
  assert.equal(cfg.xApiQps, 20);
  assert.deepEqual(cfg.controllers, ['*']);
  assert.equal(Object.keys(cfg).length, FIXTURE_OPTIONS.length);
  assert.doesNotThrow(() => JSON.stringify(cfg));
});

test('help lists every option with type, default and purpose, grouped', () => {
  const text = formatHelp(defs, 'controller-daemon', 'The controller daemon.');
  for (const row of FIXTURE_OPTIONS) assert.ok(text.includes(row.name), `help mentions ${row.name}`);
  assert.match(text, /--port int32 +Port of the HTTP service\. \(default 10252\)/);
  assert.match(text, /--attach-detach-reconcile-sync-period duration +.*\(default 1m0s\)/);
  assert.match(text, /--allocate-node-cidrs +Allocate pod CIDRs\. \(default false\)/);
  assert.match(text, /--controllers stringSlice +.*\(default \[\*\]\)/);
  assert.match(text, /--x-api-qps float32 +.*\(default 20\)/);
  assert.match(text, /leader-election flags:\n( +--leader-elect.*\n){5}/);
});

test('a table with a bad row fails loudly', () => {
  assert.throws(() => new OptionDefs([{ id: 'x', name: '--x', type: 'complex', default: null, purpose: '' }]), /unknown type "complex"/);
  assert.throws(() => new OptionDefs([{ id: 'x', name: '--x', type: 'duration', default: '5', purpose: '' }]), /default "5" is not a valid duration/);
  assert.throws(() => new OptionDefs([{ id: 'x', name: '--x', type: 'flag', default: false, purpose: '' }, { id: 'y', name: '--x', type: 'flag', default: false, purpose: '' }]), /defined twice/);
});

test('seconds arithmetic sanity for durations', () => {
  assert.equal(run('--leader-elect-lease-duration=2m').durationMs('--leader-elect-lease-duration'), Number((2n * MINUTE) / (SECOND / 1000n)));
});
