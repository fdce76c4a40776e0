// serviceaccount-token through the API: token Secrets for every account (JWT verified with the public half of
// --service-account-private-key-file, the 1.9 claims, ca.crt = the --root-ca-file bytes, namespace), listed in
// the account; replaced when deleted; deleted with their account; user-made token Secrets filled in; workers =
// --concurrent-serviceaccount-token-syncs (seen as concurrent Secret creations at the API); bad files → exit 2;
// and the `npx tsx simulator --daemon-arg=...` command of the issue.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeList, KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, type TestCluster } from '../testing/test-simulator.ts';
import { makePki, noOpenssl, type Pki } from '../testing/pki.ts';
import { startSimulator } from '../cluster.ts';
import { startDaemon, type DaemonHandle } from './daemon/daemon.ts';
import { prepareOptions } from './config/command-line.ts';
import { UsageError } from './config/options.ts';
import { loadSpecTables } from '../../spec-tables/index.ts';
import { serviceAccountToken } from './serviceaccount-token.ts';
import { parsePrivateKeyPem } from './config/credential-files.ts';
import { holdingProxy } from '../testing/holding-proxy.ts';

type Secret = KubeObject & { type?: string; data?: Record<string, string> };
type Account = KubeObject & { secrets?: Array<{ name: string }> };

/** Claims of a JWT whose signature the key verifies (RS256 or ES256), else a failed assertion. */
function verifiedClaims(token: string, key: KeyObject): Record<string, unknown> {
  const [h, p, s] = token.split('.');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string; typ: string };
  const data = Buffer.from(`${h}.${p}`);
  const sig = Buffer.from(s, 'base64url');
  const ok = header.alg === 'RS256' ? verify('sha256', data, key, sig) : verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  assert.ok(ok, `signature of ${header.alg} token does not verify`);
  assert.equal(header.typ, 'JWT');
  return JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
}

const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString('utf8');

describe('serviceaccount-token', { skip: noOpenssl }, () => {
  let pki: Pki;
  let c: TestCluster;
  let keyFile: string;
  let caFile: string;
  let publicKey: KeyObject;
  before(async () => {
    pki = makePki('satoken-');
    keyFile = pki.key('sa.key');
    caFile = pki.ca('root').cert;
    publicKey = createPublicKey(readFileSync(keyFile));
    c = await startTestCluster(['serviceaccount', 'serviceaccount-token'], [`--service-account-private-key-file=${keyFile}`, `--root-ca-file=${caFile}`]);
  });
  after(async () => {
    await c?.close();
    pki?.cleanup();
  });

  const account = async (ns: string, name: string) => (await c.req<Account>('GET', `/api/v1/namespaces/${ns}/serviceaccounts/${name}`)).body;
  /** The token Secret the account lists, once it exists. */
  const tokenSecretOf = (ns: string, name: string, not?: string) =>
    eventually(`a token secret listed by ${ns}/${name}`, async () => {
      const sa = await account(ns, name);
      for (const ref of sa.secrets ?? []) {
        if (ref.name === not) continue;
        const r = await c.req<Secret>('GET', `/api/v1/namespaces/${ns}/secrets/${ref.name}`);
        if (r.status === 200 && r.body.type === 'kubernetes.io/service-account-token' && r.body.data?.token) return { sa, secret: r.body };
      }
      return undefined;
    });

  test('every default account gets a token Secret whose JWT verifies with the public key and carries the 1.9 claims', async () => {
    for (const ns of ['default', 'kube-system', 'kube-public']) {
      const { sa, secret } = await tokenSecretOf(ns, 'default');
      assert.match(secret.metadata.name!, /^default-token-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.name'], 'default');
      assert.equal(secret.metadata.annotations?.['kubernetes.io/service-account.uid'], sa.metadata.uid);
      assert.equal(b64(secret.data?.namespace), ns);
      assert.equal(b64(secret.data?.['ca.crt']), readFileSync(caFile, 'utf8'));
      const claims = verifiedClaims(b64(secret.data?.token), publicKey);
      assert.deepEqual(claims, {
        iss: 'kubernetes/serviceaccount',
        'kubernetes.io/serviceaccount/namespace': ns,
        'kubernetes.io/serviceaccount/secret.name': secret.metadata.name,
        'kubernetes.io/serviceaccount/service-account.name': 'default',
        'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
        sub: `system:serviceaccount:${ns}:default`,
      });
    }
  });

  test('a deleted token Secret is replaced (and unlisted); deleting the account deletes its token Secrets', async () => {
    assert.equal((await c.req('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'robot' } })).status, 201);
    const first = await tokenSecretOf('default', 'robot');
    assert.equal((await c.req('DELETE', `/api/v1/namespaces/default/secrets/${first.secret.metadata.name}`)).status, 200);
    const second = await tokenSecretOf('default', 'robot', first.secret.metadata.name);
    assert.notEqual(second.secret.metadata.name, first.secret.metadata.name);
    await eventually('the old secret unlisted', async () => !(await account('default', 'robot')).secrets?.some((r) => r.name === first.secret.metadata.name));
    assert.equal((await c.req('DELETE', '/api/v1/namespaces/default/serviceaccounts/robot')).status, 200);
    await eventually('the token secret deleted with its account', async () => (await c.req('GET', `/api/v1/namespaces/default/secrets/${second.secret.metadata.name}`)).status === 404);
  });

  test('a token Secret made by hand for an account is filled in; one for a missing account is deleted', async () => {
    await tokenSecretOf('default', 'default');
    const made = await c.req<Secret>('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'handmade', annotations: { 'kubernetes.io/service-account.name': 'default' } },
      type: 'kubernetes.io/service-account-token',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const filled = await eventually('the handmade secret filled', async () => {
      const r = await c.req<Secret>('GET', '/api/v1/namespaces/default/secrets/handmade');
      return r.body.data?.token ? r.body : undefined;
    });
    const claims = verifiedClaims(b64(filled.data?.token), publicKey);
    assert.equal(claims['kubernetes.io/serviceaccount/secret.name'], 'handmade');
    assert.equal(b64(filled.data?.namespace), 'default');
    const orphan = await c.req('POST', '/api/v1/namespaces/default/secrets', {
      metadata: { name: 'orphan-token', annotations: { 'kubernetes.io/service-account.name': 'nobody' } },
      type: 'kubernetes.io/service-account-token',
    });
    assert.equal(orphan.status, 201);
    await eventually('the orphan token secret deleted', async () => (await c.req('GET', '/api/v1/namespaces/default/secrets/orphan-token')).status === 404);
  });
});

describe('serviceaccount-token signing and options', { skip: noOpenssl }, () => {
  let pki: Pki;
  before(() => {
    pki = makePki('satoken-opts-');
  });
  after(() => pki?.cleanup());

  test('ECDSA keys sign ES256 / ES384 tokens (r||s signatures) that verify with the public key', () => {
    for (const [curve, alg] of [['prime256v1', 'ES256'], ['secp384r1', 'ES384']] as const) {
      const file = pki.key(`${curve}.key`, { curve });
      const signer = parsePrivateKeyPem(readFileSync(file, 'utf8'));
      assert.equal(signer.alg, alg);
      const token = serviceAccountToken(signer, { namespace: 'ns', name: 'sa', uid: 'u-1' }, 'sa-token-abcde');
      const [h, p, s] = token.split('.');
      assert.equal(JSON.parse(Buffer.from(h, 'base64url').toString()).alg, alg);
      const ok = verify(alg === 'ES256' ? 'sha256' : 'sha384', Buffer.from(`${h}.${p}`), { key: createPublicKey(readFileSync(file)), dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
      assert.ok(ok, 'ok');
    }
  });

  test('a missing, unreadable or malformed key or CA file is a usage error (exit 2) naming the option', () => {
    const tables = loadSpecTables();
    const garbage = join(pki.dir, 'garbage.pem');
    writeFileSync(garbage, '-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n');
    const key = pki.key('ok.key');
    const cases: Array<[string[], RegExp]> = [
      [['--service-account-private-key-file=/nonexistent/k.pem'], /"--service-account-private-key-file" flag: cannot read the file: ENOENT/],
      [[`--service-account-private-key-file=${garbage}`], /"--service-account-private-key-file" flag: malformed PRIVATE KEY block/],
      [[`--service-account-private-key-file=${pki.ca('x').cert}`], /"--service-account-private-key-file" flag: no PEM private key/],
      [[`--service-account-private-key-file=${key}`, '--root-ca-file=/nonexistent/ca.pem'], /"--root-ca-file" flag: cannot read the file: ENOENT/],
      [[`--service-account-private-key-file=${key}`, `--root-ca-file=${key}`], /"--root-ca-file" flag: no PEM certificate found/],
    ];
    for (const [argv, re] of cases) {
      assert.throws(() => prepareOptions(argv, tables), (e: unknown) => e instanceof UsageError && e.exitCode === 2 && re.test(e.message), argv.join(' '));
    }
    assert.doesNotThrow(() => prepareOptions([`--service-account-private-key-file=${key}`, `--root-ca-file=${pki.ca('y').cert}`], tables));
  });

  test('--concurrent-serviceaccount-token-syncs: that many token Secrets are created at once (held at a proxy)', async () => {
    const key = pki.key('conc.key');
    const sim = await startSimulator();
    try {
      // Accounts first (no serviceaccount controller runs): 6 in one namespace.
      const post = (path: string, body: object) => fetch(sim.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await post('/api/v1/namespaces', { metadata: { name: 'conc' } });
      for (let i = 0; i < 6; i++) await post('/api/v1/namespaces/conc/serviceaccounts', { metadata: { name: `sa${i}` } });
      for (const workers of [1, 3]) {
        const { proxy, url, maxInFlight } = await holdingProxy(sim.url, 400, (req) => req.method === 'POST' && /\/secrets$/.test(req.url ?? ''));
        let daemon: DaemonHandle | undefined;
        try {
          daemon = await startDaemon(['--master', url, '--leader-elect=false', '--port=0', '--controllers=serviceaccount-token', `--service-account-private-key-file=${key}`, `--concurrent-serviceaccount-token-syncs=${workers}`, '--x-api-qps=-1'], { log: () => {} });
          await eventually('tokens for the six accounts', async () => {
            const list = (await (await fetch(`${sim.url}/api/v1/namespaces/conc/serviceaccounts`)).json()) as KubeList<Account>;
            return list.items.every((sa) => (sa.secrets ?? []).length > 0);
          }, 60_000);
          assert.equal(maxInFlight(), workers, `max concurrent secret creations with ${workers} worker(s)`);
        } finally {
          await daemon?.close();
          await new Promise((r) => proxy.close(r));
        }
        // Next round: fresh tokens needed again.
        const list = (await (await fetch(`${sim.url}/api/v1/namespaces/conc/secrets`)).json()) as KubeList<Secret>;
        for (const s of list.items) await fetch(`${sim.url}/api/v1/namespaces/conc/secrets/${s.metadata.name}`, { method: 'DELETE' });
        for (let i = 0; i < 6; i++) {
          await fetch(`${sim.url}/api/v1/namespaces/conc/serviceaccounts/sa${i}`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ secrets: null }) });
        }
      }
    } finally {
      await sim.close();
    }
  });
});

describe('npx tsx simulator --daemon-arg=--service-account-private-key-file=... --daemon-arg=--root-ca-file=...', { skip: noOpenssl }, () => {
  let pki: Pki;
  let child: ReturnType<typeof spawn> | undefined;
  before(() => {
    pki = makePki('satoken-cli-');
  });
  after(() => {
    child?.kill('SIGTERM');
    pki?.cleanup();
  });

  test('every namespace has a default ServiceAccount with a token Secret whose JWT verifies with the public key', async () => {
    const key = pki.key('k.pem');
    const ca = pki.ca('ca').cert;
    const root = join(import.meta.dirname, '..', '..');
    child = spawn(process.execPath, ['--import', 'tsx', 'simulator', '--port', '0', '--nodes', '0', `--daemon-arg=--service-account-private-key-file=${key}`, `--daemon-arg=--root-ca-file=${ca}`], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.resume();
    const url = await eventually('the simulator URL', async () => /API server listening on (\S+)/.exec(out)?.[1], 60_000);
    const get = async <T>(path: string) => (await (await fetch(url + path)).json()) as T;
    await fetch(`${url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'late' } }) });
    const pub = createPublicKey(readFileSync(key));
    await eventually('a verifying token for every namespace', async () => {
      const namespaces = await get<KubeList>('/api/v1/namespaces');
      for (const ns of namespaces.items.map((n) => n.metadata.name!)) {
        const sa = await get<Account>(`/api/v1/namespaces/${ns}/serviceaccounts/default`);
        const ref = sa.secrets?.[0]?.name;
        if (!ref) return false;
        const secret = await get<Secret>(`/api/v1/namespaces/${ns}/secrets/${ref}`);
        if (!secret.data?.token) return false;
        assert.equal(verifiedClaims(b64(secret.data.token), pub).sub, `system:serviceaccount:${ns}:default`);
        assert.equal(b64(secret.data['ca.crt']), readFileSync(ca, 'utf8'));
      }
      return namespaces.items.length >= 4;
    }, 60_000);
  });
});
