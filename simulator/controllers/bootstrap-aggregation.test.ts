// tokencleaner, bootstrapsigner and clusterrole-aggregation through the API.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, type TestCluster } from '../testing/test-simulator.ts';

let c: TestCluster;
before(async () => {
  c = await startTestCluster(['tokencleaner', 'bootstrapsigner', 'clusterrole-aggregation']);
});
after(async () => {
  await c?.close();
});

const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';
const CR = '/apis/rbac.authorization.k8s.io/v1/clusterroles';
type CM = KubeObject & { data?: Record<string, string> };

const token = (id: string, extra: Record<string, string> = {}, type = 'bootstrap.kubernetes.io/token') => ({
  metadata: { name: `bootstrap-token-${id}` },
  type,
  stringData: { 'token-id': id, 'token-secret': `${id}0123456789`.slice(0, 16).padEnd(16, 'x'), ...extra },
});
const exists = async (path: string) => (await c.req('GET', path)).status === 200;
const gone = async (path: string) => (await c.req('GET', path)).status === 404;

describe('tokencleaner', () => {
  test('expired and unparseable expirations are deleted; future ones when they pass; others stay', async () => {
    const past = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const soonAt = Date.now() + 8_000;
    const soon = new Date(soonAt).toISOString().replace(/\.\d+Z$/, 'Z');
    for (const [id, body] of [
      ['expire', token('expire', { expiration: past })],
      ['garbag', token('garbag', { expiration: 'tomorrow' })],
      ['soonxx', token('soonxx', { expiration: soon })],
      ['foreve', token('foreve')],
      ['opaque', token('opaque', { expiration: past }, 'Opaque')],
    ] as const) {
      assert.equal((await c.req('POST', SECRETS, body)).status, 201, id);
    }
    await eventually('expired token deleted', () => gone(`${SECRETS}/bootstrap-token-expire`));
    await eventually('unparseable expiration deleted', () => gone(`${SECRETS}/bootstrap-token-garbag`));
    // Only meaningful while the expiry is still ahead (a loaded machine may take longer than that to get here).
    const stillAhead = Date.now() < soonAt - 1000;
    if (stillAhead) assert.ok(await exists(`${SECRETS}/bootstrap-token-soonxx`), 'not yet expired');
    await eventually('token deleted once it expires', () => gone(`${SECRETS}/bootstrap-token-soonxx`), 60_000);
    assert.ok(await exists(`${SECRETS}/bootstrap-token-foreve`), 'no expiration: kept');
    assert.ok(await exists(`${SECRETS}/bootstrap-token-opaque`), 'not a bootstrap token: kept');
  });
});

/** Checks a detached JWS against the payload and token secret; returns its header. */
function checkDetachedJws(jws: string, payload: string, secret: string): { alg: string; kid: string } {
  const [h, p, s] = jws.split('.');
  assert.equal(p, '', 'payload detached');
  const mac = createHmac('sha256', secret).update(`${h}.${Buffer.from(payload).toString('base64url')}`).digest('base64url');
  assert.equal(s, mac, 'HS256 signature over the kubeconfig');
  return JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string; kid: string };
}

describe('bootstrapsigner', () => {
  test('cluster-info gets one detached JWS per signing token, kept in step with tokens and content', async () => {
    const kubeconfig = 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: https://10.0.0.1:6443\n  name: ""\n';
    assert.equal((await c.req('POST', '/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'cluster-info' }, data: { kubeconfig } })).status, 201);
    const signer = token('signer', { 'usage-bootstrap-signing': 'true' });
    assert.equal((await c.req('POST', SECRETS, signer)).status, 201);
    assert.equal((await c.req('POST', SECRETS, token('nosign', { 'usage-bootstrap-signing': 'false' }))).status, 201);
    const wrongName = { ...token('wrongn', { 'usage-bootstrap-signing': 'true' }), metadata: { name: 'bootstrap-token-other1' } };
    assert.equal((await c.req('POST', SECRETS, wrongName)).status, 201);
    const cm = await eventually('the signature', async () => {
      const r = await c.req<CM>('GET', CLUSTER_INFO);
      return r.body.data?.['jws-kubeconfig-signer'] ? r.body : undefined;
    });
    assert.deepEqual(Object.keys(cm.data!).sort(), ['jws-kubeconfig-signer', 'kubeconfig']);
    assert.deepEqual(checkDetachedJws(cm.data!['jws-kubeconfig-signer'], kubeconfig, signer.stringData['token-secret']), { alg: 'HS256', kid: 'signer' });
    // New content: new signature.
    const changed = `${kubeconfig}# changed\n`;
    assert.equal((await c.req('PATCH', CLUSTER_INFO, { data: { kubeconfig: changed } }, 'application/merge-patch+json')).status, 200);
    await eventually('re-signed content', async () => {
      const d = (await c.req<CM>('GET', CLUSTER_INFO)).body.data!;
      try {
        checkDetachedJws(d['jws-kubeconfig-signer'], changed, signer.stringData['token-secret']);
        return true;
      } catch {
        return false;
      }
    });
    // Token deleted: signature removed.
    assert.equal((await c.req('DELETE', `${SECRETS}/bootstrap-token-signer`)).status, 200);
    await eventually('signature removed', async () => !(await c.req<CM>('GET', CLUSTER_INFO)).body.data?.['jws-kubeconfig-signer']);
  });
});

describe('clusterrole-aggregation', () => {
  const rule = (r: string) => ({ verbs: ['get'], apiGroups: [''], resources: [r] });
  const rulesOf = async (name: string) => ((await c.req<KubeObject & { rules?: unknown[] }>('GET', `${CR}/${name}`)).body.rules ?? []) as unknown[];

  test('an aggregating role gets the distinct rules of the roles its selectors match, in name order, and follows changes', async () => {
    const agg = { metadata: { name: 'agg-target' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] }, rules: [rule('stale')] };
    assert.equal((await c.req('POST', CR, agg)).status, 201);
    assert.equal((await c.req('POST', CR, { metadata: { name: 'src-b', labels: { 'example.com/agg': 'true' } }, rules: [rule('pods'), rule('services')] })).status, 201);
    assert.equal((await c.req('POST', CR, { metadata: { name: 'src-a', labels: { 'example.com/agg': 'true' } }, rules: [rule('secrets'), rule('pods')] })).status, 201);
    assert.equal((await c.req('POST', CR, { metadata: { name: 'src-other' }, rules: [rule('nodes')] })).status, 201);
    const expect = [rule('secrets'), rule('pods'), rule('services')];
    await eventually('aggregated rules', async () => JSON.stringify(await rulesOf('agg-target')) === JSON.stringify(expect));
    // A label removed: its rules leave; a role edited: the aggregate follows.
    assert.equal((await c.req('PATCH', `${CR}/src-a`, { metadata: { labels: null } }, 'application/merge-patch+json')).status, 200);
    await eventually('src-a removed', async () => JSON.stringify(await rulesOf('agg-target')) === JSON.stringify([rule('pods'), rule('services')]));
    assert.equal((await c.req('PATCH', `${CR}/src-other`, { metadata: { labels: { 'example.com/agg': 'true' } } }, 'application/merge-patch+json')).status, 200);
    await eventually('src-other added', async () => JSON.stringify(await rulesOf('agg-target')) === JSON.stringify([rule('pods'), rule('services'), rule('nodes')]));
    // A hand edit of the aggregate's rules is stomped.
    assert.equal((await c.req('PATCH', `${CR}/agg-target`, { rules: [rule('everything')] }, 'application/merge-patch+json')).status, 200);
    await eventually('rules restored', async () => JSON.stringify(await rulesOf('agg-target')) === JSON.stringify([rule('pods'), rule('services'), rule('nodes')]));
  });
});
