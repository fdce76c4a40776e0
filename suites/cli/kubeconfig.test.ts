import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseKubeconfig, KubeconfigError } from './kubeconfig.ts';

const CONFIG = `
apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: { cluster: c1, user: u1 }
- name: other
  context: { cluster: c2, user: u2 }
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: ca.pem
    insecure-skip-tls-verify: true
- name: c2
  cluster: { server: https://elsewhere }
users:
- name: u1
  user:
    client-certificate-data: ${Buffer.from('CERT').toString('base64')}
    client-key: keys/client.key
    tokenFile: token.txt
- name: u2
  user: { token: nope }
`;

test('reads the current context: server, CA file, client cert data, key file, token file, insecure', () => {
  const files: Record<string, string> = { '/cfg/ca.pem': 'CA', '/cfg/keys/client.key': 'KEY', '/cfg/token.txt': 'tok\n' };
  const c = parseKubeconfig(CONFIG, '/cfg', (p) => {
    if (!(p in files)) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
    return files[p];
  });
  assert.deepEqual(c, {
    url: 'https://10.0.0.1:6443',
    token: 'tok',
    caData: 'CA',
    caFile: '/cfg/ca.pem',
    certData: 'CERT',
    keyData: 'KEY',
    keyFile: '/cfg/keys/client.key',
    insecureSkipTlsVerify: true,
  });
});

test('names what is wrong with a broken kubeconfig', () => {
  const read = () => 'x';
  assert.throws(() => parseKubeconfig(':\n - [', '/', read), KubeconfigError);
  assert.throws(() => parseKubeconfig('clusters: []', '/', read), /no current-context/);
  assert.throws(() => parseKubeconfig(CONFIG.replace('current-context: dev', 'current-context: gone'), '/', read), /no context named "gone"/);
  assert.throws(() => parseKubeconfig(CONFIG, '/cfg', () => { throw Object.assign(new Error('x'), { code: 'ENOENT' }); }), /cannot read certificate-authority \/cfg\/ca.pem: ENOENT/);
});
