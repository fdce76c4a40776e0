// Types of commonjs-chunks.mjs for the TypeScript that imports it (suites/harness/compile.ts, simulator/compiled.ts).
export function asFunctionBody(esbuild: { transformSync: (text: string, options: Record<string, unknown>) => { code: string } }, text: string, name: string, otherImports?: 'refuse' | 'keep'): string;
export const CHUNK_FORM: string;
export const FUNCTION_HEAD: string;
export const codeCacheFileOf: (file: string) => string;
export function chunkLoader(dir: string): { load(file: string): unknown };
