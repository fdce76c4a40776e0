// Status, scale and finalize subresources (spec 4.8, 4.10), generation/observedGeneration, and
// get with export/exact (spec 4.2). Test names carry the spec-table row ids they cover.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, type Json, deployment, harness, podTemplate } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('sub');
});
after(() => h.close());

const APPS = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const EXT = () => `/apis/extensions/v1beta1/namespaces/${ns}/deployments`;
const MERGE = { 'content-type': 'application/merge-patch+json' };
let seq = 0;
const uniq = (p: string) => `${p}-${++seq}`;

async function patch(path: string, body: unknown): Promise<Json> {
  const r = await h.call('PATCH', path, JSON.stringify(body), MERGE);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

describe('status subresource', () => {
  test('rule.writes.put-ignores-status / rule.ops.replace-ignores-status: PUT and PATCH of the main resource ignore status', async () => {
    const name = uniq('st');
    const d = await h.create(APPS(), deployment(name));
    assert.deepEqual(d.status, {}, 'create starts with an empty status (written as {} like the Go encoder)');
    d.status = { replicas: 7 };
    d.spec.replicas = 2;
    const put = await h.call('PUT', `${APPS()}/${name}`, d);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 2);
    assert.deepEqual(put.body.status, {});
    const p = await patch(`${APPS()}/${name}`, { status: { replicas: 9 } });
    assert.deepEqual(p.status, {});
  });

  test('rule.writes.subresource-only-part / rule.ops.status-only-through-status: /status changes only status', async () => {
    const name = uniq('st');
    const d = await h.create(APPS(), deployment(name));
    const body = structuredClone(d);
    body.status = { replicas: 3, observedGeneration: 1 };
    body.spec.replicas = 50;
    body.metadata.labels = { changed: 'yes' };
    const r = await h.call('PUT', `${APPS()}/${name}/status`, body);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.status, { replicas: 3, observedGeneration: 1 });
    assert.equal(r.body.spec.replicas, 1, 'spec comes from the stored object');
    const p = await patch(`${APPS()}/${name}/status`, { spec: { replicas: 70 }, status: { readyReplicas: 2 } });
    assert.equal(p.spec.replicas, 1);
    assert.equal(p.status.readyReplicas, 2);
    assert.equal(p.status.replicas, 3);
    const got = await h.call('GET', `${APPS()}/${name}/status`);
    assert.equal(got.status, 200);
    assert.equal(got.body.status.readyReplicas, 2);
  });

  test('spec 4.10.1: /status ignores labels, annotations and spec in the body (PUT and PATCH, apps and core)', async () => {
    const name = uniq('stm');
    const d = await h.create(APPS(), { ...deployment(name), metadata: { name, labels: { keep: 'a' }, annotations: { note: 'a' } } });
    const body = structuredClone(d);
    body.metadata.labels = { keep: 'b', added: 'x' };
    body.metadata.annotations = { note: 'b' };
    body.spec.paused = true;
    body.status = { replicas: 4 };
    const put = await h.call('PUT', `${APPS()}/${name}/status`, body);
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.metadata.labels, { keep: 'a' }, 'labels are not written through /status');
    assert.deepEqual(put.body.metadata.annotations, { note: 'a' }, 'annotations are not written through /status');
    assert.equal(put.body.spec.paused, undefined);
    assert.equal(put.body.status.replicas, 4);
    const p = await patch(`${APPS()}/${name}/status`, { metadata: { labels: { patched: 'y' }, annotations: { note: 'c' } }, status: { readyReplicas: 1 } });
    assert.deepEqual(p.metadata.labels, { keep: 'a' });
    assert.deepEqual(p.metadata.annotations, { note: 'a' });
    assert.equal(p.status.readyReplicas, 1);
    assert.equal(p.metadata.generation, 1, 'a status write is not a spec change');
    const cm = await h.create(`/api/v1/namespaces/${ns}/services`, { metadata: { name, labels: { keep: 'a' } }, spec: { ports: [{ port: 80 }] } });
    const sp = await patch(`/api/v1/namespaces/${ns}/services/${name}/status`, { metadata: { labels: { keep: 'z' } }, spec: { ports: [{ port: 81 }] }, status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
    assert.deepEqual(sp.metadata.labels, { keep: 'a' });
    assert.equal(sp.spec.ports[0].port, 80);
    assert.equal(sp.spec.clusterIP, cm.spec.clusterIP);
    assert.deepEqual(sp.status.loadBalancer, { ingress: [{ ip: '1.2.3.4' }] });
  });

  test('spec 4.10.1: /scale writes only the replica count (labels, annotations and status in the Scale body are ignored)', async () => {
    const name = uniq('scm');
    await h.create(APPS(), { ...deployment(name, { replicas: 1 }), metadata: { name, labels: { keep: 'a' } } });
    const g = (await h.call('GET', `${APPS()}/${name}/scale`)).body;
    const put = await h.call('PUT', `${APPS()}/${name}/scale`, { ...g, metadata: { ...g.metadata, labels: { other: 'x' }, annotations: { a: 'b' } }, spec: { replicas: 3 }, status: { replicas: 9 } });
    assert.equal(put.status, 200, put.text);
    const p = await h.call('PATCH', `${APPS()}/${name}/scale`, JSON.stringify({ metadata: { labels: { other: 'y' } }, spec: { replicas: 5 } }), MERGE);
    assert.equal(p.status, 200, p.text);
    const after = (await h.call('GET', `${APPS()}/${name}`)).body;
    assert.equal(after.spec.replicas, 5);
    assert.deepEqual(after.metadata.labels, { keep: 'a' });
    assert.equal(after.metadata.annotations, undefined);
    assert.deepEqual(after.status, {});
    assert.equal(after.metadata.generation, 3, 'each replica change is a spec change');
  });

  test('field.ObjectMeta.generation: starts at 1, increases on spec changes only (not status, not metadata)', async () => {
    const name = uniq('gen');
    const d = await h.create(APPS(), deployment(name));
    assert.equal(d.metadata.generation, 1);
    const labels = await patch(`${APPS()}/${name}`, { metadata: { labels: { a: 'b' } } });
    assert.equal(labels.metadata.generation, 1, 'metadata-only change');
    const status = await patch(`${APPS()}/${name}/status`, { status: { replicas: 1 } });
    assert.equal(status.metadata.generation, 1, 'status change');
    const spec = await patch(`${APPS()}/${name}`, { spec: { replicas: 3 } });
    assert.equal(spec.metadata.generation, 2);
    const again = await patch(`${APPS()}/${name}`, { spec: { paused: true } });
    assert.equal(again.metadata.generation, 3);
    const scaled = await h.call('PUT', `${APPS()}/${name}/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 5 } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal((await h.call('GET', `${APPS()}/${name}`)).body.metadata.generation, 4, 'scale changes spec.replicas');
    const defaulted = (await h.call('GET', `${APPS()}/${name}`)).body;
    const noop = await h.call('PUT', `${APPS()}/${name}`, defaulted);
    assert.equal(noop.body.metadata.generation, 4, 'a PUT of the same spec (defaults included) does not bump');
  });

  test('field.DeploymentStatus.observedGeneration: written through /status and kept by main-resource writes', async () => {
    const name = uniq('og');
    await h.create(APPS(), deployment(name));
    await patch(`${APPS()}/${name}/status`, { status: { observedGeneration: 1 } });
    const after = await patch(`${APPS()}/${name}`, { spec: { replicas: 2 } });
    assert.equal(after.metadata.generation, 2);
    assert.equal(after.status.observedGeneration, 1);
  });
});

describe('scale subresource', () => {
  test('rule.ops.scale: apps/v1 Deployment GET/PUT/PATCH autoscaling/v1 Scale; only spec.replicas changes', async () => {
    const name = uniq('sc');
    await h.create(APPS(), deployment(name, { replicas: 2 }));
    const g = await h.call('GET', `${APPS()}/${name}/scale`);
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.apiVersion, 'autoscaling/v1');
    assert.equal(g.body.kind, 'Scale');
    assert.equal(g.body.spec.replicas, 2);
    assert.equal(g.body.status.selector, 'app=x');
    const put = await h.call('PUT', `${APPS()}/${name}/scale`, { ...g.body, spec: { replicas: 4 }, status: { replicas: 99 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 4);
    const p = await h.call('PATCH', `${APPS()}/${name}/scale`, JSON.stringify({ spec: { replicas: 6 } }), MERGE);
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.spec.replicas, 6);
    const d = (await h.call('GET', `${APPS()}/${name}`)).body;
    assert.equal(d.spec.replicas, 6);
    assert.deepEqual(d.status, {}, 'scale does not write status');
    assert.deepEqual(d.spec.strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: '25%' });
    const neg = await h.call('PUT', `${APPS()}/${name}/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: -1 } });
    assert.equal(neg.status, 422, neg.text);
    const stale = await h.call('PUT', `${APPS()}/${name}/scale`, { ...g.body, spec: { replicas: 1 } });
    assert.equal(stale.status, 409, 'a stale resourceVersion conflicts');
  });

  test('rule.ops.scale: extensions/v1beta1 Deployment and ReplicaSet Scale carry a selector map and targetSelector', async () => {
    const name = uniq('esc');
    await h.create(EXT(), { metadata: { name }, spec: { template: podTemplate({ app: 'e' }) } });
    const g = await h.call('GET', `${EXT()}/${name}/scale`);
    assert.equal(g.body.apiVersion, 'extensions/v1beta1');
    assert.deepEqual(g.body.status.selector, { app: 'e' });
    assert.equal(g.body.status.targetSelector, 'app=e');
    const put = await h.call('PUT', `${EXT()}/${name}/scale`, { apiVersion: 'extensions/v1beta1', kind: 'Scale', metadata: { name }, spec: { replicas: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await h.call('GET', `${APPS()}/${name}`)).body.spec.replicas, 3, 'shared storage with apps/v1');
    const rsName = uniq('rssc');
    await h.create(`/apis/extensions/v1beta1/namespaces/${ns}/replicasets`, { metadata: { name: rsName }, spec: { template: podTemplate({ app: 'r' }) } });
    const rs = await h.call('GET', `/apis/extensions/v1beta1/namespaces/${ns}/replicasets/${rsName}/scale`);
    assert.equal(rs.status, 200, rs.text);
    assert.deepEqual(rs.body.status.selector, { app: 'r' });
    const wrong = await h.call('PUT', `${EXT()}/${name}/scale`, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 3 } });
    assert.equal(wrong.status, 400, 'the Scale version of the group');
  });
});

describe('namespace status and finalize', () => {
  test('Namespace /status changes status only; /finalize changes spec.finalizers only; PUT ignores both', async () => {
    const name = uniq('nsf');
    const n = await h.create('/api/v1/namespaces', { metadata: { name } });
    const put = await h.call('PUT', `/api/v1/namespaces/${name}`, { ...n, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.spec.finalizers, ['kubernetes']);
    assert.equal(put.body.status.phase, 'Active');
    const fin = await h.call('PUT', `/api/v1/namespaces/${name}/finalize`, { ...put.body, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } });
    assert.equal(fin.status, 200, fin.text);
    assert.deepEqual(fin.body.spec.finalizers, ['example.com/x']);
    assert.equal(fin.body.status.phase, 'Active');
    const st = await h.call('PUT', `/api/v1/namespaces/${name}/status`, { ...fin.body, spec: { finalizers: [] }, status: { phase: 'Active' } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.body.status.phase, 'Active');
    assert.deepEqual(st.body.spec.finalizers, ['example.com/x']);
    // Terminating only with a deletionTimestamp (the real ValidateNamespaceStatusUpdate).
    const live = await h.call('PUT', `/api/v1/namespaces/${name}/status`, { ...st.body, status: { phase: 'Terminating' } });
    assert.equal(live.status, 422, live.text);
  });
});

describe('get with export and exact (spec 4.2)', () => {
  test('export strips cluster-specific fields; exact keeps the namespace', async () => {
    const name = uniq('exp');
    await h.create(APPS(), deployment(name));
    await patch(`${APPS()}/${name}/status`, { status: { replicas: 1 } });
    const e = await h.call('GET', `${APPS()}/${name}?export=true`);
    assert.equal(e.status, 200);
    for (const f of ['uid', 'selfLink', 'resourceVersion', 'namespace', 'generation']) assert.equal(e.body.metadata[f], undefined, f);
    assert.equal(e.body.metadata.name, name);
    assert.equal(e.body.spec.replicas, 1, 'spec kept');
    assert.equal(e.body.status, undefined);
    const x = await h.call('GET', `${APPS()}/${name}?export=true&exact=true`);
    assert.equal(x.body.metadata.namespace, ns);
    assert.equal(x.body.metadata.uid, undefined);
    const plain = await h.call('GET', `${APPS()}/${name}?export=false`);
    assert.ok(plain.body.metadata.uid, 'plain.body.metadata.uid');
    // Like the real parameter codec, any value but 0, f and false (any case) is true.
    const maybe = await h.call('GET', `${APPS()}/${name}?export=maybe`);
    assert.equal(maybe.status, 200);
    assert.equal(maybe.body.metadata.uid, undefined);
    assert.ok((await h.call('GET', `${APPS()}/${name}?export=False`)).body.metadata.uid, "(await h.call('GET', `${APPS()}/${name}?export=False`)).body.metadata.uid");
  });
});

describe('deployments/rollback (extensions/v1beta1, 1.9)', () => {
  const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
  const body = (name: string, revision?: number, extra: Json = {}) => ({ kind: 'DeploymentRollback', apiVersion: 'extensions/v1beta1', name, rollbackTo: revision === undefined ? {} : { revision }, ...extra });

  test('POST sets spec.rollbackTo (seen through extensions), kept as an annotation in apps/v1, and answers a Success Status', async () => {
    const name = uniq('rb');
    const created = await h.create(APPS(), deployment(name));
    const r = await h.call('POST', `${EXT()}/${name}/rollback`, body(name, 2, { updatedAnnotations: { note: 'why' } }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', message: `rollback request for deployment "${name}" succeeded`, code: 200 });
    const ext = (await h.call('GET', `${EXT()}/${name}`)).body;
    assert.deepEqual(ext.spec.rollbackTo, { revision: 2 });
    assert.equal(ext.metadata.annotations[ROLLBACK_TO], undefined, 'extensions shows the field, not the annotation');
    assert.equal(ext.metadata.annotations.note, 'why');
    const apps = (await h.call('GET', `${APPS()}/${name}`)).body;
    assert.equal(apps.spec.rollbackTo, undefined);
    assert.equal(apps.metadata.annotations[ROLLBACK_TO], '2');
    assert.equal(apps.metadata.generation, created.metadata.generation, 'the registry writes storage directly: no generation bump');
    // An extensions PUT of what it read keeps the request; one without rollbackTo clears it.
    const put = await h.call('PUT', `${EXT()}/${name}`, ext);
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.spec.rollbackTo, { revision: 2 });
    delete put.body.spec.rollbackTo;
    const cleared = await h.call('PUT', `${EXT()}/${name}`, put.body);
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.spec.rollbackTo, undefined);
    assert.equal((await h.call('GET', `${APPS()}/${name}`)).body.metadata.annotations[ROLLBACK_TO], undefined);
  });

  test('revision 0 and an absent rollbackTo mean the previous revision', async () => {
    const name = uniq('rb');
    await h.create(APPS(), deployment(name));
    const r = await h.call('POST', `${EXT()}/${name}/rollback`, { name });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await h.call('GET', `${EXT()}/${name}`)).body.spec.rollbackTo, { revision: 0 });
  });

  test('errors: missing Deployment 404, negative revision 422, no name 422, other kind 400; not under apps/v1', async () => {
    const name = uniq('rb');
    const missing = await h.call('POST', `${EXT()}/${name}/rollback`, body(name, 1));
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.message, `deployments.extensions "${name}" not found`);
    await h.create(APPS(), deployment(name));
    const neg = await h.call('POST', `${EXT()}/${name}/rollback`, body(name, -1));
    assert.equal(neg.status, 422, neg.text);
    assert.match(neg.body.message, /rollback\.revision: Invalid value: -1: must be non-negative/);
    const noName = await h.call('POST', `${EXT()}/${name}/rollback`, body('', 1));
    assert.equal(noName.status, 422, noName.text);
    const wrongKind = await h.call('POST', `${EXT()}/${name}/rollback`, { ...body(name, 1), kind: 'Deployment' });
    assert.equal(wrongKind.status, 400, wrongKind.text);
    const get = await h.call('GET', `${EXT()}/${name}/rollback`);
    assert.equal(get.status, 405, get.text);
    const apps = await h.call('POST', `${APPS()}/${name}/rollback`, body(name, 1));
    assert.equal(apps.status, 404, apps.text);
  });

  test('discovery lists deployments/rollback (DeploymentRollback, create) in extensions/v1beta1 only', async () => {
    const ext = (await h.call('GET', '/apis/extensions/v1beta1')).body;
    const entry = ext.resources.find((r: Json) => r.name === 'deployments/rollback');
    assert.deepEqual(entry, { name: 'deployments/rollback', singularName: '', namespaced: true, kind: 'DeploymentRollback', verbs: ['create'] });
    const apps = (await h.call('GET', '/apis/apps/v1')).body;
    assert.equal(apps.resources.find((r: Json) => r.name === 'deployments/rollback'), undefined);
  });

  test('OpenAPI v2 has the rollback path with a DeploymentRollback body', async () => {
    const doc = (await h.call('GET', '/openapi/v2', undefined, { accept: 'application/json' })).body;
    const path = doc.paths['/apis/extensions/v1beta1/namespaces/{namespace}/deployments/{name}/rollback'];
    assert.ok(path?.post, 'POST route present');
    const bodyParam = path.post.parameters.find((p: Json) => p.in === 'body');
    assert.equal(bodyParam.schema.$ref, '#/definitions/io.k8s.api.extensions.v1beta1.DeploymentRollback');
    assert.ok(doc.definitions['io.k8s.api.extensions.v1beta1.DeploymentRollback'].properties.rollbackTo, "doc.definitions['io.k8s.api.extensions.v1beta1.DeploymentRollback'].properties.rollbackTo");
  });
});
