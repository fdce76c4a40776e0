// The compiled build of `npx tsx simulator` (see index.ts): made by scripts/build-simulator.mjs with esbuild (tsx's
// own compiler), split so that the API server's part loads first and the daemon, nodes, certificates and etcd
// only when used; kept in node_modules/.cache/simulator/<hash of the checkout's path>/ with a manifest of every
// source file it was made from (size and modification time) and the packages' lock stamp. A build is used only
// when all of them still match, so an edited source is never run stale: the sources run instead while a new
// build is made in the background (one at a time, at low priority).
//
// The build's chunks are CommonJS function bodies (scripts/commonjs-chunks.mjs says why); chunkLoader below runs
// them with V8's code cache, for this command and for `npx tsx suites`, whose build has the same form beside its ES
// modules (suites/index.ts, suites/harness/compile.ts).
//
// Only node: modules here (and scripts/commonjs-chunks.mjs, which imports nothing): this file is read through tsx on
// every start.
import type { spawn as Spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, Script } from 'node:vm';
import { CHUNK_FORM, FUNCTION_HEAD } from '../scripts/commonjs-chunks.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface CompiledManifest {
  /** The form of its chunks (commonjs-chunks.mjs CHUNK_FORM): a build of another form is not used. */
  format: string;
  /** The entry file, relative to the build's directory. */
  entry: string;
  /** Every source file of this checkout the build was made from (path relative to the checkout): [mtimeMs, size]. */
  inputs: Record<string, [number, number]>;
  /** Modification time of node_modules/.package-lock.json when built (packages changed: build again). */
  packages: number;
}

/** Where this checkout's builds live (worktrees share node_modules: each checkout has its own directory). */
export function cacheDirOf(root = REPO): string {
  return join(root, 'node_modules', '.cache', 'simulator', createHash('sha256').update(root).digest('hex').slice(0, 12));
}

export function packagesStamp(root = REPO): number {
  try {
    return statSync(join(root, 'node_modules', '.package-lock.json')).mtimeMs;
  } catch {
    return 0;
  }
}

/** The compiled entry when a build exists whose every input is unchanged; undefined otherwise. */
export function compiledEntry(root = REPO): string | undefined {
  try {
    const dir = cacheDirOf(root);
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as CompiledManifest;
    if (m.format !== CHUNK_FORM || m.packages !== packagesStamp(root) || Object.keys(m.inputs).length === 0) return undefined;
    for (const [file, [mtime, size]] of Object.entries(m.inputs)) {
      const st = statSync(join(root, file));
      if (st.mtimeMs !== mtime || st.size !== size) return undefined;
    }
    const entry = join(dir, m.entry);
    statSync(entry);
    return entry;
  } catch {
    return undefined;
  }
}

/** A chunk of the build as a CommonJS module: what its function body was given. */
interface ChunkModule {
  exports: unknown;
}

/** V8's code cache of a chunk, beside it (one per node version and architecture: V8 refuses another's). */
export const codeCacheFileOf = (file: string) => `${file}.v8-${process.version}-${process.arch}`;

/** The chunks of one build loaded in this process: each once, shared by every chunk that requires it. */
export interface ChunkLoader {
  /** The exports of that chunk (a file of the build's directory), loaded now with those it requires if need be. */
  load(file: string): unknown;
}

/**
 * Loads the chunks of a build made by scripts/commonjs-chunks.mjs (CommonJS function bodies): each compiled with
 * vm.Script from its text and, when there is one, V8's code cache of an earlier run (the functions that run ran
 * are then not parsed and compiled again), and run with a require that gives the build's own chunks from here and
 * anything else (node's modules, etcd3) from node. None of it passes through tsx's loader thread. A chunk's import()
 * of another chunk (the daemon, the nodes...) loads that chunk and those it requires one per turn of the event loop
 * (an import() does not block it either), so that requests that came meanwhile, the first client's while the daemon
 * loads, are answered between them; `nodeImports`: a computed import() left in the text is node's own (through its
 * loader and tsx's). The code cache of every chunk loaded without one (or whose cache V8 refused: another node) is
 * written beside it a few seconds after the first load, or when the process exits before that, once per build and
 * node.
 */
export function chunkLoader(dir: string, opts: { nodeImports?: boolean } = {}): ChunkLoader {
  const chunks = new Map<string, ChunkModule>();
  const uncached: Array<{ file: string; script: Script }> = [];
  const texts = new Map<string, string>();
  // latin1: esbuild writes ASCII, and a one-byte string is the cheapest to make and to compile.
  const textOf = (file: string): string => texts.get(file) ?? texts.set(file, readFileSync(file, 'latin1')).get(file)!;
  const writeCodeCache = () => {
    for (const { file, script } of uncached.splice(0)) {
      try {
        const tmp = `${codeCacheFileOf(file)}.${process.pid}`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, codeCacheFileOf(file));
      } catch {
        // A read-only cache directory: every start compiles.
      }
    }
  };
  let cacheWriteArmed = false;
  const load = (file: string): unknown => {
    const loaded = chunks.get(file);
    if (loaded) return loaded.exports; // a cycle sees the exports made so far, as CommonJS does
    const module: ChunkModule = { exports: {} };
    chunks.set(file, module);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(codeCacheFileOf(file));
    } catch {
      // Not made yet.
    }
    const script = new Script(`${FUNCTION_HEAD}${textOf(file)}\n})`, {
      filename: file,
      cachedData,
      ...(opts.nodeImports ? { importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
    });
    texts.delete(file);
    if (cachedData === undefined || script.cachedDataRejected) {
      uncached.push({ file, script });
      if (!cacheWriteArmed) {
        cacheWriteArmed = true;
        setTimeout(writeCodeCache, 3_000).unref();
        process.once('exit', writeCodeCache);
      }
    }
    const nodeRequire = createRequire(file);
    const chunkRequire = (specifier: string): unknown => (specifier.startsWith('./') && !specifier.includes('/', 2) ? load(join(dir, specifier.slice(2))) : nodeRequire(specifier));
    (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, chunkRequire, module, file, dir, chunkImport);
    return module.exports;
  };
  /** The chunks a chunk requires that are not loaded yet, each after those it requires itself. */
  const unloadedDeps = (file: string, out: string[] = []): string[] => {
    for (const [, name] of textOf(file).matchAll(/\brequire\("\.\/([\w.-]+\.js)"\)/g)) {
      const dep = join(dir, name);
      if (chunks.has(dep) || out.includes(dep)) continue;
      unloadedDeps(dep, out);
      out.push(dep);
    }
    return out;
  };
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
  const chunkImport = async (specifier: string): Promise<unknown> => {
    const file = join(dir, specifier.slice(2));
    if (!chunks.has(file)) {
      for (const dep of unloadedDeps(file)) {
        await nextTurn();
        load(dep);
      }
      await nextTurn();
    }
    return load(file);
  };
  return { load };
}

/** Runs the compiled command (chunkLoader); what its entry chunk exported (main.ts: `started`, the promise of its start). */
export function runCompiled(entry: string): Record<string, unknown> {
  return chunkLoader(dirname(entry)).load(entry) as Record<string, unknown>;
}

/** Starts a build for the next start, unless one is under way (a lock younger than two minutes). Never throws. */
export function buildInBackground(root = REPO): void {
  try {
    const dir = cacheDirOf(root);
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, 'build.lock');
    try {
      if (Date.now() - statSync(lock).mtimeMs < 120_000) return;
    } catch {
      // No build under way.
    }
    writeFileSync(lock, String(process.pid));
    // node:child_process only here: loading it costs a start that runs a build about 5 ms.
    const { spawn } = process.getBuiltinModule('node:child_process') as { spawn: typeof Spawn };
    const child = spawn(process.execPath, [join(root, 'scripts', 'build-simulator.mjs'), root], { detached: true, stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
    child.on('error', () => {});
    if (child.pid) setPriority(child.pid, 19);
    child.unref();
  } catch {
    // The sources run as they are; a build is only an optimisation.
  }
}
