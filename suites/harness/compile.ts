// TypeScript entry points compiled into plain JavaScript for node, for processes a run starts many times: the
// daemon under test (daemon/daemon-build.ts) and the suite files' check processes (engine.ts); and for the
// `npx tsx suites` command itself (suites/index.ts runs the compiled CLI when a current build exists). Through tsx
// every such process pays the loader thread and every module read, resolved and transpiled through it, some 0.3-0.5
// CPU-second before its own work (the command, with the embedded simulator and every suite file, about 2); compiled,
// a fraction of that.
//
// The same source: esbuild (tsx's own compiler, found through tsx, so no dependency of its own) bundles the entry
// points and the packages they import, split into shared chunks (and where a module is imported dynamically, so
// that what is loaded late still is), with `import.meta.url` kept as each source file's own URL (spec tables,
// .proto files, createRequire and paths computed from a file's place resolve where they did) and a `require` for
// what a package loads at run time. The files live under node_modules/.cache/<name>/, where node finds the
// packages should anything be required by name at run time, in a directory named by a hash of their content:
// runs side by side write the same files, a changed source new ones. A manifest per checkout and entry set lists
// every source file a build was made from (size and modification time) and the packages' lock stamp: while they
// all match, the build is used without running esbuild (currentBuild). Undefined when anything fails: the caller
// keeps tsx.
//
// Only node: modules here (and scripts/commonjs-chunks.mjs, which imports only node's and wasm-baseline.mjs):
// suites/index.ts reads this file through tsx on every start.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { asFunctionBody } from '../../scripts/commonjs-chunks.mjs';
import { keepMetaUrl, packagesStamp } from '../../scripts/esbuild-helpers.mjs';
import type { ChunkLoader } from '../../simulator/compiled.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles?: Array<{ path: string; text: string }>; metafile?: { inputs: Record<string, unknown> } }>;
  transformSync(text: string, options: Record<string, unknown>): { code: string };
}


/** The build of the suites: the command (`suites-cli`) and every suite file (`<name>.suite`), sharing one harness. */
export const SUITES_BUILD = 'suites-checks';

/** The entries of SUITES_BUILD: suites/cli/main.ts and every suites/*.suite.ts (as harness/catalog.ts finds them). */
export function suitesBuildEntries(root = REPO_ROOT): Record<string, string> {
  const dir = join(root, 'suites');
  const suites = readdirSync(dir).filter((f) => f.endsWith('.suite.ts')).sort();
  return { 'suites-cli': join(dir, 'cli', 'main.ts'), ...Object.fromEntries(suites.map((f) => [f.slice(0, -'.ts'.length), join(dir, f)])) };
}

const COMPILED_KEY = Symbol.for('cluster-api-conformance.compiled-suites');
const LOADER_KEY = Symbol.for('cluster-api-conformance.compiled-suites-loader');

/**
 * Set by suites/index.ts when it runs the compiled command: the compiled files of the same build, so that the
 * catalog loads the compiled suite files (whose checks register with the command's own harness) rather than the
 * sources through tsx; and, when the command runs from the build's CommonJS chunks, what loads them (a suite file
 * must come through the same loader, or its checks would register with a second copy of the harness).
 */
export function setCompiledSuites(files: Record<string, string>, commonJs?: ChunkLoader): void {
  (globalThis as Record<symbol, unknown>)[COMPILED_KEY] = files;
  (globalThis as Record<symbol, unknown>)[LOADER_KEY] = commonJs;
}

/** The build's CommonJS form of a compiled file (COMMONJS_DIR beside it). */
export function commonJsFileOf(file: string): string {
  return join(dirname(file), COMMONJS_DIR, basename(file));
}

/**
 * Loads the compiled suite file of that name, as the command itself was loaded (its CommonJS chunks, else the ES
 * module); false when this process has no compiled suite file of that name.
 */
export async function loadCompiledSuite(name: string): Promise<boolean> {
  const file = compiledSuiteFile(name);
  if (!file) return false;
  const loader = (globalThis as Record<symbol, unknown>)[LOADER_KEY] as ChunkLoader | undefined;
  if (loader) loader.load(commonJsFileOf(file));
  else await import(pathToFileURL(file).href);
  return true;
}

/** The compiled file of a suite (`crud` → .../crud.suite.js) when this process runs the compiled command. */
export function compiledSuiteFile(name: string): string | undefined {
  return ((globalThis as Record<symbol, unknown>)[COMPILED_KEY] as Record<string, string> | undefined)?.[`${name}.suite`];
}

/** What a build was made from; a build is current while every input and the packages' stamp still match. */
interface BuildManifest {
  /** Entry name → compiled file, relative to the cache directory. */
  outputs: Record<string, string>;
  /** Every source file of the checkout the build was made from (relative to it): [mtimeMs, size]. */
  inputs: Record<string, [number, number]>;
  /** Modification time of node_modules/.package-lock.json when built. */
  packages: number;
}


/**
 * Changed when the form of the builds changes (2: a compiled command once wrote a helper module that called itself;
 * 3: the CommonJS chunks' other import()s became __nodeImport calls, commonjs-chunks.mjs; 4, 5: the launchers compile
 * WebAssembly with V8's baseline compiler, scripts/wasm-baseline.mjs, 5 for the whole process; 6: a build's directory
 * is named by its CommonJS form too, so that launchers of an earlier form are not kept).
 */
/** The require that finds tsx's own esbuild (the project has no esbuild dependency of its own). */
const esbuildRequire = (root: string): NodeJS.Require => createRequire(createRequire(join(root, 'package.json')).resolve('tsx'));

/**
 * Stops esbuild's service process if this process started one (a build still running when the command ends). A
 * process that exits under a running build leaves the service without its input, and it then prints a Go deadlock
 * report of ~150 goroutines on the command's stderr, after the command's own last line (seen when a run against a
 * target without discovery exited 2 while the first run after an edit was building). The build is made again by the
 * next run. Nothing is loaded for it when esbuild was never loaded.
 */
export async function stopCompiler(root = REPO_ROOT): Promise<void> {
  const req = esbuildRequire(root);
  if (!req.cache[req.resolve('esbuild')]) return;
  await (req('esbuild') as { stop(): Promise<void> | void }).stop();
}

const BUILD_FORMAT = '6';

/** One manifest per checkout (worktrees share node_modules) and entry set. */
function manifestPath(cacheName: string, entries: Record<string, string>, root: string): string {
  // BUILD_FORMAT: builds made by an earlier form of this file are not used.
  const key = createHash('sha256').update(BUILD_FORMAT).update(root).update('\0').update(JSON.stringify(Object.entries(entries).sort())).digest('hex').slice(0, 16);
  return join(root, 'node_modules', '.cache', cacheName, `manifest-${key}.json`);
}

/**
 * The compiled files of a current build of these entries (made before, every input unchanged since), without
 * running esbuild; undefined when there is none.
 */
export function currentBuild(cacheName: string, entries: Record<string, string>, root = REPO_ROOT): Record<string, string> | undefined {
  try {
    const m = JSON.parse(readFileSync(manifestPath(cacheName, entries, root), 'utf8')) as BuildManifest;
    if (m.packages !== packagesStamp(root) || Object.keys(m.inputs).length === 0) return undefined;
    for (const [file, [mtime, size]] of Object.entries(m.inputs)) {
      const st = statSync(join(root, file));
      if (st.mtimeMs !== mtime || st.size !== size) return undefined;
    }
    const cache = join(root, 'node_modules', '.cache', cacheName);
    const out = Object.fromEntries(Object.keys(entries).map((name) => [name, join(cache, m.outputs[name] ?? '\0')]));
    for (const file of Object.values(out)) statSync(file);
    return out;
  } catch {
    return undefined;
  }
}

/**
 * The text of every chunk calls this instead of import(): tsx rewrites every module whose text holds a dynamic
 * import (a pass over the whole chunk, with a source map node then parses: 0.7 s of a start for this project's
 * chunks), which in a process that runs with tsx (the `npx tsx suites` command) cost more than the build saves.
 * It lives in a module of its own beside the chunks (DYNAMIC_IMPORT_FILE), so a specifier resolves from there as
 * from the chunk whose import() it replaces: the chunks' directory.
 */
const DYNAMIC_IMPORT = '__compiledImport';
const DYNAMIC_IMPORT_FILE = '__compiled-import.js';
/**
 * "import(" spelled so that no compiled text holds it: this file is itself compiled into the suites' command, where
 * withoutDynamicImport would otherwise rewrite the helper's text (and code that writes scripts for other processes).
 */
export const IMPORT_CALL = ['import', '('].join('');

/**
 * Compiles the entry points (output name → source file); the compiled file of each entry (`<dir>/<name>.js`),
 * or undefined when they cannot be compiled here. A current build (currentBuild) is returned as it is.
 * `opts.commonJs`: the build's CommonJS form too (COMMONJS_DIR), for a command that runs under tsx.
 */
export async function compileEntries(
  cacheName: string,
  entries: Record<string, string>,
  root = REPO_ROOT,
  opts: { commonJs?: boolean } = {},
): Promise<Record<string, string> | undefined> {
  const current = currentBuild(cacheName, entries, root);
  if (current) {
    try {
      const dir = dirname(Object.values(current)[0]);
      utimesSync(dir, new Date(), new Date()); // in use: kept by pruneOld
      return current;
    } catch {
      // Gone meanwhile: built again below.
    }
  }
  try {
    const started = Date.now();
    const packages = packagesStamp(root);
    const esbuild = esbuildRequire(root)('esbuild') as Esbuild;
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
      metafile: true,
      logLevel: 'silent',
      banner: { js: BANNER },
      plugins: [keepMetaUrl],
      external: [
        // Left to node: its classes register with tsyringe through decorators whose modules import each other in a
        // cycle that node's own module order resolves and a bundle's does not ("reading 'set'" of undefined).
        '@peculiar/x509',
        // They read .proto files next to their own code at run time (the simulator's --storage etcd).
        'etcd3',
        '@grpc/grpc-js',
        '@grpc/proto-loader',
      ],
    });
    const files = (out.outputFiles ?? []).map((f) => ({ name: relative(staging, f.path), text: withoutDynamicImport(f.text) }));
    const commonJs = opts.commonJs ? asCommonJs(esbuild, out.outputFiles ?? [], staging) : undefined;
    for (const name of Object.keys(entries)) commonJs?.push({ name: `${name}.mjs`, text: launcherOf(`${name}.js`, root) });
    files.push({ name: DYNAMIC_IMPORT_FILE, text: `export const ${DYNAMIC_IMPORT} = (specifier) => ${IMPORT_CALL}specifier);\n` });
    if (!Object.keys(entries).every((name) => files.some((f) => f.name === `${name}.js`))) return undefined;
    // The directory is named by everything written into it: a launcher or chunk form of another version of this
    // file gets a directory of its own, not the one of a build whose JavaScript happens to be the same.
    const hash = createHash('sha256');
    for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) hash.update(f.name).update('\0').update(f.text).update('\0');
    for (const f of commonJs ?? []) hash.update(`${COMMONJS_DIR}/${f.name}`).update('\0').update(f.text).update('\0');
    const dir = join(cache, hash.digest('hex').slice(0, 16));
    if (existsSync(join(dir, `${Object.keys(entries)[0]}.js`))) utimesSync(dir, new Date(), new Date());
    else writeDirAside(dir, files);
    // The CommonJS form goes beside them (again, if an earlier try failed to write it); only an optimisation of the
    // command's start, so a failure to write it fails nothing.
    if (commonJs && !existsSync(join(dir, COMMONJS_DIR))) {
      try {
        writeDirAside(join(dir, COMMONJS_DIR), commonJs);
      } catch {
        // The command imports the ES modules.
      }
    }
    pruneOld(cache, dir);
    const outputs = Object.fromEntries(Object.keys(entries).map((name) => [name, join(dir, `${name}.js`)]));
    writeManifest(cacheName, entries, root, out.metafile?.inputs ?? {}, outputs, started, packages);
    return outputs;
  } catch {
    return undefined;
  }
}

/** What every chunk of a build starts with (before its own text and a newline). */
const BANNER = `import { createRequire as __compiledCreateRequire } from 'node:module'; import { ${DYNAMIC_IMPORT} } from './${DYNAMIC_IMPORT_FILE}'; const require = __compiledCreateRequire(import.meta.url);`;

/**
 * The subdirectory of a build holding the same chunks as CommonJS function bodies (scripts/commonjs-chunks.mjs says
 * why), which the `npx tsx suites` command loads (suites/index.ts): it runs under tsx, whose loader thread every ES
 * module would go through. Check processes and the daemon under test load them too, through a launcher file per
 * entry (plainNodeEntry).
 */
export const COMMONJS_DIR = 'commonjs';

/**
 * What plain node runs for a compiled entry (a check process's suite file, the daemon under test) when the build
 * has its CommonJS form: a launcher (`<name>.mjs` in COMMONJS_DIR) that loads the entry's chunks through
 * scripts/commonjs-chunks.mjs with V8's code cache, instead of node's ES module loader, which decodes and compiles
 * every module from its text in every process (node 20 keeps no code cache of ES modules): about 60 ms less of a
 * check process's start, 100 of a daemon's. The ES module itself otherwise.
 */
export function plainNodeEntry(file: string): string {
  const launcher = join(dirname(file), COMMONJS_DIR, basename(file).replace(/\.js$/, '.mjs'));
  return existsSync(launcher) ? launcher : file;
}

function launcherOf(chunk: string, root: string): string {
  const loader = pathToFileURL(join(root, 'scripts', 'commonjs-chunks.mjs')).href;
  const wasm = pathToFileURL(join(root, 'scripts', 'wasm-baseline.mjs')).href;
  return [
    `// What plain node runs for ${chunk} of this build (suites/harness/compile.ts plainNodeEntry): its CommonJS form.`,
    // WebAssembly (undici's response parser) with V8's baseline compiler only: 200-300 CPU-ms less per process.
    `import { useBaselineWasmCompiler } from ${JSON.stringify(wasm)};`,
    `import { chunkLoader } from ${JSON.stringify(loader)};`,
    'useBaselineWasmCompiler();',
    `chunkLoader(import.meta.dirname).load(import.meta.dirname + ${JSON.stringify(`/${chunk}`)});`,
    '',
  ].join('\n');
}

/**
 * The chunks of esbuild's output as CommonJS function bodies, without the banner (the loader gives `require`);
 * undefined when one cannot be one (a top-level await): the command then imports the ES modules.
 */
function asCommonJs(
  esbuild: Esbuild,
  outputs: ReadonlyArray<{ path: string; text: string }>,
  staging: string,
): Array<{ name: string; text: string }> | undefined {
  try {
    return outputs.map((f) => {
      const text = f.text.startsWith(BANNER) ? f.text.slice(BANNER.length) : f.text;
      return { name: relative(staging, f.path), text: asFunctionBody(esbuild, text, f.path, 'keep') };
    });
  } catch {
    return undefined;
  }
}

/**
 * Files written into a directory aside, then renamed into place as `dir` whole: a run beside this one sees all or
 * none. A failed write throws; a failed rename means another run put the same files there first.
 */
function writeDirAside(dir: string, files: ReadonlyArray<{ name: string; text: string }>): void {
  const tmp = `${dir}.${process.pid}.tmp`;
  mkdirSync(tmp, { recursive: true });
  for (const f of files) writeFileSync(join(tmp, f.name), f.text);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Every `import(` of the compiled text (esbuild's chunk loads, a computed specifier) as a call of the chunk's
 * DYNAMIC_IMPORT; only where it is code (after an operator, a bracket or a keyword's space), never inside a word or
 * a member access.
 */
function withoutDynamicImport(text: string): string {
  return text.replace(/(?<![\w$.])import\(/g, `${DYNAMIC_IMPORT}(`);
}

/**
 * The manifest of a build: its sources of this checkout (packages stand behind their lock stamp). None when a
 * source changed while building (it may not be in the build) or the packages did: the next run builds again.
 */
function writeManifest(
  cacheName: string,
  entries: Record<string, string>,
  root: string,
  metaInputs: Record<string, unknown>,
  outputs: Record<string, string>,
  started: number,
  packages: number,
): void {
  const cache = join(root, 'node_modules', '.cache', cacheName);
  const inputs: Record<string, [number, number]> = {};
  for (const input of Object.keys(metaInputs)) {
    const path = resolve(root, input);
    const rel = relative(root, path);
    if (rel.startsWith('..') || rel.startsWith('node_modules')) continue;
    const st = statSync(path);
    if (st.mtimeMs >= started - 1000) return;
    inputs[rel] = [st.mtimeMs, st.size];
  }
  if (packagesStamp(root) !== packages) return;
  const manifest: BuildManifest = { outputs: Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, relative(cache, v)])), inputs, packages };
  const file = manifestPath(cacheName, entries, root);
  writeFileSync(`${file}.${process.pid}`, JSON.stringify(manifest));
  renameSync(`${file}.${process.pid}`, file);
}

/** Builds of other sources not used for a day go (each is a few MB); manifests (small) stay. */
function pruneOld(cache: string, keep: string): void {
  const dayAgo = Date.now() - 24 * 3600_000;
  for (const name of readdirSync(cache)) {
    if (name.startsWith('manifest-')) continue;
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
