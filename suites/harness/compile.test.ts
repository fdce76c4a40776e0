// compile.ts: TypeScript entries become plain JavaScript node runs without tsx, each source file keeping its own
// import.meta.url (paths computed from it hold), late imports staying late; tsx's loader options dropped for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileEntries, withoutTsx } from './compile.ts';

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

test('withoutTsx drops tsx\'s loader options and keeps the others', () => {
  assert.deepEqual(
    withoutTsx(['--require', '/x/node_modules/tsx/dist/preflight.cjs', '--import', 'file:///x/node_modules/tsx/dist/loader.mjs', '--cpu-prof', '--import=tsx', '--import', './other.mjs']),
    ['--cpu-prof', '--import', './other.mjs'],
  );
  assert.deepEqual(withoutTsx(['--import', 'tsx']), []);
});
