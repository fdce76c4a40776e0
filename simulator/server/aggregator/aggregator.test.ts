// The aggregator: the server's own APIServices (v1beta1.metrics.k8s.io among them, Available), and an APIService
// naming a Service whose Endpoints lead to an HTTPS server this test runs: Available once it answers, its group in
// /apis and /apis/<group>, requests under it proxied with the user's identity headers (and without the client's
// credentials), 503 once it stops answering, gone from discovery when deleted; the TLS settings of the APIService
// (caBundle for the name <service>.<namespace>.svc, insecureSkipTLSVerify) are what the proxy uses.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { createCertificateAuthority } from '../tls/certs.ts';

type Json = Record<string, any>;
const TOKEN = 'aggregator-test-token';
const GROUP = 'wardle.example.com';
let sim: RunningSimulator;
let backend: Server;
let backendPort: number;
let caBundle: string;
let otherCaBundle: string;
let dir: string;
const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: Json; headers: Headers }> {
  const r = await fetch(sim.url + path, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // a text answer (503 "service unavailable")
  }
  return { status: r.status, text, body: parsed, headers: r.headers };
}

async function eventually<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const available = async (name: string) => (await call('GET', `/apis/apiregistration.k8s.io/v1beta1/apiservices/${name}`)).body.status?.conditions?.find((c: Json) => c.type === 'Available');

function startBackend(port = 0): Promise<number> {
  backend.listen(port, '127.0.0.1');
  return new Promise((resolve) => backend.once('listening', () => resolve((backend.address() as AddressInfo).port)));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aggregator-'));
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},alice,uid-alice,"system:masters,devs"\n`);
  const ca = await createCertificateAuthority('aggregated-ca');
  const other = await createCertificateAuthority('other-ca');
  // Valid for the Service's name only, not for the address it is reached at: the proxy must ask for that name.
  const serving = await ca.sign({ commonName: 'api.agg.svc', serving: { dnsNames: ['api.agg.svc'], ips: [] } });
  caBundle = Buffer.from(ca.cert).toString('base64');
  otherCaBundle = Buffer.from(other.cert).toString('base64');
  backend = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      if (req.url === `/apis/${GROUP}/v1alpha1`) {
        res.end(JSON.stringify({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/v1alpha1`, resources: [{ name: 'flunders', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'list', 'create'] }] }));
        return;
      }
      if (req.url?.includes('watch=true')) {
        res.write(JSON.stringify({ type: 'ADDED', object: { kind: 'Flunder', metadata: { name: 'one' } } }) + '\n');
        setTimeout(() => res.end(JSON.stringify({ type: 'ADDED', object: { kind: 'Flunder', metadata: { name: 'two' } } }) + '\n'), 100);
        return;
      }
      res.statusCode = req.method === 'POST' ? 201 : 200;
      res.end(JSON.stringify({ kind: 'Echo', method: req.method, url: req.url, user: req.headers['x-remote-user'], groups: req.headers['x-remote-group'], body }));
    });
  });
  backendPort = await startBackend();
  sim = await startSimulator({ securityFlags: { tokenAuthFile: join(dir, 'tokens.csv'), serviceAccountLookup: false }, apiServiceCheckIntervalMs: 200 });
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'agg' } })).status, 201);
  assert.equal((await call('POST', '/api/v1/namespaces/agg/services', { metadata: { name: 'api' }, spec: { ports: [{ port: 443, targetPort: backendPort }] } })).status, 201);
  assert.equal((await call('POST', '/api/v1/namespaces/agg/endpoints', { metadata: { name: 'api' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: backendPort }] }] })).status, 201);
});

after(async () => {
  await sim?.close();
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
  rmSync(dir, { recursive: true, force: true });
});

test("the server's own group versions are APIServices: Local and Available, v1beta1.metrics.k8s.io among them", async () => {
  const list = await call('GET', '/apis/apiregistration.k8s.io/v1beta1/apiservices');
  assert.equal(list.status, 200);
  const names = list.body.items.map((i: Json) => i.metadata.name);
  for (const n of ['v1.', 'v1.apps', 'v1beta1.extensions', 'v1beta1.metrics.k8s.io', 'v2beta1.autoscaling']) assert.ok(names.includes(n), `${n} in ${names}`);
  assert.ok(!names.some((n: string) => n.endsWith('.apiregistration.k8s.io')), 'the aggregator registers no APIService for its own group (1.9)');
  const metrics = list.body.items.find((i: Json) => i.metadata.name === 'v1beta1.metrics.k8s.io');
  assert.equal(metrics.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
  assert.equal(metrics.spec.service, null);
  assert.equal(metrics.spec.group, 'metrics.k8s.io');
  const cond = metrics.status.conditions.find((c: Json) => c.type === 'Available');
  assert.deepEqual([cond.status, cond.reason, cond.message], ['True', 'Local', 'Local APIServices are always available']);
  const apps = list.body.items.find((i: Json) => i.metadata.name === 'v1.apps');
  assert.deepEqual([apps.spec.groupPriorityMinimum, apps.spec.versionPriority], [17800, 15]);
  // Still served by the simulator itself (kubectl top, the HPA).
  assert.equal((await call('GET', '/apis/metrics.k8s.io/v1beta1/nodes')).status, 200);
});

test('an APIService naming a reachable Service: Available, in discovery, requests proxied with the identity headers', async () => {
  const created = await call('POST', '/apis/apiregistration.k8s.io/v1beta1/apiservices', {
    metadata: { name: `v1alpha1.${GROUP}` },
    spec: { group: GROUP, version: 'v1alpha1', service: { namespace: 'agg', name: 'api' }, caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
  });
  assert.equal(created.status, 201, created.text);
  const cond = await eventually('Available', () => available(`v1alpha1.${GROUP}`), (c) => c?.status === 'True');
  assert.deepEqual([cond.reason, cond.message], ['Passed', 'all checks passed']);

  const groups = await call('GET', '/apis');
  const wardle = groups.body.groups.find((g: Json) => g.name === GROUP);
  assert.deepEqual(wardle, { name: GROUP, versions: [{ groupVersion: `${GROUP}/v1alpha1`, version: 'v1alpha1' }], preferredVersion: { groupVersion: `${GROUP}/v1alpha1`, version: 'v1alpha1' } });
  // Ordered by group priority: after the server's own groups (16600 and above), before metrics.k8s.io (100).
  const order = groups.body.groups.map((g: Json) => g.name);
  assert.ok(order.indexOf(GROUP) > order.indexOf('apiextensions.k8s.io') && order.indexOf(GROUP) < order.indexOf('metrics.k8s.io'), order.join(' '));
  const group = await call('GET', `/apis/${GROUP}`);
  assert.equal(group.status, 200);
  assert.equal(group.body.kind, 'APIGroup');
  assert.equal(group.body.preferredVersion.version, 'v1alpha1');

  const resources = await call('GET', `/apis/${GROUP}/v1alpha1`);
  assert.equal(resources.status, 200);
  assert.equal(resources.body.resources?.[0]?.name, 'flunders', resources.text);

  seen.length = 0;
  const got = await call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders?limit=5`);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.body.url, `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders?limit=5`);
  // (the availability loop's own GETs of /apis/<group>/<version> arrive in between: the proxied one is picked by its path)
  const headers = seen.find((r) => r.url.startsWith(`/apis/${GROUP}/v1alpha1/namespaces/`))!.headers;
  assert.equal(headers['x-remote-user'], 'alice');
  // One X-Remote-Group line per group (node joins repeated headers with ", ").
  assert.equal(headers['x-remote-group'], 'system:masters, devs, system:authenticated');
  assert.equal(headers.authorization, undefined, 'the client credentials are not passed on');

  const posted = await call('POST', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders`, { kind: 'Flunder', metadata: { name: 'f' } });
  assert.equal(posted.status, 201);
  assert.equal(JSON.parse(posted.body.body).metadata.name, 'f');

  // A watch streams through as the backend writes it.
  const watch = await call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders?watch=true`);
  assert.deepEqual(watch.text.trim().split('\n').map((l) => JSON.parse(l).object.metadata.name), ['one', 'two']);
});

test('a backend that stops answering: Available False, out of /apis, 503; back when it answers again', async () => {
  backend.closeAllConnections();
  await new Promise((r) => backend.close(r));
  const down = await eventually('unavailable', () => available(`v1alpha1.${GROUP}`), (c) => c?.status === 'False');
  assert.equal(down.reason, 'FailedDiscoveryCheck');
  assert.match(down.message, /^no response from https:\/\/127\.0\.0\.1:\d+\/apis\/wardle\.example\.com\/v1alpha1: /);
  assert.ok(!(await call('GET', '/apis')).body.groups.some((g: Json) => g.name === GROUP), 'an unavailable group version is not in /apis (1.9)');
  assert.equal((await call('GET', `/apis/${GROUP}`)).status, 404);
  const refused = await call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders`);
  assert.equal(refused.status, 503);
  assert.equal(refused.text, 'service unavailable\n');

  await startBackend(backendPort);
  await eventually('available again', () => available(`v1alpha1.${GROUP}`), (c) => c?.status === 'True');
  assert.equal((await call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders`)).status, 200);
});

test('Services and Endpoints missing: the reasons of 1.9', async () => {
  const make = (name: string, svc: string) => call('POST', '/apis/apiregistration.k8s.io/v1beta1/apiservices', {
    metadata: { name: `v1.${name}.example.com` },
    spec: { group: `${name}.example.com`, version: 'v1', service: { namespace: 'agg', name: svc }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 },
  });
  assert.equal((await make('nosvc', 'absent')).status, 201);
  const c1 = await eventually('ServiceNotFound', () => available('v1.nosvc.example.com'), (c) => c?.reason === 'ServiceNotFound');
  assert.equal(c1.message, 'service/absent in "agg" is not present');
  assert.equal((await call('POST', '/api/v1/namespaces/agg/services', { metadata: { name: 'noeps' }, spec: { ports: [{ port: 443 }] } })).status, 201);
  assert.equal((await make('noeps', 'noeps')).status, 201);
  const c2 = await eventually('EndpointsNotFound', () => available('v1.noeps.example.com'), (c) => c?.reason === 'EndpointsNotFound');
  assert.equal(c2.message, 'cannot find endpoints for service/noeps in "agg"');
  // Endpoints appear: checked again at once.
  assert.equal((await call('POST', '/api/v1/namespaces/agg/endpoints', { metadata: { name: 'noeps' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: backendPort }] }] })).status, 201);
  await eventually('Passed', () => available('v1.noeps.example.com'), (c) => c?.reason === 'Passed');
  // insecureSkipTLSVerify: the backend's certificate is not checked by the proxy either.
  assert.equal((await call('GET', '/apis/noeps.example.com/v1/things')).status, 200);
});

test("the proxy checks the backend's certificate against the caBundle", async () => {
  const put = await call('GET', `/apis/apiregistration.k8s.io/v1beta1/apiservices/v1alpha1.${GROUP}`);
  const replaced = await call('PUT', `/apis/apiregistration.k8s.io/v1beta1/apiservices/v1alpha1.${GROUP}`, { ...put.body, spec: { ...put.body.spec, caBundle: otherCaBundle } });
  assert.equal(replaced.status, 200, replaced.text);
  // Still available (1.9's check skips verification), but no request gets through to a server it cannot verify.
  const refused = await eventually('refused', () => call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders`), (r) => r.status === 503);
  assert.match(refused.text, /certificate/);
});

test('a deleted APIService leaves discovery; its paths are 404', async () => {
  assert.equal((await call('DELETE', `/apis/apiregistration.k8s.io/v1beta1/apiservices/v1alpha1.${GROUP}`)).status, 200);
  await eventually('gone from /apis', () => call('GET', '/apis'), (r) => !r.body.groups.some((g: Json) => g.name === GROUP));
  assert.equal((await call('GET', `/apis/${GROUP}/v1alpha1/namespaces/agg/flunders`)).status, 404);
  assert.equal((await call('GET', `/apis/${GROUP}`)).status, 404);
});

test("a custom resource's group version gets its APIService (automanaged true) while it is served", async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.agg.example.com' },
    spec: { group: 'agg.example.com', version: 'v1', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' } },
  };
  assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', crd)).status, 201);
  const svc = await eventually('registered', () => call('GET', '/apis/apiregistration.k8s.io/v1beta1/apiservices/v1.agg.example.com'), (r) => r.status === 200);
  assert.equal(svc.body.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'true');
  assert.deepEqual([svc.body.spec.service, svc.body.spec.groupPriorityMinimum, svc.body.spec.versionPriority], [null, 1000, 100]);
  assert.equal((await call('DELETE', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/gizmos.agg.example.com')).status, 200);
  await eventually('unregistered', () => call('GET', '/apis/apiregistration.k8s.io/v1beta1/apiservices/v1.agg.example.com'), (r) => r.status === 404);
});
