// LimitRanger through a running server: defaults from the namespace's LimitRange (with the LimitRange's own
// defaults), refusals under min, over max and over the ratio, claims' storage range, and --admission-control.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from '../start.ts';

type Json = Record<string, any>;
let server: RunningApiServer;

async function call(method: string, path: string, body?: unknown, base = server.url): Promise<{ status: number; body: Json }> {
  const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}

const pod = (name: string, resources: Json = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx:1.13', resources }] } });

before(async () => {
  server = await startApiServer();
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'lr' } })).status, 201);
  const lr = await call('POST', '/api/v1/namespaces/lr/limitranges', {
    metadata: { name: 'limits' },
    spec: {
      limits: [
        { type: 'Container', max: { cpu: '1', memory: '1Gi' }, min: { cpu: '50m' }, defaultRequest: { cpu: '300m' }, maxLimitRequestRatio: { cpu: '4' } },
        { type: 'PersistentVolumeClaim', max: { storage: '2Gi' }, min: { storage: '1Gi' } },
      ],
    },
  });
  assert.equal(lr.status, 201, JSON.stringify(lr.body));
});
after(async () => server.close());

describe('LimitRange', () => {
  test("its own defaults: a Container item's default limit is its max, its default request its given one", async () => {
    const lr = (await call('GET', '/api/v1/namespaces/lr/limitranges/limits')).body;
    assert.deepEqual(lr.spec.limits[0].default, { cpu: '1', memory: '1Gi' });
    assert.deepEqual(lr.spec.limits[0].defaultRequest, { cpu: '300m', memory: '1Gi' });
    assert.equal(lr.spec.limits[1].default, undefined);
  });

  test('validation: unknown type, defaults of a Pod item, min over max, ratio under 1', async () => {
    const r = await call('POST', '/api/v1/namespaces/lr/limitranges', {
      metadata: { name: 'bad' },
      spec: { limits: [{ type: 'Node' }, { type: 'Pod', default: { cpu: '1' } }, { type: 'Container', min: { cpu: '2' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '500m' } }] },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.details.causes.map((c: Json) => c.field), [
      'spec.limits[0].type', 'spec.limits[1].default', 'spec.limits[2].min[cpu]', 'spec.limits[2].defaultRequest[cpu]', 'spec.limits[2].default[cpu]', 'spec.limits[2].maxLimitRequestRatio[cpu]',
    ]);
  });
});

describe('LimitRanger admission', () => {
  test('a pod without resources gets the defaults and the annotation that says so', async () => {
    const r = await call('POST', '/api/v1/namespaces/lr/pods', pod('plain'));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.containers[0].resources, { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '300m', memory: '1Gi' } });
    assert.equal(r.body.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
  });

  test('what the pod sets is kept; only missing values are defaulted', async () => {
    const r = await call('POST', '/api/v1/namespaces/lr/pods', pod('own', { requests: { cpu: '200m' }, limits: { cpu: '400m' } }));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.containers[0].resources, { limits: { cpu: '400m', memory: '1Gi' }, requests: { cpu: '200m', memory: '1Gi' } });
    assert.equal(r.body.metadata.annotations['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: memory request for container app; memory limit for container app');
  });

  test('over max, under min, over the ratio: 403 with each reason', async () => {
    const over = await call('POST', '/api/v1/namespaces/lr/pods', pod('big', { limits: { cpu: '2' }, requests: { cpu: '1' } }));
    assert.equal(over.status, 403);
    assert.equal(over.body.reason, 'Forbidden');
    assert.equal(over.body.message, 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2.');
    const small = await call('POST', '/api/v1/namespaces/lr/pods', pod('small', { requests: { cpu: '10m' }, limits: { cpu: '20m' } }));
    assert.equal(small.status, 403);
    assert.equal(small.body.message, 'pods "small" is forbidden: minimum cpu usage per Container is 50m, but request is 10m.');
    const ratio = await call('POST', '/api/v1/namespaces/lr/pods', pod('ratio', { requests: { cpu: '100m' }, limits: { cpu: '800m' } }));
    assert.equal(ratio.status, 403);
    assert.equal(ratio.body.message, 'pods "ratio" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 8.000000.');
  });

  test('claims: storage within the claim range', async () => {
    const claim = (name: string, storage: string) => ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    assert.equal((await call('POST', '/api/v1/namespaces/lr/persistentvolumeclaims', claim('ok', '1Gi'))).status, 201);
    const big = await call('POST', '/api/v1/namespaces/lr/persistentvolumeclaims', claim('big', '5Gi'));
    assert.equal(big.status, 403);
    assert.equal(big.body.message, 'persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi.');
  });

  test('a namespace whose LimitRange names only claims: a pod is admitted unchanged (was a 500)', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'lr-claims' } })).status, 201);
    const lr = await call('POST', '/api/v1/namespaces/lr-claims/limitranges', { metadata: { name: 'claims' }, spec: { limits: [{ type: 'PersistentVolumeClaim', max: { storage: '5Gi' } }] } });
    assert.equal(lr.status, 201, JSON.stringify(lr.body));
    const made = await call('POST', '/api/v1/namespaces/lr-claims/pods', pod('plain'));
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.metadata.annotations?.['kubernetes.io/limit-ranger'], undefined);
  });

  test('--admission-control without LimitRanger: no defaults, no refusals; an unknown plugin is refused', async () => {
    const other = await startApiServer({ admissionControl: 'NamespaceLifecycle,ResourceQuota' });
    try {
      await call('POST', '/api/v1/namespaces', { metadata: { name: 'lr' } }, other.url);
      await call('POST', '/api/v1/namespaces/lr/limitranges', { metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }, other.url);
      const r = await call('POST', '/api/v1/namespaces/lr/pods', pod('big', { limits: { cpu: '2' } }), other.url);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.metadata.annotations, undefined);
    } finally {
      await other.close();
    }
    await assert.rejects(startApiServer({ admissionControl: 'NamespaceLifecycle,NoSuchPlugin' }), /unknown admission plugin: NoSuchPlugin/);
  });
});
