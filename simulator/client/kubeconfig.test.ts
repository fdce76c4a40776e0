import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { loadClientConfig, parseKubeconfig, ClientConfigError } from './kubeconfig.ts';

const doc = `
apiVersion: v1
kind: Config
current-context: dev
clusters:
  - name: c1
    cluster:
      server: https://api.example:6443/
      certificate-authority: ca.pem
  - name: c2
    cluster:
      server: http://127.0.0.1:8080
      insecure-skip-tls-verify: true
users:
  - name: u1
    user:
      token: abc
  - name: u2
    user:
      client-certificate-data: ${Buffer.from('CERT').toString('base64')}
      client-key-data: ${Buffer.from('KEY').toString('base64')}
contexts:
  - name: dev
    context: { cluster: c1, user: u1, namespace: team }
  - name: other
    context: { cluster: c2, user: u2 }
`;

test('reads the current context: server, token, CA file relative to the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcfg-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), 'PEM');
    writeFileSync(join(dir, 'config'), doc);
    const cfg = loadClientConfig({ xconfig: join(dir, 'config') });
    assert.equal(cfg.server, 'https://api.example:6443');
    assert.equal(cfg.token, 'abc');
    assert.equal(cfg.ca?.toString(), 'PEM');
    assert.equal(cfg.namespace, 'team');
    const overridden = loadClientConfig({ xconfig: join(dir, 'config'), master: '10.0.0.1:8080' });
    assert.equal(overridden.server, 'http://10.0.0.1:8080');
    assert.equal(overridden.token, 'abc', '--master overrides only the server');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inline certificate data and insecure-skip-tls-verify', () => {
  const cfg = parseKubeconfig(doc, 'mem', '/nonexistent', 'other');
  assert.equal(cfg.cert?.toString(), 'CERT');
  assert.equal(cfg.key?.toString(), 'KEY');
  assert.equal(cfg.insecureSkipTLSVerify, true);
  assert.equal(cfg.token, undefined);
});

test('clean errors for every broken input', () => {
  assert.throws(() => loadClientConfig({}), /neither --xconfig nor --master/);
  assert.throws(() => loadClientConfig({ xconfig: '/no/such/file' }), /cannot read --xconfig \/no\/such\/file: ENOENT/);
  assert.throws(() => parseKubeconfig('a: [', 'f', '/'), /f is not valid YAML/);
  assert.throws(() => parseKubeconfig('- 1', 'f', '/'), /does not hold a client configuration mapping/);
  assert.throws(() => parseKubeconfig(doc, 'f', '/', 'missing'), /no context named "missing"/);
  assert.throws(() => parseKubeconfig(doc, 'f', '/nonexistent'), (e: unknown) => e instanceof ClientConfigError && /cannot read certificate-authority/.test(e.message));
  assert.throws(() => loadClientConfig({ master: 'ftp://x' }), /must be http or https/);
});
