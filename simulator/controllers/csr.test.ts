// csrapproving, csrsigning and csrcleaner through the API, with requests made by `openssl req` and certificates
// checked by `openssl verify -CAfile`: node client requests are auto-approved (others are not), approved requests
// are signed by the --cluster-signing-* CA for --experimental-cluster-signing-duration with the requested
// usages, `kubectl certificate approve` leads to a certificate within seconds, a request that cannot be signed
// gets a Failed condition while the others are still signed, and the cleaner deletes requests by the real ages.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../api/meta.ts';
import { startTestCluster, eventually, type TestCluster } from '../testing/test-simulator.ts';
import { makePki, noOpenssl, type Pki } from '../testing/pki.ts';
import { startSimulator } from '../cluster.ts';
import { startDaemon } from './daemon/daemon.ts';
import { prepareOptions } from './config/command-line.ts';
import { UsageError } from './config/options.ts';
import { loadSpecTables } from '../../spec-tables/index.ts';

type Csr = KubeObject & { spec: Record<string, unknown>; status?: { certificate?: string; conditions?: Array<Record<string, string>> } };
const B1 = '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests';
const NODE_USAGES = ['digital signature', 'key encipherment', 'client auth'];

describe('csrapproving + csrsigning', { skip: noOpenssl }, () => {
  let pki: Pki;
  let ca: { cert: string; key: string };
  let c: TestCluster;
  before(async () => {
    pki = makePki('csr-ctl-');
    ca = pki.ca('signer', 'cluster-signer');
    c = await startTestCluster(['csrapproving', 'csrsigning'], [`--cluster-signing-cert-file=${ca.cert}`, `--cluster-signing-key-file=${ca.key}`, '--experimental-cluster-signing-duration=2h']);
  });
  after(async () => {
    await c?.close();
    pki?.cleanup();
  });

  const create = async (name: string, subject: string, usages: string[], base = B1, extra: Record<string, unknown> = {}) => {
    const { csr } = pki.csr(name, subject);
    const r = await c.req<Csr>('POST', base, { metadata: { name }, spec: { request: readFileSync(csr).toString('base64'), usages, ...extra } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body;
  };
  const signed = (name: string) =>
    eventually(`certificate for ${name}`, async () => {
      const r = await c.req<Csr>('GET', `${B1}/${name}`);
      return r.body.status?.certificate ? r.body : undefined;
    });
  /** Writes the issued certificate and runs openssl verify against the signing CA; returns `openssl x509 -text`. */
  const verifyIssued = (name: string, csr: Csr) => {
    const file = join(pki.dir, `${name}.crt`);
    writeFileSync(file, Buffer.from(csr.status!.certificate!, 'base64'));
    const out = pki.openssl('verify', '-CAfile', ca.cert, file);
    assert.equal(out.trim(), `${file}: OK`);
    return pki.openssl('x509', '-in', file, '-noout', '-text', '-dates');
  };

  test('a node client request is auto-approved (AutoApproved) and signed; the certificate verifies with openssl', async () => {
    await create('node-n1', '/O=system:nodes/CN=system:node:n1', NODE_USAGES);
    const csr = await signed('node-n1');
    const approved = csr.status!.conditions!.find((x) => x.type === 'Approved')!;
    assert.equal(approved.reason, 'AutoApproved');
    assert.equal(approved.message, 'Auto approving kubelet client certificate after SubjectAccessReview.');
    const text = verifyIssued('node-n1', csr);
    assert.match(text, /Subject: O\s?=\s?system:nodes, CN\s?=\s?system:node:n1/);
    assert.match(text, /Issuer: CN\s?=\s?cluster-signer/);
    assert.match(text, /TLS Web Client Authentication/);
    assert.match(text, /Digital Signature, Key Encipherment/);
    assert.match(text, /CA:FALSE/);
    // Valid for --experimental-cluster-signing-duration (2h), from five minutes back.
    const notAfter = Date.parse(/notAfter=(.*)/.exec(text)![1]);
    const notBefore = Date.parse(/notBefore=(.*)/.exec(text)![1]);
    assert.ok(Math.abs(notAfter - Date.now() - 2 * 3600_000) < 10 * 60_000, `notAfter ${new Date(notAfter).toISOString()}`);
    assert.ok(Math.abs(notAfter - notBefore - (2 * 3600_000 + 5 * 60_000)) < 5_000, 'Math.abs(notAfter - notBefore - (2 * 3600_000 + 5 * 60_000)) < 5_000');
  });

  test('other requests are not auto-approved; approved with kubectl certificate approve they are signed within seconds', async (t) => {
    await create('web-serving', '/CN=web.example.com', ['digital signature', 'key encipherment', 'server auth']);
    await create('node-n2-wrong-usages', '/O=system:nodes/CN=system:node:n2', ['digital signature', 'client auth']);
    // A later node request is approved, so the controller has had its chance at the earlier two.
    await create('node-n3', '/O=system:nodes/CN=system:node:n3', NODE_USAGES);
    await signed('node-n3');
    for (const name of ['web-serving', 'node-n2-wrong-usages']) {
      const r = await c.req<Csr>('GET', `${B1}/${name}`);
      assert.deepEqual(r.body.status?.conditions ?? [], [], `${name} stays pending`);
    }
    const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
    if (probe.error) return t.skip('kubectl is not on PATH');
    await new Promise<void>((resolve, reject) =>
      execFile('kubectl', ['--server', c.sim.url, 'certificate', 'approve', 'web-serving'], { env: { PATH: process.env.PATH, HOME: pki.dir }, timeout: 30_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve(),
      ),
    );
    const started = Date.now();
    const csr = await signed('web-serving');
    assert.ok(Date.now() - started < 10_000, 'signed within seconds of the approval');
    assert.match(verifyIssued('web-serving', csr), /TLS Web Server Authentication/);
  });

  test('a request that cannot be signed gets a Failed condition; later requests are still signed', async () => {
    await create('odd-usage', '/CN=odd', ['digital signature', 'teleportation']);
    const approve = async (name: string) => {
      const cur = (await c.req<Csr>('GET', `${B1}/${name}`)).body;
      const r = await c.req('PUT', `${B1}/${name}/approval`, { ...cur, status: { conditions: [{ type: 'Approved', reason: 'Test', message: 'approved by the test' }] } });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    await approve('odd-usage');
    const failed = await eventually('a Failed condition', async () => {
      const r = await c.req<Csr>('GET', `${B1}/odd-usage`);
      return r.body.status?.conditions?.find((x) => x.type === 'Failed');
    });
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.match(failed.message, /unknown key usage: "teleportation"/);
    await create('after-odd', '/CN=after', ['digital signature', 'client auth']);
    await approve('after-odd');
    verifyIssued('after-odd', await signed('after-odd'));
  });

  test('a v1 request for another signer is left alone; one for kubernetes.io/kube-apiserver-client is signed', async () => {
    await create('other-signer', '/CN=o', ['client auth'], '/apis/certificates.k8s.io/v1/certificatesigningrequests', { signerName: 'example.com/other' });
    await create('kube-client', '/CN=k', ['client auth'], '/apis/certificates.k8s.io/v1/certificatesigningrequests', { signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600 });
    for (const name of ['other-signer', 'kube-client']) {
      const cur = (await c.req<Csr>('GET', `${B1}/${name}`)).body;
      await c.req('PUT', `${B1}/${name}/approval`, { ...cur, status: { conditions: [{ type: 'Approved', reason: 'Test' }] } });
    }
    const text = verifyIssued('kube-client', await signed('kube-client'));
    const notAfter = Date.parse(/notAfter=(.*)/.exec(text)![1]);
    assert.ok(Math.abs(notAfter - Date.now() - 3600_000) < 10 * 60_000, 'expirationSeconds (1h) is shorter than the duration (2h)');
    assert.equal((await c.req<Csr>('GET', `${B1}/other-signer`)).body.status?.certificate, undefined);
  });
});

describe('csrsigning options and csrcleaner', { skip: noOpenssl }, () => {
  let pki: Pki;
  before(() => {
    pki = makePki('csr-opts-');
  });
  after(() => pki?.cleanup());

  test('an unreadable or malformed signing certificate or key is a usage error naming the option; a missing pair only keeps csrsigning off', () => {
    const tables = loadSpecTables();
    const ca = pki.ca('a');
    const other = pki.ca('b');
    const junk = join(pki.dir, 'junk.pem');
    writeFileSync(junk, 'not a pem file\n');
    const cases: Array<[string[], RegExp]> = [
      [[`--cluster-signing-cert-file=${junk}`, `--cluster-signing-key-file=${ca.key}`], /"--cluster-signing-cert-file" flag: no PEM certificate found/],
      [[`--cluster-signing-cert-file=${ca.cert}`, `--cluster-signing-key-file=${junk}`], /"--cluster-signing-key-file" flag: no PEM private key/],
      [[`--cluster-signing-cert-file=${ca.cert}`, `--cluster-signing-key-file=${other.key}`], /"--cluster-signing-key-file" flag: the private key does not match the certificate/],
    ];
    for (const [argv, re] of cases) assert.throws(() => prepareOptions(argv, tables), (e: unknown) => e instanceof UsageError && e.exitCode === 2 && re.test(e.message), argv.join(' '));
    assert.doesNotThrow(() => prepareOptions([`--cluster-signing-cert-file=${ca.cert}`, `--cluster-signing-key-file=${ca.key}`], tables));
    assert.doesNotThrow(() => prepareOptions(['--cluster-signing-cert-file=/nonexistent/ca.pem'], tables));
  });

  test('csrcleaner deletes requests approved or denied more than an hour ago, keeps recent ones', async () => {
    const sim = await startSimulator();
    try {
      const call = async (method: string, path: string, body?: unknown) => {
        const r = await fetch(sim.url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
        return { status: r.status, body: (await r.json()) as Csr };
      };
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
      const cases: Array<[string, string | undefined, string | undefined]> = [
        ['old-approved', 'Approved', ago(2 * 3600_000)],
        ['old-denied', 'Denied', ago(90 * 60_000)],
        ['new-approved', 'Approved', ago(10 * 60_000)],
        ['pending', undefined, undefined],
      ];
      for (const [name, type, when] of cases) {
        const { csr } = pki.csr(name, `/CN=${name}`);
        const made = await call('POST', B1, { metadata: { name }, spec: { request: readFileSync(csr).toString('base64') } });
        assert.equal(made.status, 201);
        if (type) assert.equal((await call('PUT', `${B1}/${name}/approval`, { ...made.body, status: { conditions: [{ type, reason: 'Test', lastUpdateTime: when }] } })).status, 200);
      }
      const daemon = await startDaemon(['--master', sim.url, '--leader-elect=false', '--port=0', '--controllers=csrcleaner'], { log: () => {} });
      try {
        await eventually('old requests deleted', async () => (await call('GET', `${B1}/old-approved`)).status === 404 && (await call('GET', `${B1}/old-denied`)).status === 404);
        assert.equal((await call('GET', `${B1}/new-approved`)).status, 200);
        assert.equal((await call('GET', `${B1}/pending`)).status, 200, 'pending for less than a day');
      } finally {
        await daemon.close();
      }
    } finally {
      await sim.close();
    }
  });
});
