// Test helper: the real API server with the daemon in-process (startSimulator({ controllers })), plus a tiny
// JSON client and a polling wait, for the control-loop tests. Waits poll with generous deadlines so that a
// loaded machine makes the tests slower, never red.

import { startSimulator, type RunningSimulator } from '../cluster.ts';
import type { KubeObject } from '../api/meta.ts';

export interface JsonResponse<T = KubeObject> {
  status: number;
  body: T;
}

export interface TestCluster {
  sim: RunningSimulator;
  req<T = KubeObject>(method: string, path: string, body?: unknown, contentType?: string): Promise<JsonResponse<T>>;
  close(): Promise<void>;
}

export async function startTestCluster(controllers: string[], extraArgs: string[] = []): Promise<TestCluster> {
  const sim = await startSimulator({ controllers, controllerArgs: extraArgs, controllerLog: process.env.DAEMON_LOG ? (l) => process.stderr.write(`${l}\n`) : undefined });
  const req = async <T>(method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(sim.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  return { sim, req, close: () => sim.close() };
}

/** Polls until fn returns a truthy value; throws with `what` after the deadline. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const podTemplate = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

export function ownerRef(owner: KubeObject, extra: { blockOwnerDeletion?: boolean; controller?: boolean } = {}) {
  return { apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata.name!, uid: owner.metadata.uid!, ...extra };
}
