// The chunks of an esbuild build (ES modules, split) as CommonJS function bodies (asFunctionBody), and what loads
// them (chunkLoader): each compiled with vm.Script and V8's code cache and run with exports, require, module,
// __filename, __dirname and __chunkImport. Made by scripts/build-simulator.mjs (`npx tsx simulator`) and
// suites/harness/compile.ts (the `npx tsx suites` command and its check processes); loaded through
// simulator/compiled.ts under tsx, and directly by a check process's launcher file (plain node, no TypeScript).
// Only node: modules here (and wasm-baseline.mjs, which imports only node's): it is read on every start.
//
// Why: an ES module imported in a process that runs under tsx goes through tsx's loader thread, whose load hook
// decodes the text of every module holding the word "import" and scans it with es-module-lexer, while node waits
// on synchronous round trips to that thread and then decodes and compiles the text again, with no code cache:
// 250-280 ms of the simulator's start for its chunks (2026-11-23). A function body compiled with vm.Script never
// meets tsx.
//
// esbuild's own transform turns the imports into require() calls and the exports into getters (live bindings
// kept). An import() of another chunk becomes __chunkImport, which loads that chunk in a later turn of the event
// loop, as an import() would. Whitespace and comments go (a third of the text to read; a comment's
// "import(...)" would otherwise read as a call). The text stays ASCII (esbuild's default), so it is read as latin1.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { codeCacheTag } from './wasm-baseline.mjs';

/**
 * The form of chunk this file makes and simulator/compiled.ts loads: a manifest of the simulator's build names it, so
 * that a build of another form (an older checkout's ES modules) is never loaded as this one. Changed with the form.
 */
export const CHUNK_FORM = 'commonjs-chunks-2';

/** What the loader puts before a chunk's text (then a newline and `})`): the names a chunk's body is given. */
export const FUNCTION_HEAD = '(function (exports, require, module, __filename, __dirname, __chunkImport, __nodeImport) {';

/** A chunk's import() of another chunk, as esbuild writes it. */
const CHUNK_IMPORT = /(?<![\w$.])import\(("\.\/[\w.-]+\.js")\)/g;
/** Any other import() (a computed specifier). */
const OTHER_IMPORT = /(?<![\w$.])import\(/g;

/**
 * The chunk `text` (esbuild ES module output) as a CommonJS function body. `otherImports`: what to do with an
 * import() that is not of a chunk: 'refuse' throws (the caller then keeps the ES modules), 'keep' makes it a call
 * of __nodeImport, which the loader gives (node's own import(), from an ES module). Not left as an import() for
 * vm.Script's importModuleDynamically: node 20 drops that option from a script compiled with a code cache made
 * by another process ("A dynamic import callback was not specified" at the import(), in every run after the first).
 * @param {{ transformSync: Function }} esbuild
 * @param {string} text
 * @param {string} name
 * @param {'refuse' | 'keep'} otherImports
 * @returns {string}
 */
export function asFunctionBody(esbuild, text, name, otherImports = 'refuse') {
  const code = esbuild
    .transformSync(text, { loader: 'js', format: 'cjs', platform: 'node', target: 'node20', minifyWhitespace: true, logLevel: 'silent' })
    .code.replace(CHUNK_IMPORT, (_, spec) => `__chunkImport(${spec})`);
  if (otherImports === 'refuse' && code.search(OTHER_IMPORT) !== -1) throw new Error(`${name}: an import() that is not of a chunk`);
  return code.replace(OTHER_IMPORT, '__nodeImport(');
}

/**
 * V8's code cache of a chunk, beside it: one per node version, architecture and V8 flags that change code (V8 refuses
 * another's; wasm-baseline.mjs codeCacheTag). Read when the cache is written too, after the process set its flags.
 * @param {string} file
 * @returns {string}
 */
export const codeCacheFileOf = (file) => `${file}.v8-${process.version}-${process.arch}${codeCacheTag()}`;

/**
 * Loads the chunks of a build made by asFunctionBody: each compiled with vm.Script from its text and, when there is
 * one, V8's code cache of an earlier run (the functions that run ran are then not parsed and compiled again), and
 * run with a require that gives the build's own chunks from here and anything else (node's modules, etcd3) from
 * node. None of it passes through tsx's loader thread, and none is compiled twice across runs (node 20's ES module
 * loader keeps no code cache). A chunk's import() of another chunk (the daemon, the nodes...) loads that chunk and
 * those it requires one per turn of the event loop (an import() does not block it either), so that requests that
 * came meanwhile, the first client's while the daemon loads, are answered between them; any other import()
 * (asFunctionBody's __nodeImport) is node's own (through its loader, and tsx's when there is one), a relative
 * specifier taken from the chunk's directory. The code cache of
 * every chunk loaded without one (or whose cache V8 refused: another node) is written beside it a few seconds after
 * the first load, or when the process exits before that, once per build and node.
 * @param {string} dir the build's directory
 * @returns {{ load(file: string): unknown }}
 */
export function chunkLoader(dir) {
  /** @type {Map<string, { exports: unknown }>} */
  const chunks = new Map();
  /** @type {Array<{ file: string, script: Script }>} */
  const uncached = [];
  /** @type {Map<string, string>} */
  const texts = new Map();
  // latin1: esbuild writes ASCII, and a one-byte string is the cheapest to make and to compile.
  /** @param {string} file */
  const textOf = (file) => {
    let text = texts.get(file);
    if (text === undefined) texts.set(file, (text = readFileSync(file, 'latin1')));
    return text;
  };
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
  /** @param {string} file @returns {unknown} */
  const load = (file) => {
    const loaded = chunks.get(file);
    if (loaded) return loaded.exports; // a cycle sees the exports made so far, as CommonJS does
    const module = { exports: {} };
    chunks.set(file, module);
    /** @type {Buffer | undefined} */
    let cachedData;
    try {
      cachedData = readFileSync(codeCacheFileOf(file));
    } catch {
      // Not made yet.
    }
    const script = new Script(`${FUNCTION_HEAD}${textOf(file)}\n})`, { filename: file, cachedData });
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
    /** @param {string} specifier */
    const chunkRequire = (specifier) => (specifier.startsWith('./') && !specifier.includes('/', 2) ? load(join(dir, specifier.slice(2))) : nodeRequire(specifier));
    script.runInThisContext().call(module.exports, module.exports, chunkRequire, module, file, dir, chunkImport, nodeImport);
    return module.exports;
  };
  /**
   * The chunks a chunk requires that are not loaded yet, each after those it requires itself.
   * @param {string} file @param {string[]} [out] @returns {string[]}
   */
  const unloadedDeps = (file, out = []) => {
    for (const [, name] of textOf(file).matchAll(/\brequire\("\.\/([\w.-]+\.js)"\)/g)) {
      const dep = join(dir, name);
      if (chunks.has(dep) || out.includes(dep)) continue;
      unloadedDeps(dep, out);
      out.push(dep);
    }
    return out;
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  /** @param {string} specifier */
  const nodeImport = (specifier) => import(specifier.startsWith('.') ? pathToFileURL(join(dir, specifier)).href : specifier);
  /** @param {string} specifier */
  const chunkImport = async (specifier) => {
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
