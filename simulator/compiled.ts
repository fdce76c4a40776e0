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
// Only node: modules here (and scripts/commonjs-chunks.mjs, which imports only node's): this file is read through
// tsx on every start.
import type { spawn as Spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHUNK_FORM, chunkLoader } from '../scripts/commonjs-chunks.mjs';
import { packagesStamp as lockStamp } from '../scripts/esbuild-helpers.mjs';

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
  return lockStamp(root);
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

// The loader itself is plain JavaScript beside the code that makes the chunks (scripts/commonjs-chunks.mjs), so that
// a check process of `npx tsx suites`, which runs without tsx, loads its suite file through it too.
export { chunkLoader, codeCacheFileOf, type ChunkLoader } from '../scripts/commonjs-chunks.mjs';

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
