// Validation, update rules and admission as the real 1.9 server applies them (issue 17): each case was
// accepted (201/200) or deleted the cluster's own namespaces before; now each is refused with the real code and
// one cause per field path.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startApiServer, type RunningApiServer } from './start.ts';

let server: RunningApiServer;
before(async () => {
  server = await startApiServer();
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'vp' } })).status, 201);
});
after(() => server.close());

type Json = Record<string, any>;

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: Json; text: string }> {
  const res = await request(server.url + path, { method: method as 'GET', headers: body === undefined ? {} : { 'content-type': contentType }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body: parsed, text };
}

function assertCause(r: { status: number; body: Json; text: string }, field: string, type?: string): void {
  assert.equal(r.status, 422, r.text.slice(0, 400));
  assert.equal(r.body.reason, 'Invalid');
  const causes = r.body.details.causes as Array<{ field: string; reason: string }>;
  assert.ok(causes.some((c) => c.field === field && (!type || c.reason === type)), `no ${type ?? ''} cause at ${field}: ${r.text.slice(0, 600)}`);
}

let seq = 0;
const pod = (container: Json, spec: Json = {}) => ({ metadata: { name: `p${++seq}` }, spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec } });
const PODS = '/api/v1/namespaces/vp/pods';

describe('containers and pod specs', () => {
  const cases: Array<[string, Json, Json, string, string?]> = [
    ['a negative quantity', { resources: { limits: { cpu: '-1' } } }, {}, 'spec.containers[0].resources.limits[cpu]'],
    ['requests above limits', { resources: { limits: { memory: '1Gi' }, requests: { memory: '2Gi' } } }, {}, 'spec.containers[0].resources.requests[memory]'],
    ['a probe with no handler', { livenessProbe: { periodSeconds: 5 } }, {}, 'spec.containers[0].livenessProbe', 'FieldValueRequired'],
    ['a probe with two handlers', { readinessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } }, {}, 'spec.containers[0].readinessProbe.tcpSocket', 'FieldValueForbidden'],
    ['a negative probe period', { livenessProbe: { exec: { command: ['true'] }, periodSeconds: -1 } }, {}, 'spec.containers[0].livenessProbe.periodSeconds'],
    ['a liveness successThreshold other than 1', { livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } }, {}, 'spec.containers[0].livenessProbe.successThreshold'],
    ['valueFrom without a source', { env: [{ name: 'A', valueFrom: {} }] }, {}, 'spec.containers[0].env[0].valueFrom'],
    ['valueFrom with two sources', { env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, secretKeyRef: { name: 's', key: 'k' } } }] }, {}, 'spec.containers[0].env[0].valueFrom'],
    ['an envFrom prefix that is not a variable name', { envFrom: [{ prefix: '1-x', configMapRef: { name: 'c' } }] }, {}, 'spec.containers[0].envFrom[0].prefix'],
    ['an env name that starts with a digit', { env: [{ name: '1ABC', value: 'x' }] }, {}, 'spec.containers[0].env[0].name', 'FieldValueInvalid'],
    ['an env name with a character outside [-._a-zA-Z0-9]', { env: [{ name: 'A B', value: 'x' }] }, {}, 'spec.containers[0].env[0].name', 'FieldValueInvalid'],
    ["an env name '..'", { env: [{ name: '..', value: 'x' }] }, {}, 'spec.containers[0].env[0].name', 'FieldValueInvalid'],
    ["an env name starting with '..'", { env: [{ name: '..A', value: 'x' }] }, {}, 'spec.containers[0].env[0].name', 'FieldValueInvalid'],
    ["an envFrom prefix '.'", { envFrom: [{ prefix: '.', configMapRef: { name: 'c' } }] }, {}, 'spec.containers[0].envFrom[0].prefix', 'FieldValueInvalid'],
    ['a configMapKeyRef key with a slash', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'a/b' } } }] }, {}, 'spec.containers[0].env[0].valueFrom.configMapKeyRef.key', 'FieldValueInvalid'],
    ["a secretKeyRef key '..x'", { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: '..x' } } }] }, {}, 'spec.containers[0].env[0].valueFrom.secretKeyRef.key', 'FieldValueInvalid'],
    ['a secretKeyRef key of 254 characters', { env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k'.repeat(254) } } }] }, {}, 'spec.containers[0].env[0].valueFrom.secretKeyRef.key', 'FieldValueInvalid'],
    ['a configMapKeyRef name that is not a DNS subdomain', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'Bad_Name', key: 'k' } } }] }, {}, 'spec.containers[0].env[0].valueFrom.configMapKeyRef.name', 'FieldValueInvalid'],
    ['a bad port name', { ports: [{ containerPort: 80, name: 'Web_Port' }] }, {}, 'spec.containers[0].ports[0].name'],
    ['a mount of a volume that does not exist', { volumeMounts: [{ name: 'nope', mountPath: '/x' }] }, {}, 'spec.containers[0].volumeMounts[0].name', 'FieldValueNotFound'],
    ['a volume with two sources', {}, { volumes: [{ name: 'v', secret: { secretName: 's' }, configMap: { name: 'c' } }] }, 'spec.volumes[0].configMap', 'FieldValueForbidden'],
    ['a secret volume without a name', {}, { volumes: [{ name: 'v', secret: {} }] }, 'spec.volumes[0].secret.secretName', 'FieldValueRequired'],
    ['a volume name that is not a DNS label', {}, { volumes: [{ name: 'Bad_Name', emptyDir: {} }] }, 'spec.volumes[0].name'],
    ['a defaultMode above 0777', {}, { volumes: [{ name: 'v', configMap: { name: 'c', defaultMode: 1000 } }] }, 'spec.volumes[0].configMap.defaultMode'],
  ];
  for (const [what, container, spec, field, type] of cases) {
    test(what, async () => assertCause(await call('POST', PODS, pod(container, spec)), field, type));
  }
  test('duplicate hostPort across containers', async () => {
    const r = await call('POST', PODS, { metadata: { name: 'hp' }, spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }, { name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] }] } });
    assertCause(r, 'spec.containers[1].ports[0].hostPort', 'FieldValueDuplicate');
  });
  test('the same rules in a workload template', async () => {
    const r = await call('POST', '/apis/apps/v1/namespaces/vp/deployments', {
      metadata: { name: 'tpl' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }] } } },
    });
    assertCause(r, 'spec.template.spec.containers[0].resources.requests[cpu]');
  });
  test('a valid pod with all of these is still accepted', async () => {
    const r = await call('POST', PODS, pod({
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m', memory: '64Mi' } },
      livenessProbe: { httpGet: { port: 'web', path: '/' }, periodSeconds: 0 },
      ports: [{ name: 'web', containerPort: 80, hostPort: 8080 }],
      // 1.9 names are environment variable names, not C identifiers: dots and dashes pass.
      env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'my.env-name', value: 'x' }, { name: '_X.Y', valueFrom: { configMapKeyRef: { name: 'c.d', key: '.dotfile' } } }],
      envFrom: [{ prefix: 'CFG_', configMapRef: { name: 'c' } }, { prefix: 'my-prefix.', secretRef: { name: 's' } }],
      volumeMounts: [{ name: 'v', mountPath: '/v' }],
    }, { volumes: [{ name: 'v', configMap: { name: 'c', defaultMode: 0o644 } }] }));
    assert.equal(r.status, 201, r.text);
    // A zero period is defaulted, as the real defaulter does.
    assert.equal(r.body.spec.containers[0].livenessProbe.periodSeconds, 10);
  });
});

describe('pod updates', () => {
  for (const [what, change] of [
    ['tty', (c: Json) => ({ ...c, tty: true, stdin: true })],
    ['stdin', (c: Json) => ({ ...c, stdin: true })],
    ['securityContext', (c: Json) => ({ ...c, securityContext: { privileged: true } })],
    ['resources', (c: Json) => ({ ...c, resources: { limits: { cpu: '1' } } })],
  ] as Array<[string, (c: Json) => Json]>) {
    test(`a running pod's ${what} cannot change (422 at spec)`, async () => {
      const created = await call('POST', PODS, pod({}));
      assert.equal(created.status, 201);
      const next = structuredClone(created.body);
      next.spec.containers[0] = change(next.spec.containers[0]);
      const r = await call('PUT', `${PODS}/${created.body.metadata.name}`, next);
      assertCause(r, 'spec', 'FieldValueForbidden');
    });
  }
  test('image, a lower activeDeadlineSeconds and an added toleration may change', async () => {
    const created = await call('POST', PODS, pod({}, { activeDeadlineSeconds: 100 }));
    const next = structuredClone(created.body);
    next.spec.containers[0].image = 'busybox:2';
    next.spec.activeDeadlineSeconds = 50;
    next.spec.tolerations = [{ key: 'k', operator: 'Exists' }];
    const r = await call('PUT', `${PODS}/${created.body.metadata.name}`, next);
    assert.equal(r.status, 200, r.text);
    const raise = structuredClone(r.body);
    raise.spec.activeDeadlineSeconds = 500;
    assertCause(await call('PUT', `${PODS}/${created.body.metadata.name}`, raise), 'spec.activeDeadlineSeconds');
    const drop = structuredClone(r.body);
    drop.spec.tolerations = [];
    assertCause(await call('PUT', `${PODS}/${created.body.metadata.name}`, drop), 'spec.tolerations[0]', 'FieldValueForbidden');
  });
});

describe('finalizers and namespaces', () => {
  test('a finalizer that is neither standard nor qualified: 422', async () => {
    assertCause(await call('POST', '/api/v1/namespaces/vp/configmaps', { metadata: { name: 'fin', finalizers: ['plainword'] } }), 'metadata.finalizers[0]');
    assert.equal((await call('POST', '/api/v1/namespaces/vp/configmaps', { metadata: { name: 'fin', finalizers: ['example.com/mine', 'orphan'] } })).status, 201);
  });
  test('namespace spec.finalizers [""]: 422 (it would stay Terminating forever)', async () => {
    assertCause(await call('POST', '/api/v1/namespaces', { metadata: { name: 'fin-ns' }, spec: { finalizers: [''] } }), 'spec.finalizers[0]');
  });
  test('namespace status: phase Bogus, Terminating while live, Active while deleting: 422', async () => {
    const ns = await call('POST', '/api/v1/namespaces', { metadata: { name: 'phases' } });
    assert.equal(ns.status, 201);
    const put = (phase: string, from: Json) => call('PUT', '/api/v1/namespaces/phases/status', { ...from, status: { phase } });
    assertCause(await put('Bogus', ns.body), 'status.phase', 'FieldValueNotSupported');
    assertCause(await put('Terminating', ns.body), 'status.Phase');
    const deleting = await call('DELETE', '/api/v1/namespaces/phases');
    assert.equal(deleting.status, 200, deleting.text);
    const cur = await call('GET', '/api/v1/namespaces/phases');
    assert.equal(cur.body.status.phase, 'Terminating');
    assertCause(await put('Active', cur.body), 'status.Phase');
  });
  test('default, kube-system and kube-public cannot be deleted (403)', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const r = await call('DELETE', `/api/v1/namespaces/${name}`);
      assert.equal(r.status, 403, r.text);
      assert.equal(r.body.reason, 'Forbidden');
      assert.equal((await call('GET', `/api/v1/namespaces/${name}`)).body.status.phase, 'Active');
    }
  });
  test('namespaces have no deletecollection: 405, not in discovery, nothing deleted', async () => {
    const r = await call('DELETE', '/api/v1/namespaces');
    assert.equal(r.status, 405, r.text);
    assert.equal(r.body.kind, 'Status');
    const disc = await call('GET', '/api/v1');
    const nsRes = (disc.body.resources as Array<{ name: string; verbs: string[] }>).find((x) => x.name === 'namespaces');
    assert.ok(nsRes && !nsRes.verbs.includes('deletecollection'), JSON.stringify(nsRes));
    assert.equal((await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'still-' } })).status, 201);
  });
});

describe('services', () => {
  const SVC = '/api/v1/namespaces/vp/services';
  test('duplicate (port, protocol), headless NodePort, clusterIP change: 422 at the field', async () => {
    assertCause(await call('POST', SVC, { metadata: { name: 's1' }, spec: { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] } }), 'spec.ports[1]', 'FieldValueDuplicate');
    assertCause(await call('POST', SVC, { metadata: { name: 's2' }, spec: { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] } }), 'spec.clusterIP');
    const ok = await call('POST', SVC, { metadata: { name: 's3' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(ok.status, 201, ok.text);
    const next = structuredClone(ok.body);
    next.spec.clusterIP = '10.0.0.99';
    assertCause(await call('PUT', `${SVC}/s3`, next), 'spec.clusterIP');
  });
});

describe('collection delete', () => {
  test('DeleteOptions preconditions apply to each item: a mismatch is 409 and nothing is deleted', async () => {
    assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'coll' } })).status, 201);
    const a = await call('POST', '/api/v1/namespaces/coll/configmaps', { metadata: { name: 'a' } });
    await call('POST', '/api/v1/namespaces/coll/configmaps', { metadata: { name: 'b' } });
    const r = await call('DELETE', '/api/v1/namespaces/coll/configmaps', { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: a.body.metadata.uid } });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.body.reason, 'Conflict');
    assert.equal((await call('GET', '/api/v1/namespaces/coll/configmaps')).body.items.length, 2);
    const ok = await call('DELETE', '/api/v1/namespaces/coll/configmaps?labelSelector=', { kind: 'DeleteOptions', apiVersion: 'v1' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await call('GET', '/api/v1/namespaces/coll/configmaps')).body.items.length, 0);
  });
});
