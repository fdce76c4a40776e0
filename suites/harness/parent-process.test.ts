import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * In a fresh process (this one runs tests: its harness is set up already), whether an async hook with a destroy
 * callback is enabled after node:test's run(), and after a hook of the process's own; node's own bookkeeping says.
 */
function destroyHooks(patch: boolean): { afterRun: boolean; afterOwn: boolean } {
  const script = [
    `import { createRequire } from 'node:module';`,
    patch ? `import { runNoTestsInProcess } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'parent-process.ts')).href)}; runNoTestsInProcess();` : '',
    `const internal = createRequire(import.meta.url)('internal/async_hooks');`,
    `const { run } = await import('node:test');`,
    `const { createHook } = await import('node:async_hooks');`,
    `run({ files: [] });`,
    `const afterRun = internal.destroyHooksExist();`,
    `createHook({ destroy() {} }).enable();`,
    `process.stdout.write(JSON.stringify({ afterRun, afterOwn: internal.destroyHooksExist() }));`,
  ].join('\n');
  const out = spawnSync(process.execPath, ['--expose-internals', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as { afterRun: boolean; afterOwn: boolean };
}

test('node:test run() leaves an async hook with destroy tracking in its process: the cost this module removes', () => {
  assert.deepEqual(destroyHooks(false), { afterRun: true, afterOwn: true });
});

test('after runNoTestsInProcess, run() enables no destroy tracking; a hook of the process\'s own still works', () => {
  assert.deepEqual(destroyHooks(true), { afterRun: false, afterOwn: true });
});
