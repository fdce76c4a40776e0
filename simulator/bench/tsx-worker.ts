// A worker thread running a TypeScript module of the benches. Loader hooks (tsx) are per thread and --import does
// not reach a worker's entry in Node 20: a small JS entry registers tsx in the worker, then loads the module.

import { Worker, type WorkerOptions } from 'node:worker_threads';

export function tsxWorker(moduleUrl: string, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const entry = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(moduleUrl)}); });`;
  return new Worker(entry, { ...options, eval: true });
}
