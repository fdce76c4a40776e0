// Admission webhooks against an HTTPS webhook server this test runs: a mutating webhook (by url) patches, a
// validating webhook (by Service and Endpoints) refuses, only in namespaces its namespaceSelector picks, after the
// mutation; a webhook that is down refuses under failurePolicy Fail and is skipped under Ignore.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startApiServer, type RunningApiServer } from '../start.ts';
import { createCertificateAuthority } from '../tls/certs.ts';

type Json = Record<string, any>;
let server: RunningApiServer;
let hooks: Server;
let caBundle: string;
let port: number;
const reviews: Json[] = [];

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(server.url + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}

/** Retries until the configuration is seen (the server follows the configurations through a watch). */
async function eventually<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 5000;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  const ca = await createCertificateAuthority('webhook-ca');
  const serving = await ca.sign({ commonName: 'hook.default.svc', serving: { dnsNames: ['hook.default.svc', 'localhost'], ips: ['127.0.0.1'] } });
  caBundle = Buffer.from(ca.cert).toString('base64');
  hooks = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const review = JSON.parse(text) as Json;
      reviews.push({ path: req.url, review });
      const obj = review.request.object;
      let response: Json = { uid: review.request.uid, allowed: true };
      if (req.url === '/mutate') {
        const patch = [{ op: 'add', path: '/metadata/labels', value: { ...(obj.metadata.labels ?? {}), patched: 'yes' } }];
        response = { ...response, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
      }
      if (req.url === '/validate' && obj?.data?.forbidden !== undefined) {
        response = { uid: review.request.uid, allowed: false, status: { code: 403, reason: 'Forbidden', message: `key "forbidden" is not allowed (labels: ${JSON.stringify(obj.metadata.labels)})` } };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1beta1', response }));
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  port = (hooks.address() as AddressInfo).port;
  server = await startApiServer();
  for (const [name, labels] of [['hooked', { webhook: 'on' }], ['plain', {}]] as const) assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name, labels } })).status, 201);
  // The validating webhook is reached through a Service and its Endpoints.
  assert.equal((await call('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } })).status, 201);
  assert.equal((await call('POST', '/api/v1/namespaces/default/endpoints', { metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }] })).status, 201);
  const rule = { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };
  const m = await call('POST', '/apis/admissionregistration.k8s.io/v1beta1/mutatingwebhookconfigurations', {
    metadata: { name: 'label-adder' },
    webhooks: [{ name: 'mutate.hooks.example.com', clientConfig: { url: `https://127.0.0.1:${port}/mutate`, caBundle }, rules: [rule], failurePolicy: 'Fail' }],
  });
  assert.equal(m.status, 201, JSON.stringify(m.body));
  const v = await call('POST', '/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations', {
    metadata: { name: 'key-checker' },
    webhooks: [{
      name: 'validate.hooks.example.com', clientConfig: { service: { namespace: 'default', name: 'hook', path: '/validate' }, caBundle }, rules: [rule],
      namespaceSelector: { matchLabels: { webhook: 'on' } },
    }],
  });
  assert.equal(v.status, 201, JSON.stringify(v.body));
  assert.equal(v.body.webhooks[0].failurePolicy, 'Ignore', "1.9's default failurePolicy");
});
after(async () => {
  await server.close();
  await new Promise((r) => hooks.close(r));
});

test('the mutating webhook patches the object; the review carries the request as AdmissionReview v1beta1', async () => {
  const r = await eventually('patched', () => call('POST', '/api/v1/namespaces/plain/configmaps', { metadata: { name: `cm-${reviews.length}`, labels: { a: 'b' } }, data: { forbidden: 'x' } }), (x) => x.body.metadata?.labels?.patched === 'yes');
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(r.body.metadata.labels, { a: 'b', patched: 'yes' });
  const review = reviews.filter((x) => x.path === '/mutate').at(-1)!.review;
  assert.equal(review.apiVersion, 'admission.k8s.io/v1beta1');
  assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'configmaps' });
  assert.equal(review.request.operation, 'CREATE');
  assert.equal(review.request.namespace, 'plain');
  assert.equal(review.request.userInfo.username, 'system:unsecured');
  assert.equal(review.request.object.kind, 'ConfigMap');
  // "plain" is not selected by the validating webhook: the forbidden key went through.
  assert.equal(reviews.filter((x) => x.path === '/validate').length, 0);
});

test('the validating webhook refuses in the namespaces it selects, and sees the mutated object', async () => {
  const r = await eventually('refused', () => call('POST', '/api/v1/namespaces/hooked/configmaps', { metadata: { name: 'bad' }, data: { forbidden: 'x' } }), (x) => x.status === 403);
  assert.equal(r.status, 403, JSON.stringify(r.body));
  assert.equal(r.body.message, 'admission webhook "validate.hooks.example.com" denied the request: key "forbidden" is not allowed (labels: {"patched":"yes"})');
  assert.equal(r.body.reason, 'Forbidden');
  assert.equal((await call('GET', '/api/v1/namespaces/hooked/configmaps/bad')).status, 404);
  const ok = await call('POST', '/api/v1/namespaces/hooked/configmaps', { metadata: { name: 'good' }, data: { fine: 'x' } });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  // Updates too.
  const upd = await call('PUT', '/api/v1/namespaces/hooked/configmaps/good', { ...ok.body, data: { forbidden: 'y' } });
  assert.equal(upd.status, 403);
  assert.equal(reviews.filter((x) => x.path === '/validate').at(-1)!.review.request.operation, 'UPDATE');
});

test('a webhook that is down: failurePolicy Fail refuses, Ignore admits', async () => {
  const down = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] };
  const cfg = await call('POST', '/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations', {
    metadata: { name: 'down' },
    webhooks: [{ name: 'down.hooks.example.com', clientConfig: { url: 'https://127.0.0.1:1/nothing', caBundle }, rules: [down], failurePolicy: 'Fail' }],
  });
  assert.equal(cfg.status, 201, JSON.stringify(cfg.body));
  const refused = await eventually('refused', () => call('POST', '/api/v1/namespaces/plain/secrets', { metadata: { generateName: 's-' } }), (x) => x.status === 500);
  assert.equal(refused.status, 500, JSON.stringify(refused.body));
  assert.match(refused.body.message, /^Internal error occurred: failed calling admission webhook "down.hooks.example.com": /);
  const ignore = { ...cfg.body, webhooks: [{ ...cfg.body.webhooks[0], failurePolicy: 'Ignore' }] };
  assert.equal((await call('PUT', '/apis/admissionregistration.k8s.io/v1beta1/validatingwebhookconfigurations/down', ignore)).status, 200);
  const admitted = await eventually('admitted', () => call('POST', '/api/v1/namespaces/plain/secrets', { metadata: { generateName: 's-' } }), (x) => x.status === 201);
  assert.equal(admitted.status, 201, JSON.stringify(admitted.body));
});
