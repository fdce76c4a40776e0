// The option machinery against the real spec tables: all 79 options, 30 controllers and 37 gates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSpecTables } from '../../../spec-tables/index.ts';
import { OptionDefs, parseCommandLine, formatHelp, UsageError, type DaemonOptions } from './options.ts';
import { validateOptions } from './option-rules.ts';

const tables = loadSpecTables();
const defs = new OptionDefs(tables.options);

function run(...argv: string[]): DaemonOptions {
  const r = parseCommandLine(argv, defs);
  assert.equal(r.action, 'run');
  return (r as { options: DaemonOptions }).options;
}

test('every row is an option with a valid default', () => {
  assert.equal(defs.list.length, 79);
  assert.equal(tables.controllers.length, 30);
  assert.equal(tables.featureGates.length, 37);
  const v = validateOptions(run(), tables);
  assert.deepEqual(v.notes, []);
  assert.equal(v.options.string('--x-api-content-type'), 'application/vnd.kubernetes.protobuf');
  assert.equal(v.options.string('--cluster-name'), 'kubernetes');
  assert.deepEqual(v.controllers.disabled, ['bootstrapsigner', 'tokencleaner']);
  assert.equal(v.controllers.enabled.length, 28);
  assert.equal(v.gates.enabled('APIListChunking'), true);
  assert.equal(v.gates.enabled('CPUManager'), false);
});

test('/configz has all 79 options with Go-formatted durations', () => {
  const cfg = run().toConfig();
  assert.equal(Object.keys(cfg).length, 79);
  assert.equal(cfg.experimentalClusterSigningDuration, '8760h0m0s');
  assert.equal(cfg.minResyncPeriod, '12h0m0s');
  assert.equal(cfg.leaderElectLeaseDuration, '15s');
  assert.equal(cfg.horizontalPodAutoscalerTolerance, 0.1);
  assert.equal(cfg.nodeEvictionRate, 0.1);
  assert.equal(cfg.unhealthyZoneThreshold, 0.55);
});

test('every option accepts a value of its type on the command line', () => {
  const sample: Record<string, string> = {
    ip: '10.0.0.1', int32: '7', flag: 'true', duration: '3s', string: 'x', stringSlice: '*',
    mapStringBool: 'APIListChunking=false', float: '0.5', float32: '0.25', 'version[=true]': 'false',
  };
  for (const def of defs.list) {
    const o = run(`${def.name}=${sample[def.type.name]}`);
    assert.equal(o.wasSet(def.name), true, def.name);
  }
});

test('help lists every option, grouped by the table group', () => {
  const text = formatHelp(defs, 'controller-daemon', 'intro');
  for (const row of tables.options) assert.match(text, new RegExp(`\\n +${row.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ \\n]`), row.name);
  for (const group of new Set(tables.options.map((o) => o.group))) assert.match(text, new RegExp(`\\n${group} flags:\\n`));
});

test('the table constraints are enforced', () => {
  const bad = (argv: string[], re: RegExp) =>
    assert.throws(() => {
      const r = parseCommandLine(argv, defs);
      if (r.action === 'run') validateOptions(r.options, tables);
    }, (e: unknown) => e instanceof UsageError && re.test(e.message));
  bad(['--cluster-cidr=10.0.0.0/8'], /needs --allocate-node-cidrs=true/);
  bad(['--leader-elect-renew-deadline=16s'], /must be at most --leader-elect-lease-duration/);
  bad(['--attach-detach-reconcile-sync-period=500ms'], /must exceed one second/);
  bad(['--leader-elect-resource-lock=leases'], /expected one of endpoints, configmaps/);
  bad(['--feature-gates=Bogus=true'], /unrecognized feature gate: Bogus/);
  bad(['--controllers=bogus'], /"bogus" is not in the list of known controllers/);
});
