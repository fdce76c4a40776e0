import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import protobuf from 'protobufjs';
import { Registry } from '../api/registry.ts';
import { apiVersionOf } from '../api/meta.ts';
import { documentedRegistry, buildDocuments } from './documents.ts';
import { definitionFor, groupVersions } from './routes.ts';
import { REQUIRED_FIELDS } from './required.ts';
import { encodeV2Protobuf } from './v2-protobuf.ts';

type Json = { [k: string]: any };

// The kinds the documents describe (custom resources and kinds without a .proto are not in them, as in 1.9).
const registry = documentedRegistry(new Registry());
const docs = buildDocuments(registry, { protobufMediaType: 'application/vnd.kubernetes.protobuf' });
const v2: Json = JSON.parse(docs.v2.json.toString('utf8'));
const v3 = new Map<string, Json>([...docs.v3].map(([k, d]) => [k, JSON.parse(d.json.toString('utf8'))]));
const v3Key = (group: string, version: string) => (group === '' ? `api/${version}` : `apis/${group}/${version}`);

function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

const hasGvk = (schema: Json | undefined, group: string, version: string, kind: string): boolean =>
  Array.isArray(schema?.['x-kubernetes-group-version-kind']) &&
  schema!['x-kubernetes-group-version-kind'].some((g: Json) => g.group === group && g.version === version && g.kind === kind);

describe('OpenAPI documents', () => {
  it('every served kind (and its list) has a schema with its group-version-kind, in v2 and in its v3 document', () => {
    for (const def of registry.defs) {
      const kinds = (def.verbs as string[]).includes('list') ? [def.kind, `${def.kind}List`] : [def.kind];
      for (const kind of kinds) {
        const name = definitionFor(apiVersionOf(def), kind);
        assert.ok(hasGvk(v2.definitions[name], def.group, def.version, kind), `v2 ${name} lacks ${def.group}/${def.version} ${kind}`);
        const doc = v3.get(v3Key(def.group, def.version))!;
        assert.ok(hasGvk(doc.components.schemas[name], def.group, def.version, kind), `v3 ${name} lacks its GVK`);
      }
    }
    assert.ok(hasGvk(v2.definitions['io.k8s.api.autoscaling.v1.Scale'], 'autoscaling', 'v1', 'Scale'), "hasGvk(v2.definitions['io.k8s.api.autoscaling.v1.Scale'], 'autoscaling', 'v1', 'Scale')");
    assert.ok(hasGvk(v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions'], 'apps', 'v1', 'DeleteOptions'), "hasGvk(v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions'], 'apps', 'v1', 'DeleteO…");
  });

  it('definitions are named as the real server names them', () => {
    for (const name of ['io.k8s.api.core.v1.ConfigMap', 'io.k8s.api.apps.v1.Deployment', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.api.batch.v1beta1.CronJob']) {
      assert.ok(v2.definitions[name], name);
    }
    assert.equal(v2.swagger, '2.0');
    assert.equal(v3.get('api/v1')!.openapi, '3.0.0');
  });

  it('Container.env and Container.ports carry their merge keys and strategy in v2 and v3', () => {
    for (const schema of [v2.definitions['io.k8s.api.core.v1.Container'], v3.get('apis/apps/v1')!.components.schemas['io.k8s.api.core.v1.Container']]) {
      assert.equal(schema.properties.env['x-kubernetes-patch-merge-key'], 'name');
      assert.equal(schema.properties.env['x-kubernetes-patch-strategy'], 'merge');
      assert.equal(schema.properties.ports['x-kubernetes-patch-merge-key'], 'containerPort');
      assert.equal(schema.properties.args['x-kubernetes-patch-strategy'], undefined);
    }
    const meta = v2.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
    assert.equal(meta.finalizers['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(meta.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
    const podSpec = v2.definitions['io.k8s.api.core.v1.PodSpec'].properties;
    assert.equal(podSpec.volumes['x-kubernetes-patch-strategy'], 'merge,retainKeys');
  });

  it('required fields: Container name, Deployment selector and template; the table names real properties', () => {
    assert.deepEqual(v2.definitions['io.k8s.api.core.v1.Container'].required, ['name']);
    assert.deepEqual(v2.definitions['io.k8s.api.apps.v1.DeploymentSpec'].required, ['selector', 'template']);
    const problems: string[] = [];
    for (const [name, required] of Object.entries(REQUIRED_FIELDS)) {
      const def = v2.definitions[name];
      if (!def) problems.push(`${name} is not in the document`);
      else if (JSON.stringify(def.required) !== JSON.stringify(required)) problems.push(`${name}: required ${JSON.stringify(def.required)}`);
    }
    assert.deepEqual(problems, []);
  });

  it('int-or-string, Quantity and Time as the real server describes them', () => {
    const d2 = v2.definitions;
    assert.deepEqual([d2['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].type, d2['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].format], ['string', 'int-or-string']);
    assert.equal(d2['io.k8s.apimachinery.pkg.api.resource.Quantity'].type, 'string');
    assert.deepEqual([d2['io.k8s.apimachinery.pkg.apis.meta.v1.Time'].type, d2['io.k8s.apimachinery.pkg.apis.meta.v1.Time'].format], ['string', 'date-time']);
    const s3 = v3.get('api/v1')!.components.schemas;
    assert.deepEqual(s3['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].oneOf, [{ type: 'integer' }, { type: 'string' }]);
    assert.equal(s3['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].format, 'int-or-string');
    assert.deepEqual(s3['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf, [{ type: 'string' }, { type: 'number' }]);
    assert.equal(d2['io.k8s.api.core.v1.ServicePort'].properties.targetPort.$ref, '#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    assert.equal(d2['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.creationTimestamp.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time');
    assert.deepEqual(d2['io.k8s.api.core.v1.Container'].properties.ports.items, { $ref: '#/definitions/io.k8s.api.core.v1.ContainerPort' });
    const { description, ...generation } = d2['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.generation;
    assert.deepEqual(generation, { type: 'integer', format: 'int64' });
    assert.equal(typeof description, 'string');
  });

  it('the v3 index lists every group version with the hash of its document', () => {
    const index = JSON.parse(docs.v3Index.json.toString('utf8')) as { paths: Record<string, { serverRelativeURL: string }> };
    for (const { group, version } of groupVersions(registry)) {
      const key = v3Key(group, version);
      assert.equal(index.paths[key]?.serverRelativeURL, `/openapi/v3/${key}?hash=${docs.v3.get(key)!.hash}`, key);
      if (group) assert.ok(index.paths[`apis/${group}`], `apis/${group}`);
    }
    assert.ok(index.paths.api && index.paths.apis, 'index.paths.api && index.paths.apis');
    assert.match(docs.v3.get('api/v1')!.hash, /^[0-9A-F]{128}$/);
  });

  it('every document references only schemas it defines', () => {
    const check = (doc: Json, prefix: string, defs: Json, label: string) => {
      for (const ref of refsOf(doc)) {
        assert.ok(ref.startsWith(prefix), `${label}: foreign ref ${ref}`);
        assert.ok(defs[ref.slice(prefix.length)], `${label}: dangling ref ${ref}`);
      }
    };
    check(v2, '#/definitions/', v2.definitions, 'v2');
    for (const [key, doc] of v3) check(doc, '#/components/schemas/', doc.components.schemas, key);
  });

  it('paths with operations for every route; PATCH declares the patch types, fieldValidation and its GVK', () => {
    const paths = v3.get('apis/apps/v1')!.paths;
    const coll = paths['/apis/apps/v1/namespaces/{namespace}/deployments'];
    assert.deepEqual(Object.keys(coll).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'post']);
    const obj = paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    assert.deepEqual(Object.keys(obj).filter((k) => k !== 'parameters').sort(), ['delete', 'get', 'patch', 'put']);
    assert.deepEqual(Object.keys(obj.patch.requestBody.content).sort(), ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    assert.deepEqual(obj.patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.equal(obj.patch['x-kubernetes-action'], 'patch');
    assert.ok(obj.patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query'), "obj.patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query')");
    assert.deepEqual(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].patch['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
    assert.ok(paths['/apis/apps/v1/deployments'].get, "paths['/apis/apps/v1/deployments'].get");
    assert.ok(paths['/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}'].get, "paths['/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}'].get");
    assert.ok(v3.get('api/v1')!.paths['/api/v1/namespaces/{name}/finalize'].put, "v3.get('api/v1')!.paths['/api/v1/namespaces/{name}/finalize'].put");
    assert.ok(v2.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch, "v2.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch");
    assert.deepEqual(v2.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    // Every resource of the registry has its paths, with exactly the verbs it serves.
    for (const def of registry.defs) {
      const doc = v3.get(v3Key(def.group, def.version))!;
      const prefix = def.group === '' ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
      const collPath = def.namespaced ? `${prefix}/namespaces/{namespace}/${def.resource}` : `${prefix}/${def.resource}`;
      assert.equal(Boolean(doc.paths[collPath]?.post), (def.verbs as string[]).includes('create'), collPath);
      assert.equal(Boolean(doc.paths[`${collPath}/{name}`]?.patch), (def.verbs as string[]).includes('patch'), `${collPath}/{name}`);
      if (def.subresources.status) assert.ok(doc.paths[`${collPath}/{name}/status`]?.patch, `${collPath}/{name}/status`);
      if (def.subresources.scale) assert.ok(doc.paths[`${collPath}/{name}/scale`]?.put, `${collPath}/{name}/scale`);
    }
    // The virtual access reviews are create-only.
    assert.deepEqual(Object.keys(v3.get('apis/authorization.k8s.io/v1')!.paths).sort(), [
      '/apis/authorization.k8s.io/v1/',
      '/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    ]);
  });

  it('the protobuf form of v2 carries the same paths and definitions (openapi.v2.Document field numbers)', () => {
    const bytes = encodeV2Protobuf(v2);
    // Document: swagger = 1, paths = 8 (Paths.path = 2), definitions = 9 (Definitions.additional_properties = 1).
    const top = fieldsOf(bytes);
    assert.equal(Buffer.from(top.get(1)![0]).toString(), '2.0');
    const pathNames = fieldsOf(top.get(8)![0]).get(2)!.map((named) => Buffer.from(fieldsOf(named).get(1)![0]).toString());
    assert.deepEqual(pathNames, Object.keys(v2.paths));
    const defs = fieldsOf(top.get(9)![0]).get(1)!;
    assert.deepEqual(defs.map((named) => Buffer.from(fieldsOf(named).get(1)![0]).toString()), Object.keys(v2.definitions));
    // A vendor extension of a schema (Schema.vendor_extension = 31: NamedAny{name = 1, value = 2: Any{yaml = 2}}).
    const container = defs.find((named) => Buffer.from(fieldsOf(named).get(1)![0]).toString() === 'io.k8s.api.core.v1.Container')!;
    const props = fieldsOf(fieldsOf(fieldsOf(container).get(2)![0]).get(25)![0]).get(1)!;
    const env = props.find((p) => Buffer.from(fieldsOf(p).get(1)![0]).toString() === 'env')!;
    const ext = fieldsOf(fieldsOf(env).get(2)![0]).get(31)!.map((e) => {
      const f = fieldsOf(e);
      return [Buffer.from(f.get(1)![0]).toString(), Buffer.from(fieldsOf(f.get(2)![0]).get(2)![0]).toString().trim()];
    });
    assert.deepEqual(ext, [['x-kubernetes-patch-merge-key', '"name"'], ['x-kubernetes-patch-strategy', '"merge"']]);
  });
});

/** Length-delimited fields of one message by number (other wire types skipped). */
function fieldsOf(bytes: Uint8Array): Map<number, Uint8Array[]> {
  const r = protobuf.Reader.create(bytes);
  const out = new Map<number, Uint8Array[]>();
  while (r.pos < r.len) {
    const tag = r.uint32();
    if ((tag & 7) === 2) {
      const list = out.get(tag >>> 3) ?? [];
      list.push(r.bytes());
      out.set(tag >>> 3, list);
    } else {
      r.skipType(tag & 7);
    }
  }
  return out;
}
