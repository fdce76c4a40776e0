// Test support for the node controller and the cloud loops: a simulator with simulated nodes (short
// heartbeats) and the daemon running the named controllers with the given flags, plus polling helpers that
// record when something was first seen (the tests compare such times with the options under test).

import type { KubeObject } from '../api/meta.ts';
import type { NodesOptions } from '../nodes/index.ts';
import { Api, eventually, startWorkloadEnv, type WorkloadEnv } from './workload-test-env.ts';

export interface NodeEnv extends WorkloadEnv {
  api: Api;
}

export async function startNodeEnv(controllers: string[], flags: string[], nodes: NodesOptions = {}): Promise<NodeEnv> {
  const env = await startWorkloadEnv({ controllers, flags, nodes: { heartbeatMs: 100, ...nodes } });
  return { ...env, api: new Api(env.url) };
}

interface Cond {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
}

export const conditionOf = (obj: KubeObject | undefined, type: string): Cond | undefined =>
  ((obj?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []).find((c) => c.type === type);
export const readyStatus = (obj: KubeObject | undefined) => conditionOf(obj, 'Ready')?.status;

/** Polls until pred holds and returns the time (ms since epoch) it was first seen. */
export async function whenSeen(what: string, pred: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 50): Promise<number> {
  await eventually(what, async () => (await pred()) || undefined, timeoutMs, everyMs);
  return Date.now();
}

/** A pod bound to the node directly (no scheduler involved), optionally with tolerations. */
export function boundPod(name: string, nodeName: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, containers: [{ name: 'c', image: 'nginx:1.13' }], ...extra } } as KubeObject;
}

export const podsOnNode = async (api: Api, ns: string, node: string) =>
  (await api.list(`/api/v1/namespaces/${ns}/pods`)).filter((p) => (p.spec as { nodeName?: string }).nodeName === node);
