// WebAssembly modules compiled with V8's baseline compiler (Liftoff) only: undici's HTTP response parser, llhttp.
//
// Why: llhttp is one WebAssembly state machine whose main function is very large. V8 compiles it first with
// Liftoff, then, once it is hot (a few dozen responses), again with its optimizing compiler on a background
// thread, and that one compile costs 200-300 ms of CPU (2 cores, 2026-11-24: 300 undici requests took 700-940
// CPU-ms in a process, 440-600 with Liftoff only). Every short-lived process of a conformance run pays it: each
// check process, each daemon under test (~40 a run), the suites command; on 2 cores that is seconds of the run's
// wall time. In a long-lived process the optimized parser gains nothing measurable: 2,000 lists of 130 KB each
// cost the same CPU per request either way (550-750 µs, the spread of the machine), as the parser only finds the
// boundaries of the body it hands over.
//
// How: `--liftoff-only` is set for the time of each synchronous `new WebAssembly.Module(...)` (what undici does,
// once per process, at its first connection) and unset after it. V8 takes the module's compilation tiers when it
// creates the module, so the module keeps them; nothing else is compiled meanwhile. It is not left set for the
// process's life because V8 keys every code cache by its flags: with the flag set, node's own built-in modules
// (and the chunks' code caches of scripts/commonjs-chunks.mjs) would be compiled again from their text in every
// process. A node whose V8 lacks the flag ignores it (setFlagsFromString does not throw): nothing changes.
// Only node's modules here: it runs before anything else of a process, under tsx or plain node.

/* global WebAssembly */
import { setFlagsFromString } from 'node:v8';

const INSTALLED = Symbol.for('cluster-conformance.wasm-baseline');

/** Makes every later `new WebAssembly.Module(bytes)` of this process compile with Liftoff only. Idempotent. */
export function useBaselineWasmCompiler() {
  const g = /** @type {{ [INSTALLED]?: true }} */ (globalThis);
  if (g[INSTALLED]) return;
  g[INSTALLED] = true;
  const Module = WebAssembly.Module;
  // A Proxy keeps what undici and others rely on: instanceof, the prototype, the static imports()/exports().
  WebAssembly.Module = new Proxy(Module, {
    construct(target, args, newTarget) {
      setFlagsFromString('--liftoff-only');
      try {
        return Reflect.construct(target, args, newTarget === WebAssembly.Module ? target : newTarget);
      } finally {
        setFlagsFromString('--no-liftoff-only');
      }
    },
  });
}
