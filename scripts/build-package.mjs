// Builds what the published package runs (`npm run build`, and `prepare`, so that installing from git or from a
// tarball made by `npm pack` gets it): dist/ with the library entries as ES modules (.mjs) and CommonJS (.cjs), the
// `cluster-simulator` command and its daemon-and-nodes worker (.cjs), and declaration files for both (.d.mts, .d.cts). In the repository nothing
// needs dist/: `npx tsx simulator` and `npx tsx suites` run the sources.
//
// - esbuild (tsx's own) bundles each entry with the project's sources; packages stay imports of the dependencies.
// - Every source's `import.meta.url` becomes that source file's URL computed from the bundle's own location
//   (esbuild-helpers.mjs metaUrlRelativeTo), so that files read beside the sources (spec tables, .proto schemas,
//   package.json) are found where the package ships them, under ESM and CommonJS alike.
// - Declarations: the entries (lib/*.ts) write out the type of each export, so each entry's declaration file is
//   made by TypeScript's isolated declaration emit from the entry, simulator/launch/types.ts and errors.ts alone
//   (no program of the whole tree), joined into one self-contained file.
import { mkdirSync, readFileSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metaUrlRelativeTo } from './esbuild-helpers.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const staging = join(root, `dist.staging-${process.pid}`);
const requireHere = createRequire(join(root, 'package.json'));

const LIBRARY = { index: 'lib/index.ts', testing: 'lib/testing.ts', suites: 'lib/suites.ts' };
const COMMANDS = { 'cluster-simulator': 'simulator/main.ts' };
/** The worker thread of the daemon and nodes (simulator/cluster-clients-thread.ts finds it beside the bundle). */
const WORKERS = { 'simulator-clients-worker': 'simulator/cluster-clients-worker.ts' };
/** Files whose declarations each entry's declaration file includes (they import only each other). */
const SHARED_DECLARATIONS = {
  index: ['simulator/launch/errors.ts', 'simulator/server/security-flags.ts', 'simulator/launch/types.ts', 'simulator/codec/kubeconfig-fields.ts'],
  testing: ['simulator/launch/errors.ts', 'simulator/server/security-flags.ts', 'simulator/launch/types.ts'],
  suites: [],
};

const PKG_BASE = '__clusterPackageBase';

async function bundle(esbuild) {
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: staging,
    logLevel: 'warning',
    plugins: [metaUrlRelativeTo(dist, PKG_BASE)],
    // The bundle's own URL, for simulator/cluster-clients-thread.ts to find dist/simulator-clients-worker.cjs.
    define: { __SIMULATOR_PACKAGE_BASE__: PKG_BASE },
  };
  await esbuild.build({
    ...common,
    entryPoints: LIBRARY,
    format: 'esm',
    // Split where the sources import the daemon, the nodes, certificates, etcd and the HTTP client after start (as the
    // compiled build of `npx tsx simulator` is), so that startSimulator's first answer loads only the API server's
    // part; the entries share their chunks (beside them in dist/, where every chunk's import.meta.url base holds).
    splitting: true,
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    banner: { js: `import { createRequire as __clusterCreateRequire } from 'node:module'; const require = __clusterCreateRequire(import.meta.url); const ${PKG_BASE} = import.meta.url;` },
  });
  await esbuild.build({
    ...common,
    // The command and the clients' worker are CommonJS (bin/cluster-simulator.mjs requires it): packages then load
    // through require, without the ES module loader's look-ups of every package's scope and its lexing of CommonJS
    // packages for their export names (measured: 600 against 740 ms of CPU to the first answer as split ES modules,
    // 1,370 ms as one ES module; a bare Fastify server 510).
    entryPoints: { ...LIBRARY, ...COMMANDS, ...WORKERS },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    banner: { js: `const ${PKG_BASE} = require('node:url').pathToFileURL(__filename).href;` },
  });
}

/** One self-contained declaration file per library entry; undefined without TypeScript (an install without dev dependencies). */
function declarations() {
  let ts;
  try {
    ts = requireHere('typescript');
  } catch {
    process.stderr.write('build-package: typescript is not installed; dist/ gets no declaration files\n');
    return;
  }
  const emit = (file) => {
    const out = ts.transpileDeclaration(readFileSync(join(root, file), 'utf8'), {
      fileName: file,
      compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, allowImportingTsExtensions: true, strict: true },
      reportDiagnostics: true,
    });
    if (out.diagnostics?.length) {
      const text = out.diagnostics.map((d) => `${file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n');
      throw new Error(`declarations need explicit types:\n${text}`);
    }
    // Imports and re-exports of the project's own modules go: what they name is inlined beside it.
    return out.outputText.replace(/^(import|export) [^;]*? from '\.{1,2}\/[^']*';\n/gm, '').replace(/^export \{\};\n/gm, '');
  };
  for (const [name, file] of Object.entries(LIBRARY)) {
    const text = ['// Declarations of cluster-api-conformance' + (name === 'index' ? '' : `/${name}`) + ' (made by scripts/build-package.mjs).', ...SHARED_DECLARATIONS[name].map(emit), emit(file)].join('\n');
    writeFileSync(join(staging, `${name}.d.mts`), text);
    writeFileSync(join(staging, `${name}.d.cts`), text);
  }
}

async function main() {
  const esbuild = createRequire(requireHere.resolve('tsx'))('esbuild');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  await bundle(esbuild);
  declarations();
  rmSync(dist, { recursive: true, force: true });
  renameSync(staging, dist);
}

try {
  await main();
} finally {
  rmSync(staging, { recursive: true, force: true });
}
