// Types of wasm-baseline.mjs for the TypeScript that imports it (the entry points: simulator/index.ts, suites/index.ts, the daemon's).
/** Makes every later `new WebAssembly.Module(bytes)` of this process compile with V8's baseline compiler only. Idempotent. */
export function useBaselineWasmCompiler(): void;
