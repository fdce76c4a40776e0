import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { schemaFromObject } from './schema-builder.ts';

describe('schemaFromObject', () => {
  const schema = schemaFromObject('io.k8s.api.core.v1.PodSpec', {
    hostname: 'string',
    nodeSelector: { type: 'map', elementType: 'string' },
    containers: { type: 'array', patchStrategy: 'merge', patchMergeKey: 'name', typeName: 'io.k8s.api.core.v1.Container', fields: { name: 'string', args: { type: 'array', elementType: 'string' } } },
    securityContext: { fields: { runAsUser: 'integer' } },
  });

  it('keeps field order and shapes', () => {
    assert.equal(schema.name, 'io.k8s.api.core.v1.PodSpec');
    assert.deepEqual(schema.fieldNames(), ['hostname', 'nodeSelector', 'containers', 'securityContext']);
    assert.deepEqual(schema.field('hostname'), { type: 'string' });
    assert.deepEqual(schema.field('nodeSelector'), { type: 'map', elementType: 'string' });
    assert.equal(schema.field('missing'), undefined);
  });

  it('builds nested types for arrays of objects and objects', () => {
    const containers = schema.field('containers');
    assert.equal(containers?.type, 'array');
    assert.equal(containers?.elementType, 'object');
    assert.equal(containers?.patchStrategy, 'merge');
    assert.equal(containers?.patchMergeKey, 'name');
    assert.equal(containers?.schema?.name, 'io.k8s.api.core.v1.Container');
    assert.deepEqual(containers?.schema?.field('args'), { type: 'array', elementType: 'string' });
    const securityContext = schema.field('securityContext');
    assert.equal(securityContext?.type, 'object');
    assert.equal(securityContext?.schema?.name, 'io.k8s.api.core.v1.PodSpec.securityContext');
    assert.deepEqual(securityContext?.schema?.field('runAsUser'), { type: 'integer' });
  });

  it('rejects unknown types and strategies', () => {
    assert.throws(() => schemaFromObject('X', { a: 'str' as never }), /unknown type "str"/);
    assert.throws(() => schemaFromObject('X', { a: { type: 'array', patchStrategy: 'union' as never } }), /unknown patchStrategy/);
    assert.throws(() => schemaFromObject('X', { a: {} }), /needs a type or fields/);
  });
});
