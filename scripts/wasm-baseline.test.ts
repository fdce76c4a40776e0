import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { useBaselineWasmCompiler } from './wasm-baseline.mjs';

// The smallest module with an exported function: (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
const ADD = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x07, 0x01,
  0x03, 0x61, 0x64, 0x64, 0x00, 0x00, 0x0a, 0x09, 0x01, 0x07, 0x00, 0x20, 0x00, 0x20, 0x01, 0x6a, 0x0b,
]);

test('modules compiled after it are real WebAssembly modules that run, and the module constructor keeps its statics', () => {
  useBaselineWasmCompiler();
  useBaselineWasmCompiler(); // idempotent: one wrapper
  const mod = new WebAssembly.Module(ADD);
  assert.ok(mod instanceof WebAssembly.Module, 'not a WebAssembly.Module');
  assert.deepEqual(WebAssembly.Module.exports(mod), [{ name: 'add', kind: 'function' }]);
  const add = new WebAssembly.Instance(mod).exports.add as (a: number, b: number) => number;
  assert.equal(add(2, 40), 42);
});

test('no V8 flag is left set after a compile: a code cache another process made is still accepted (V8 keys caches by flags)', () => {
  // Fresh processes: V8 computes the hash of its flags once, when a cache is first checked, so the check must be the
  // first thing a process does after the compile.
  const dir = mkdtempSync(join(tmpdir(), 'wasm-baseline-'));
  try {
    const cacheFile = join(dir, 'cache.bin');
    const source = 'function f(x) { return x * 2 } f(21)';
    const make = `const { Script } = require('node:vm'); const s = new Script(${JSON.stringify(source)}, { filename: 'c.js' }); s.runInThisContext(); require('node:fs').writeFileSync(${JSON.stringify(cacheFile)}, s.createCachedData());`;
    execFileSync(process.execPath, ['-e', make]);
    const use = [
      `import { useBaselineWasmCompiler } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'wasm-baseline.mjs')).href)};`,
      `import { Script } from 'node:vm'; import { readFileSync } from 'node:fs';`,
      `useBaselineWasmCompiler(); new WebAssembly.Module(new Uint8Array(${JSON.stringify([...ADD])}));`,
      `const s = new Script(${JSON.stringify(source)}, { filename: 'c.js', cachedData: readFileSync(${JSON.stringify(cacheFile)}) });`,
      `process.stdout.write(String(s.cachedDataRejected));`,
    ].join('\n');
    const rejected = execFileSync(process.execPath, ['--input-type=module', '-e', use], { encoding: 'utf8' });
    assert.equal(rejected, 'false', 'the code cache was rejected: a flag was left changed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
