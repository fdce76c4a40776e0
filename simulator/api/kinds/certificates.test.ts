// certificates.k8s.io CertificateSigningRequest through the API: v1beta1 and v1 over one storage, discovery with
// /approval and /status, the requester recorded from the request (never the body), validation of the request
// (PEM, signature) and usages, the main resource unable to change spec or status, /approval changing only the
// conditions, /status keeping the approval, v1 defaults on read, the table, protobuf, and kubectl
// (create -f, get csr, certificate approve / deny).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { type Harness, type Json, assertInvalid, harness } from '../../testing/kinds.ts';
import { makePki, noOpenssl, type Pki } from '../../testing/pki.ts';

let h: Harness;
let pki: Pki;
before(async () => {
  h = await harness();
  pki = makePki('csr-api-');
});
after(async () => {
  await h.close();
  pki.cleanup();
});

const B1 = '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests';
const V1 = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let seq = 0;
const csrPem = (subject: string) => readFileSync(pki.csr(`r${++seq}`, subject).csr);
const csrBody = (name: string, pem: Buffer, spec: Json = {}) => ({ metadata: { name }, spec: { request: pem.toString('base64'), ...spec } });

describe('CertificateSigningRequest', { skip: noOpenssl }, () => {
  test('discovery: v1 preferred, v1beta1 served; approval and status subresources; short name csr', async () => {
    const g = (await h.call('GET', '/apis/certificates.k8s.io')).body;
    assert.deepEqual(g.versions.map((v: Json) => v.version), ['v1', 'v1beta1']);
    assert.equal(g.preferredVersion.version, 'v1');
    for (const v of ['v1', 'v1beta1']) {
      const res = (await h.call('GET', `/apis/certificates.k8s.io/${v}`)).body.resources as Json[];
      assert.deepEqual(res.map((r) => r.name), ['certificatesigningrequests', 'certificatesigningrequests/approval', 'certificatesigningrequests/status']);
      assert.deepEqual(res[0].shortNames, ['csr']);
      assert.equal(res[0].namespaced, false);
    }
  });

  test('create through v1beta1: usages defaulted, requester from the request not the body, empty status; read through v1 with defaults', async () => {
    const body = csrBody('b1-node', csrPem('/O=system:nodes/CN=system:node:n1'), { username: 'mallory', groups: ['system:masters'] });
    (body as Json).status = { conditions: [{ type: 'Approved', reason: 'self' }], certificate: 'QUJD' };
    const created = await h.create(B1, body);
    assert.deepEqual(created.spec.usages, ['digital signature', 'key encipherment']);
    assert.equal(created.spec.username, 'system:unsecured');
    assert.deepEqual(created.spec.groups, ['system:masters', 'system:authenticated']);
    assert.deepEqual(created.status, {});
    assert.equal(created.spec.signerName, undefined, 'v1beta1 of 1.9 has no signerName');
    const v1 = (await h.call('GET', `${V1}/b1-node`)).body;
    assert.equal(v1.apiVersion, 'certificates.k8s.io/v1');
    assert.equal(v1.spec.signerName, 'kubernetes.io/legacy-unknown', 'not the kubelet client usages');
  });

  test('validation: a request that is not a PEM CSR, or whose signature does not check, is invalid; v1 needs signerName and usages', async () => {
    assert.match(assertInvalid(await h.call('POST', B1, csrBody('bad-pem', Buffer.from('hello'))), 'spec.request').message, /PEM block type must be CERTIFICATE REQUEST/);
    const pem = csrPem('/CN=tampered').toString();
    // Flip one character in the middle of the body: either the DER or the signature breaks.
    const lines = pem.split('\n');
    const mid = Math.floor(lines.length / 2);
    lines[mid] = (lines[mid][0] === 'A' ? 'B' : 'A') + lines[mid].slice(1);
    const r = await h.call('POST', B1, csrBody('tampered', Buffer.from(lines.join('\n'))));
    assertInvalid(r, 'spec.request', 'FieldValueInvalid');
    const noSigner = await h.call('POST', V1, csrBody('v1-nosigner', csrPem('/CN=x')));
    assertInvalid(noSigner, 'spec.signerName', 'FieldValueRequired');
    assertInvalid(noSigner, 'spec.usages', 'FieldValueRequired');
    const badUsage = await h.call('POST', V1, csrBody('v1-badusage', csrPem('/CN=x'), { signerName: 'example.com/s', usages: ['flying'] }));
    assertInvalid(badUsage, 'spec.usages[0]', 'FieldValueNotSupported');
  });

  test('the main resource changes neither spec nor status; /approval only the conditions; /status keeps the approval', async () => {
    const created = await h.create(V1, csrBody('flow', csrPem('/CN=flow'), { signerName: 'example.com/signer', usages: ['client auth'] }));
    assert.equal(created.spec.signerName, 'example.com/signer');
    const put = await h.call('PUT', `${V1}/flow`, { ...created, metadata: { ...created.metadata, labels: { a: 'b' } }, spec: { ...created.spec, usages: ['server auth'] }, status: { certificate: 'QUJD' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.spec.usages, ['client auth']);
    assert.deepEqual(put.body.status, {});
    assert.deepEqual(put.body.metadata.labels, { a: 'b' });
    const approval = await h.call('PUT', `${V1}/flow/approval`, {
      ...put.body,
      spec: { ...put.body.spec, usages: ['server auth'] },
      status: { certificate: 'QUJD', conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok', lastUpdateTime: '2020-01-01T00:00:00Z' }] },
    });
    assert.equal(approval.status, 200, approval.text);
    assert.deepEqual(approval.body.spec.usages, ['client auth']);
    assert.equal(approval.body.status.certificate, undefined, 'approval does not issue');
    assert.equal(approval.body.status.conditions[0].type, 'Approved');
    const both = await h.call('PUT', `${V1}/flow/approval`, { ...approval.body, status: { conditions: [...approval.body.status.conditions, { type: 'Denied', status: 'True' }] } });
    assert.match(assertInvalid(both, 'status.conditions').message, /mutually exclusive/);
    // /status: the certificate, a Failed condition; a try to drop the approval is ignored.
    const status = await h.call('PUT', `${V1}/flow/status`, { ...approval.body, status: { certificate: 'QUJD', conditions: [{ type: 'Failed', status: 'True', reason: 'SignerValidationFailure' }] } });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.status.certificate, 'QUJD');
    assert.deepEqual(status.body.status.conditions.map((c: Json) => c.type), ['Approved', 'Failed']);
    // Both versions read the same object.
    const b1 = (await h.call('GET', `${B1}/flow`)).body;
    assert.equal(b1.status.certificate, 'QUJD');
    assert.equal(b1.spec.signerName, 'example.com/signer');
  });

  test('table: Requestor and Condition (Pending, Approved,Issued...)', async () => {
    const r = await h.call('GET', `${B1}/flow`, undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
    assert.deepEqual(r.body.columnDefinitions.map((c: Json) => c.name), ['Name', 'Age', 'Requestor', 'Condition']);
    assert.deepEqual([r.body.rows[0].cells[2], r.body.rows[0].cells[3]], ['system:unsecured', 'Approved,Failed,Issued']);
  });

  test('protobuf: v1 and v1beta1 objects round trip', async () => {
    const pb = h.sim.ctx.protobuf;
    if (!pb) return;
    for (const path of [`${V1}/flow`, `${B1}/flow`]) {
      const res = await request(`${h.sim.url}${path}`, { headers: { accept: pb.mediaType } });
      const decoded = pb.decodeObject(Buffer.from(await res.body.arrayBuffer())) as Json;
      const json = (await h.call('GET', path)).body;
      // Both paths show what Go writes (a zero non-pointer time as null: codec/go-json.ts).
      assert.deepEqual(decoded.spec, json.spec);
      assert.deepEqual(decoded.status, json.status);
    }
  });
});

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKubectl = probe.error ? `kubectl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : noOpenssl;

describe('kubectl with CSRs', { skip: noKubectl }, () => {
  const kubectl = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile('kubectl', ['--server', h.sim.url, ...args], { env: { PATH: process.env.PATH, HOME: pki.dir }, timeout: 30_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      });
    });

  test('create -f (v1 manifest of an openssl req), get csr, certificate approve and deny', async () => {
    const file = join(pki.dir, 'csr.json');
    for (const name of ['kc-approve', 'kc-deny']) {
      writeFileSync(file, JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', ...csrBody(name, csrPem(`/CN=${name}`), { signerName: 'example.com/test', usages: ['client auth'] }) }));
      await kubectl('create', '-f', file);
    }
    assert.match(await kubectl('get', 'csr', 'kc-approve'), /kc-approve\s+.*Pending/);
    assert.match(await kubectl('certificate', 'approve', 'kc-approve'), /certificatesigningrequest.certificates.k8s.io\/kc-approve approved/);
    assert.match(await kubectl('certificate', 'deny', 'kc-deny'), /kc-deny denied/);
    const approved = (await h.call('GET', `${B1}/kc-approve`)).body.status.conditions as Json[];
    assert.equal(approved.length, 1);
    assert.equal(approved[0].type, 'Approved');
    assert.equal(approved[0].reason, 'KubectlApprove');
    assert.equal(((await h.call('GET', `${V1}/kc-deny`)).body.status.conditions as Json[])[0].type, 'Denied');
    assert.match(await kubectl('get', 'csr'), /kc-approve\s+.*Approved[\s\S]*kc-deny\s+.*Denied/);
  });
});
