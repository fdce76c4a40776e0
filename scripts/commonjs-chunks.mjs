// The chunks of an esbuild build (ES modules, split) as CommonJS function bodies, for simulator/compiled.ts's
// loadChunks, which compiles each with vm.Script and V8's code cache and runs it with exports, require, module,
// __filename, __dirname and __chunkImport. Used by scripts/build-simulator.mjs (`npx tsx simulator`) and
// suites/harness/compile.ts (the `npx tsx suites` command).
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

/**
 * The form of chunk this file makes and simulator/compiled.ts loads: a manifest of the simulator's build names it, so
 * that a build of another form (an older checkout's ES modules) is never loaded as this one. Changed with the form.
 */
export const CHUNK_FORM = 'commonjs-chunks-1';

/** What the loader puts before a chunk's text (then a newline and `})`): the names a chunk's body is given. */
export const FUNCTION_HEAD = '(function (exports, require, module, __filename, __dirname, __chunkImport) {';

/** A chunk's import() of another chunk, as esbuild writes it. */
const CHUNK_IMPORT = /(?<![\w$.])import\(("\.\/[\w.-]+\.js")\)/g;
/** Any other import() (a computed specifier). */
const OTHER_IMPORT = /(?<![\w$.])import\(/;

/**
 * The chunk `text` (esbuild ES module output) as a CommonJS function body. `otherImports`: what to do with an
 * import() that is not of a chunk: 'refuse' throws (the caller then keeps the ES modules), 'keep' leaves it for
 * the loader's importModuleDynamically (node's own loader).
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
  if (otherImports === 'refuse' && OTHER_IMPORT.test(code)) throw new Error(`${name}: an import() that is not of a chunk`);
  return code;
}
