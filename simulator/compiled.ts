// The compiled build of `npx tsx simulator` (see index.ts): made by scripts/build-simulator.mjs with esbuild (tsx's
// own compiler), split so that the API server's part loads first and the daemon, nodes, certificates and etcd
// only when used; kept in node_modules/.cache/simulator/<hash of the checkout's path>/ with a manifest of every
// source file it was made from (size and modification time) and the packages' lock stamp. A build is used only
// when all of them still match, so an edited source is never run stale: the sources run instead while a new
// build is made in the background (one at a time, at low priority).
//
// Only node: modules here: this file is read through tsx on every start.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface CompiledManifest {
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
    if (m.packages !== packagesStamp(root) || Object.keys(m.inputs).length === 0) return undefined;
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

/**
 * Runs the compiled command. Its chunks load each other through this function rather than with import() in their
 * text: tsx rewrites every module whose text holds a dynamic import (a pass over the whole 2 MB chunk, with a
 * source map Node then parses), which cost more than the build saves.
 */
export async function runCompiled(entry: string): Promise<void> {
  (globalThis as { __simulatorImport?: (url: string) => Promise<unknown> }).__simulatorImport = (url: string) => import(url);
  await import(pathToFileURL(entry).href);
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
    const child = spawn(process.execPath, [join(root, 'scripts', 'build-simulator.mjs'), root], { detached: true, stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } });
    child.on('error', () => {});
    if (child.pid) setPriority(child.pid, 19);
    child.unref();
  } catch {
    // The sources run as they are; a build is only an optimisation.
  }
}
