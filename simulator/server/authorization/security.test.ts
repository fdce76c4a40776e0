// The secure simulator end to end (issue "Done when"): `--secure --authorization-mode RBAC` with a
// --token-auth-file; kubectl as the admin of the written client config; a token bound to `view` in one
// namespace lists there and gets the real 403 elsewhere; 401 for bad credentials; anonymous; subresources
// authorized separately; impersonation; service-account tokens revoked with their Secret or account.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, sign } from 'node:crypto';
import { Agent, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { buildSecureServing, type SecureServing } from '../secure-serving.ts';
import { renderKubeconfig } from '../../client/kubeconfig.ts';
import { createCertificateAuthority } from '../tls/certs.ts';

const hasKubectl = !spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).error;

const VIEWER_TOKEN = `viewer-${Math.random().toString(36).slice(2)}`;
const NOBODY_TOKEN = `nobody-${Math.random().toString(36).slice(2)}`;

interface Res {
  status: number;
  body: Record<string, unknown>;
}

describe('secure simulator with RBAC', () => {
  let dir: string;
  let sim: RunningSimulator;
  let serving: SecureServing;
  let adminAgent: Agent;
  let plainAgent: Agent;
  let adminKubeconfig: string;
  let viewerKubeconfig: string;

  const call = async (agent: Agent, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Res> => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(sim.url + path, {
      method: method as 'GET',
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      dispatcher: agent,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : {} };
  };
  const admin = (method: string, path: string, body?: unknown) => call(adminAgent, method, path, { body });

  const kubectl = (config: string, ...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('kubectl', ['--kubeconfig', config, ...args], { env: { ...process.env, HOME: dir }, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'security-test-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, `${VIEWER_TOKEN},viewer,uid-viewer\n${NOBODY_TOKEN},nobody,uid-nobody,"team-a,team-b"\n`);
    serving = await buildSecureServing({ secure: true, authorizationMode: 'RBAC', tokenAuthFile: tokenFile, host: '127.0.0.1' });
    sim = await startSimulator({ port: 0, serving });
    const a = serving.admin as { cert: string; key: string };
    adminAgent = new Agent({ connect: { ca: serving.ca, cert: a.cert, key: a.key } });
    plainAgent = new Agent({ connect: { ca: serving.ca } });
    adminKubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(adminKubeconfig, renderKubeconfig({ server: sim.url, ca: serving.ca, cert: a.cert, key: a.key }));
    viewerKubeconfig = join(dir, 'viewer.kubeconfig');
    writeFileSync(viewerKubeconfig, renderKubeconfig({ server: sim.url, ca: serving.ca, token: VIEWER_TOKEN }));
    for (const ns of ['sec-a', 'sec-b'])
      assert.equal((await admin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    const rb = await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/sec-a/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'viewer-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    });
    assert.equal(rb.status, 201, JSON.stringify(rb.body));
  });

  after(async () => {
    await sim?.close();
    await adminAgent?.close();
    await plainAgent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the server speaks TLS with the generated CA and the default roles exist', async () => {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const roles = await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles');
    const names = (roles.body.items as { metadata: { name: string } }[]).map((r) => r.metadata.name);
    for (const n of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:discovery',
      'system:basic-user',
      'system:node',
      'system:controller:deployment-controller',
      'system:controller:namespace-controller',
    ])
      assert.ok(names.includes(n), n);
    const crbs = await admin('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/cluster-admin');
    assert.deepEqual((crbs.body as { subjects: unknown }).subjects, [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }]);
  });

  test('a token bound to view in one namespace lists there and is forbidden elsewhere (5.1)', async () => {
    const inA = await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/configmaps', { token: VIEWER_TOKEN });
    assert.equal(inA.status, 200);
    const inB = await call(plainAgent, 'GET', '/api/v1/namespaces/sec-b/configmaps', { token: VIEWER_TOKEN });
    assert.equal(inB.status, 403);
    assert.deepEqual(inB.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps is forbidden: User "viewer" cannot list configmaps in the namespace "sec-b"',
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    const write = await call(plainAgent, 'POST', '/api/v1/namespaces/sec-a/configmaps', {
      token: VIEWER_TOKEN,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },
    });
    assert.equal(write.status, 403);
    assert.equal(write.body.message, 'configmaps is forbidden: User "viewer" cannot create configmaps in the namespace "sec-a"');
    const clusterScope = await call(plainAgent, 'GET', '/api/v1/configmaps', { token: VIEWER_TOKEN });
    assert.equal(clusterScope.body.message, 'configmaps is forbidden: User "viewer" cannot list configmaps at the cluster scope');
    // reading its own namespace through the namespaces resource is part of view
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a', { token: VIEWER_TOKEN })).status, 200);
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces/sec-b', { token: VIEWER_TOKEN })).status, 403);
  });

  test('a user without grants gets 403; bad credentials 401; no credentials are system:anonymous', async () => {
    const nobody = await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/pods', { token: NOBODY_TOKEN });
    assert.equal(nobody.status, 403);
    assert.equal(nobody.body.message, 'pods is forbidden: User "nobody" cannot list pods in the namespace "sec-a"');
    const bad = await call(plainAgent, 'GET', '/api/v1/namespaces', { token: 'not-a-token' });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
    const anon = await call(plainAgent, 'GET', '/api/v1/namespaces');
    assert.equal(anon.status, 403);
    assert.equal(anon.body.message, 'namespaces is forbidden: User "system:anonymous" cannot list namespaces at the cluster scope');
    // system:discovery is bound to everyone
    assert.equal((await call(plainAgent, 'GET', '/version')).status, 200);
    assert.equal((await call(plainAgent, 'GET', '/api')).status, 200);
    const path = await call(plainAgent, 'GET', '/metrics', { token: NOBODY_TOKEN });
    assert.equal(path.status, 403);
    assert.equal(path.body.message, 'forbidden: User "nobody" cannot get path "/metrics"');
  });

  test('a client certificate of another CA is refused with 401', async () => {
    const other = await createCertificateAuthority('other-ca');
    const c = await other.sign({ commonName: 'intruder', organizations: ['system:masters'], client: true });
    const agent = new Agent({ connect: { ca: serving.ca, cert: c.cert, key: c.key } });
    try {
      assert.equal((await call(agent, 'GET', '/api/v1/namespaces')).status, 401);
    } finally {
      await agent.close();
    }
  });

  test('a grant of a resource does not give its subresources (5.2)', async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    assert.equal((await admin('POST', '/apis/apps/v1/namespaces/sec-a/deployments', dep)).status, 201);
    assert.equal((await call(plainAgent, 'GET', '/apis/apps/v1/namespaces/sec-a/deployments/web', { token: VIEWER_TOKEN })).status, 200);
    assert.equal((await call(plainAgent, 'GET', '/apis/apps/v1/namespaces/sec-a/deployments/web/scale', { token: VIEWER_TOKEN })).status, 200);
    const status = await call(plainAgent, 'GET', '/apis/apps/v1/namespaces/sec-a/deployments/web/status', { token: VIEWER_TOKEN });
    assert.equal(status.status, 403);
    assert.equal(status.body.message, 'deployments.apps "web" is forbidden: User "viewer" cannot get deployments.apps/status in the namespace "sec-a"');
    assert.deepEqual(status.body.details, { name: 'web', group: 'apps', kind: 'deployments' });
    const scale = await call(plainAgent, 'PUT', '/apis/apps/v1/namespaces/sec-a/deployments/web/scale', {
      token: VIEWER_TOKEN,
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'sec-a' }, spec: { replicas: 3 } },
    });
    assert.equal(scale.status, 403);
    // a Role naming only the subresource grants it without the object
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/sec-a/roles', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'status-reader' },
      rules: [{ apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get'] }],
    });
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/sec-a/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'nobody-status' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'status-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'nobody' }],
    });
    assert.equal((await call(plainAgent, 'GET', '/apis/apps/v1/namespaces/sec-a/deployments/web/status', { token: NOBODY_TOKEN })).status, 200);
    assert.equal((await call(plainAgent, 'GET', '/apis/apps/v1/namespaces/sec-a/deployments/web', { token: NOBODY_TOKEN })).status, 403);
  });

  test('impersonation needs the impersonate verb; an impersonated request is authorized as that user', async () => {
    const asViewer = await call(adminAgent, 'GET', '/api/v1/namespaces/sec-b/configmaps', { headers: { 'Impersonate-User': 'viewer' } });
    assert.equal(asViewer.status, 403);
    assert.equal(asViewer.body.message, 'configmaps is forbidden: User "viewer" cannot list configmaps in the namespace "sec-b"');
    assert.equal((await call(adminAgent, 'GET', '/api/v1/namespaces/sec-a/configmaps', { headers: { 'Impersonate-User': 'viewer' } })).status, 200);
    const escalate = await call(plainAgent, 'GET', '/api/v1/namespaces', {
      token: VIEWER_TOKEN,
      headers: { 'Impersonate-User': 'kubernetes-admin', 'Impersonate-Group': 'system:masters' },
    });
    assert.equal(escalate.status, 403);
    assert.equal(escalate.body.message, 'users "kubernetes-admin" is forbidden: User "viewer" cannot impersonate users at the cluster scope');
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces', { headers: { 'Impersonate-Group': 'system:masters' } })).status, 400);
  });

  test('service-account tokens: accepted while the account and its Secret exist, 401 after', async () => {
    const key = createPrivateKey(serving.serviceAccountSigningKey!);
    const sa = await admin('POST', '/api/v1/namespaces/sec-a/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    assert.equal(sa.status, 201);
    const uid = (sa.body.metadata as { uid: string }).uid;
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const claims = {
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'sec-a',
      'kubernetes.io/serviceaccount/secret.name': 'robot-token-test',
      'kubernetes.io/serviceaccount/service-account.name': 'robot',
      'kubernetes.io/serviceaccount/service-account.uid': uid,
      sub: 'system:serviceaccount:sec-a:robot',
    };
    const unsigned = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64(claims)}`;
    const token = `${unsigned}.${sign('sha256', Buffer.from(unsigned), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: { name: 'robot-token-test', annotations: { 'kubernetes.io/service-account.name': 'robot', 'kubernetes.io/service-account.uid': uid } },
      data: { token: Buffer.from(token).toString('base64') },
    };
    assert.equal((await admin('POST', '/api/v1/namespaces/sec-a/secrets', secret)).status, 201);
    // no grant yet: authenticated (403, not 401) as the service account
    const before = await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/pods', { token });
    assert.equal(before.status, 403);
    assert.equal(before.body.message, 'pods is forbidden: User "system:serviceaccount:sec-a:robot" cannot list pods in the namespace "sec-a"');
    // the real groups: a binding to system:serviceaccounts:sec-a reaches it
    await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/sec-a/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'sa-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:serviceaccounts:sec-a' }],
    });
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/pods', { token })).status, 200);
    // a tampered token is not ours: 401
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/pods', { token: token.slice(0, -4) + 'AAAA' })).status, 401);
    assert.equal((await admin('DELETE', '/api/v1/namespaces/sec-a/secrets/robot-token-test')).status, 200);
    assert.equal((await call(plainAgent, 'GET', '/api/v1/namespaces/sec-a/pods', { token })).status, 401);
  });

  test('kubectl: the admin client config works; the view token lists in its namespace only; --as impersonates', { skip: !hasKubectl && 'kubectl is not on PATH' }, async () => {
    const ns = await kubectl(adminKubeconfig, 'get', 'namespaces', '-o', 'name');
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stdout, /namespace\/sec-a/);
    const ok = await kubectl(viewerKubeconfig, 'get', 'configmaps', '-n', 'sec-a');
    assert.equal(ok.code, 0, ok.stderr);
    const denied = await kubectl(viewerKubeconfig, 'get', 'configmaps', '-n', 'sec-b');
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Forbidden.*User "viewer" cannot list (resource "configmaps"|configmaps)/);
    const as = await kubectl(adminKubeconfig, 'get', 'configmaps', '-n', 'sec-b', '--as', 'viewer');
    assert.notEqual(as.code, 0);
    assert.match(as.stderr, /User "viewer" cannot list/);
  });
});
