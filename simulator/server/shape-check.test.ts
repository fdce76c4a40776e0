// The body shape walker: wrong JSON types, unknown fields and pruning, against the .proto field shapes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Registry } from '../api/registry.ts';
import { typeSchemaFor } from '../codec/protobuf-schema.ts';
import { ApiError } from './errors.ts';
import { checkBodyShape, pruneUnknownFields, shapeReport } from './shape-check.ts';

const registry = new Registry();
const deployments = registry.lookup('apps', 'v1', 'deployments')!;
const configmaps = registry.lookup('', 'v1', 'configmaps')!;

const base = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { a: 'b' } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { a: 'b' } },
    strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] } },
  },
});

function badRequestMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, 'e instanceof ApiError');
    assert.equal(e.code, 400);
    return e.message;
  }
  assert.fail('expected a 400');
}

test('field.DeploymentSpec.replicas: a well-formed Deployment passes; int-or-string takes both', () => {
  assert.deepEqual(checkBodyShape(deployments, base()), { warnings: [] });
});

test('field.DeploymentSpec.replicas: property: any non-integer JSON value at an integer field is a 400 naming the path', () => {
  const wrong = fc.oneof(
    fc.string(),
    fc.boolean(),
    fc.double({ noInteger: true, noNaN: true, noDefaultInfinity: true }),
    fc.array(fc.integer()),
    fc.dictionary(fc.string(), fc.integer()),
  );
  const paths: Array<[string, (o: ReturnType<typeof base>, v: unknown) => void]> = [
    ['spec.replicas', (o, v) => ((o.spec as Record<string, unknown>).replicas = v)],
    [
      'spec.template.spec.containers[0].ports[0].containerPort',
      (o, v) => ((o.spec.template.spec.containers[0].ports[0] as Record<string, unknown>).containerPort = v),
    ],
  ];
  fc.assert(fc.property(wrong, fc.constantFrom(...paths), (v, [path, set]) => {
    const o = base();
    set(o, v);
    const msg = badRequestMessage(() => checkBodyShape(deployments, o));
    assert.ok(msg.startsWith(`Deployment in version "v1" cannot be handled as a Deployment: ${path}: expected integer, got `), msg);
  }));
});

test('maps of strings, int-or-string and nested objects are checked', () => {
  assert.match(badRequestMessage(() => checkBodyShape(configmaps, { metadata: { name: 'c' }, data: { a: 1 } })), /data\[a\]: expected string, got integer/);
  const o = base();
  (o.spec.strategy.rollingUpdate as Record<string, unknown>).maxSurge = true;
  assert.match(badRequestMessage(() => checkBodyShape(deployments, o)), /maxSurge: expected integer or string, got boolean/);
  const p = base();
  (p as Record<string, unknown>).spec = 'x';
  assert.match(badRequestMessage(() => checkBodyShape(deployments, p)), /spec: expected object, got string/);
  const n = base();
  (n.spec as Record<string, unknown>).replicas = null;
  assert.deepEqual(checkBodyShape(deployments, n), { warnings: [] }, 'null is the zero value, as in the real decoder');
});

test('unknown fields: listed in order, refused under Strict, warned under Warn, pruned otherwise', () => {
  const o = { ...base(), extra: 1, spec: { ...base().spec, foo: { bar: 1 } } };
  const schema = typeSchemaFor('apps/v1', 'Deployment')!;
  // Document order: spec keeps its place from base(), extra comes after it.
  assert.deepEqual(shapeReport(schema, o).unknown, ['spec.foo', 'extra']);
  assert.equal(badRequestMessage(() => checkBodyShape(deployments, o, 'Strict')), 'strict decoding error: unknown field "spec.foo", unknown field "extra"');
  assert.deepEqual(checkBodyShape(deployments, o, 'Warn').warnings, ['unknown field "spec.foo"', 'unknown field "extra"']);
  assert.deepEqual(checkBodyShape(deployments, o, 'Ignore').warnings, []);
  pruneUnknownFields(schema, o as Record<string, unknown>);
  assert.equal('extra' in o, false);
  assert.equal('foo' in o.spec, false);
  assert.equal(o.spec.replicas, 1);
});

test('the body version picks the schema: apps/v1beta1 has rollbackTo, apps/v1 does not', () => {
  const o = { ...base(), apiVersion: 'apps/v1beta1', spec: { ...base().spec, rollbackTo: { revision: 1 } } };
  assert.deepEqual(checkBodyShape(deployments, o, 'Strict'), { warnings: [] });
  assert.match(badRequestMessage(() => checkBodyShape(deployments, { ...o, apiVersion: 'apps/v1' }, 'Strict')), /unknown field "spec.rollbackTo"/);
});
