// The controller daemon and the simulated nodes in a worker thread of their own (cluster-clients-worker.ts), so that
// the API server keeps its thread to itself and a second core does the clients' work, as a real cluster's
// controller manager and kubelets run beside its API server. The worker is started from whichever form this code
// runs in:
// - the published package (dist/, scripts/build-package.mjs): its built worker file, dist/simulator-clients-worker.cjs;
// - the compiled build of `npx tsx simulator` (simulator/compiled.ts): the build's clients-worker.js chunk, through
//   the same chunk loader (scripts/commonjs-chunks.mjs) and V8 code cache, from scripts/thread-entry.mjs;
// - the sources under tsx (tests, SIMULATOR_COMPILED=0): scripts/thread-entry.mjs registers tsx in the worker, which
//   then imports the worker's source (loader hooks are per thread, and --import does not reach a worker's entry in
//   node 20).
// Anything else (a bundle of another making): undefined, and the caller runs the clients in its own thread.

import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientsInit, ClientsLogs } from './cluster-clients.ts';
import { serveContainers } from './cluster-clients-containers.ts';
import type { ContainersAccess } from './nodes/termination-message.ts';
import type { ClientsThreadInit, ClientsThreadReady } from './cluster-clients-worker.ts';

// Set by the builds through esbuild's `define` (absent under tsx): the package bundle's own URL, and the directory
// of the compiled build's chunks.
declare const __SIMULATOR_PACKAGE_BASE__: string | undefined;
declare const __SIMULATOR_CHUNK_DIR__: string | undefined;

/**
 * The clients' young generation, in MB (V8's default is 16-32): they allocate a decoded object per watch event and
 * request, short-lived; with the default their garbage collection was 40% of their thread's CPU at 1,000 nodes and
 * 10,000 pods (simulator/bench/README.md, "Where a scale run goes").
 */
const YOUNG_GENERATION_MB = 96;

export interface ClientsThread extends ClientsThreadReady {
  close(): Promise<void>;
}

/** The worker's file and what scripts/thread-entry.mjs is told to load (none: the package's own worker file). */
type WorkerSpec = { file: URL; threadEntry?: { chunks: { dir: string; file: string } } | { tsx: string } };

function workerSpec(): WorkerSpec | undefined {
  if (typeof __SIMULATOR_PACKAGE_BASE__ === 'string') return { file: new URL('./simulator-clients-worker.cjs', __SIMULATOR_PACKAGE_BASE__) };
  const threadEntry = new URL('../scripts/thread-entry.mjs', import.meta.url);
  if (typeof __SIMULATOR_CHUNK_DIR__ === 'string') return { file: threadEntry, threadEntry: { chunks: { dir: __SIMULATOR_CHUNK_DIR__, file: join(__SIMULATOR_CHUNK_DIR__, 'clients-worker.js') } } };
  if (import.meta.url.endsWith('.ts')) return { file: threadEntry, threadEntry: { tsx: new URL('./cluster-clients-worker.ts', import.meta.url).href } };
  return undefined;
}

/** Whether this form of the code can start the clients' thread (see the top of this file). */
export const clientsThreadAvailable = (): boolean => workerSpec() !== undefined;

/**
 * Starts the daemon and the nodes in a worker thread and resolves once both are up (rejects with their start's
 * error, the thread ended). `onError`: the thread failed later (an uncaught error, or it ended without being
 * closed); called once. `containers`: the simulated containers, which the kubelets read through a bridge
 * (cluster-clients-containers.ts).
 */
export async function startClientsThread(
  init: ClientsInit,
  logs: ClientsLogs,
  onError: (e: Error) => void,
  containers?: ContainersAccess,
): Promise<ClientsThread> {
  const spec = workerSpec();
  if (!spec) throw new Error('the clients thread cannot start from this build (no worker entry)');
  const served = containers && serveContainers(containers);
  const clusterClients: ClientsThreadInit = { ...init, logs: { daemon: Boolean(logs.daemon), nodes: Boolean(logs.nodes) }, containers: served?.bridge };
  const worker = new Worker(fileURLToPath(spec.file), {
    workerData: { clusterClients, threadEntry: spec.threadEntry },
    transferList: served ? [served.bridge.port] : [],
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    name: 'cluster-clients',
  });
  worker.once('exit', () => served?.close());
  let closing = false;
  let reported = false;
  const report = (e: Error) => {
    if (closing || reported) return;
    reported = true;
    onError(e);
  };
  let settleClose: () => void = () => {};
  const ready = await new Promise<ClientsThreadReady>((resolve, reject) => {
    const fail = (e: Error) => {
      reported = true;
      reject(e);
      void worker.terminate();
    };
    worker.on('message', (m: { log?: 'daemon' | 'nodes'; line?: string; ready?: ClientsThreadReady; failed?: { message: string; stack?: string } } | 'closed') => {
      if (m === 'closed') return settleClose();
      if (m.log) return logs[m.log]?.(m.line ?? '');
      if (m.ready) return resolve(m.ready);
      if (m.failed) {
        const e = Object.assign(new Error(m.failed.message), { stack: m.failed.stack ?? m.failed.message });
        if (closing) return settleClose();
        return reported ? undefined : fail(e);
      }
    });
    worker.on('error', (e) => (reported ? undefined : fail(e)));
    worker.on('exit', (code) => {
      settleClose();
      fail(new Error(`the controller daemon and nodes' thread ended (exit code ${code}) before they were up`));
    });
  });
  // From here on a failure is reported, not thrown: the start has returned.
  worker.removeAllListeners('error');
  worker.on('error', (e) => report(e));
  worker.removeAllListeners('exit');
  worker.on('exit', (code) => {
    settleClose();
    report(new Error(`the controller daemon and nodes' thread ended (exit code ${code})`));
  });
  return {
    ...ready,
    async close() {
      if (closing) return;
      closing = true;
      const closed = new Promise<void>((r) => (settleClose = r));
      worker.postMessage('close');
      // A thread that does not answer in 10 s (stuck in a loop) is ended all the same.
      const timer = setTimeout(() => settleClose(), 10_000);
      await closed;
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
