import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSpecTables } from '../../../spec-tables/index.ts';
import { OptionDefs, parseCommandLine, type DaemonOptions } from '../config/options.ts';
import { FeatureGates } from '../config/feature-gates.ts';
import { CONTROLLER_PLANS, decideStart, type StartConditions } from './registry.ts';

const tables = loadSpecTables();
const defs = new OptionDefs(tables.options);
const options = (...argv: string[]) => (parseCommandLine(argv, defs) as { options: DaemonOptions }).options;
const cond = (argv: string[] = [], gates: Record<string, boolean> = {}, available: string[] = []): StartConditions => ({
  options: options(...argv),
  gates: new FeatureGates(tables.featureGates, gates),
  available: new Set(available),
});

test('every controller of the spec table has a plan', () => {
  assert.deepEqual(Object.keys(CONTROLLER_PLANS).sort(), tables.controllers.map((c) => c.name).sort());
});

test('not-started reasons follow the real start conditions', () => {
  const reason = (name: string, c: StartConditions) => {
    const d = decideStart(name, c);
    assert.equal(d.start, false);
    return (d as { reason: string }).reason;
  };
  assert.match(reason('route', cond()), /--allocate-node-cidrs and --configure-cloud-routes/);
  assert.match(reason('route', cond(['--allocate-node-cidrs'])), /no --cloud-provider/);
  assert.match(reason('service', cond()), /no --cloud-provider is set/);
  assert.match(reason('service', cond(['--cloud-provider=external'])), /--cloud-provider external runs its cloud loops outside this daemon/);
  assert.match(reason('route', cond(['--allocate-node-cidrs', '--configure-cloud-routes=false', '--cloud-provider=simulated'])), /--allocate-node-cidrs and --configure-cloud-routes \(now true and false\)/);
  const served = ['/v1/persistentvolumes', '/v1/persistentvolumeclaims'];
  assert.match(reason('pvc-protection', cond([], {}, served)), /feature gate PVCProtection is off/);
  assert.equal(decideStart('pvc-protection', cond([], { PVCProtection: true }, served)).start, true);
  assert.match(reason('persistentvolume-expander', cond([], {}, served)), /ExpandPersistentVolumes/);
  assert.equal(decideStart('persistentvolume-expander', cond([], { ExpandPersistentVolumes: true }, served)).start, true);
  assert.match(reason('attachdetach', cond()), /does not serve \/v1 persistentvolumes/);
  assert.equal(decideStart('attachdetach', cond([], {}, served)).start, true);
  assert.equal(decideStart('persistentvolume-binder', cond([], {}, served)).start, true);
  assert.match(reason('garbagecollector', cond(['--enable-garbage-collector=false'])), /--enable-garbage-collector is false/);
  assert.match(reason('serviceaccount-token', cond()), /--service-account-private-key-file/);
  assert.match(reason('csrsigning', cond([], {}, ['certificates.k8s.io/v1beta1/certificatesigningrequests'])), /--cluster-signing-cert-file \/etc\/kubernetes\/ca\/ca\.pem does not exist/);
  assert.match(reason('disruption', cond()), /does not serve policy\/v1beta1 poddisruptionbudgets/);
  assert.match(reason('deployment', cond()), /extensions\/v1beta1 deployments or apps\/v1 deployments/);
  assert.equal(decideStart('statefulset', cond([], {}, ['apps/v1/statefulsets'])).start, true);
  assert.match(reason('statefulset', cond()), /does not serve apps\/v1beta1 statefulsets or apps\/v1 statefulsets/);
  assert.match(reason('namespace', cond()), /does not serve \/v1 namespaces\/finalize/);
  assert.match(reason('serviceaccount', cond()), /does not serve \/v1 serviceaccounts/);
  assert.match(decideStart('nosuch', cond()).start ? '' : (decideStart('nosuch', cond()) as { reason: string }).reason, /unknown to this build/);
});

test('node, ttl, route (with --allocate-node-cidrs and a cloud) and service (with a cloud) have control loops', () => {
  for (const [name, argv] of [['node', []], ['ttl', []], ['route', ['--allocate-node-cidrs', '--cloud-provider=simulated']], ['service', ['--cloud-provider=simulated']]] as const) {
    const d = decideStart(name, cond([...argv]));
    assert.equal(d.start, true, name);
    assert.equal((d as { controller: { name: string } }).controller.name, name);
  }
});

test('a plan with an implementation starts', () => {
  const d = decideStart('namespace', cond(), { namespace: { create: () => ({ name: 'namespace', run: async () => {} }) } });
  assert.equal(d.start, true);
});

test('the namespace, service-account and garbage-collector loops start when the API serves what they need', () => {
  const served = ['/v1/namespaces/finalize', '/v1/serviceaccounts'];
  for (const name of ['namespace', 'serviceaccount', 'garbagecollector']) {
    const d = decideStart(name, cond([], {}, served));
    assert.equal(d.start, true, name);
    assert.equal((d as { controller: { name: string } }).controller.name, name);
  }
});
