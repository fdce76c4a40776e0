// The entry file of a worker thread that runs a module of the simulator from its sources or from a compiled build
// (simulator/cluster-clients-thread.ts starts the daemon and nodes' thread with it). Plain JavaScript importing only
// node's modules and the chunk loader, so that it runs the same under tsx and under plain node. workerData.threadEntry:
//   { chunks: { dir, file } }  a chunk of a compiled build, through commonjs-chunks.mjs (V8's code cache kept)
//   { tsx: url }               a TypeScript source: tsx (this checkout's) registered in this thread first (loader
//                              hooks are per thread, and --import does not reach a worker's entry in node 20)
import { workerData } from 'node:worker_threads';

const entry = workerData?.threadEntry;
if (entry?.chunks) {
  const { chunkLoader } = await import('./commonjs-chunks.mjs');
  chunkLoader(entry.chunks.dir).load(entry.chunks.file);
} else if (entry?.tsx) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(entry.tsx);
} else throw new Error('thread-entry.mjs: no workerData.threadEntry');
