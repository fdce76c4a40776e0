// A small default-scheduler: every pod without spec.nodeName whose schedulerName is default-scheduler (or
// unset) is bound, through POST .../pods/<name>/binding like the real scheduler, to the least-loaded Ready,
// schedulable node whose labels match the pod's nodeSelector and that has room (pods below the node's
// allocatable "pods"). A pod that fits nowhere gets PodScheduled=False, reason Unschedulable, with the real
// message form ("0/3 nodes are available: 3 Insufficient pods."), and is tried again later.

import type { KubeObject } from '../api/meta.ts';
import { statusAs, type PodStatus } from '../api/types/index.ts';
import { ApiError, type ApiClient } from '../client/api-client.ts';
import { refOf, type EventRecorder } from '../client/event-recorder.ts';
import { keyOf } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { rfc3339 } from './node-object.ts';
import { taintsOf, toleratesAll } from '../api/taints.ts';

export const DEFAULT_SCHEDULER = 'default-scheduler';

interface PodSpecView {
  nodeName?: string;
  schedulerName?: string;
  nodeSelector?: Record<string, string>;
}

interface NodeView {
  spec?: { unschedulable?: boolean };
  status?: { allocatable?: Record<string, string>; conditions?: Array<{ type?: string; status?: string }> };
}

const isTerminal = (pod: KubeObject) => ['Succeeded', 'Failed'].includes(statusAs<PodStatus>(pod).phase ?? '');

export function wantsScheduling(pod: KubeObject): boolean {
  const spec = (pod.spec ?? {}) as PodSpecView;
  return !spec.nodeName && (spec.schedulerName ?? DEFAULT_SCHEDULER) === DEFAULT_SCHEDULER && !pod.metadata.deletionTimestamp && !isTerminal(pod);
}

export const isNodeReady = (node: KubeObject) => ((node as NodeView).status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export interface SchedulerSources {
  pod(key: string): KubeObject | undefined;
  nodes(): KubeObject[];
  /** Non-terminal pods the API shows bound to each node. */
  podsOn(node: string): number;
}

export class SimScheduler {
  private readonly queue = new WorkQueue<string>({ name: 'scheduler', baseDelayMs: 50, maxDelayMs: 2_000 });
  /** Bindings sent but not yet seen in the pod cache: they count against the node's room. */
  private readonly inFlight = new Map<string, string>();
  private readonly unschedulableNoted = new Set<string>();
  private rr = 0;
  private bindingMissingNoted = false;
  readonly stats = { bound: 0, unschedulable: 0 };

  constructor(
    private readonly client: ApiClient,
    private readonly sources: SchedulerSources,
    private readonly opts: { workers: number; retryMs: number; log(line: string): void; events?: EventRecorder },
  ) {}

  enqueue(pod: KubeObject): void {
    if (wantsScheduling(pod)) this.queue.add(keyOf(pod));
  }

  /** A pod appeared bound (or went): its in-flight binding is now visible in the cache. */
  settled(pod: KubeObject): void {
    this.inFlight.delete(keyOf(pod));
  }

  run(signal: AbortSignal): Promise<void> {
    return runWorkers(this.queue, this.opts.workers, (key) => this.schedule(key, signal), signal, { controller: 'scheduler', log: this.opts.log });
  }

  /** Nodes that fit the pod, least loaded first (ties broken round-robin). */
  candidates(pod: KubeObject): { fits: string[]; total: number; reasons: Map<string, number> } {
    const selector = ((pod.spec ?? {}) as PodSpecView).nodeSelector ?? {};
    const reasons = new Map<string, number>();
    const note = (r: string) => reasons.set(r, (reasons.get(r) ?? 0) + 1);
    const nodes = this.sources.nodes();
    const load = new Map<string, number>();
    for (const node of this.inFlight.values()) load.set(node, (load.get(node) ?? 0) + 1);
    const fits: Array<{ name: string; used: number }> = [];
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      const v = node as NodeView;
      if (!isNodeReady(node)) { note('node(s) were not ready'); continue; }
      if (v.spec?.unschedulable) { note('node(s) were unschedulable'); continue; }
      if (!toleratesAll(pod, taintsOf(node), ['NoSchedule', 'NoExecute'])) { note("node(s) had taints that the pod didn't tolerate"); continue; }
      const labels = node.metadata.labels ?? {};
      if (!Object.entries(selector).every(([k, val]) => labels[k] === val)) { note("node(s) didn't match node selector"); continue; }
      const room = Number(v.status?.allocatable?.pods ?? '110');
      const used = this.sources.podsOn(name) + (load.get(name) ?? 0);
      if (used >= room) { note('Insufficient pods'); continue; }
      fits.push({ name, used });
    }
    const start = this.rr++;
    fits.sort((a, b) => a.used - b.used || 0);
    // Among the least loaded, rotate so that equal nodes take turns.
    const least = fits.filter((f) => f.used === fits[0]?.used);
    const first = least.length ? least[start % least.length] : undefined;
    const ordered = first ? [first, ...fits.filter((f) => f !== first)] : fits;
    return { fits: ordered.map((f) => f.name), total: nodes.length, reasons };
  }

  private async schedule(key: string, signal: AbortSignal): Promise<void> {
    const pod = this.sources.pod(key);
    if (!pod || !wantsScheduling(pod) || this.inFlight.has(key)) return;
    const { fits, total, reasons } = this.candidates(pod);
    const ns = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name ?? '';
    const podPath = `/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(name)}`;
    if (fits.length === 0) {
      this.stats.unschedulable++;
      const why = [...reasons].map(([r, n]) => `${n} ${r}`).join(', ');
      const message = `0/${total} nodes are available${why ? `: ${why}` : ''}.`;
      // Every failed attempt, as the real scheduler does; identical ones aggregate into a count.
      this.opts.events?.event(refOf(pod, 'v1', 'Pod'), 'Warning', 'FailedScheduling', message);
      if (!this.unschedulableNoted.has(pod.metadata.uid ?? key)) {
        this.unschedulableNoted.add(pod.metadata.uid ?? key);
        const cond = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(), reason: 'Unschedulable', message };
        await this.client.patch(`${podPath}/status`, { status: { conditions: [cond] } }, 'application/merge-patch+json', signal).catch(() => undefined);
      }
      this.queue.addAfter(key, this.opts.retryMs);
      return;
    }
    const node = fits[0];
    this.inFlight.set(key, node);
    try {
      await this.client.create(
        `${podPath}/binding`,
        { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
        signal,
      );
      this.stats.bound++;
      this.opts.events?.event(refOf(pod, 'v1', 'Pod'), 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`);
      this.unschedulableNoted.delete(pod.metadata.uid ?? key);
    } catch (err) {
      this.inFlight.delete(key);
      // 409: it was bound or is being deleted meanwhile. 404: the pod went, or the API serves no binding
      // subresource (then the pod is still there: say so once and try again later). Anything else is retried.
      if (err instanceof ApiError && err.code === 409) return;
      if (err instanceof ApiError && err.code === 404) {
        if (!this.sources.pod(key)) return;
        if (!this.bindingMissingNoted) this.opts.log(`scheduler: POST ${podPath}/binding answered 404; does the API serve pods/binding?`);
        this.bindingMissingNoted = true;
        this.queue.addAfter(key, this.opts.retryMs);
        return;
      }
      throw err;
    }
  }
}
