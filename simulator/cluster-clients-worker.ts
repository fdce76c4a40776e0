// The worker thread's side of cluster-clients-thread.ts: starts the controller daemon and the simulated nodes
// (cluster-clients.ts) with the options the main thread posted as workerData, sends their log lines back as
// messages, and stops them when told to. No top-level await: the compiled build runs this file as a CommonJS
// function body (simulator/compiled.ts).
//
//   workerData { clusterClients: ClientsThreadInit } → { ready: ClientsThreadReady } or { failed: { message, stack } }
//   { log: 'daemon' | 'nodes', line }  (only for the logs the main thread asked for)
//   'close' → 'closed'

import { parentPort, threadId, workerData, type MessagePort } from 'node:worker_threads';
import { startClients, type ClientsInit } from './cluster-clients.ts';
import { containersThrough, type ContainersBridge } from './cluster-clients-containers.ts';

export interface ClientsThreadInit extends ClientsInit {
  /** Which log sinks the main thread has: lines of the others are not sent. */
  logs: { daemon: boolean; nodes: boolean };
  /** The simulated containers in the API server's thread, read through this (cluster-clients-containers.ts). */
  containers?: ContainersBridge;
}

export interface ClientsThreadReady {
  threadId: number;
  daemonUrl?: string;
  nodeNames: string[];
  scheduler: boolean;
}

async function serve(port: MessagePort, init: ClientsThreadInit): Promise<void> {
  const sink = (component: 'daemon' | 'nodes') => (init.logs[component] ? (line: string) => port.postMessage({ log: component, line }) : undefined);
  let clients;
  try {
    clients = await startClients(init, { daemon: sink('daemon'), nodes: sink('nodes') }, init.containers && containersThrough(init.containers));
  } catch (e) {
    const err = e as Error;
    port.postMessage({ failed: { message: String(err?.message ?? err), stack: err?.stack } });
    return;
  }
  const started = clients;
  port.on('message', (m: unknown) => {
    if (m !== 'close') return;
    started.close().then(
      () => port.postMessage('closed'),
      (e: Error) => port.postMessage({ failed: { message: e.message, stack: e.stack } }),
    );
  });
  const ready: ClientsThreadReady = {
    threadId,
    daemonUrl: started.daemon?.url,
    nodeNames: started.nodes?.nodeNames ?? [],
    scheduler: Boolean(started.nodes?.scheduler),
  };
  port.postMessage({ ready });
}

const data = workerData as { clusterClients?: ClientsThreadInit } | undefined;
if (parentPort && data?.clusterClients) void serve(parentPort, data.clusterClients);
