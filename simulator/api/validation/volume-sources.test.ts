import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateVolumeSources } from './pod.ts';
import type { FieldError } from '../field-errors.ts';

const errorsOf = (volume: Record<string, unknown>): string[] => {
  const errs: FieldError[] = [];
  validateVolumeSources([{ name: 'v', ...volume }], 'spec.volumes', errs);
  return errs.map((e) => `${e.field}: ${e.type}`);
};

test('the cloud and network volume sources of 1.9 need their fields', () => {
  assert.deepEqual(errorsOf({ azureDisk: { diskName: 'd' } }), ['spec.volumes[0].azureDisk.diskURI: FieldValueRequired']);
  assert.deepEqual(errorsOf({ rbd: { monitors: [], image: 'i' } }), ['spec.volumes[0].rbd.monitors: FieldValueRequired']);
  assert.deepEqual(errorsOf({ scaleIO: { gateway: 'g', system: 's' } }), ['spec.volumes[0].scaleIO.secretRef: FieldValueRequired']);
  assert.deepEqual(errorsOf({ iscsi: { targetPortal: 'p', iqn: 'q', lun: 300 } }), ['spec.volumes[0].iscsi.lun: FieldValueInvalid']);
  assert.deepEqual(errorsOf({ fc: {} }), ['spec.volumes[0].fc.targetWWNs: FieldValueRequired']);
  assert.deepEqual(errorsOf({ fc: { targetWWNs: ['a'] } }), ['spec.volumes[0].fc.lun: FieldValueRequired']);
  assert.deepEqual(errorsOf({ flocker: { datasetName: 'a', datasetUUID: 'b' } }), ['spec.volumes[0].flocker: FieldValueRequired']);
  assert.deepEqual(errorsOf({ glusterfs: { endpoints: 'e', path: 'p' }, cinder: { volumeID: 'x' } }), ['spec.volumes[0].cinder: FieldValueForbidden']);
  for (const ok of [{ azureFile: { secretName: 's', shareName: 'h' } }, { fc: { wwids: ['w'] } }, { flocker: { datasetUUID: 'u' } }, { vsphereVolume: { volumePath: '/p' } }]) {
    assert.deepEqual(errorsOf(ok), [], JSON.stringify(ok));
  }
});
