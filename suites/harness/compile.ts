// TypeScript entry points compiled into plain JavaScript for node, for processes a run starts many times: the
// daemon under test (daemon/daemon-build.ts) and the suite files' check processes (engine.ts). Through tsx every
// such process pays the loader thread and every module read, resolved and transpiled through it, some 0.3-0.5
// CPU-second before its own work; compiled, started by plain node, a fraction of that.
//
// The same source: esbuild (tsx's own compiler, found through tsx, so no dependency of its own) bundles the entry
// points and the packages they import, split into shared chunks (and where a module is imported dynamically, so
// that what is loaded late still is), with `import.meta.url` kept as each source file's own URL (spec tables,
// .proto files, createRequire and paths computed from a file's place resolve where they did) and a `require` for
// what a package loads at run time. The files live under node_modules/.cache/<name>/, where node finds the
// packages should anything be required by name at run time, in a directory named by a hash of their content:
// runs side by side write the same files, a changed source new ones. Undefined when anything fails: the caller
// keeps tsx.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

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

/**
 * Compiles the entry points (output name → source file); the compiled file of each entry (`<dir>/<name>.js`),
 * or undefined when they cannot be compiled here.
 */
export async function compileEntries(cacheName: string, entries: Record<string, string>, root = REPO_ROOT): Promise<Record<string, string> | undefined> {
  try {
    const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx'))('esbuild') as Esbuild;
    const cache = join(root, 'node_modules', '.cache', cacheName);
    const staging = join(cache, 'staging');
    const out = await esbuild.build({
      entryPoints: entries,
      bundle: true,
      splitting: true,
      outdir: staging,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      banner: { js: "import { createRequire as __compiledCreateRequire } from 'node:module'; const require = __compiledCreateRequire(import.meta.url);" },
      plugins: [keepMetaUrl],
      // Left to node: its classes register with tsyringe through decorators whose modules import each other in a
      // cycle that node's own module order resolves and a bundle's does not ("reading 'set'" of undefined).
      external: ['@peculiar/x509'],
    });
    const files = (out.outputFiles ?? []).map((f) => ({ name: relative(staging, f.path), text: f.text }));
    if (!Object.keys(entries).every((name) => files.some((f) => f.name === `${name}.js`))) return undefined;
    const hash = createHash('sha256');
    for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) hash.update(f.name).update('\0').update(f.text).update('\0');
    const dir = join(cache, hash.digest('hex').slice(0, 16));
    if (existsSync(join(dir, `${Object.keys(entries)[0]}.js`))) utimesSync(dir, new Date(), new Date());
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
    return Object.fromEntries(Object.keys(entries).map((name) => [name, join(dir, `${name}.js`)]));
  } catch {
    return undefined;
  }
}

/** Builds of other sources not used for a day go (each is a few MB). */
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

/** This process's node options without tsx's loader (for children that run compiled files). */
export function withoutTsx(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i];
    const pair = /^(--require|-r|--import|--loader|--experimental-loader)$/.exec(a);
    if (pair && /tsx/.test(execArgv[i + 1] ?? '')) {
      i++;
      continue;
    }
    if (/^(--require|--import|--loader|--experimental-loader)=.*tsx/.test(a)) continue;
    out.push(a);
  }
  return out;
}
