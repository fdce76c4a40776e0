// The package as another project gets it: `npm pack` (which runs `prepare`, the build), then one throwaway project
// that installs the tarball from the npm cache alone and holds the three consumers: the README's node:test example
// as an ES module and as CommonJS (each starts a simulator through the test helper, creates a Deployment and waits
// until it is Available), a TypeScript file checked with `tsc --noEmit` against the declarations (ESM and CommonJS
// resolution), `npx cluster-simulator --version` and `npx cluster-conformance --help`, and the test helper under
// Vitest and Jest themselves (`npx vitest run`, `npx jest`; installed beside it from this repository's lock).
//
// Offline: `npm install --offline <tarball>` cannot work here, because `npm ci` fills the cache with the
// dependencies' tarballs but not with the registry's metadata documents that resolving a version range needs. The
// project therefore gets a package-lock.json made from this repository's own (the package's production
// dependencies at the versions and integrity hashes locked here, and typescript for the type check), and
// `npm ci --offline` installs it from the cache without a single request.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

interface LockEntry {
  version?: string;
  dev?: boolean;
  [k: string]: unknown;
}

/** The README's example (the js block after the marker), as the ES module consumer runs it. */
export function readmeExample(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const m = /<!-- checked by lib\/package\.test\.ts -->\s*```js\n([\s\S]*?)```/.exec(readme);
  assert.ok(m, 'README.md has the checked example');
  return m[1];
}

/** The same test file in CommonJS: the import lines as require calls. */
export function asCommonJs(esm: string): string {
  return esm.replace(/^import (\w+|\{[^}]*\}) from '([^']+)';$/gm, (_, names: string, from: string) => `const ${names.replace(/ as /g, ': ')} = require('${from}');`);
}

const TYPE_CHECK_ESM = `import { startSimulator, SimulatorOptionError, SimulatorStartError, type Simulator, type SimulatorOptions } from 'cluster-api-conformance';
import { useSimulator, deploymentAvailable, WaitTimeoutError, type KubeObject } from 'cluster-api-conformance/testing';
import { runConformance } from 'cluster-api-conformance/suites';
const options: SimulatorOptions = { nodes: 1, load: ['manifests/'], kubeconfigOut: 'kubeconfig', snapshotSave: 's.json' };
export async function check(): Promise<string> {
  const sim: Simulator = await startSimulator(options);
  await sim.stop();
  const fixture = useSimulator({ before: () => 0, after: () => 0, beforeEach: () => 0, afterEach: () => 0 }, { noControllers: true });
  const web: KubeObject = await fixture.waitFor('/apis/apps/v1/namespaces/x/deployments/web', deploymentAvailable, { timeoutMs: 1000 });
  const code: number = (await runConformance(['--list'], { output: 'pipe' })).exitCode;
  const errors: Error[] = [new SimulatorOptionError('--port', 'x'), new SimulatorStartError('x'), new WaitTimeoutError('x', undefined)];
  // @ts-expect-error: not an option
  await startSimulator({ prot: 1 });
  return sim.kubeconfig + sim.kubeconfigPath + String(web.metadata.name) + code + errors.length;
}
`;

const TYPE_CHECK_CJS = `import { startSimulator, type Simulator } from 'cluster-api-conformance';
import { useSimulator } from 'cluster-api-conformance/testing';
export async function check(): Promise<string> {
  const sim: Simulator = await startSimulator({ noControllers: true, nodes: 0 });
  useSimulator({ beforeAll: () => 0, afterAll: () => 0, beforeEach: () => 0, afterEach: () => 0 });
  await sim.stop();
  return sim.url;
}
`;

/**
 * The lock paths of packages and everything they depend on, resolved as node does from each package's folder up
 * (`node_modules/a/node_modules/b`, then `node_modules/b`); optional and peer dependencies the lock holds count too.
 */
function closureOf(packages: Record<string, LockEntry>, names: string[]): Set<string> {
  const found = new Set<string>();
  const visit = (path: string) => {
    if (found.has(path) || !packages[path]) return;
    found.add(path);
    const e = packages[path] as LockEntry & Record<'dependencies' | 'optionalDependencies' | 'peerDependencies', Record<string, string> | undefined>;
    for (const dep of Object.keys({ ...e.dependencies, ...e.optionalDependencies, ...e.peerDependencies })) {
      for (let base = path; ; base = base.slice(0, base.lastIndexOf('/node_modules/'))) {
        const candidate = `${base}/node_modules/${dep}`;
        if (packages[candidate]) {
          visit(candidate);
          break;
        }
        if (!base.includes('/node_modules/')) {
          visit(`node_modules/${dep}`);
          break;
        }
      }
    }
  };
  for (const name of names) visit(`node_modules/${name}`);
  return found;
}

/**
 * The same helper under Vitest and under Jest, as a user writes it for each: a Deployment made Available (waited
 * for from before it exists), a WaitTimeoutError, a KubeApiError's code and reason, a fresh namespace per test, a
 * test that fails on purpose (after writing down its simulator's URL, client config and namespace to RECORD), and
 * a later test that finds the failed test's namespace deleted. The runner must report 2 passed and 1 failed, end
 * on its own, and leave no simulator answering and no client config behind.
 */
function runnerExample(runner: 'vitest' | 'jest'): string {
  const head =
    runner === 'vitest'
      ? `import { beforeAll, afterAll, beforeEach, afterEach, test, expect } from 'vitest';
import { writeFileSync } from 'node:fs';
import { useSimulator, deploymentAvailable, KubeApiError, WaitTimeoutError } from 'cluster-api-conformance/testing';

const sim = useSimulator({ beforeAll, afterAll, beforeEach, afterEach });`
      : `const { writeFileSync } = require('node:fs');
const { useSimulator, deploymentAvailable, KubeApiError, WaitTimeoutError } = require('cluster-api-conformance/testing');

const sim = useSimulator({ beforeAll, afterAll, beforeEach, afterEach });`;
  return `${head}
const seen = [];

test('a Deployment becomes Available', async () => {
  seen.push(sim.namespace);
  const deployments = \`/apis/apps/v1/namespaces/\${sim.namespace}/deployments\`;
  // Waiting starts before the Deployment exists: waitFor follows a watch until it is there and Available.
  const available = sim.waitFor(\`\${deployments}/web\`, deploymentAvailable);
  await sim.client.create(deployments, {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.13' }] } } },
  });
  const web = await available;
  expect(web.status.availableReplicas).toBe(2);
  await expect(sim.waitFor(\`\${deployments}/web\`, () => false, { timeoutMs: 300 })).rejects.toBeInstanceOf(WaitTimeoutError);
  await expect(sim.client.get(\`\${deployments}/missing\`)).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
}, 60000);

test('fails on purpose', () => {
  seen.push(sim.namespace);
  writeFileSync(process.env.RECORD, JSON.stringify({ url: sim.url, kubeconfigPath: sim.kubeconfigPath, namespace: sim.namespace }));
  expect('deliberately failing').toBe('passing');
});

test("the failed test's namespace is deleted, and this one is new", async () => {
  expect(new Set([...seen, sim.namespace]).size).toBe(3);
  const old = await sim.client.get(\`/api/v1/namespaces/\${seen[1]}\`).catch((e) => e);
  expect(String(old instanceof KubeApiError ? old.code : old.status.phase)).toMatch(/^(404|Terminating)$/);
}, 60000);
`;
}

/**
 * This repository's lock records no `resolved` URLs; without one, npm asks for the package's registry document to
 * find the tarball, and the cache may hold that document only in a form npm does not reuse offline. The tarball's
 * registry URL (which the cache is keyed by) is derived from the name and version instead.
 */
function registryTarball(path: string, entry: LockEntry): { resolved?: string } {
  if (entry.resolved || entry.link || !entry.version || !entry.integrity) return {};
  const name = (entry.name as string | undefined) ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return { resolved: `https://registry.npmjs.org/${name}/-/${name.slice(name.indexOf('/') + 1)}-${entry.version}.tgz` };
}

/** A lockfile for `project` that pins the tarball and the dependencies exactly as this repository's lock does. */
function consumerLock(tarball: string, extraDev: string[]): { pkg: object; lock: object } {
  const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Record<string, unknown>;
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const spec = `file:${tarball}`;
  const dependencies: Record<string, string> = { 'cluster-api-conformance': spec };
  for (const name of extraDev) dependencies[name] = lock.packages[`node_modules/${name}`].version!;
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', version: '1.0.0', dependencies },
    'node_modules/cluster-api-conformance': {
      version: own.version as string,
      resolved: spec,
      integrity,
      license: own.license,
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  const wanted = closureOf(lock.packages, extraDev);
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    if (entry.dev && !wanted.has(path)) continue;
    const { dev: _dev, ...rest } = entry;
    packages[path] = { ...rest, ...registryTarball(path, rest) };
  }
  return {
    pkg: { name: 'consumer', version: '1.0.0', private: true, dependencies },
    lock: { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages },
  };
}

test('the packed package installs offline and works from ES modules, CommonJS, TypeScript and npx', { timeout: 400_000 }, async (t) => {
  const work = mkdtempSync(join(tmpdir(), 'cluster-package-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // `npm pack` runs prepare (scripts/build-package.mjs) first, as for a git install.
  const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], { cwd: REPO, maxBuffer: 64 << 20 });
  const files = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const tarball = join(work, files[0].filename);
  const shipped = new Set(files[0].files.map((f) => f.path));
  for (const f of ['dist/index.mjs', 'dist/index.cjs', 'dist/index.d.mts', 'dist/index.d.cts', 'dist/testing.mjs', 'dist/cluster-simulator.cjs', 'dist/simulator-clients-worker.cjs', 'bin/cluster-simulator.mjs'])
    assert.ok(shipped.has(f), `${f} is in the tarball`);
  assert.ok(![...shipped].some((f) => f.endsWith('.test.ts')), 'no test file is shipped');

  const project = join(work, 'consumer');
  const { pkg, lock } = consumerLock(tarball, ['typescript', 'vitest', 'jest']);
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
  // --offline: any request that the cache cannot answer fails the install (and this test).
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: project, maxBuffer: 64 << 20 });
  assert.deepEqual(readdirSync(join(project, 'node_modules', '.bin')).filter((b) => b.startsWith('cluster-')).sort(), ['cluster-conformance', 'cluster-simulator']);

  const example = readmeExample();
  writeFileSync(join(project, 'web.test.mjs'), example);
  writeFileSync(join(project, 'web.test.cjs'), asCommonJs(example));
  writeFileSync(join(project, 'web.vitest.test.mjs'), runnerExample('vitest'));
  writeFileSync(join(project, 'web.jest.test.cjs'), runnerExample('jest'));
  writeFileSync(join(project, 'check.mts'), TYPE_CHECK_ESM);
  writeFileSync(join(project, 'check.cts'), TYPE_CHECK_CJS);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: [], skipLibCheck: false }, files: ['check.mts', 'check.cts'] }),
  );
  // Not this runner's tsx, nor its test context (a child `node --test` would report in the runner's binary form).
  const { NODE_TEST_CONTEXT: _context, ...outer } = process.env;
  const env = { ...outer, NODE_OPTIONS: '' };
  const [tests, types, version] = await Promise.all([
    run(process.execPath, ['--test', '--test-reporter=tap', '--test-concurrency=1', 'web.test.mjs', 'web.test.cjs'], { cwd: project, env }).catch((e: { stdout?: string; stderr?: string }) => {
      throw new Error(`the example's tests failed:\n${e.stdout}\n${e.stderr}`);
    }),
    run('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: project, env }).catch((e: { stdout?: string }) => {
      throw new Error(`tsc --noEmit against the declarations failed:\n${e.stdout}`);
    }),
    run('npx', ['--offline', 'cluster-simulator', '--version'], { cwd: project, env }),
  ]);
  assert.match(tests.stdout, /# pass 2\n/);
  assert.match(tests.stdout, /# fail 0\n/);
  assert.equal(types.stdout, '');
  const own = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout, `cluster-simulator ${own.version} (Kubernetes API v1.9.0, simulated)\n`);
  const help = await run('npx', ['--offline', 'cluster-conformance', '--help'], { cwd: project, env });
  assert.match(help.stdout, /^Usage: npx cluster-conformance \[options\]/m, help.stdout);
  assert.match(help.stdout, /--target URL/);

  // The helper under the real runners, one after the other (each starts a simulator).
  const runners: Array<[string, string[]]> = [
    ['vitest', ['--offline', 'vitest', 'run', '--dir', '.', 'web.vitest.test.mjs']],
    ['jest', ['--offline', 'jest', '--ci', '--config', JSON.stringify({ testMatch: ['**/web.jest.test.cjs'], transform: {} })]],
  ];
  for (const [runner, args] of runners) {
    const record = join(work, `${runner}.json`);
    const r = await run('npx', args, { cwd: project, env: { ...env, RECORD: record, CI: '1', NO_COLOR: '1' }, timeout: 180_000 }).then(
      () => assert.fail(`${runner} passed a run with a failing test`),
      (e: { code?: number; stdout?: string; stderr?: string }) => e,
    );
    const out = `${r.stdout}\n${r.stderr}`;
    assert.equal(r.code, 1, `${runner} exits 1:\n${out}`);
    assert.match(out, /Tests:?\s+1 failed.*2 passed/, `${runner}: 2 passed, 1 failed:\n${out}`);
    assert.match(out, /deliberately failing/);
    assert.doesNotMatch(out, /did not exit|something prevents|close timed out|hanging/i, `${runner} ended on its own`);
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { url: string; kubeconfigPath: string };
    assert.equal(existsSync(seen.kubeconfigPath), false, `${runner}: the client config is gone`);
    await assert.rejects(fetch(`${seen.url}/healthz`), `${runner}: the simulator no longer answers`);
  }
});
