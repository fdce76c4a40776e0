// Types of wasm-baseline.mjs for the TypeScript that imports it.
/** Sets V8 to compile WebAssembly with Liftoff only, for the rest of this process. Idempotent; call it first. */
export function useBaselineWasmCompiler(): void;
/** What the names of this process's code cache files carry: '' under V8's own flags, else the flags' name. */
export function codeCacheTag(): string;
