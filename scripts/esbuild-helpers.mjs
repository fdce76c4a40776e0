// What the esbuild pipelines share (scripts/build-simulator.mjs: the simulator; suites/harness/compile.ts: the
// suites' command and check files; simulator/compiled.ts: whether a simulator build is current;
// scripts/build-package.mjs: the published package's dist/). Plain JavaScript
// that imports only node's modules, like commonjs-chunks.mjs, so that it runs with and without tsx.
import { readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * An esbuild plugin: every source file's `import.meta.url` becomes the literal URL of that file, so that paths
 * computed from it (spec tables, .proto files, createRequire) still hold in a bundle.
 */
export const keepMetaUrl = {
  name: 'keep-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/**
 * An esbuild plugin for bundles that move (the published package's dist/): every source file's `import.meta.url`
 * becomes that file's URL computed at run time from the bundle's own URL (the variable `baseVariable`, which the
 * bundle's banner defines), with the source's path relative to `outdir`; keepMetaUrl's absolute URLs hold only in
 * the checkout that built them.
 */
export function metaUrlRelativeTo(outdir, baseVariable) {
  return {
    name: 'relative-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const rel = relative(outdir, args.path).split('\\').join('/');
        return {
          contents: readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.url\b/g, `new URL(${JSON.stringify(rel)}, ${baseVariable}).href`),
          loader: 'ts',
        };
      });
    },
  };
}

/** Modification time of the checkout's node_modules/.package-lock.json (0 without one): packages changed, build again. */
export function packagesStamp(root) {
  try {
    return statSync(join(root, 'node_modules', '.package-lock.json')).mtimeMs;
  } catch {
    return 0;
  }
}
