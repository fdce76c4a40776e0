import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isControllerEnabled, selectControllers, validateControllerList } from './controller-selection.ts';
import { FIXTURE_CONTROLLERS } from '../../testing/test-fixtures.ts';

const off = new Set(['bootstrapsigner', 'tokencleaner']);

test('"*" enables everything that is on by default', () => {
  assert.deepEqual(selectControllers(['*'], FIXTURE_CONTROLLERS), {
    enabled: ['attachdetach', 'deployment', 'namespace', 'route'],
    disabled: ['bootstrapsigner', 'tokencleaner'],
  });
});

test('names enable, -names disable, first match wins', () => {
  assert.equal(isControllerEnabled('route', ['*', '-route'], off), false);
  assert.equal(isControllerEnabled('route', ['route', '-route'], off), true);
  assert.equal(isControllerEnabled('route', ['-route', 'route'], off), false);
  assert.equal(isControllerEnabled('tokencleaner', ['*'], off), false);
  assert.equal(isControllerEnabled('tokencleaner', ['*', 'tokencleaner'], off), true);
  assert.equal(isControllerEnabled('namespace', ['deployment'], off), false, 'without * only named controllers run');
  assert.equal(isControllerEnabled('namespace', [], off), false);
  assert.deepEqual(selectControllers(['namespace', 'bootstrapsigner'], FIXTURE_CONTROLLERS).enabled, ['bootstrapsigner', 'namespace']);
});

test('unknown names are refused with the real message', () => {
  assert.throws(() => validateControllerList(['*', '-foo'], FIXTURE_CONTROLLERS), /^Error: "foo" is not in the list of known controllers$/);
  assert.throws(() => validateControllerList(['--route'], FIXTURE_CONTROLLERS), /"-route" is not in the list/);
  assert.doesNotThrow(() => validateControllerList(['*', '-route', 'tokencleaner'], FIXTURE_CONTROLLERS));
});
