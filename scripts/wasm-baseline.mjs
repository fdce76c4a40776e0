// WebAssembly compiled with V8's baseline compiler (Liftoff) only, for the short-lived processes of a conformance
// run: its check processes and the daemons under test (their launcher files, suites/harness/compile.ts) and the test
// files of `npm test` (scripts/run-tests.mjs).
//
// Why: undici's HTTP response parser, llhttp, is one WebAssembly state machine whose main function is very large.
// V8 compiles it first with Liftoff, then, once it is hot (a few dozen responses), again with its optimizing
// compiler on a background thread, and that one compile costs 200-300 ms of CPU (2 cores, 2026-11-24: 300 undici
// requests took 760-960 CPU-ms in a process, 440-600 with Liftoff only). A conformance run starts ~130 processes;
// on 2 cores their compiles are seconds of the run's wall time. In a long-lived process the optimized parser gains
// nothing measurable either (2,000 lists of 130 KB each: the same CPU per request both ways, 550-750 µs, the spread
// of the machine: the parser only finds the boundaries of the body it hands over), but there the one compile does
// not matter, so the simulator and the standalone daemon are left as V8 makes them.
//
// How: `--liftoff-only` for the whole process, set before anything is compiled. Not around each module's compile
// only: the flag's effect (no tier-up) is read while the module runs, and it turns off other flags that
// `--no-liftoff-only` does not turn on again. V8 keys its code caches by a hash of all its flags, so such a process
// compiles node's built-in modules without their embedded cache (20-60 ms, far less than the compile it saves), and
// the chunks of scripts/commonjs-chunks.mjs keep code caches of their own under these flags (codeCacheTag): a
// process without the flag never finds one it would refuse.
// Only node's modules here: a launcher runs it before anything else, under plain node.

import { setFlagsFromString } from 'node:v8';

const INSTALLED = Symbol.for('cluster-conformance.wasm-baseline');

/** Sets V8 to compile WebAssembly with Liftoff only, for the rest of this process. Idempotent; call it first. */
export function useBaselineWasmCompiler() {
  const g = /** @type {Record<symbol, unknown>} */ (globalThis);
  if (g[INSTALLED]) return;
  setFlagsFromString('--liftoff-only');
  g[INSTALLED] = true;
}

/** What the names of this process's code cache files carry: '' under V8's own flags, else the flags' name. */
export function codeCacheTag() {
  return /** @type {Record<symbol, unknown>} */ (globalThis)[INSTALLED] ? '-liftoff-only' : '';
}
