// The package as another project gets it: `npm pack` (which runs `prepare`, the build), then one throwaway project
// that installs the tarball from the npm cache alone and holds the three consumers: the README's node:test example
// as an ES module and as CommonJS (each starts a simulator through the test helper, creates a Deployment and waits
// until it is Available), a TypeScript file checked with `tsc --noEmit` against the declarations (ESM and CommonJS
// resolution), and `npx cluster-simulator --version`.
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
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '') continue;
    const topName = path.startsWith('node_modules/') && path.lastIndexOf('node_modules/') === 0 ? path.slice('node_modules/'.length) : undefined;
    if (entry.dev && !(topName && extraDev.includes(topName))) continue;
    const { dev: _dev, ...rest } = entry;
    packages[path] = rest;
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
  for (const f of ['dist/index.mjs', 'dist/index.cjs', 'dist/index.d.mts', 'dist/index.d.cts', 'dist/testing.mjs', 'dist/cluster-simulator.mjs', 'bin/cluster-simulator.mjs'])
    assert.ok(shipped.has(f), `${f} is in the tarball`);
  assert.ok(![...shipped].some((f) => f.endsWith('.test.ts')), 'no test file is shipped');

  const project = join(work, 'consumer');
  const { pkg, lock } = consumerLock(tarball, ['typescript']);
  await run('mkdir', ['-p', project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify(pkg, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
  // --offline: any request that the cache cannot answer fails the install (and this test).
  await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: project, maxBuffer: 64 << 20 });
  assert.deepEqual(readdirSync(join(project, 'node_modules', '.bin')).filter((b) => b.startsWith('cluster-')).sort(), ['cluster-conformance', 'cluster-simulator']);

  const example = readmeExample();
  writeFileSync(join(project, 'web.test.mjs'), example);
  writeFileSync(join(project, 'web.test.cjs'), asCommonJs(example));
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
});
