// The catalog file of a build (what the compiled `npx tsx suites` selects checks from) lists exactly the checks the
// suite files declare, with the same definitions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CATALOG_FILE, loadCatalog } from './catalog.ts';
import { compileSuites } from './engine.ts';

test('the build\'s catalog file holds every check of the suite files, as declared', async () => {
  const compiled = await compileSuites();
  assert.ok(compiled, 'built');
  // Written as compileSuites does in the background, here in the foreground.
  const script = `const m = await import(${JSON.stringify(pathToFileURL(compiled['suites-cli']).href)}); await m.writeCatalogFile(${JSON.stringify(compiled)});`;
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  delete env.CONFORMANCE_RUN_CONTEXT;
  const wrote = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env, timeout: 120_000 });
  assert.equal(wrote.status, 0, wrote.stderr);
  const fromFile = JSON.parse(readFileSync(join(dirname(compiled['suites-cli']), CATALOG_FILE), 'utf8')) as unknown[];
  const fromSources = (await loadCatalog()).checks.map(({ fn: _fn, ...definition }) => JSON.parse(JSON.stringify(definition)) as unknown);
  assert.ok(fromSources.length > 200, `${fromSources.length} checks`);
  assert.deepEqual(fromFile, fromSources);
});
