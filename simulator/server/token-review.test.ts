// TokenReview (authentication.k8s.io v1 and v1beta1) answered by the server's authenticators: a static token, a
// bootstrap token (with --enable-bootstrap-token-auth) and a service-account token; an unknown one is not
// authenticated; an empty one is 400.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { CLAIM_NAMESPACE, CLAIM_SA_NAME, CLAIM_SA_UID, CLAIM_SECRET_NAME, SA_ISSUER } from './authentication/service-account.ts';

let sim: RunningSimulator;
let dir: string;
const ADMIN = 'admin-token-1';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'token-review-'));
  writeFileSync(join(dir, 'tokens.csv'), `${ADMIN},alice,uid-alice,"system:masters,devs"\n`);
  sim = await startSimulator({ securityFlags: { tokenAuthFile: join(dir, 'tokens.csv'), enableBootstrapTokenAuth: true, serviceAccountLookup: false } });
});
after(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const r = await fetch(sim.url + path, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

const review = (version: string, token: string) =>
  call('POST', `/apis/authentication.k8s.io/${version}/tokenreviews`, { apiVersion: `authentication.k8s.io/${version}`, kind: 'TokenReview', spec: { token } });

test('a static token, at v1 and v1beta1', async () => {
  for (const v of ['v1', 'v1beta1']) {
    const r = await review(v, ADMIN);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.apiVersion, `authentication.k8s.io/${v}`);
    assert.equal(r.body.status.authenticated, true);
    assert.deepEqual(r.body.status.user, { username: 'alice', uid: 'uid-alice', groups: ['system:masters', 'devs', 'system:authenticated'] });
    assert.equal(r.body.spec.token, ADMIN);
  }
});

test('a bootstrap token from its kube-system Secret; expired or not for authentication: refused', async () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = (id: string, data: Record<string, string>) => ({
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': '0123456789abcdef', ...data }).map(([k, v]) => [k, b64(v)])),
  });
  for (const s of [
    secret('abcdef', { 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' }),
    secret('expird', { 'usage-bootstrap-authentication': 'true', expiration: '2001-01-01T00:00:00Z' }),
    secret('nouse0', { 'usage-bootstrap-signing': 'true' }),
  ]) assert.equal((await call('POST', '/api/v1/namespaces/kube-system/secrets', s)).status, 201);
  const ok = await review('v1', 'abcdef.0123456789abcdef');
  assert.equal(ok.body.status.authenticated, true, JSON.stringify(ok.body));
  assert.deepEqual(ok.body.status.user, { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'] });
  for (const t of ['expird.0123456789abcdef', 'nouse0.0123456789abcdef', 'abcdef.0123456789abcdeX']) {
    const r = await review('v1', t);
    assert.equal(r.body.status.authenticated, undefined, t);
    assert.match(r.body.status.error, /invalid bearer token/, t);
  }
});

test('a service-account token signed with the cluster key', async () => {
  const key = createPrivateKey(sim.serving!.serviceAccountSigningKey!);
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const ec = key.asymmetricKeyType === 'ec';
  const head = enc({ alg: ec ? 'ES256' : 'RS256', typ: 'JWT' });
  const claims = enc({ iss: SA_ISSUER, [CLAIM_NAMESPACE]: 'default', [CLAIM_SECRET_NAME]: 'robot-token-x', [CLAIM_SA_NAME]: 'robot', [CLAIM_SA_UID]: 'uid-robot', sub: 'system:serviceaccount:default:robot' });
  const token = `${head}.${claims}.${sign('sha256', Buffer.from(`${head}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  const r = await review('v1beta1', token);
  assert.equal(r.body.status.authenticated, true, JSON.stringify(r.body));
  assert.equal(r.body.status.user.username, 'system:serviceaccount:default:robot');
  assert.deepEqual(r.body.status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
});

test('an empty token is a bad request; the review is not stored', async () => {
  const r = await review('v1', '');
  assert.equal(r.status, 400);
  assert.equal(r.body.message, 'token is required for TokenReview in authentication');
  assert.equal((await call('GET', '/apis/authentication.k8s.io/v1/tokenreviews')).status, 405);
});
