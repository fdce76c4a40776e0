// Compiles `npx tsx simulator` (simulator/main.ts) for a fast start; simulator/compiled.ts says when the build is
// used and loads it. Started in the background by simulator/index.ts when no current build exists; by hand:
//   node scripts/build-simulator.mjs [checkout]
// esbuild is tsx's own (no dependency of its own). The output is split where main.ts and cluster.ts import the
// daemon, the nodes, certificates and etcd after start, so the first answer loads only the API server's part.
// Every source's import.meta.url is kept as that source file's URL (spec tables, .proto files and createRequire
// resolve where they did); etcd3 and gRPC stay packages loaded at run time (they read .proto files next to
// their own code). Written beside, then renamed into place, with the manifest last: a start sees a whole build
// or none.
//
// Each chunk is then turned into a CommonJS function body (commonjs-chunks.mjs says why), which compiled.ts loads.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asFunctionBody, CHUNK_FORM } from './commonjs-chunks.mjs';
import { keepMetaUrl, packagesStamp } from './esbuild-helpers.mjs';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const cache = join(root, 'node_modules', '.cache', 'simulator', createHash('sha256').update(root).digest('hex').slice(0, 12));
const lock = join(cache, 'build.lock');


async function main() {
  const started = Date.now();
  const packages = packagesStamp(root);
  const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsx'))('esbuild');
  const staging = join(cache, `staging-${process.pid}`);
  const out = await esbuild.build({
    // The daemon and nodes' worker thread (simulator/cluster-clients-thread.ts) loads clients-worker.js from the
    // same build, found through __SIMULATOR_CHUNK_DIR__: the chunk's own directory (the loader's __dirname).
    entryPoints: { main: join(root, 'simulator', 'main.ts'), 'clients-worker': join(root, 'simulator', 'cluster-clients-worker.ts') },
    define: { __SIMULATOR_CHUNK_DIR__: '__dirname' },
    bundle: true,
    splitting: true,
    outdir: staging,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['etcd3', '@grpc/grpc-js', '@grpc/proto-loader'],
    plugins: [keepMetaUrl],
  });
  const files = out.outputFiles.map((f) => ({ name: relative(staging, f.path), text: asFunctionBody(esbuild, f.text, f.path) }));
  if (!files.some((f) => f.name === 'main.js') || !files.some((f) => f.name === 'clients-worker.js')) throw new Error('no main.js or clients-worker.js in the build');
  const hash = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) hash.update(f.name).update('\0').update(f.text).update('\0');
  const name = hash.digest('hex').slice(0, 16);
  const dir = join(cache, name);
  mkdirSync(staging, { recursive: true });
  for (const f of files) writeFileSync(join(staging, f.name), f.text);
  try {
    renameSync(staging, dir);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // the same build is there already
  }
  // Inputs of this checkout (not packages: their lock stamp stands for them). A file changed while building may
  // not be in the build: then no manifest, and the next start builds again.
  const inputs = {};
  for (const input of Object.keys(out.metafile.inputs)) {
    const path = resolve(root, input);
    const rel = relative(root, path);
    if (rel.startsWith('..') || rel.startsWith('node_modules')) continue;
    const st = statSync(path);
    if (st.mtimeMs >= started - 1000) return;
    inputs[rel] = [st.mtimeMs, st.size];
  }
  if (packagesStamp(root) !== packages) return;
  const manifest = join(cache, `manifest.json.${process.pid}`);
  writeFileSync(manifest, JSON.stringify({ format: CHUNK_FORM, entry: join(name, 'main.js'), inputs, packages }));
  renameSync(manifest, join(cache, 'manifest.json'));
  // Older builds go (each is a few MB) once no start can still be loading their later chunks (ten minutes).
  for (const entry of readdirSync(cache)) {
    if (entry === name || entry.startsWith('manifest') || entry === 'build.lock' || entry.startsWith('staging-')) continue;
    const path = join(cache, entry);
    if (Date.now() - statSync(path).mtimeMs > 600_000) rmSync(path, { recursive: true, force: true });
  }
}

try {
  await main();
} finally {
  rmSync(join(cache, `staging-${process.pid}`), { recursive: true, force: true });
  rmSync(lock, { force: true });
}
