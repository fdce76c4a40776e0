// Test and benchmark support for the workload controllers: a real simulator, the daemon running the named
// controllers, and simulated nodes with short durations, all in-process and talking HTTP. Plus the small
// polling helpers the tests use (deadlines are generous; nothing asserts on timing).

import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { startNodes, type NodesHandle, type NodesOptions } from '../nodes/index.ts';
import type { KubeObject, KubeList } from '../api/meta.ts';
import { startDaemon, type DaemonHandle } from '../controllers/daemon/daemon.ts';
import { CONTROLLER_PLANS, type ControllerPlan } from '../controllers/daemon/registry.ts';
import type { Controller } from '../controllers/kit/controller.ts';
import { replicaSetController } from '../controllers/replicaset.ts';
import { replicationControllerController } from '../controllers/replicationcontroller.ts';
import { deploymentController } from '../controllers/deployment.ts';
import { daemonSetController } from '../controllers/daemonset.ts';
import { jobController } from '../controllers/job.ts';
import { cronJobController } from '../controllers/cronjob.ts';
import { endpointsController } from '../controllers/endpoints.ts';
import { podGCController } from '../controllers/podgc.ts';
import { statefulSetController } from '../controllers/statefulset.ts';
import { disruptionController } from '../controllers/disruption.ts';
import { horizontalPodAutoscalerController } from '../controllers/horizontal.ts';
import { resourceQuotaController } from '../controllers/resourcequota.ts';

/** The workload control loops, by --controllers name (the registry's entries point at the same factories). */
export const WORKLOAD_CONTROLLERS: Partial<Record<string, () => Controller>> = {
  replicaset: replicaSetController,
  replicationcontroller: replicationControllerController,
  deployment: deploymentController,
  daemonset: daemonSetController,
  job: jobController,
  cronjob: cronJobController,
  endpoint: endpointsController,
  podgc: podGCController,
  statefulset: statefulSetController,
  disruption: disruptionController,
  horizontalpodautoscaling: horizontalPodAutoscalerController,
  resourcequota: resourceQuotaController,
};

export interface WorkloadEnv {
  sim: RunningSimulator;
  daemon: DaemonHandle;
  nodes: NodesHandle;
  url: string;
  close(): Promise<void>;
}

export interface WorkloadEnvOptions {
  controllers: string[];
  /** Extra daemon flags. */
  flags?: string[];
  nodes?: NodesOptions;
  /** Replaces a controller's factory (e.g. a CronJob controller with a short check interval). */
  factories?: Record<string, () => Controller>;
  log?: (line: string) => void;
  /** The API server's --runtime-config (e.g. storage.k8s.io/v1alpha1=true for CSI attach). */
  runtimeConfig?: string[];
}

export async function startWorkloadEnv(opts: WorkloadEnvOptions): Promise<WorkloadEnv> {
  const log = opts.log ?? (() => {});
  const sim = await startSimulator({ runtimeConfig: opts.runtimeConfig });
  const nodes = await startNodes(sim.url, {
    startMs: 30,
    batchRunMs: 200,
    stopMs: 20,
    restartBackoffMs: 100,
    kubeletQps: -1,
    schedulerQps: -1,
    log,
    ...opts.nodes,
  });
  const plans: Record<string, ControllerPlan> = {};
  for (const name of opts.controllers) {
    const create = opts.factories?.[name] ?? WORKLOAD_CONTROLLERS[name];
    if (create) plans[name] = { ...CONTROLLER_PLANS[name], create };
  }
  const daemon = await startDaemon(
    [
      '--master',
      sim.url,
      '--leader-elect=false',
      '--port',
      '0',
      '--address',
      '127.0.0.1',
      '--controllers',
      opts.controllers.join(','),
      '--x-api-content-type',
      'application/json',
      ...(opts.flags ?? []),
    ],
    { plans, log },
  );
  return {
    sim,
    daemon,
    nodes,
    url: sim.url,
    async close() {
      await daemon.close();
      await nodes.close();
      await sim.close();
    },
  };
}

/**
 * The HPA tests' cluster: the autoscaler syncing every second with no upscale delay and the given downscale delay,
 * over Deployments and ReplicaSets on 2 nodes.
 */
export function startHpaEnv(downscaleDelaySeconds: number): Promise<WorkloadEnv> {
  return startWorkloadEnv({
    controllers: ['horizontalpodautoscaling', 'deployment', 'replicaset'],
    nodes: { count: 2 },
    flags: ['--horizontal-pod-autoscaler-sync-period=1s', '--horizontal-pod-autoscaler-upscale-delay=0s', `--horizontal-pod-autoscaler-downscale-delay=${downscaleDelaySeconds}s`],
  });
}

export class Api {
  constructor(readonly url: string) {}

  async req<T = KubeObject>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: T }> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async create<T = KubeObject>(path: string, body: unknown): Promise<T> {
    const r = await this.req<T>('POST', path, body);
    if (r.status >= 300) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async get<T = KubeObject>(path: string): Promise<T | undefined> {
    const r = await this.req<T>('GET', path);
    if (r.status === 404) return undefined;
    if (r.status >= 300) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async list(path: string): Promise<KubeObject[]> {
    const r = await this.req<KubeList>('GET', path);
    if (r.status >= 300) throw new Error(`GET ${path}: ${r.status}`);
    return r.body.items;
  }

  async patch<T = KubeObject>(path: string, body: unknown, type = 'application/merge-patch+json'): Promise<T> {
    const r = await this.req<T>('PATCH', path, body, type);
    if (r.status >= 300) throw new Error(`PATCH ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async delete(path: string, body?: unknown): Promise<number> {
    return (await this.req('DELETE', path, body)).status;
  }

  async namespace(prefix = 'wl'): Promise<string> {
    const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
    await this.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    return name;
  }
}

/** Polls until fn returns a value that is not undefined/false, or fails with the last value seen. */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v as T;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const podTemplate = (labels: Record<string, string>, opts: { image?: string; annotations?: Record<string, string>; restartPolicy?: string } = {}) => ({
  metadata: { labels, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
  spec: { ...(opts.restartPolicy ? { restartPolicy: opts.restartPolicy } : {}), containers: [{ name: 'main', image: opts.image ?? 'nginx:1.13' }] },
});

export const phaseOf = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
export const isReady = (p: KubeObject) =>
  ((p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Records a watch's events (type and object) from now until stop(), for asserting orders. */
export async function recordWatch(url: string, path: string): Promise<{ events: Array<{ type: string; object: KubeObject }>; stop(): void }> {
  const ac = new AbortController();
  const events: Array<{ type: string; object: KubeObject }> = [];
  const sep = path.includes('?') ? '&' : '?';
  const res = await fetch(`${url}${path}${sep}watch=true`, { signal: ac.signal });
  if (!res.ok || !res.body) throw new Error(`watch ${path}: ${res.status}`);
  const reader = res.body.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as { type: string; object: KubeObject });
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, stop: () => ac.abort() };
}
