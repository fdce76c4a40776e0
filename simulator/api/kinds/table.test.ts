// The rules read the spec rows: the image-tag default rule, zero defaults, "Not updatable" rows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { loadSpecTables } from '../../../spec-tables/index.ts';
import { imagePullPolicyDefault, imageTagIsLatest, isZeroValue, notUpdatableFields, tableDefault, tableEnum } from './table.ts';

const repo = fc.stringMatching(/^[a-z0-9]{1,10}(\/[a-z0-9]{1,10}){0,2}$/);
const registry = fc.option(fc.stringMatching(/^[a-z]{1,8}(\.[a-z]{2,4})?(:[0-9]{2,5})?\/$/), { nil: '' });
const tag = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}$/).filter((t) => t !== 'latest');

test('field.Container.imagePullPolicy (defaultRule.image-tag): property: untagged and :latest give the first case, other tags and digests the second', () => {
  const rule = loadSpecTables().defaultRules.find((d) => d.id === 'defaultRule.image-tag')!;
  const [latest, other] = rule.cases.map((c) => c.value);
  fc.assert(fc.property(registry, repo, (reg, r) => {
    assert.equal(imagePullPolicyDefault(`${reg}${r}`), latest);
    assert.equal(imagePullPolicyDefault(`${reg}${r}:latest`), latest);
  }));
  fc.assert(fc.property(registry, repo, tag, (reg, r, t) => assert.equal(imagePullPolicyDefault(`${reg}${r}:${t}`), other)));
  fc.assert(fc.property(registry, repo, fc.stringMatching(/^[a-f0-9]{64}$/), (reg, r, d) => assert.equal(imagePullPolicyDefault(`${reg}${r}@sha256:${d}`), other)));
  // A tag beside the digest still decides: latest@digest is Always, v1@digest IfNotPresent.
  fc.assert(fc.property(registry, repo, fc.stringMatching(/^[a-f0-9]{64}$/), (reg, r, d) => assert.equal(imagePullPolicyDefault(`${reg}${r}:latest@sha256:${d}`), latest)));
  fc.assert(fc.property(registry, repo, tag, fc.stringMatching(/^[a-f0-9]{64}$/), (reg, r, t, d) => assert.equal(imagePullPolicyDefault(`${reg}${r}:${t}@sha256:${d}`), other)));
});

test('imageTagIsLatest: a registry port is not a tag', () => {
  assert.equal(imageTagIsLatest('localhost:5000/app'), true);
  assert.equal(imageTagIsLatest('localhost:5000/app:v1'), false);
});

test('field.DeploymentSpec.minReadySeconds and field.Container.stdin: zero defaults are recognised as implicit', () => {
  assert.equal(isZeroValue(tableDefault('DeploymentSpec', 'minReadySeconds')), true);
  assert.equal(isZeroValue(tableDefault('Container', 'stdin')), true);
  assert.equal(isZeroValue(tableDefault('DeploymentSpec', 'replicas')), false);
});

test('field.Container.*: the "Not updatable" set is exactly the rows with updatable false', () => {
  const fixed = notUpdatableFields('Container');
  assert.ok(fixed.includes('name') && fixed.includes('imagePullPolicy') && fixed.includes('command'), "fixed.includes('name') && fixed.includes('imagePullPolicy') && fixed.includes('command')");
  assert.ok(!fixed.includes('image'), 'image may change');
  assert.deepEqual(tableEnum('CronJobSpec', 'concurrencyPolicy'), ['Allow', 'Forbid', 'Replace']);
  assert.throws(() => tableDefault('DeploymentSpec', 'selector'), /has no default/);
});
