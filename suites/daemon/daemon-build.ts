// The default daemon under test, compiled once per run into a few JavaScript files. The daemon suites start this
// project's daemon about 100 times per run; through tsx each start pays the loader thread and every module read,
// resolved and transpiled through it: ~0.5 CPU-second to refuse a bad option, ~1.9 to serve /configz with every
// controller for a second (2 cores, 2026-11-23). Compiled and started by plain node: ~0.13 and ~0.8. It is the
// same source: esbuild (tsx's own compiler, found through tsx, so no dependency of its own) bundles
// simulator/controllers/index.ts and the packages it imports, split where the daemon imports its controllers
// only after reading its command line (a refusal reads the small first part only), with `import.meta.url` kept as
// each source file's own URL (spec tables, .proto files and createRequire resolve where they did) and a
// `require` for what a package loads at run time. The files live under node_modules/.cache, where node finds the
// packages should anything be required by name at run time, in a directory named by a hash of their content:
// concurrent runs write the same files, a changed source new ones. Anything failing here leaves the tsx command
// in place (cli/daemon-command.ts).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface EsbuildPlugin {
  name: string;
  setup(build: { onLoad(opts: { filter: RegExp }, cb: (args: { path: string }) => { contents: string; loader: string }): void }): void;
}
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles?: Array<{ path: string; text: string }> }>;
}

/** Every source file's `import.meta.url` as the literal URL of that file, so that paths computed from it still hold. */
const keepMetaUrl: EsbuildPlugin = {
  name: 'keep-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/** Builds (or finds) the compiled daemon; the path of its entry file, or undefined when it cannot be built here. */
export async function buildDaemon(root = REPO_ROOT): Promise<string | undefined> {
  try {
    const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx'))('esbuild') as Esbuild;
    const cache = join(root, 'node_modules', '.cache', 'suites-daemon');
    const staging = join(cache, 'staging');
    const out = await esbuild.build({
      entryPoints: { daemon: join(root, 'simulator', 'controllers', 'index.ts') },
      bundle: true,
      // Chunks: refusing a bad command line reads only what parsing it needs, not the controllers.
      splitting: true,
      outdir: staging,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      banner: { js: "import { createRequire as __daemonCreateRequire } from 'node:module'; const require = __daemonCreateRequire(import.meta.url);" },
      plugins: [keepMetaUrl],
    });
    const files = (out.outputFiles ?? []).map((f) => ({ name: relative(staging, f.path), text: f.text }));
    if (!files.some((f) => f.name === 'daemon.js')) return undefined;
    const hash = createHash('sha256');
    for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) hash.update(f.name).update('\0').update(f.text).update('\0');
    const dir = join(cache, hash.digest('hex').slice(0, 16));
    if (existsSync(join(dir, 'daemon.js'))) utimesSync(dir, new Date(), new Date());
    else {
      // Written aside, then renamed into place whole: a run beside this one sees all of it or none.
      const tmp = `${dir}.${process.pid}.tmp`;
      mkdirSync(tmp, { recursive: true });
      for (const f of files) writeFileSync(join(tmp, f.name), f.text);
      try {
        renameSync(tmp, dir);
      } catch {
        rmSync(tmp, { recursive: true, force: true }); // another run put the same files there first
      }
    }
    pruneOld(cache, dir);
    return join(dir, 'daemon.js');
  } catch {
    return undefined;
  }
}

/** Builds of other sources not used for a day go (each is ~2 MB). */
function pruneOld(cache: string, keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    try {
      if (path !== keep && statSync(path).mtimeMs < dayAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
}
