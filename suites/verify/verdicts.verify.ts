// `npm run suites:verify`: the verdicts of the suites on broken and varied clusters (issue 39 item 7), the whole set
// (suites/verdicts.test.ts is its quick part in `npm test`). Every controller loop a check of the cluster profile
// waits for is switched off in turn: each check that needs it FAILS naming it. Each proxy breaks or varies one
// behaviour: a broken one fails the checks of its row, a varied one (as the spec allows) passes them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../harness/catalog.ts';
import { profileOf } from '../harness/profile.ts';
import { CLUSTER, assertFailed, assertPassed, closeTargets, runOnSimulator, runThroughProxy } from '../harness/testdata/run-on-target.ts';
import {
  acceptedAndAnnotated, discoveryWithoutConfigmaps, envelopeContentTypeSet, keepsOffsetTimestamps, latestPullsIfNotPresent,
} from '../harness/testdata/variations.ts';

after(closeTargets);

const catalog = await loadCatalog();
const clusterChecks = catalog.checks.filter((c) => profileOf(c) === 'cluster');
const loops = [...new Set(clusterChecks.flatMap((c) => c.needs?.controllers ?? []))].filter((c) => c !== 'kubelet').sort();

for (const loop of loops) {
  const ids = clusterChecks.filter((c) => c.needs?.controllers?.includes(loop)).map((c) => c.id);
  test(`controller ${loop} switched off: ${ids.join(', ')} FAIL naming it`, async () => {
    const result = await runOnSimulator(CLUSTER([`--controllers=*,-${loop}`]), ids, { runs: 2 });
    for (const id of ids) assertFailed(result, id, new RegExp(`(^|\\W)${loop}\\b.*controller: nothing moved|^${loop} controller: nothing moved`));
  });
}

test('varied: creates answered 202 and an annotation added to every object pass the workload and robustness checks', async () => {
  const ids = [
    'workloads.deployment-becomes-available', 'workloads.scale-changes-pod-count', 'workloads.job-completes',
    'robustness.field-types', 'robustness.integer-range', 'robustness.nesting-and-size',
  ];
  assertPassed(await runThroughProxy(acceptedAndAnnotated, ids, { runs: 3, simulator: CLUSTER() }), ids);
});

test('varied: protobuf envelopes that set contentType (field 4) to the protobuf type pass fields.protobuf-envelope', async () => {
  assertPassed(await runThroughProxy(envelopeContentTypeSet, ['fields.protobuf-envelope'], { runs: 2 }), ['fields.protobuf-envelope']);
});

test('broken: imagePullPolicy IfNotPresent for :latest fails the container defaults check, naming the row', async () => {
  const result = await runThroughProxy(latestPullsIfNotPresent, ['defaults.container-defaults-every-kind'], { runs: 2 });
  const o = assertFailed(result, 'defaults.container-defaults-every-kind', /:latest.*expected imagePullPolicy Always, got "IfNotPresent"/);
  assert.deepEqual(o.evidence?.failedRows, ['field.Container.imagePullPolicy', 'defaultRule.image-tag']);
});

test('broken: a discovery document without configmaps fails endpoints.discovery-lists-spec-resources', async () => {
  const result = await runThroughProxy(discoveryWithoutConfigmaps, ['endpoints.discovery-lists-spec-resources'], { runs: 1 });
  assertFailed(result, 'endpoints.discovery-lists-spec-resources', /v1 does not list configmaps/);
});

test('broken: a creationTimestamp kept with the offset an update sent fails fields.timestamps-utc-after-update', async () => {
  const result = await runThroughProxy(keepsOffsetTimestamps(), ['fields.timestamps-utc-after-update'], { runs: 1 });
  assertFailed(result, 'fields.timestamps-utc-after-update', /\+02:00" is not an RFC 3339 UTC timestamp/);
});

test('broken: watches held until they end: one failure naming 4.3.2 within 30 s', async () => {
  const result = await runThroughProxy({ bufferWatches: true }, ['watch.path.core.configmaps.namespaced.watch', 'watch.model-commands'], { runs: 2 });
  const failed = result.checks.filter((c) => c.status === 'failed');
  assert.ok(failed.length >= 1 && failed.every((f) => /^4\.3\.2:/.test(f.message ?? '') && f.durationMs < 30_000), JSON.stringify(result.checks));
});
