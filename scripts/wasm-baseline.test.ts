import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The smallest module with an exported function: (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
const ADD = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01,
  0x03, 0x61, 0x64, 0x64, 0x00, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b,
];
const MODULE = pathToFileURL(join(import.meta.dirname, 'wasm-baseline.mjs')).href;
const SOURCE = 'function f(x) { return x * 2 } f(21)';

/** Runs an ES module text in a fresh plain node (no flags of this test process), returning what it printed. */
function inFreshNode(lines: string[]): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', lines.join('\n')], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
}

/** Lines that make a code cache of SOURCE in `file`, or say whether the cache in `file` was refused. */
const makeCache = (file: string) => [`{ const s = new Script(${JSON.stringify(SOURCE)}, { filename: 'c.js' }); s.runInThisContext(); writeFileSync(${JSON.stringify(file)}, s.createCachedData()); }`];
const refused = (file: string) => [`process.stdout.write(String(new Script(${JSON.stringify(SOURCE)}, { filename: 'c.js', cachedData: readFileSync(${JSON.stringify(file)}) }).cachedDataRejected));`];
const HEAD = [`import { useBaselineWasmCompiler, codeCacheTag } from ${JSON.stringify(MODULE)};`, `import { Script } from 'node:vm';`, `import { readFileSync, writeFileSync } from 'node:fs';`];

test('after it, WebAssembly modules compile and run, and the code cache name carries the flags', () => {
  const out = inFreshNode([
    ...HEAD,
    `const before = codeCacheTag(); useBaselineWasmCompiler(); useBaselineWasmCompiler();`,
    `const mod = new WebAssembly.Module(new Uint8Array(${JSON.stringify(ADD)}));`,
    `process.stdout.write(JSON.stringify([before, codeCacheTag(), new WebAssembly.Instance(mod).exports.add(2, 40), WebAssembly.Module.exports(mod)]));`,
  ]);
  assert.deepEqual(JSON.parse(out), ['', '-liftoff-only', 42, [{ name: 'add', kind: 'function' }]]);
});

test('V8 refuses the code cache of a process without the flags, and takes that of another process with them: hence the tag', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-baseline-'));
  try {
    const plain = join(dir, 'plain.bin');
    const flagged = join(dir, 'flagged.bin');
    inFreshNode([...HEAD, ...makeCache(plain)]);
    inFreshNode([...HEAD, 'useBaselineWasmCompiler();', ...makeCache(flagged)]);
    assert.equal(inFreshNode([...HEAD, 'useBaselineWasmCompiler();', ...refused(plain)]), 'true', 'a plain cache was taken under the flags: the tag is not needed');
    assert.equal(inFreshNode([...HEAD, 'useBaselineWasmCompiler();', ...refused(flagged)]), 'false', 'the cache of another flagged process was refused');
    assert.equal(inFreshNode([...HEAD, ...refused(plain)]), 'false', 'a plain process refused a plain cache');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
