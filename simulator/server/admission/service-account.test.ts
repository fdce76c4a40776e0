// The ServiceAccount admission plugin through a running server: the default account, the token mount, pull
// secrets, automount settings, refusals (missing account, mirror pods, enforce-mountable-secrets, no token yet), and
// which chains have it by default.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from '../start.ts';
import { TOKEN_MOUNT_PATH } from './service-account.ts';

type Json = Record<string, any>;
let server: RunningApiServer;

async function call(method: string, path: string, body?: unknown, base = server.url): Promise<{ status: number; body: Json }> {
  const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}

const NS = '/api/v1/namespaces/sa';
const pod = (name: string, spec: Json = {}, metadata: Json = {}) => ({ metadata: { name, ...metadata }, spec: { containers: [{ name: 'app', image: 'nginx:1.13' }], ...spec } });

/** An account with a token Secret referencing it, as the token controller makes them. */
async function account(name: string, extra: Json = {}, withToken = true): Promise<void> {
  const sa = await call('POST', `${NS}/serviceaccounts`, { ...extra, metadata: { name, ...(extra.metadata ?? {}) } });
  assert.equal(sa.status, 201, JSON.stringify(sa.body));
  if (!withToken) return;
  const secret = await call('POST', `${NS}/secrets`, {
    metadata: { name: `${name}-token-abcde`, annotations: { 'kubernetes.io/service-account.name': name, 'kubernetes.io/service-account.uid': sa.body.metadata.uid } },
    type: 'kubernetes.io/service-account-token',
    data: { token: Buffer.from('t').toString('base64') },
  });
  assert.equal(secret.status, 201, JSON.stringify(secret.body));
  const got = (await call('GET', `${NS}/serviceaccounts/${name}`)).body;
  const put = await call('PUT', `${NS}/serviceaccounts/${name}`, { ...got, secrets: [{ name: 'not-a-token' }, { name: `${name}-token-abcde` }] });
  assert.equal(put.status, 200, JSON.stringify(put.body));
}

before(async () => {
  server = await startApiServer({ admissionControl: 'NamespaceLifecycle,ServiceAccount' });
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'sa' } })).status, 201);
  await account('default', { imagePullSecrets: [{ name: 'registry' }] });
  await account('quiet', { automountServiceAccountToken: false });
  await account('strict', { metadata: { annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } });
  await account('tokenless', {}, false);
});
after(async () => server.close());

describe('ServiceAccount admission', () => {
  test('a pod naming no account runs as default, with its token mounted read-only in every container and its pull secrets', async () => {
    const res = await call('POST', `${NS}/pods`, pod('plain', { initContainers: [{ name: 'init', image: 'busybox' }] }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const spec = res.body.spec;
    assert.equal(spec.serviceAccountName, 'default');
    assert.equal(spec.serviceAccount, 'default');
    assert.deepEqual(spec.volumes, [{ name: 'default-token-abcde', secret: { secretName: 'default-token-abcde', defaultMode: 420 } }]);
    for (const c of [...spec.containers, ...spec.initContainers]) assert.deepEqual(c.volumeMounts, [{ name: 'default-token-abcde', readOnly: true, mountPath: TOKEN_MOUNT_PATH }]);
    assert.deepEqual(spec.imagePullSecrets, [{ name: 'registry' }]);
  });

  test("a container with its own mount at the token path keeps it; a pod's own pull secrets stay", async () => {
    const res = await call('POST', `${NS}/pods`, pod('own', {
      volumes: [{ name: 'mine', emptyDir: {} }],
      containers: [{ name: 'a', image: 'x', volumeMounts: [{ name: 'mine', mountPath: TOKEN_MOUNT_PATH }] }, { name: 'b', image: 'x' }],
      imagePullSecrets: [{ name: 'other' }],
    }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.spec.containers[0].volumeMounts, [{ name: 'mine', mountPath: TOKEN_MOUNT_PATH }]);
    assert.equal(res.body.spec.containers[1].volumeMounts[0].mountPath, TOKEN_MOUNT_PATH);
    assert.deepEqual(res.body.spec.imagePullSecrets, [{ name: 'other' }]);
  });

  test("automountServiceAccountToken: the account's false mounts nothing; the pod's true wins over it", async () => {
    const off = await call('POST', `${NS}/pods`, pod('off', { serviceAccountName: 'quiet' }));
    assert.equal(off.status, 201, JSON.stringify(off.body));
    assert.equal(off.body.spec.volumes, undefined);
    assert.equal(off.body.spec.containers[0].volumeMounts, undefined);
    const on = await call('POST', `${NS}/pods`, pod('on', { serviceAccountName: 'quiet', automountServiceAccountToken: true }));
    assert.equal(on.body.spec.volumes?.[0]?.secret?.secretName, 'quiet-token-abcde');
    const podOff = await call('POST', `${NS}/pods`, pod('pod-off', { automountServiceAccountToken: false }));
    assert.equal(podOff.body.spec.volumes, undefined);
  });

  test('a missing account is refused with 403 and 1.9 words', async () => {
    const res = await call('POST', `${NS}/pods`, pod('ghost', { serviceAccountName: 'ghost' }));
    assert.equal(res.status, 403);
    assert.equal(res.body.reason, 'Forbidden');
    assert.match(res.body.message, /service account sa\/ghost was not found, retry after the service account is created/);
  });

  test('an account without a token yet answers ServerTimeout, with a retry hint', async () => {
    const res = await call('POST', `${NS}/pods`, pod('early', { serviceAccountName: 'tokenless' }));
    assert.equal(res.status, 500);
    assert.equal(res.body.reason, 'ServerTimeout');
    assert.equal(res.body.details.retryAfterSeconds, 1);
    assert.match(res.body.message, /No API token found for service account "tokenless"/);
  });

  test('mirror pods may reference neither accounts nor secrets, and get nothing added', async () => {
    const mirror = { 'kubernetes.io/config.mirror': 'abc' };
    assert.equal((await call('POST', `${NS}/pods`, pod('m1', { serviceAccountName: 'default' }, { annotations: mirror }))).status, 403);
    assert.equal((await call('POST', `${NS}/pods`, pod('m2', { volumes: [{ name: 's', secret: { secretName: 'x' } }] }, { annotations: mirror }))).status, 403);
    const ok = await call('POST', `${NS}/pods`, pod('m3', {}, { annotations: mirror }));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.spec.serviceAccountName, undefined);
  });

  test('enforce-mountable-secrets: a pod of that account may reference only secrets it lists', async () => {
    const bad = await call('POST', `${NS}/pods`, pod('leak', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'elsewhere' } }] }));
    assert.equal(bad.status, 403);
    assert.match(bad.body.message, /volume with secret.secretName="elsewhere" is not allowed because service account strict does not reference that secret/);
    const good = await call('POST', `${NS}/pods`, pod('fine', { serviceAccountName: 'strict', volumes: [{ name: 's', secret: { secretName: 'strict-token-abcde' } }] }));
    assert.equal(good.status, 201, JSON.stringify(good.body));
    // The token's own volume is reused, not mounted twice.
    assert.equal(good.body.spec.volumes.length, 1);
    assert.equal(good.body.spec.containers[0].volumeMounts[0].name, 's');
  });

  test('updates are not admitted again: a label change leaves the spec alone', async () => {
    const patched = await fetch(`${server.url}${NS}/pods/plain`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { a: 'b' } } }) });
    assert.equal(patched.status, 200);
  });

  test('an API server alone leaves it out by default (only the daemon makes accounts); with a daemon behind it is in', async () => {
    const alone = await startApiServer();
    const behind = await startApiServer({ daemonBehind: true });
    try {
      for (const s of [alone, behind]) assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: 'x' } }, s.url)).status, 201);
      const a = await call('POST', '/api/v1/namespaces/x/pods', pod('p'), alone.url);
      assert.equal(a.status, 201, JSON.stringify(a.body));
      assert.equal(a.body.spec.serviceAccountName, undefined);
      const b = await call('POST', '/api/v1/namespaces/x/pods', pod('p'), behind.url);
      assert.equal(b.status, 403, JSON.stringify(b.body));
    } finally {
      await Promise.all([alone.close(), behind.close()]);
    }
  });
});
