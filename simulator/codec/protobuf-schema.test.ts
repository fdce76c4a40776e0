import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadProtoMessages,
  parseProtoMessages,
  hasProtobuf,
  messageNameForKind,
  protobufKinds,
  protoMessage,
  typeSchemaByName,
  typeSchemaFor,
} from './protobuf-schema.ts';
import type { TypeSchema } from '../api/schema.ts';

function walk(schema: TypeSchema | undefined, ...path: string[]): TypeSchema {
  let s = schema;
  for (const p of path) {
    const f = s?.field(p);
    assert.ok(f?.schema, `no object field ${p} under ${s?.name}`);
    s = f.schema;
  }
  assert.ok(s, 's');
  return s;
}

test('Deployment spec.template.spec.containers merges by name', () => {
  const podSpec = walk(typeSchemaFor('apps/v1', 'Deployment'), 'spec', 'template', 'spec');
  assert.equal(podSpec.name, 'io.k8s.api.core.v1.PodSpec');
  const containers = podSpec.field('containers');
  assert.deepEqual(
    { type: containers?.type, elementType: containers?.elementType, strategy: containers?.patchStrategy, key: containers?.patchMergeKey },
    { type: 'array', elementType: 'object', strategy: 'merge', key: 'name' },
  );
  assert.equal(containers?.schema?.name, 'io.k8s.api.core.v1.Container');
});

test('merge keys of wire-facts section 4 are declared', () => {
  const container = typeSchemaByName('io.k8s.api.core.v1.Container');
  const podSpec = typeSchemaByName('k8s.io.api.core.v1.PodSpec');
  const expect: Array<[TypeSchema | undefined, string, string | undefined, string]> = [
    [podSpec, 'initContainers', 'name', 'merge'],
    [podSpec, 'volumes', 'name', 'merge,retainKeys'],
    [podSpec, 'imagePullSecrets', 'name', 'merge'],
    [podSpec, 'hostAliases', 'ip', 'merge'],
    [container, 'env', 'name', 'merge'],
    [container, 'ports', 'containerPort', 'merge'],
    [container, 'volumeMounts', 'mountPath', 'merge'],
    [container, 'volumeDevices', 'devicePath', 'merge'],
    [typeSchemaByName('io.k8s.api.core.v1.ServiceSpec'), 'ports', 'port', 'merge'],
    [typeSchemaFor('v1', 'ServiceAccount'), 'secrets', 'name', 'merge'],
    [typeSchemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), 'ownerReferences', 'uid', 'merge'],
    [typeSchemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'), 'finalizers', undefined, 'merge'],
    [typeSchemaByName('io.k8s.api.core.v1.NodeStatus'), 'addresses', 'type', 'merge'],
  ];
  for (const [schema, field, key, strategy] of expect) {
    const f = schema?.field(field);
    assert.equal(f?.patchMergeKey, key, `${schema?.name}.${field} merge key`);
    assert.equal(f?.patchStrategy, strategy, `${schema?.name}.${field} strategy`);
  }
  for (const [apiVersion, kind, status] of [
    ['v1', 'Pod', 'PodStatus'],
    ['v1', 'Node', 'NodeStatus'],
    ['v1', 'ReplicationController', 'ReplicationControllerStatus'],
    ['apps/v1', 'Deployment', 'DeploymentStatus'],
    ['apps/v1', 'ReplicaSet', 'ReplicaSetStatus'],
    ['apps/v1', 'DaemonSet', 'DaemonSetStatus'],
    ['extensions/v1beta1', 'Deployment', 'DeploymentStatus'],
    ['batch/v1', 'Job', 'JobStatus'],
  ]) {
    const s = walk(typeSchemaFor(apiVersion, kind), 'status');
    assert.ok(s.name.endsWith(status), 's.name.endsWith(status)');
    assert.equal(s.field('conditions')?.patchMergeKey, 'type', `${apiVersion} ${kind} conditions`);
  }
  // Lists without a strategy are replaced whole.
  assert.equal(podSpec?.field('tolerations')?.patchStrategy, undefined);
  assert.equal(container?.field('args')?.patchStrategy, undefined);
});

test('inline structs are flattened into the JSON field names', () => {
  const volume = typeSchemaByName('io.k8s.api.core.v1.Volume');
  assert.deepEqual(volume?.fieldNames().slice(0, 3), ['name', 'hostPath', 'emptyDir']);
  assert.equal(volume?.field('volumeSource'), undefined);
  const probe = typeSchemaByName('io.k8s.api.core.v1.Probe');
  assert.equal(probe?.field('httpGet')?.type, 'object');
  const keyRef = typeSchemaByName('io.k8s.api.core.v1.ConfigMapKeySelector');
  assert.deepEqual(keyRef?.fieldNames(), ['name', 'key', 'optional']);
});

test('field shapes follow the JSON conventions', () => {
  const meta = typeSchemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.equal(meta?.field('creationTimestamp')?.type, 'time');
  assert.equal(meta?.field('generation')?.type, 'integer');
  assert.deepEqual(meta?.field('labels'), { type: 'map', elementType: 'string' });
  const secret = typeSchemaFor('v1', 'Secret');
  assert.deepEqual(secret?.field('data'), { type: 'map', elementType: 'bytes' });
  const port = typeSchemaByName('io.k8s.api.core.v1.ServicePort');
  assert.equal(port?.field('targetPort')?.type, 'int-or-string');
  const req = typeSchemaByName('io.k8s.api.core.v1.ResourceRequirements');
  assert.deepEqual(req?.field('limits'), { type: 'map', elementType: 'string', format: 'quantity' });
  // Integer widths, which validation checks (an int32 beyond 2^31-1 could not be encoded).
  assert.equal(meta?.field('generation')?.format, 'int64');
  assert.equal(typeSchemaByName('io.k8s.api.apps.v1.DeploymentSpec')?.field('replicas')?.format, 'int32');
  assert.equal(port?.field('targetPort')?.format, 'int32');
  const resource = typeSchemaByName('io.k8s.apimachinery.pkg.apis.meta.v1.APIResource');
  assert.deepEqual(resource?.field('verbs'), { type: 'array', elementType: 'string' });
  assert.equal(typeSchemaByName('io.k8s.api.core.v1.DaemonEndpoint')?.field('Port')?.type, 'integer');
});

test('kinds carry kind and apiVersion; embedded types do not', () => {
  assert.deepEqual(typeSchemaFor('v1', 'ConfigMap')?.fieldNames(), ['kind', 'apiVersion', 'metadata', 'immutable', 'data', 'binaryData']);
  const items = typeSchemaFor('v1', 'ConfigMapList')?.field('items');
  assert.equal(items?.schema?.field('kind')?.type, 'string');
  assert.equal(typeSchemaByName('io.k8s.api.core.v1.PodTemplateSpec')?.field('kind'), undefined);
  assert.equal(typeSchemaFor('v1', 'ConfigMap')?.field('nope'), undefined);
});

test('kind table: served kinds, meta kinds in any group, unknown kinds', () => {
  assert.equal(messageNameForKind('v1', 'Namespace'), 'k8s.io.api.core.v1.Namespace');
  assert.equal(messageNameForKind('extensions/v1beta1', 'Deployment'), 'k8s.io.api.extensions.v1beta1.Deployment');
  assert.equal(messageNameForKind('autoscaling/v1', 'Scale'), 'k8s.io.api.autoscaling.v1.Scale');
  assert.equal(messageNameForKind('apps/v1', 'DeleteOptions'), 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions');
  assert.equal(messageNameForKind('meta.k8s.io/v1', 'Status'), 'k8s.io.apimachinery.pkg.apis.meta.v1.Status');
  assert.equal(hasProtobuf('v1', 'Foo'), false);
  assert.equal(hasProtobuf('apps/v1', 'Ingress'), false);
  assert.equal(hasProtobuf('', 'Status'), false);
  assert.equal(typeSchemaFor('v1', 'Nope'), undefined);
  assert.equal(typeSchemaByName('io.k8s.api.core.v1.Nope'), undefined);
  for (const { apiVersion, kind } of protobufKinds()) {
    const name = messageNameForKind(apiVersion, kind);
    assert.ok(name && protoMessage(name), `${apiVersion} ${kind} resolves to a message`);
  }
});

test('the reflection file gives exactly what parsing the .proto files gives, and a broken one is parsed around', () => {
  const dir = mkdtempSync(join(tmpdir(), 'proto-reflection-'));
  try {
    const parsed = JSON.stringify([...parseProtoMessages().values()]);
    assert.ok(parsed.includes('"k8s.io.api.core.v1.PodSpec"'), 'PodSpec is among the parsed messages');
    const first = loadProtoMessages(dir); // parses and writes the file
    const files = readdirSync(dir);
    assert.equal(files.length, 1, `one reflection file: ${files.join(', ')}`);
    const second = loadProtoMessages(dir); // reads it
    assert.equal(JSON.stringify([...first.values()]), parsed);
    assert.equal(JSON.stringify([...second.values()]), parsed);
    writeFileSync(join(dir, files[0]), '{ not json');
    assert.equal(JSON.stringify([...loadProtoMessages(dir).values()]), parsed);
    assert.equal(JSON.parse(readFileSync(join(dir, files[0]), 'utf8')).length, parsed.length > 0 ? JSON.parse(parsed).length : 0, 'the broken file was written anew');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
