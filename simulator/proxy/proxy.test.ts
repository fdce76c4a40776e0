// The client-side proxy against a secured simulator: requests without credentials go through with the client
// config's token (or client certificate); an API prefix is stripped; watch events arrive as they happen;
// foreign Host headers, exec/attach paths and rejected methods are refused; the command checks its flags.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { parseKubeconfig, renderKubeconfig } from '../client/kubeconfig.ts';
import { startProxy, type RunningProxy } from './proxy.ts';

const TOKEN = `proxy-admin-${Math.random().toString(36).slice(2)}`;

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('client-side proxy', () => {
  let dir: string;
  let sim: RunningSimulator;
  let proxy: RunningProxy;
  let prefixed: RunningProxy;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'proxy-test-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${TOKEN},proxy-admin,1,system:masters\n`);
    sim = await startSimulator({ port: 0, securityFlags: { secure: true, authorizationMode: 'RBAC', tokenAuthFile: tokens } });
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, renderKubeconfig({ server: sim.url, ca: sim.serving!.ca, token: TOKEN }));
    const cfg = parseKubeconfig(renderKubeconfig({ server: sim.url, ca: sim.serving!.ca, token: TOKEN }), file, dir);
    proxy = await startProxy(cfg, { port: 0 });
    prefixed = await startProxy(cfg, { port: 0, apiPrefix: '/k8s-api/', rejectMethods: [/^DELETE$/] });
  });

  after(async () => {
    await proxy?.close();
    await prefixed?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("requests without credentials go through with the client config's token", async () => {
    const res = await get(`${proxy.url}/api/v1/namespaces`);
    assert.equal(res.status, 200, res.body);
    assert.equal(JSON.parse(res.body).kind, 'NamespaceList');
    const created = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${proxy.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
        r.resume();
        r.on('end', () => resolve(r.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'through-proxy' } }));
    });
    assert.equal(created, 201);
  });

  test('watch events stream through as they happen', async () => {
    const list = JSON.parse((await get(`${proxy.url}/api/v1/namespaces/default/configmaps`)).body);
    const events: string[] = [];
    const req = http.get(`${proxy.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    const gotHeaders = new Promise<http.IncomingMessage>((resolve) => req.on('response', resolve));
    const res = await gotHeaders;
    assert.equal(res.statusCode, 200);
    res.on('data', (d: Buffer) => events.push(d.toString()));
    const name = `watched-${Date.now()}`;
    const post = http.request(`${proxy.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    post.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }));
    const deadline = Date.now() + 15_000;
    while (!events.join('').includes(name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    req.destroy();
    assert.match(events.join(''), new RegExp(`"type":"ADDED".*"name":"${name}"`));
  });

  test('an API prefix is served and stripped; outside it 404', async () => {
    assert.equal((await get(`${prefixed.url}/api/v1/namespaces/default`)).status, 200);
    assert.match(prefixed.url, /\/k8s-api$/);
    assert.equal((await get(prefixed.url.replace(/\/k8s-api$/, '/api/v1/namespaces'))).status, 404);
  });

  test('foreign Host headers, exec and attach paths and rejected methods are refused', async () => {
    const port = proxy.port;
    assert.equal((await get(`http://127.0.0.1:${port}/api/v1/namespaces`, { host: 'evil.example.com' })).status, 403);
    assert.equal((await get(`http://127.0.0.1:${port}/api/v1/namespaces`, { host: `localhost:${port}` })).status, 200);
    assert.equal((await get(`${proxy.url}/api/v1/namespaces/default/pods/p/exec?command=ls`)).status, 403);
    assert.equal((await get(`${prefixed.url}/api/v1/namespaces/default/configmaps/through-proxy`, {}, 'DELETE')).status, 403);
  });

  test('the command: --kubeconfig required; bad values exit 2', async () => {
    const run = (...args: string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'index.ts'), 'proxy', ...args], { timeout: 60_000 }, (err, _out, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }));
      });
    const none = await run();
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--kubeconfig is required/);
    const badPort = await run('--kubeconfig', join(dir, 'kubeconfig'), '--port', 'x');
    assert.equal(badPort.code, 2);
    const missing = await run('--kubeconfig', join(dir, 'nope'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read --kubeconfig/);
  });
});
