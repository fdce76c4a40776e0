// The auth suite from the command line against secured simulators (issue "Done when"):
//   npx tsx suites --suite auth --kubeconfig <admin> --as-user <viewer-token>
// passes against `--secure --authorization-mode RBAC` (the viewer token bound to `view` in one namespace),
// and fails exactly the checks that need denials against `--secure --authorization-mode AlwaysAllow`.
// Both runs' console output and every report file are searched for the token and the admin's key and
// certificate: none may appear (harness safety: reports never carry credentials).

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../simulator/cluster.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VIEWER = `viewer-secret-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

function runSuites(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((res) => {
    execFile(process.execPath, ['--import', 'tsx', join(REPO, 'suites', 'index.ts'), ...args], { cwd: REPO, timeout: 420_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) =>
      res({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

async function secured(mode: string, dir: string): Promise<{ sim: RunningSimulator; kubeconfig: string; secrets: string[] }> {
  const tokens = join(dir, `tokens-${mode}.csv`);
  writeFileSync(tokens, `${VIEWER},viewer,viewer-uid\n`);
  const sim = await startSimulator({ port: 0, securityFlags: { secure: true, authorizationMode: mode, tokenAuthFile: tokens } });
  const admin = sim.serving!.admin as { cert: string; key: string };
  const { renderKubeconfig } = await import('../simulator/client/kubeconfig.ts');
  const kubeconfig = join(dir, `admin-${mode}.kubeconfig`);
  writeFileSync(kubeconfig, renderKubeconfig({ server: sim.url, ca: sim.serving!.ca, cert: admin.cert, key: admin.key }));
  // the viewer's grant of the Done-when scenario: view in one namespace
  const agent = new Agent({ connect: { ca: sim.serving!.ca, cert: admin.cert, key: admin.key } });
  const post = async (path: string, body: unknown) => {
    const r = await request(sim.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), dispatcher: agent });
    await r.body.text();
    return r.statusCode;
  };
  assert.equal(await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'viewer-home' } }), 201);
  assert.equal(
    await post('/apis/rbac.authorization.k8s.io/v1/namespaces/viewer-home/rolebindings', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'viewer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }],
    }),
    201,
  );
  await agent.close();
  const pemBody = (pem: string) => pem.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
  // what must never show: the token, the admin key (PEM body and base64 of the PEM), the admin certificate's base64
  const secrets = [VIEWER, pemBody(admin.key), Buffer.from(admin.key).toString('base64'), pemBody(admin.key).slice(0, 40)];
  return { sim, kubeconfig, secrets };
}

describe('auth suite from the command line', () => {
  let dir: string;
  const sims: RunningSimulator[] = [];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'auth-suite-test-'));
  });
  after(async () => {
    for (const s of sims) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const leaks = (out: string, reportDir: string, secrets: string[]) => {
    const found: string[] = [];
    for (const s of secrets) if (out.includes(s)) found.push(`console output holds ${s.slice(0, 12)}...`);
    for (const f of filesUnder(reportDir)) {
      const text = readFileSync(f, 'utf8');
      for (const s of secrets) if (text.includes(s)) found.push(`${f} holds ${s.slice(0, 12)}...`);
    }
    return found;
  };

  test('RBAC: passes, and no report holds the token or the admin key', async () => {
    const { sim, kubeconfig, secrets } = await secured('RBAC', dir);
    sims.push(sim);
    const reportDir = join(dir, 'reports-rbac');
    const r = await runSuites(['--suite', 'auth', '--kubeconfig', kubeconfig, '--as-user', VIEWER, '--report-dir', reportDir, '--workers', '1']);
    assert.equal(r.code, 0, r.out.slice(-3000));
    assert.match(r.out, /checks: 6 passed, 0 failed, 0 skipped/);
    assert.deepEqual(leaks(r.out, reportDir, secrets), []);
  });

  test('AlwaysAllow: the checks that need denials fail; still nothing leaks', async () => {
    const { sim, kubeconfig, secrets } = await secured('AlwaysAllow', dir);
    sims.push(sim);
    const reportDir = join(dir, 'reports-allow');
    const r = await runSuites(['--suite', 'auth', '--kubeconfig', kubeconfig, '--as-user', VIEWER, '--report-dir', reportDir, '--workers', '1']);
    assert.equal(r.code, 1, r.out.slice(-3000));
    const results = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as { checks: { id: string; status: string }[] };
    const failed = results.checks.filter((c) => c.status === 'failed').map((c) => c.id).sort();
    assert.deepEqual(failed, ['auth.namespaced-grant', 'auth.no-credentials-refused', 'auth.no-grants-forbidden', 'auth.subresource-grants']);
    // failures carry evidence (exchanges with headers): the Authorization header is redacted there
    assert.deepEqual(leaks(r.out, reportDir, secrets), []);
    assert.match(readFileSync(join(reportDir, 'junit.xml'), 'utf8'), /auth\.no-grants-forbidden/);
  });
});
