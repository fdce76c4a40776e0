// dryRun=All on every write verb (registry/store.ts readModifyWrite, handlers/write-options.ts): defaulting,
// validation, admission and preconditions run, the answer is what would be stored, and nothing is persisted: no
// watch event, no resourceVersion used up. An unknown value is 400. Also: server-owned metadata on update comes
// from the stored object, timestamps in any RFC 3339 form are stored as whole-second UTC, spec/status present.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from './start.ts';

type Json = Record<string, any>;

describe('dryRun=All', () => {
  let server: RunningApiServer;
  const NS = '/api/v1/namespaces/default';
  const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
  const call = async (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: Json }> => {
    const res = await fetch(server.url + path, { method, headers: body === undefined ? {} : { 'content-type': contentType }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const deployment = (name: string) => ({
    metadata: { name, labels: { app: name } },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });

  before(async () => {
    server = await startApiServer();
    assert.equal((await call('POST', `${NS}/configmaps`, { metadata: { name: 'cm' }, data: { a: '1' } })).status, 201);
    assert.equal((await call('POST', DEPLOY, deployment('web'))).status, 201);
    assert.equal((await call('POST', `${NS}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).status, 201);
  });
  after(async () => server.close());

  /** Runs a dry-run write and checks that the store's revision and every watch stayed still. */
  async function unchanged<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const rev = server.ctx.store.currentRevision();
    const watch = await fetch(`${server.url}/api/v1/configmaps?watch=1&resourceVersion=${rev}&timeoutSeconds=1`);
    const deployWatch = await fetch(`${server.url}/apis/apps/v1/deployments?watch=1&resourceVersion=${rev}&timeoutSeconds=1`);
    const out = await fn();
    assert.equal(server.ctx.store.currentRevision(), rev, `${what}: no revision is used`);
    assert.equal(await watch.text(), '', `${what}: no watch event`);
    assert.equal(await deployWatch.text(), '', `${what}: no watch event`);
    return out;
  }

  test('create answers the object it would store (defaults applied, no resourceVersion) and stores nothing', async () => {
    const r = await unchanged('create', () => call('POST', `${DEPLOY}?dryRun=All`, deployment('dry')));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.metadata.name, 'dry');
    assert.ok(r.body.metadata.uid, 'r.body.metadata.uid');
    assert.equal(r.body.metadata.resourceVersion, undefined);
    assert.equal(r.body.spec.strategy.type, 'RollingUpdate', 'defaults run');
    assert.deepEqual(r.body.status, {});
    assert.equal((await call('GET', `${DEPLOY}/dry`)).status, 404);
    // Validation and the existence check still run.
    assert.equal((await call('POST', `${NS}/configmaps?dryRun=All`, { metadata: { name: 'Bad_Name' } })).status, 422);
    assert.equal((await call('POST', `${NS}/configmaps?dryRun=All`, { metadata: { name: 'cm' } })).status, 409);
    const generated = await call('POST', `${NS}/configmaps?dryRun=All`, { metadata: { generateName: 'gen-' } });
    assert.match(generated.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  test('update, every patch type, /status and /scale answer the change and store nothing', async () => {
    const cm = (await call('GET', `${NS}/configmaps/cm`)).body;
    const put = await unchanged('update', () => call('PUT', `${NS}/configmaps/cm?dryRun=All`, { ...cm, data: { a: '2' } }));
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.data, { a: '2' });
    assert.equal(put.body.metadata.resourceVersion, cm.metadata.resourceVersion);
    for (const [type, body] of [['merge-patch', { data: { b: '1' } }], ['strategic-merge-patch', { data: { b: '1' } }], ['json-patch', [{ op: 'add', path: '/data/b', value: '1' }]]] as const) {
      const r = await unchanged(type, () => call('PATCH', `${NS}/configmaps/cm?dryRun=All`, body, `application/${type}+json`));
      assert.equal(r.status, 200, type);
      assert.deepEqual(r.body.data, { a: '1', b: '1' }, type);
    }
    const status = await unchanged('status', () => call('PATCH', `${DEPLOY}/web/status?dryRun=All`, { status: { replicas: 7 } }, 'application/merge-patch+json'));
    assert.equal(status.body.status.replicas, 7);
    const scale = await unchanged('scale', () => call('PUT', `${DEPLOY}/web/scale?dryRun=All`, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 9 } }));
    assert.equal(scale.status, 200);
    assert.equal(scale.body.spec.replicas, 9);
    const stale = await unchanged('stale update', () => call('PUT', `${NS}/configmaps/cm?dryRun=All`, { ...cm, metadata: { ...cm.metadata, resourceVersion: '1' } }));
    assert.equal(stale.status, 409, 'preconditions run');
    assert.deepEqual((await call('GET', `${NS}/configmaps/cm`)).body.data, { a: '1' });
    assert.equal((await call('GET', `${DEPLOY}/web`)).body.spec.replicas, 1);
  });

  test('delete and deletecollection (query or DeleteOptions.dryRun) remove nothing', async () => {
    const del = await unchanged('delete', () => call('DELETE', `${NS}/configmaps/cm?dryRun=All`));
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'Success');
    const body = await unchanged('delete with body', () => call('DELETE', `${NS}/configmaps/cm`, { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }));
    assert.equal(body.status, 200);
    const coll = await unchanged('deletecollection', () => call('DELETE', `${NS}/configmaps?dryRun=All`));
    assert.equal(coll.status, 200);
    const pod = await unchanged('binding', () => call('POST', `${NS}/pods/p/binding?dryRun=All`, { target: { kind: 'Node', name: 'n1' } }));
    assert.equal(pod.status, 201);
    assert.equal((await call('GET', `${NS}/pods/p`)).body.spec.nodeName, undefined);
    assert.equal((await call('GET', `${NS}/configmaps/cm`)).status, 200);
    assert.equal((await call('DELETE', `${NS}/configmaps/nope?dryRun=All`)).status, 404);
  });

  test('an unknown dryRun value is 400 on every write', async () => {
    for (const [method, path, body] of [['POST', `${NS}/configmaps?dryRun=all`, { metadata: { name: 'x' } }], ['PATCH', `${NS}/configmaps/cm?dryRun=Yes`, {}], ['DELETE', `${NS}/configmaps/cm?dryRun=`, undefined], ['DELETE', `${NS}/configmaps/cm`, { dryRun: ['Some'] }]] as const) {
      const r = await call(method, path, body, method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
      assert.equal(r.status, 400, `${method} ${path}`);
      assert.equal(r.body.reason, 'BadRequest');
    }
    assert.equal((await call('GET', `${NS}/configmaps/cm`)).status, 200);
  });

  test('OpenAPI advertises dryRun on the write operations', async () => {
    const doc = (await call('GET', '/openapi/v2')).body;
    const path = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
    for (const method of ['put', 'patch', 'delete']) assert.ok(path[method].parameters.some((p: Json) => p.name === 'dryRun'), method);
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/configmaps'].post.parameters.some((p: Json) => p.name === 'dryRun'), "doc.paths['/api/v1/namespaces/{namespace}/configmaps'].post.parameters.some((p: Json) => p.name ===…");
  });
});

describe('server-owned metadata, timestamps and shapes', () => {
  let server: RunningApiServer;
  before(async () => (server = await startApiServer()));
  after(async () => server.close());
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(server.url + path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Json };
  };

  test('an update takes creationTimestamp, uid, selfLink and generation from the stored object, whatever form the client sent', async () => {
    const created = (await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'meta' } })).body;
    const ts = created.metadata.creationTimestamp as string;
    assert.match(ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const forms = [ts.replace('Z', '.000Z'), ts.replace('Z', '+00:00'), new Date(Date.parse(ts) + 3_600_000).toISOString().replace(/\.\d+Z$/, '+01:00'), '2001-01-01T00:00:00Z', undefined];
    let current = created;
    for (const form of forms) {
      const body = { ...current, metadata: { ...current.metadata, creationTimestamp: form, uid: undefined, selfLink: '/wrong', generation: 99 }, data: { form: String(form) } };
      const r = await call('PUT', '/api/v1/namespaces/default/configmaps/meta', body);
      assert.equal(r.status, 200, `${form}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.metadata.creationTimestamp, ts);
      assert.equal(r.body.metadata.uid, created.metadata.uid);
      assert.equal(r.body.metadata.selfLink, created.metadata.selfLink);
      current = r.body;
    }
    const otherUid = await call('PUT', '/api/v1/namespaces/default/configmaps/meta', { ...current, metadata: { ...current.metadata, uid: 'another' } });
    assert.equal(otherUid.status, 422, 'a different uid is still refused');
  });

  test('timestamps in any RFC 3339 form are stored and answered as whole-second UTC', async () => {
    const ev = await call('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'ev' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'R', message: 'm', type: 'Normal', count: 1,
      firstTimestamp: '2018-01-02T04:04:05.678+01:00',
      lastTimestamp: '2018-01-02T03:04:05.999999Z',
    });
    assert.equal(ev.status, 201, JSON.stringify(ev.body));
    assert.equal(ev.body.firstTimestamp, '2018-01-02T03:04:05Z');
    assert.equal(ev.body.lastTimestamp, '2018-01-02T03:04:05Z');
    assert.equal((await call('GET', '/api/v1/namespaces/default/events/ev')).body.firstTimestamp, '2018-01-02T03:04:05Z');
  });

  test('spec and status are present as objects from the create answer on', async () => {
    const d = await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'shape' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.deepEqual(d.body.status, {});
    const ns = await call('POST', '/api/v1/namespaces', { metadata: { name: 'shape' } });
    assert.equal(typeof ns.body.spec, 'object');
    const cm = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'shape' } });
    assert.equal(cm.body.spec, undefined, 'a type without spec gets none');
    assert.equal(cm.body.status, undefined);
  });
});
