// The simulated containers (their files and configured log files) as the kubelets read them when a container ends
// (nodes/termination-message.ts ContainersAccess), across threads: the containers live in the API server's thread
// (exec, attach and port-forward are served there), the kubelets in the clients' worker thread. Their reads are
// synchronous, so the worker asks over a MessagePort and waits on a shared flag (Atomics.wait) until the API
// server's thread has answered; the answer is then taken from the port with receiveMessageOnPort. Only the worker
// ever waits, never the API server's thread. One read per ended container (its termination-message file).

import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { KubeObject } from './api/meta.ts';
import type { ContainersAccess } from './nodes/termination-message.ts';

/** What the worker is given (in workerData, the port in the transfer list). */
export interface ContainersBridge {
  port: MessagePort;
  /** [0]: the number of the last answered request. */
  flag: Int32Array;
}

type Question = { pod: KubeObject; container: string } & ({ op: 'readFile'; path: string } | { op: 'logFile' });
type Ask = Question & { id: number };

/** How long a kubelet waits for an answer before it reads as "no file" (the API server's thread busy that long). */
const WAIT_MS = 5_000;

/** The API server's side: answers the worker's reads from `access`; close() when the thread ends. */
export function serveContainers(access: ContainersAccess): { bridge: ContainersBridge; close(): void } {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  port1.on('message', (m: Ask) => {
    let result: Buffer | string | undefined;
    try {
      result = m.op === 'readFile' ? access.readFile?.(m.pod, m.container, m.path) : access.logFile?.(m.pod, m.container);
    } catch {
      result = undefined;
    }
    port1.postMessage({ id: m.id, result });
    Atomics.store(flag, 0, m.id);
    Atomics.notify(flag, 0);
  });
  port1.unref();
  return { bridge: { port: port2, flag }, close: () => port1.close() };
}

/** The worker's side: synchronous reads through the bridge. */
export function containersThrough({ port, flag }: ContainersBridge): ContainersAccess {
  let next = 0;
  const ask = (q: Question): Buffer | string | undefined => {
    const id = ++next;
    port.postMessage({ ...q, id });
    const deadline = Date.now() + WAIT_MS;
    while (Atomics.load(flag, 0) < id) {
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(flag, 0, Atomics.load(flag, 0), left);
    }
    // Answers to earlier requests that timed out come first: skipped.
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const answer = m.message as { id: number; result?: Uint8Array | string };
      if (answer.id !== id) continue;
      const r = answer.result;
      return r === undefined || typeof r === 'string' ? r : Buffer.from(r.buffer, r.byteOffset, r.byteLength);
    }
    return undefined;
  };
  return {
    readFile: (pod, container, path) => ask({ op: 'readFile', pod, container, path }) as Buffer | undefined,
    logFile: (pod, container) => ask({ op: 'logFile', pod, container }) as string | undefined,
  };
}
