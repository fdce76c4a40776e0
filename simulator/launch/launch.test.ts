// startSimulator with the command line's options (launch/): the client config file (private directory, named
// context, removed on stop, never written through a planted file or link, merged and unmerged), --load in
// dependency order, a snapshot round trip, typed errors, --secure's CSR signing, and the CLI's --version, --help,
// banner and clean-up on SIGTERM.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import type { KubeObject } from '../api/meta.ts';
import { ApiClient } from '../client/api-client.ts';
import { parseKubeconfig } from '../codec/kubeconfig.ts';
import { makePki, noOpenssl } from '../testing/pki.ts';
import { ManifestLoadError, SimulatorOptionError, SimulatorStartError, startSimulator, type Simulator } from './index.ts';
import { mergeClientConfig, writeFileSafely } from './client-config-file.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const API_ONLY = { noControllers: true, nodes: 0 } as const;

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'launch-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function clientOf(sim: Simulator): Promise<ApiClient> {
  return ApiClient.create(parseKubeconfig(sim.kubeconfig, sim.kubeconfigPath, REPO), { qps: 1000, burst: 1000, contentType: 'application/json', codec: null });
}

test('the client config: a private directory, context simulator-PORT, removed on stop', async () => {
  const sim = await startSimulator(API_ONLY);
  try {
    assert.equal(sim.context, `simulator-${sim.port}`);
    const doc = yaml.load(readFileSync(sim.kubeconfigPath, 'utf8')) as { 'current-context': string; clusters: { name: string; cluster: { server: string } }[] };
    assert.equal(doc['current-context'], sim.context);
    assert.deepEqual(doc.clusters, [{ name: sim.context, cluster: { server: sim.url } }]);
    assert.equal(readFileSync(sim.kubeconfigPath, 'utf8'), sim.kubeconfig);
    assert.equal(statSync(sim.kubeconfigPath).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(sim.kubeconfigPath)).mode & 0o777, 0o700);
    assert.match(dirname(sim.kubeconfigPath), /cluster-simulator-[^/]+$/);
  } finally {
    await sim.stop();
  }
  assert.equal(existsSync(dirname(sim.kubeconfigPath)), false, 'the directory is gone after stop');
  await sim.stop(); // a second stop is harmless
});

test('--kubeconfig-out replaces a planted link or file instead of following it, and a device is written through', async (t) => {
  const dir = scratch(t);
  const victim = join(dir, 'victim');
  writeFileSync(victim, 'not yours\n');
  const out = join(dir, 'sim.kubeconfig');
  symlinkSync(victim, out);
  writeFileSafely(out, 'secret: 1\n');
  assert.equal(readFileSync(victim, 'utf8'), 'not yours\n', 'the link target is untouched');
  assert.ok(lstatSync(out).isFile(), 'the link itself was replaced by a file');
  assert.equal(lstatSync(out).mode & 0o777, 0o600);
  writeFileSync(out, 'planted\n', { mode: 0o644 });
  writeFileSafely(out, 'secret: 2\n');
  assert.equal(readFileSync(out, 'utf8'), 'secret: 2\n');
  assert.equal(lstatSync(out).mode & 0o777, 0o600, 'a planted file with loose permissions is replaced, not reused');
  writeFileSafely('/dev/null', 'x');
  assert.ok(lstatSync('/dev/null').isCharacterDevice(), '/dev/null stays a device');

  const kept = join(dir, 'kept.kubeconfig');
  symlinkSync(victim, kept);
  const sim = await startSimulator({ ...API_ONLY, kubeconfigOut: kept });
  await sim.stop();
  assert.equal(readFileSync(victim, 'utf8'), 'not yours\n');
  assert.equal(readFileSync(kept, 'utf8'), sim.kubeconfig, '--kubeconfig-out stays after stop');
  assert.throws(() => readlinkSync(kept));
});

test('--kubeconfig-merge adds the context to the user kubeconfig, makes it current, and takes it out on stop', async (t) => {
  const dir = scratch(t);
  const user = join(dir, 'config');
  const before = { apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'prod', cluster: { server: 'https://prod:6443' } }], users: [{ name: 'prod', user: {} }], contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'prod' } }], 'current-context': 'prod' };
  writeFileSync(user, yaml.dump(before));
  const sim = await startSimulator({ ...API_ONLY, kubeconfigMerge: user });
  try {
    assert.equal(sim.mergedInto, user);
    const merged = yaml.load(readFileSync(user, 'utf8')) as typeof before;
    assert.equal(merged['current-context'], sim.context);
    assert.deepEqual(merged.contexts.map((c) => c.name), ['prod', sim.context]);
    assert.deepEqual(merged.clusters.map((c) => c.name), ['prod', sim.context]);
  } finally {
    await sim.stop();
  }
  assert.deepEqual(yaml.load(readFileSync(user, 'utf8')), before);
  // The same through the function alone, into a file that did not exist.
  const fresh = join(dir, 'sub', 'config');
  const undo = mergeClientConfig(fresh, sim.kubeconfig, sim.context);
  assert.equal((yaml.load(readFileSync(fresh, 'utf8')) as typeof before)['current-context'], sim.context);
  undo();
  assert.deepEqual((yaml.load(readFileSync(fresh, 'utf8')) as typeof before).contexts, []);
});

test('--load examples/: the Namespace, Deployment, Service, CRD and its object are there; a snapshot keeps objects and resourceVersions', async (t) => {
  const dir = scratch(t);
  const snapshot = join(dir, 'snapshot.json');
  const sim = await startSimulator({ ...API_ONLY, load: join(REPO, 'examples'), snapshotSave: snapshot });
  const paths = [
    '/api/v1/namespaces/demo',
    '/apis/apps/v1/namespaces/demo/deployments/web',
    '/api/v1/namespaces/demo/services/web',
    '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/crontabs.stable.example.com',
    '/apis/stable.example.com/v1/namespaces/demo/crontabs/nightly',
  ];
  let saved: Record<string, string>;
  let listRv: string;
  try {
    assert.equal(sim.loaded, 5);
    const c = await clientOf(sim);
    saved = Object.fromEntries(await Promise.all(paths.map(async (p) => [p, (await c.get(p)).metadata.resourceVersion!] as const)));
    assert.equal((await c.get<{ spec: { cronSpec: string } } & KubeObject>(paths[4])).spec.cronSpec, '0 3 * * *');
    listRv = (await c.list('/api/v1/namespaces')).metadata.resourceVersion!;
    await c.close();
  } finally {
    await sim.stop();
  }
  assert.ok(existsSync(snapshot), '--snapshot-save wrote the file on stop');
  const again = await startSimulator({ ...API_ONLY, snapshotLoad: snapshot });
  try {
    const c = await clientOf(again);
    for (const p of paths) assert.equal((await c.get(p)).metadata.resourceVersion, saved[p], `${p} keeps its resourceVersion`);
    const savedRevision = String((JSON.parse(readFileSync(snapshot, 'utf8')) as { revision: number }).revision);
    assert.ok(Number(savedRevision) >= Number(listRv), 'the snapshot was taken at stop');
    // The server's own start may write (its bootstrap objects) after the restored revision, never below it.
    const listed = Number((await c.list('/api/v1/namespaces')).metadata.resourceVersion);
    assert.ok(listed >= Number(savedRevision) && listed < Number(savedRevision) + 5, `the revision counter continues from ${savedRevision}: ${listed}`);
    const created = await c.create('/api/v1/namespaces/demo/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } } as KubeObject);
    assert.equal(Number(created.metadata.resourceVersion), listed + 1, 'the next write continues the count');
    await c.close();
  } finally {
    await again.stop();
  }
});

test('typed errors: a bad option, a bad manifest, a snapshot option without memory storage, a port in use', async (t) => {
  await assert.rejects(startSimulator({ port: -1 }), (e) => e instanceof SimulatorOptionError && e.option === '--port');
  await assert.rejects(startSimulator({ storage: 'etcd', snapshotLoad: 'x' }), (e) => e instanceof SimulatorOptionError && e.option === '--snapshot-load');
  const dir = scratch(t);
  writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: nowhere\n');
  await assert.rejects(startSimulator({ ...API_ONLY, load: dir }), (e) => e instanceof ManifestLoadError && e.status === 404 && e.file.endsWith('bad.yaml'));
  writeFileSync(join(dir, 'bad.yaml'), 'kind: [\n');
  await assert.rejects(startSimulator({ ...API_ONLY, load: dir }), (e) => e instanceof ManifestLoadError && e.document === -1);
  // A port already taken (most often by a simulator started earlier) names the way out.
  const first = await startSimulator({ ...API_ONLY, port: 0 });
  t.after(() => first.stop());
  const port = Number(new URL(first.url).port);
  await assert.rejects(startSimulator({ ...API_ONLY, port }), (e) => e instanceof SimulatorStartError && /EADDRINUSE.*--port 0 for a free one/.test(e.message));
});

test('--secure: an approved CertificateSigningRequest gets a certificate from the cluster CA', { skip: noOpenssl }, async (t) => {
  const pki = makePki('launch-csr-');
  t.after(() => pki.cleanup());
  const sim = await startSimulator({ secure: true, nodes: 0, daemonArg: ['--controllers=csrsigning'] });
  try {
    const c = await clientOf(sim);
    const { csr } = pki.csr('web', '/CN=web.example.com');
    const base = '/apis/certificates.k8s.io/v1beta1/certificatesigningrequests';
    await c.create(base, {
      apiVersion: 'certificates.k8s.io/v1beta1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'web' },
      spec: { request: readFileSync(csr).toString('base64'), usages: ['digital signature', 'key encipherment', 'server auth'] },
    } as never);
    const current = await c.get(`${base}/web`);
    await c.update(`${base}/web/approval`, { ...current, status: { conditions: [{ type: 'Approved', reason: 'Test', message: 'approved' }] } } as never);
    const deadline = Date.now() + 20_000;
    let cert: string | undefined;
    while (!cert && Date.now() < deadline) {
      cert = ((await c.get(`${base}/web`)) as { status?: { certificate?: string } }).status?.certificate;
      if (!cert) await new Promise((r) => setTimeout(r, 100));
    }
    await c.close();
    assert.ok(cert, 'the certificate was issued');
    const certFile = join(pki.dir, 'web.crt');
    const caFile = join(pki.dir, 'ca.crt');
    writeFileSync(certFile, Buffer.from(cert, 'base64'));
    const ca = (yaml.load(sim.kubeconfig) as { clusters: { cluster: { 'certificate-authority-data': string } }[] }).clusters[0].cluster['certificate-authority-data'];
    writeFileSync(caFile, Buffer.from(ca, 'base64'));
    assert.match(pki.openssl('verify', '-CAfile', caFile, certFile), /OK/);
  } finally {
    await sim.stop();
  }
});

test('the command: --version, --help in the usual layout, the banner, and the client config gone after SIGTERM', async () => {
  const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'simulator/main.ts', ...args], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  assert.equal(cli(['--version']).stdout, `cluster-simulator ${own.version} (Kubernetes API v1.9.0, simulated)\n`);
  const help = cli(['--help']).stdout;
  assert.match(help, /^Usage:\n/);
  const sections = [...help.matchAll(/^(\w[\w ]*):$/gm)].map((m) => m[1]);
  assert.deepEqual(sections, ['Usage', 'Options', 'Commands']);
  const commands = help.slice(help.indexOf('\nCommands:\n'));
  assert.doesNotMatch(commands, /--help|--version|-v, --v/, '-h and -v are options, not commands');
  assert.match(help.slice(help.indexOf('\nOptions:\n'), help.indexOf('\nCommands:\n')), /-h, --help[\s\S]*--version|--version[\s\S]*-h, --help/);

  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts', '--port', '0', '--nodes', '0', '--no-controllers'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const deadline = Date.now() + 60_000;
  while (!/^export KUBECONFIG=(\S+)$/m.test(out) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
  const path = /^export KUBECONFIG=(\S+)$/m.exec(out)?.[1];
  assert.ok(path, `the banner has an export line:\n${out}`);
  const existedAtUrl = existsSync(path);
  assert.match(out, /^API server listening on http:\/\/127\.0\.0\.1:\d+\n/);
  assert.match(out, new RegExp(`^client config: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(context simulator-\\d+; removed on exit\\)$`, 'm'));
  assert.ok(out.indexOf('API server listening') < out.indexOf('export KUBECONFIG'), 'the URL line comes first (the file was written before it)');
  assert.equal(existedAtUrl, true);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  assert.equal(existsSync(path), false, 'removed on SIGTERM');
  assert.equal(existsSync(dirname(path)), false);
});
