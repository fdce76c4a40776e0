// Types of esbuild-helpers.mjs for the TypeScript that imports it (suites/harness/compile.ts, simulator/compiled.ts; build-package.mjs is plain JavaScript).
export const keepMetaUrl: {
  name: string;
  setup(build: { onLoad(opts: { filter: RegExp }, cb: (args: { path: string }) => { contents: string; loader: string }): void }): void;
};
export function metaUrlRelativeTo(
  outdir: string,
  baseVariable: string,
): { name: string; setup(build: { onLoad(opts: { filter: RegExp }, cb: (args: { path: string }) => { contents: string; loader: string }): void }): void };
export function packagesStamp(root: string): number;
