// The request log (httplog): one line per answered request with method, URI, latency, status, user agent and the
// user it was attributed to. Under RBAC the simulator's daemon runs with --use-service-account-credentials, and
// the log shows each controller's requests as its own system:serviceaccount:kube-system:<account> (user and user
// agent); a request without credentials that authentication refuses has no user; without authentication every
// request is system:unsecured. `npx tsx simulator -v 3` writes the same lines on stderr.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startSimulator } from '../cluster.ts';
import { eventually } from '../testing/test-simulator.ts';
import { CONTROLLER_SERVICE_ACCOUNTS } from '../controllers/daemon/service-account-clients.ts';

const LINE = /^(?<method>[A-Z]+) (?<uri>\S+): \((?<latency>[\d.]+(?:ms|s|µs))\) (?<status>\d{3}) \[(?<ua>.*) (?<remote>[^ \]]+)\] user="(?<user>[^"]*)" groups=\[.*\]$/;

test('under RBAC each controller of the daemon shows in the request log as its own service account', async () => {
  const lines: string[] = [];
  const sim = await startSimulator({
    port: 0,
    securityFlags: { secure: true, authorizationMode: 'RBAC' },
    controllers: ['serviceaccount-token', 'serviceaccount', 'namespace'],
    requestLog: (l) => lines.push(l),
  });
  const admin = sim.serving!.admin as { cert: string; key: string };
  const agent = new Agent({ connect: { ca: sim.serving!.ca, cert: admin.cert, key: admin.key } });
  try {
    // A namespace made and deleted by the admin: the serviceaccount controller gives it its default account, the
    // namespace controller empties and finalizes it.
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'log-test' } };
    const made = await request(`${sim.url}/api/v1/namespaces`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(ns) });
    assert.equal(made.statusCode, 201, await made.body.text());
    await eventually('the default ServiceAccount', async () => {
      const r = await request(`${sim.url}/api/v1/namespaces/log-test/serviceaccounts/default`, { dispatcher: agent });
      await r.body.dump();
      return r.statusCode === 200;
    }, 60_000);
    const gone = await request(`${sim.url}/api/v1/namespaces/log-test`, { method: 'DELETE', dispatcher: agent });
    await gone.body.dump();
    const users = () => new Set(lines.map((l) => LINE.exec(l)?.groups?.user));
    const want = ['serviceaccount', 'namespace'].map((c) => `system:serviceaccount:kube-system:${CONTROLLER_SERVICE_ACCOUNTS[c]}`);
    await eventually('the serviceaccount and namespace controllers under their own accounts', async () => want.every((u) => users().has(u)), 60_000);
    for (const l of lines) assert.match(l, LINE, 'every line has the httplog form');
    // The user agent names the account too; the daemon's own client is system:kube-controller-manager.
    const byAccount = lines.map((l) => LINE.exec(l)!.groups!).filter((g) => g.user === want[0]);
    assert.ok(byAccount.every((g) => g.ua.endsWith(`/${want[0]}`)), `user agents of ${want[0]}: ${[...new Set(byAccount.map((g) => g.ua))].join(', ')}`);
    assert.ok(users().has('system:kube-controller-manager'), "users().has('system:kube-controller-manager')");
    // A bad token: refused with 401, logged without a user.
    const bad = await request(`${sim.url}/api/v1/namespaces`, { dispatcher: new Agent({ connect: { ca: sim.serving!.ca } }), headers: { authorization: 'Bearer not-a-token', 'user-agent': 'bad-token-test' } });
    await bad.body.dump();
    assert.equal(bad.statusCode, 401);
    await eventually('the 401 line', async () => lines.some((l) => l.includes('[bad-token-test')), 10_000);
    assert.equal(LINE.exec(lines.find((l) => l.includes('[bad-token-test'))!)!.groups!.user, '');
  } finally {
    await sim.close();
    await agent.close();
  }
});

test('without authentication every request is system:unsecured, with its status and user agent', async () => {
  const lines: string[] = [];
  const sim = await startSimulator({ port: 0, requestLog: (l) => lines.push(l) });
  try {
    const res = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps/missing`, { headers: { 'user-agent': 'log-test/1.0' } });
    await res.body?.cancel();
    await eventually('the line of the request', async () => lines.some((l) => l.includes('/configmaps/missing')), 10_000);
    const g = LINE.exec(lines.find((l) => l.includes('/configmaps/missing'))!)!.groups!;
    assert.deepEqual([g.method, g.uri, g.status, g.ua, g.user], ['GET', '/api/v1/namespaces/default/configmaps/missing', '404', 'log-test/1.0', 'system:unsecured']);
  } finally {
    await sim.close();
  }
});

test('npx tsx simulator -v 3 writes the request log on stderr (and -v 0 does not)', async () => {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const run = (v: string) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/index.ts', '--port', '0', '--nodes', '0', '--no-controllers', '-v', v], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', async (b: Buffer) => {
        out += b.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && !child.killed && /controller daemon:/.test(out)) {
          const res = await fetch(`${m[1]}/api/v1/namespaces?limit=1`, { headers: { 'user-agent': 'cli-log-test' } });
          await res.body?.cancel();
          setTimeout(() => child.kill('SIGTERM'), 300);
        }
      });
      child.stderr.on('data', (b: Buffer) => (err += b.toString()));
      child.on('error', reject);
      child.on('close', () => resolve(err));
      setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
    });
  const verbose = await run('3');
  assert.match(verbose, /httplog\] GET \/api\/v1\/namespaces\?limit=1: \([\d.]+(ms|s|µs)\) 200 \[cli-log-test [^\]]+\] user="system:unsecured"/);
  const quiet = await run('0');
  assert.doesNotMatch(quiet, /httplog\]/);
});
