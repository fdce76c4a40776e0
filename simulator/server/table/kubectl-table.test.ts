// kubectl 1.32 against the simulator with controllers and two simulated nodes: `kubectl get` prints the real
// server-side columns (pods, deployments -o wide, nodes, jobs, -A, get -w). Runs only where kubectl is on PATH.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import yaml from 'js-yaml';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const skip = probe.error ? `kubectl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : false;

const NS = 'printing';
let sim: RunningSimulator;
let dir: string;
let kubeconfig: string;

function env(): NodeJS.ProcessEnv {
  // A private HOME and kubeconfig: nothing of the user's ~/.kube is read or written.
  return { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig };
}

function kubectl(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: env(), timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl ${args.join(' ')} failed: ${err.message}\nstdout: ${stdout}\nstderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

async function api(method: 'GET' | 'POST' | 'PATCH', path: string, body?: object, contentType = 'application/json'): Promise<{ status: number; body: any }> {
  const res = await request(sim.url + path, { method, headers: body ? { 'content-type': contentType } : {}, body: body ? JSON.stringify(body) : undefined });
  return { status: res.statusCode, body: await res.body.json() };
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Splits kubectl's table output into the header words and rows of cells (columns are 2+ spaces apart). */
function parse(out: string): { header: string[]; rows: string[][] } {
  const lines = out.trimEnd().split('\n');
  const split = (l: string) => l.trim().split(/\s{2,}/);
  return { header: split(lines[0]), rows: lines.slice(1).map(split) };
}

const AGE = /^\d+s$/;

describe('kubectl get prints the server-side columns', { skip }, () => {
  before(async () => {
    sim = await startSimulator({ controllers: true, nodes: 2 });
    dir = mkdtempSync(join(tmpdir(), 'kubectl-table-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      yaml.dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'sim', cluster: { server: sim.url } }],
        users: [{ name: 'anonymous', user: {} }],
        contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'anonymous', namespace: NS } }],
        'current-context': 'sim',
      }),
    );
    assert.equal((await api('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
    const labels = { app: 'web' };
    const deployment = { metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.13' }] } } } };
    assert.equal((await api('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment)).status, 201);
    const job = { metadata: { name: 'pi' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5' }] } } } };
    assert.equal((await api('POST', `/apis/batch/v1/namespaces/${NS}/jobs`, job)).status, 201);
    await until('the deployment to have 2 available replicas', async () => (await api('GET', `/apis/apps/v1/namespaces/${NS}/deployments/web`)).body.status?.availableReplicas === 2);
    await until('the job to complete', async () => (await api('GET', `/apis/batch/v1/namespaces/${NS}/jobs/pi`)).body.status?.succeeded === 1);
  });
  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('get pods: NAME READY STATUS RESTARTS AGE', async () => {
    const { header, rows } = parse(await kubectl('get', 'pods'));
    assert.deepEqual(header, ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const web = rows.filter((r) => r[0].startsWith('web-'));
    assert.equal(web.length, 2, JSON.stringify(rows));
    for (const r of web) {
      assert.deepEqual(r.slice(1, 4), ['1/1', 'Running', '0']);
      assert.match(r[4], AGE);
    }
    const pi = rows.find((r) => r[0].startsWith('pi-'));
    assert.deepEqual(pi?.slice(1, 4), ['0/1', 'Completed', '0']);
  });

  test('get pods -o wide -A: NAMESPACE first, then IP and NODE', async () => {
    const { header, rows } = parse(await kubectl('get', 'pods', '-o', 'wide', '-A'));
    assert.deepEqual(header, ['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    const web = rows.filter((r) => r[1].startsWith('web-'));
    assert.equal(web.length, 2);
    for (const r of web) {
      assert.equal(r[0], NS);
      assert.match(r[6], /^\d+\.\d+\.\d+\.\d+$/);
      assert.match(r[7], /^\S+$/);
      assert.notEqual(r[7], '<none>');
    }
  });

  test('get deploy -o wide: NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR', async () => {
    const { header, rows } = parse(await kubectl('get', 'deploy', '-o', 'wide'));
    assert.deepEqual(header, ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.equal(rows.length, 1);
    const [name, ready, upToDate, available, age, containers, images, selector] = rows[0];
    assert.deepEqual([name, ready, upToDate, available, containers, images, selector], ['web', '2/2', '2', '2', 'nginx', 'nginx:1.13', 'app=web']);
    assert.match(age, AGE);
  });

  test('get rs: NAME DESIRED CURRENT READY AGE', async () => {
    const { header, rows } = parse(await kubectl('get', 'rs'));
    assert.deepEqual(header, ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    assert.deepEqual(rows[0].slice(1, 4), ['2', '2', '2']);
  });

  test('get nodes: NAME STATUS ROLES AGE VERSION', async () => {
    const { header, rows } = parse(await kubectl('get', 'nodes'));
    assert.deepEqual(header, ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.deepEqual(r.slice(1, 3), ['Ready', '<none>']);
      assert.match(r[3], AGE);
      assert.match(r[4], /^v\d+\.\d+\.\d+/);
    }
  });

  test('get jobs: NAME COMPLETIONS DURATION AGE', async () => {
    const { header, rows } = parse(await kubectl('get', 'jobs'));
    assert.deepEqual(header, ['NAME', 'COMPLETIONS', 'DURATION', 'AGE']);
    assert.deepEqual(rows[0].slice(0, 2), ['pi', '1/1']);
    assert.match(rows[0][2], AGE);
    assert.match(rows[0][3], AGE);
  });

  test('get ns, sa, ep: their own columns', async () => {
    assert.deepEqual(parse(await kubectl('get', 'ns')).header, ['NAME', 'STATUS', 'AGE']);
    assert.ok(parse(await kubectl('get', 'ns')).rows.some((r) => r[0] === NS && r[1] === 'Active'), "parse(await kubectl('get', 'ns')).rows.some((r) => r[0] === NS && r[1] === 'Active')");
    assert.deepEqual(parse(await kubectl('get', 'sa')).header, ['NAME', 'SECRETS', 'AGE']);
    assert.equal((await api('POST', `/api/v1/namespaces/${NS}/services`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } })).status, 201);
    assert.deepEqual(parse(await kubectl('get', 'svc')).header, ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    await until('endpoints of the service', async () => ((await api('GET', `/api/v1/namespaces/${NS}/endpoints/web`)).body.subsets ?? []).length > 0);
    const ep = parse(await kubectl('get', 'ep'));
    assert.deepEqual(ep.header, ['NAME', 'ENDPOINTS', 'AGE']);
    assert.match(ep.rows[0][1], /^\d+\.\d+\.\d+\.\d+:80,\d+\.\d+\.\d+\.\d+:80$/);
  });

  test('get pods -w prints rows as they come', async () => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfig, 'get', 'pods', '-w'], { env: env() });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const seen = (pattern: RegExp) => until(`${pattern} in kubectl get -w output; stdout: ${out}; stderr: ${err}`, async () => pattern.test(out), 20_000);
    try {
      await seen(/^pi-\S+\s+0\/1\s+Completed\s+0\s+\d+s$/m); // the list is printed: the watch is next
      const before = new Set(parse(out).rows.map((r) => r[0]));
      assert.equal(parse(out).header.join(' '), 'NAME READY STATUS RESTARTS AGE');
      const scaled = await api('PATCH', `/apis/apps/v1/namespaces/${NS}/deployments/web`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
      assert.equal(scaled.status, 200);
      await until(`a new pod running in kubectl get -w output; stdout: ${out}; stderr: ${err}`, async () => parse(out).rows.some((r) => !before.has(r[0]) && r[0].startsWith('web-') && r[1] === '1/1' && r[2] === 'Running'), 20_000);
      // One header only: watch events carry rows, not new headers.
      assert.equal(out.split('\n').filter((l) => l.startsWith('NAME')).length, 1);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
