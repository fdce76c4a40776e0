import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGates, UnknownFeatureGateError } from './feature-gates.ts';
import { FIXTURE_GATES } from '../../testing/test-fixtures.ts';

test('defaults come from the rows', () => {
  const g = new FeatureGates(FIXTURE_GATES);
  assert.deepEqual(g.effective(), {
    APIListChunking: true,
    AllAlpha: false,
    AllowExtTrafficLocalEndpoints: true,
    CPUManager: false,
    PVCProtection: false,
    SupportIPVSProxyMode: false,
  });
  assert.equal(g.describe().AllowExtTrafficLocalEndpoints.stage, null);
});

test('explicit settings override defaults', () => {
  const g = new FeatureGates(FIXTURE_GATES, { APIListChunking: false, SupportIPVSProxyMode: true });
  assert.equal(g.enabled('APIListChunking'), false);
  assert.equal(g.enabled('SupportIPVSProxyMode'), true);
  assert.equal(g.describe().SupportIPVSProxyMode.source, 'explicit');
});

test('AllAlpha=true turns on every alpha gate not set explicitly, and nothing else', () => {
  const g = new FeatureGates(FIXTURE_GATES, { AllAlpha: true, PVCProtection: false });
  assert.equal(g.enabled('CPUManager'), true);
  assert.equal(g.describe().CPUManager.source, 'AllAlpha');
  assert.equal(g.enabled('PVCProtection'), false);
  assert.equal(g.enabled('SupportIPVSProxyMode'), false, 'beta gates are untouched');
  assert.equal(g.enabled('AllAlpha'), true);
  const off = new FeatureGates(FIXTURE_GATES, { AllAlpha: false });
  assert.equal(off.enabled('CPUManager'), false);
});

test('unknown gates are refused', () => {
  assert.throws(() => new FeatureGates(FIXTURE_GATES, { Nope: true }), UnknownFeatureGateError);
  assert.throws(() => new FeatureGates(FIXTURE_GATES).enabled('Nope'), /unrecognized feature gate: Nope/);
});
