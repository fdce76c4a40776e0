import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonObject } from '../util/json-value.ts';
import { schemaFromObject } from './schema-builder.ts';
import { createStrategicMergePatch } from './strategic-diff.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { deepFreeze } from './testing/arbitraries.ts';
import { canonicalDoc, propSchema } from './testing/strategic-fixtures.ts';

const schema = schemaFromObject('Deployment', {
  metadata: { fields: { finalizers: { type: 'array', elementType: 'string', patchStrategy: 'merge' } } },
  spec: {
    fields: {
      strategy: { patchStrategy: 'retainKeys', fields: { type: 'string', rollingUpdate: { fields: { maxSurge: 'int-or-string' } } } },
      containers: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'name', fields: { name: 'string', image: 'string' } },
      args: { type: 'array', elementType: 'string' },
    },
  },
});

describe('createStrategicMergePatch', () => {
  it('writes the patch kubectl would send', () => {
    const original = { metadata: { finalizers: ['a', 'b'] }, spec: { containers: [{ name: 'x', image: '1' }, { name: 'y', image: '1' }], args: ['1'], gone: 1 } };
    const modified = { metadata: { finalizers: ['b', 'c'] }, spec: { containers: [{ name: 'y', image: '2' }, { name: 'z', image: '1' }], args: ['2'] } };
    assert.deepEqual(createStrategicMergePatch(original, modified, schema), {
      metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'], '$setElementOrder/finalizers': ['b', 'c'] },
      spec: {
        containers: [{ name: 'y', image: '2' }, { name: 'z', image: '1' }, { name: 'x', $patch: 'delete' }],
        '$setElementOrder/containers': [{ name: 'y' }, { name: 'z' }],
        args: ['2'],
        gone: null,
      },
    });
  });

  it('adds $retainKeys for retainKeys fields', () => {
    const original = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
    const modified = { spec: { strategy: { type: 'Recreate' } } };
    assert.deepEqual(createStrategicMergePatch(original, modified, schema), { spec: { strategy: { type: 'Recreate', rollingUpdate: null, $retainKeys: ['type'] } } });
  });

  it('is empty for equal documents and only orders for a reordered list', () => {
    const doc = { spec: { containers: [{ name: 'x' }, { name: 'y' }] } };
    assert.deepEqual(createStrategicMergePatch(doc, doc, schema), {});
    assert.deepEqual(createStrategicMergePatch(doc, { spec: { containers: [{ name: 'y' }, { name: 'x' }] } }, schema), {
      spec: { '$setElementOrder/containers': [{ name: 'y' }, { name: 'x' }] },
    });
  });

  it('applying the created patch to the original gives the modified document exactly', () => {
    fc.assert(
      fc.property(canonicalDoc, canonicalDoc, (original, modified) => {
        const patch = createStrategicMergePatch(deepFreeze(original), deepFreeze(modified), propSchema);
        assert.deepEqual(applyStrategicMergePatch(original, patch, propSchema), modified as JsonObject);
      }),
      { numRuns: 500 },
    );
  });
});
