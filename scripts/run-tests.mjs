// Runs every *.test.ts under spec-tables/, simulator/, suites/, lib/ and scripts/ on node's test runner through tsx.
// Node 20 does not expand globs given to --test (Node 21+ does), so the files are listed here.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const roots = ['spec-tables', 'simulator', 'suites', 'lib', 'scripts'];
const files = [];
function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots) walk(r);
files.sort();
const filter = process.argv.slice(2);
const selected = filter.length ? files.filter((f) => filter.some((x) => f.includes(x))) : files;
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A whole test file must finish within this (a hang is caught); the slowest files (the suites' proxy-based
// harness tests) take about 90 s on 2 idle cores and well over 3 minutes on a busy machine.
const timeoutMs = process.env.TEST_TIMEOUT_MS ?? '420000';
// Every test process compiles undici's response parser with V8's baseline compiler only (wasm-baseline.mjs): 200-300
// CPU-ms less in each of the ~150 test files that make requests.
const wasmBaseline = `data:text/javascript,import{useBaselineWasmCompiler}from${JSON.stringify(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'wasm-baseline.mjs')).href)};useBaselineWasmCompiler()`;
const res = spawnSync(process.execPath, ['--import', 'tsx', '--import', wasmBaseline, '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeoutMs}`, ...selected], { stdio: 'inherit' });
process.exit(res.status ?? 1);
