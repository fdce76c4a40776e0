// compile.ts: TypeScript entries become plain JavaScript node runs without tsx, each source file keeping its own
// import.meta.url (paths computed from it hold), late imports staying late; tsx's loader options dropped for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { commonJsFileOf, compileEntries, currentBuild, REPO_ROOT, withoutTsx } from './compile.ts';
import { chunkLoader, codeCacheFileOf } from '../../simulator/compiled.ts';
import { codeCacheTag } from '../../scripts/wasm-baseline.mjs';

test('compiled entries run under plain node with their sources\' import.meta.url and lazy imports', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compile-test-'));
  try {
    writeFileSync(join(dir, 'late.ts'), "export const late: string = 'late module';\n");
    writeFileSync(join(dir, 'place.ts'), "export const place: string = new URL('.', import.meta.url).pathname;\n");
    writeFileSync(
      join(dir, 'main.ts'),
      "import { place } from './place.ts';\nconst n: number = 2;\nif (process.argv[2] === 'late') console.log((await import('./late.ts')).late);\nconsole.log(place, n);\n",
    );
    const out = await compileEntries('compile-test', { main: join(dir, 'main.ts') });
    assert.ok(out?.main, 'compiled');
    const early = spawnSync(process.execPath, [out.main], { encoding: 'utf8' });
    assert.equal(early.status, 0, early.stderr);
    assert.equal(early.stdout.trim(), `${dir}/ 2`, 'import.meta.url of place.ts is its own');
    const late = spawnSync(process.execPath, [out.main, 'late'], { encoding: 'utf8' });
    assert.equal(late.stdout.split('\n')[0], 'late module', late.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a build is used again while its sources are unchanged, never after one changed; its text holds no import(', async () => {
  // Inside the checkout (outside node_modules), so that the manifest's inputs are this test's sources.
  const dir = mkdtempSync(join(REPO_ROOT, 'suites', 'harness', '.compile-manifest-test-'));
  try {
    writeFileSync(join(dir, 'late.ts'), "export const late: string = 'late';\n");
    writeFileSync(join(dir, 'main.ts'), "const m = await import('./late.ts');\nconsole.log(m.late);\n");
    const entries = { main: join(dir, 'main.ts') };
    // The manifest leaves out files modified within a second of the build's start (they may have changed during it).
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(currentBuild('compile-manifest-test', entries), undefined, 'nothing built yet');
    const first = await compileEntries('compile-manifest-test', entries);
    assert.ok(first?.main, 'compiled');
    assert.deepEqual(currentBuild('compile-manifest-test', entries), first, 'the build is current');
    assert.deepEqual(await compileEntries('compile-manifest-test', entries), first);
    for (const name of readdirSync(dirname(first.main)).filter((n) => !n.startsWith('__compiled-import'))) {
      assert.doesNotMatch(readFileSync(join(dirname(first.main), name), 'utf8'), /import\(/, `${name} holds import(`);
    }
    const ran = spawnSync(process.execPath, [first.main], { encoding: 'utf8' });
    assert.equal(ran.stdout.trim(), 'late', ran.stderr);
    writeFileSync(join(dir, 'late.ts'), "export const late: string = 'changed';\n");
    assert.equal(currentBuild('compile-manifest-test', entries), undefined, 'a changed source makes the build stale');
    const second = await compileEntries('compile-manifest-test', entries);
    assert.notEqual(second?.main, first.main);
    assert.equal(spawnSync(process.execPath, [second!.main], { encoding: 'utf8' }).stdout.trim(), 'changed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a build made by the compiled command (this file inside a bundle) loads late modules as one made from the sources', async () => {
  const dir = mkdtempSync(join(REPO_ROOT, 'suites', 'harness', '.compile-bundled-test-'));
  try {
    writeFileSync(join(dir, 'late.ts'), "export const late: string = 'late from a bundled build';\n");
    writeFileSync(join(dir, 'main.ts'), "console.log((await import('./late.ts')).late);\n");
    // A builder whose compile.ts is compiled too, as in the suites' compiled command.
    writeFileSync(
      join(dir, 'builder.ts'),
      `import { compileEntries } from ${JSON.stringify(join(REPO_ROOT, 'suites', 'harness', 'compile.ts'))};\nconst out = await compileEntries('compile-bundled-test', { main: ${JSON.stringify(join(dir, 'main.ts'))} });\nconsole.log(out?.main);\n`,
    );
    const builder = await compileEntries('compile-bundled-test-builder', { builder: join(dir, 'builder.ts') });
    assert.ok(builder?.builder, 'the builder compiled');
    const built = spawnSync(process.execPath, [builder.builder], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(built.status, 0, built.stderr);
    const ran = spawnSync(process.execPath, [built.stdout.trim()], { encoding: 'utf8' });
    assert.equal(ran.stdout.trim(), 'late from a bundled build', ran.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('withoutTsx drops tsx\'s loader options and keeps the others', () => {
  assert.deepEqual(
    withoutTsx(['--require', '/x/node_modules/tsx/dist/preflight.cjs', '--import', 'file:///x/node_modules/tsx/dist/loader.mjs', '--cpu-prof', '--import=tsx', '--import', './other.mjs']),
    ['--cpu-prof', '--import', './other.mjs'],
  );
  assert.deepEqual(withoutTsx(['--import', 'tsx']), []);
});

test('a build holds its chunks as CommonJS function bodies too, which the chunk loader runs with their lazy imports; not when one has a top-level await', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compile-commonjs-test-'));
  try {
    writeFileSync(join(dir, 'late.ts'), "export const late: string = 'late module';\n");
    writeFileSync(join(dir, 'place.ts'), "export const place: string = new URL('.', import.meta.url).pathname;\n");
    writeFileSync(join(dir, 'main.ts'), "import { place } from './place.ts';\nexport { place };\nexport async function late(): Promise<string> {\n  return (await import('./late.ts')).late;\n}\n");
    const out = await compileEntries('compile-commonjs-test', { main: join(dir, 'main.ts') }, undefined, { commonJs: true });
    assert.ok(out?.main, 'compiled');
    const file = commonJsFileOf(out.main);
    assert.doesNotMatch(readFileSync(file, 'latin1'), /^\s*(import|export)\s/m, 'no ES module syntax');
    const main = chunkLoader(dirname(file)).load(file) as { place: string; late(): Promise<string> };
    assert.equal(main.place, `${dir}/`, 'place.ts keeps its own import.meta.url');
    assert.equal(await main.late(), 'late module');

    writeFileSync(join(dir, 'top.ts'), "const m = await import('./late.ts');\nconsole.log(m.late);\n");
    const top = await compileEntries('compile-commonjs-test', { top: join(dir, 'top.ts') }, undefined, { commonJs: true });
    assert.ok(top?.top, 'compiled');
    assert.equal(readdirSync(dirname(top.top)).includes('commonjs'), false, 'a top-level await: the ES modules only');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a chunk\'s import() of a module outside the build works in every run, also from the code cache an earlier process wrote', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'compile-commonjs-import-test-'));
  try {
    // node:os stays outside the bundle, so its import() is node's, not a chunk's.
    writeFileSync(join(dir, 'main.ts'), "export async function cores(): Promise<string> {\n  const os = await import('node:os');\n  return typeof os.availableParallelism;\n}\n");
    const out = await compileEntries('compile-commonjs-import-test', { main: join(dir, 'main.ts') }, undefined, { commonJs: true });
    assert.ok(out?.main, 'compiled');
    const file = commonJsFileOf(out.main);
    const loader = pathToFileURL(join(REPO_ROOT, 'scripts', 'commonjs-chunks.mjs')).href;
    // Plain node, as a check process runs it; the first run writes the code cache when it exits, the second uses it.
    // Under this process's V8 flags (scripts/wasm-baseline.mjs), whose code cache file this process looks for.
    const flags = codeCacheTag() ? `import { useBaselineWasmCompiler } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'scripts', 'wasm-baseline.mjs')).href)};\nuseBaselineWasmCompiler();\n` : '';
    const script = `${flags}import { chunkLoader } from ${JSON.stringify(loader)};\nconsole.log(await chunkLoader(${JSON.stringify(dirname(file))}).load(${JSON.stringify(file)}).cores());\n`;
    for (const run of ['first', 'from the code cache']) {
      const ran = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      assert.equal(ran.stdout.trim(), 'function', `${run} run: ${ran.stderr}`);
      assert.ok(existsSync(codeCacheFileOf(file)), `${run} run: the code cache is written`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
