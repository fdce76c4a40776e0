// The simulator's storage flags: validation and defaults, and the CLI end to end on an etcd (kubectl-style reads
// through the started server are covered by etcd-http.test.ts; here the flags reach the store).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseStorageArgs } from './etcd-cli.ts';
import { EtcdStore } from './etcd.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';

describe('storage flags', () => {
  it('defaults to memory; etcd defaults to the local etcd and /registry', () => {
    assert.deepEqual(parseStorageArgs({}), { storage: 'memory', servers: ['http://127.0.0.1:2379'], prefix: '/registry' });
    assert.deepEqual(parseStorageArgs({ storage: 'etcd' }), { storage: 'etcd', servers: ['http://127.0.0.1:2379'], prefix: '/registry' });
    assert.deepEqual(parseStorageArgs({ storage: 'etcd', 'etcd-servers': 'http://a:1, http://b:2', 'etcd-prefix': '/sim/' }), {
      storage: 'etcd',
      servers: ['http://a:1', 'http://b:2'],
      prefix: '/sim',
    });
  });

  it('refuses what it cannot honour, saying which flag', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ storage: 'disk' }, /invalid --storage "disk"/],
      [{ 'etcd-servers': 'http://a:1' }, /--etcd-servers needs --storage etcd/],
      [{ 'etcd-prefix': '/x' }, /--etcd-prefix needs --storage etcd/],
      [{ storage: 'etcd', 'etcd-servers': ',' }, /invalid --etcd-servers/],
      [{ storage: 'etcd', 'etcd-servers': '127.0.0.1:2379' }, /expected http:\/\/HOST:PORT/],
      [{ storage: 'etcd', 'etcd-servers': 'https://a:1' }, /TLS is not supported/],
      [{ storage: 'etcd', 'etcd-servers': 'http://a:1/v3' }, /expected http:\/\/HOST:PORT/],
      [{ storage: 'etcd', 'etcd-prefix': 'registry' }, /invalid --etcd-prefix/],
      [{ storage: 'etcd', 'etcd-prefix': '/' }, /needs a prefix of its own/],
    ];
    for (const [args, msg] of bad) assert.throws(() => parseStorageArgs(args), msg, JSON.stringify(args));
  });
});

describe('npx tsx simulator --storage etcd', { skip: etcdTestSkipReason() }, () => {
  let etcd: EtcdTestServer;
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await etcd?.stop();
  });

  it('serves objects kept in etcd under --etcd-prefix', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'simulator/index.ts', '--port', '0', '--no-controllers', '--storage', 'etcd', '--etcd-servers', etcd.url, '--etcd-prefix', '/cli-test', '--kubeconfig-out', '/dev/null'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const deadline = Date.now() + 20_000;
      while (!/listening on (\S+)/.test(out) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (\S+)/.exec(out)?.[1];
      assert.ok(url, `the simulator did not start: ${out}${err}`);
      assert.match(out, new RegExp(`storage: etcd at ${etcd.url} under /cli-test/`));
      const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: 'from-cli' }, data: { k: 'v' } }),
      });
      assert.equal(res.status, 201);
      const created = (await res.json()) as { metadata: { resourceVersion: string } };
      // The object is in etcd, under the prefix, at the resourceVersion the server answered with.
      const store = new EtcdStore({ servers: [etcd.url], prefix: '/cli-test', compactIntervalMs: 0 });
      try {
        const got = await store.get('/registry/configmaps/default/from-cli');
        assert.equal(got?.value.metadata.resourceVersion, created.metadata.resourceVersion);
        assert.deepEqual(got?.value.data, { k: 'v' });
        assert.ok(await store.get('/registry/namespaces/kube-system'), 'system namespaces bootstrapped into etcd');
      } finally {
        await store.close();
      }
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  });

  it('exits with a clear message when etcd cannot be reached', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/index.ts', '--port', '0', '--no-controllers', '--storage', 'etcd', '--etcd-servers', 'http://127.0.0.1:1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
    assert.match(err, /cannot reach etcd at http:\/\/127\.0\.0\.1:1/);
  });
});
