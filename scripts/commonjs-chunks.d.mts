// Types of commonjs-chunks.mjs for the TypeScript that imports it (suites/harness/compile.ts, simulator/compiled.ts).
export function asFunctionBody(esbuild: { transformSync: (text: string, options: Record<string, unknown>) => { code: string } }, text: string, name: string, otherImports?: 'refuse' | 'keep'): string;
export const CHUNK_FORM: string;
export const FUNCTION_HEAD: string;
export const codeCacheFileOf: (file: string) => string;
/** The chunks of one build loaded in this process: each once, shared by every chunk that requires it. */
export interface ChunkLoader {
  /** The exports of that chunk (a file of the build's directory), loaded now with those it requires if need be. */
  load(file: string): unknown;
}
export function chunkLoader(dir: string): ChunkLoader;
