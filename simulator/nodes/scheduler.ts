// A small default-scheduler: every pod without spec.nodeName whose schedulerName is default-scheduler (or
// unset) is bound, through POST .../pods/<name>/binding like the real scheduler, to the least-loaded Ready,
// schedulable node whose labels match the pod's nodeSelector and that has room (pods below the node's
// allocatable "pods"). A pod that fits nowhere gets PodScheduled=False, reason Unschedulable, with the real
// message form ("0/3 nodes are available: 3 Insufficient pods."), and is tried again later.
//
// At 1,000 nodes the choice cannot look at every node for every pod (that was most of a 100k-pod run's CPU):
// nodes sit in buckets by load (bound pods plus bindings in flight), each bucket in the order its nodes
// entered it, and a pod takes the first node that fits in the lowest bucket. A node that takes a pod moves to
// the end of the next bucket, so equal nodes take turns. The node's facts (Ready, unschedulable, taints,
// labels, room) are read once per change of the Node. Only a pod that fits nowhere pays a look at every node,
// for the reasons of its FailedScheduling message.
//
// A pod that fits nowhere waits as in kube-scheduler (pod-backoff.ts: 1 s doubling to 60 s, woken early by a
// change of the nodes), and its PodScheduled=False condition is written by a queue of its own: the scheduling
// workers never wait on those writes, so thousands of pods that fit nowhere (a Job of a billion parallel pods
// with a node selector no node has) do not hold up the binding of pods that fit.

import type { KubeObject } from '../api/meta.ts';
import { statusAs, type PodStatus } from '../api/types/index.ts';
import { ApiError, type ApiClient } from '../client/api-client.ts';
import { refOf, type EventRecorder } from '../client/event-recorder.ts';
import { keyOf } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { rfc3339 } from './node-object.ts';
import { taintsOf, toleratesAll, type Taint } from '../api/taints.ts';
import { PodBackoff } from './pod-backoff.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const DEFAULT_SCHEDULER = 'default-scheduler';

interface PodSpecView {
  nodeName?: string;
  schedulerName?: string;
  nodeSelector?: Record<string, string>;
}

interface PodCondition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
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
  /** Non-terminal pods the API shows bound to each node (the owner calls loadChanged when it changes). */
  podsOn(node: string): number;
}

/** What the scheduler reads of a Node, taken once per change of the Node rather than once per pod. */
interface NodeFacts {
  ready: boolean;
  unschedulable: boolean;
  /** Taints of effect NoSchedule or NoExecute. */
  taints: Taint[];
  labels: Record<string, string>;
  room: number;
}

const sameFacts = (a: NodeFacts, b: NodeFacts) =>
  a.ready === b.ready &&
  a.unschedulable === b.unschedulable &&
  a.room === b.room &&
  JSON.stringify([a.taints, a.labels]) === JSON.stringify([b.taints, b.labels]);

function factsOf(node: KubeObject): NodeFacts {
  const v = node as NodeView;
  return {
    ready: isNodeReady(node),
    unschedulable: !!v.spec?.unschedulable,
    taints: taintsOf(node).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute'),
    labels: node.metadata.labels ?? {},
    room: Number(v.status?.allocatable?.pods ?? '110'),
  };
}

export class SimScheduler {
  private readonly queue = new WorkQueue<string>({ name: 'scheduler', baseDelayMs: 50, maxDelayMs: 2_000 });
  /** Bindings sent but not yet seen in the pod cache: they count against the node's room. */
  private readonly inFlight = new Map<string, string>();
  private readonly inFlightOn = new Map<string, number>();
  /** Pods that fit nowhere, waiting for their next try. */
  private readonly backoff: PodBackoff;
  /** PodScheduled=False conditions to write (latest message per pod), written by their own workers. */
  private readonly conditions = new WorkQueue<string>({ name: 'scheduler-conditions', baseDelayMs: 50, maxDelayMs: 2_000 });
  private readonly wantedCondition = new Map<string, { uid: string | undefined; message: string }>();
  private readonly facts = new Map<string, NodeFacts>();
  /** buckets[load] = nodes with that load, in the order they entered the bucket. */
  private readonly buckets: Array<Set<string>> = [];
  private readonly loadOf = new Map<string, number>();
  /** Pods bound to each node when last seen (sources.podsOn), to tell room freed from a binding settling. */
  private readonly boundOf = new Map<string, number>();
  private rr = 0;
  private bindingMissingNoted = false;
  readonly stats = { bound: 0, unschedulable: 0 };

  constructor(
    private readonly client: ApiClient,
    private readonly sources: SchedulerSources,
    private readonly opts: {
      workers: number;
      /** First wait of a pod that fits nowhere, ms (doubling per failed try). */
      retryMs: number;
      /** Longest wait, ms (default 60 s, as kube-scheduler). */
      maxRetryMs?: number;
      log(line: string): void;
      events?: EventRecorder;
    },
  ) {
    this.backoff = new PodBackoff({
      initialMs: opts.retryMs,
      maxMs: Math.max(opts.retryMs, opts.maxRetryMs ?? 60_000),
      coalesceMs: Math.min(opts.retryMs, 1000),
      retry: (key) => this.queue.add(key),
    });
  }

  /** Pods that fit nowhere, waiting for their next try. */
  get waiting(): number {
    return this.backoff.size;
  }

  enqueue(pod: KubeObject): void {
    if (!wantsScheduling(pod)) return;
    const key = keyOf(pod);
    if (!this.backoff.isWaiting(key)) this.queue.add(key);
  }

  /** A pod appeared bound (or went): its in-flight binding is now visible in the cache. */
  settled(pod: KubeObject): void {
    const key = keyOf(pod);
    this.settle(key);
    this.backoff.forget(key);
    this.wantedCondition.delete(key);
  }

  /** A Node was added or changed (undefined: deleted). */
  nodeChanged(name: string, node: KubeObject | undefined): void {
    if (!node) {
      this.facts.delete(name);
      const old = this.loadOf.get(name);
      if (old !== undefined) this.buckets[old]?.delete(name);
      this.loadOf.delete(name);
      this.boundOf.delete(name);
      return;
    }
    const was = this.facts.get(name);
    const now = factsOf(node);
    this.facts.set(name, now);
    this.loadChanged(name);
    // A new node, or one whose readiness, labels, taints or room changed, may take pods that fit nowhere
    // (a heartbeat changes none of these).
    if (!was || !sameFacts(was, now)) this.backoff.wake('all');
  }

  /** The count of pods bound to the node (sources.podsOn) changed. */
  loadChanged(name: string): void {
    if (!this.facts.has(name)) return;
    const bound = this.sources.podsOn(name);
    // Room freed: fewer pods bound to the node than before (a pod gone or finished). A binding becoming visible
    // (bound +1, in flight -1) is not: the load only passes through +1 on the way.
    const wasBound = this.boundOf.get(name);
    this.boundOf.set(name, bound);
    if (wasBound !== undefined && bound < wasBound) this.backoff.wake('room');
    const load = bound + (this.inFlightOn.get(name) ?? 0);
    const old = this.loadOf.get(name);
    if (old === load) return;
    if (old !== undefined) this.buckets[old]?.delete(name);
    this.loadOf.set(name, load);
    (this.buckets[load] ??= new Set()).add(name);
  }

  private settle(key: string): void {
    const node = this.inFlight.get(key);
    if (node === undefined) return;
    this.inFlight.delete(key);
    const n = (this.inFlightOn.get(node) ?? 1) - 1;
    if (n > 0) this.inFlightOn.set(node, n);
    else this.inFlightOn.delete(node);
    this.loadChanged(node);
  }

  private reserve(key: string, node: string): void {
    this.inFlight.set(key, node);
    this.inFlightOn.set(node, (this.inFlightOn.get(node) ?? 0) + 1);
    this.loadChanged(node);
  }

  async run(signal: AbortSignal): Promise<void> {
    signal.addEventListener('abort', () => this.backoff.close(), { once: true });
    await Promise.all([
      runWorkers(this.queue, this.opts.workers, (key) => this.schedule(key, signal), signal, { controller: 'scheduler', log: this.opts.log }),
      runWorkers(this.conditions, 2, (key) => this.writeCondition(key, signal), signal, { controller: 'scheduler-conditions', log: this.opts.log }),
    ]);
  }

  /** Writes the PodScheduled=False condition a pod that fits nowhere should show, unless it shows it already. */
  private async writeCondition(key: string, signal: AbortSignal): Promise<void> {
    const want = this.wantedCondition.get(key);
    this.wantedCondition.delete(key);
    const pod = this.sources.pod(key);
    if (!want || !pod || pod.metadata.uid !== want.uid || !wantsScheduling(pod)) return;
    const shown = ((pod.status as { conditions?: PodCondition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    if (shown?.status === 'False' && shown.reason === 'Unschedulable' && shown.message === want.message) return;
    const cond = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: rfc3339(), reason: 'Unschedulable', message: want.message };
    const ns = pod.metadata.namespace ?? 'default';
    await this.client.patch(RESOURCE.pods.object(ns, pod.metadata.name ?? '', 'status'), { status: { conditions: [cond] } }, 'application/merge-patch+json', signal).catch(() => undefined);
  }

  /** Why a node does not take the pod (undefined: it does). */
  private misfit(pod: KubeObject, selector: Record<string, string>, f: NodeFacts, load: number): string | undefined {
    if (!f.ready) return 'node(s) were not ready';
    if (f.unschedulable) return 'node(s) were unschedulable';
    if (f.taints.length && !toleratesAll(pod, f.taints, ['NoSchedule', 'NoExecute'])) return "node(s) had taints that the pod didn't tolerate";
    for (const k in selector) if (f.labels[k] !== selector[k]) return "node(s) didn't match node selector";
    if (load >= f.room) return 'Insufficient pods';
    return undefined;
  }

  /** The least loaded node that fits the pod (equal ones in turn), or undefined. */
  pick(pod: KubeObject): string | undefined {
    const selector = ((pod.spec ?? {}) as PodSpecView).nodeSelector ?? {};
    for (let load = 0; load < this.buckets.length; load++) {
      const bucket = this.buckets[load];
      if (!bucket?.size) continue;
      for (const name of bucket) if (!this.misfit(pod, selector, this.facts.get(name)!, load)) return name;
    }
    return undefined;
  }

  /** Nodes that fit the pod, least loaded first (ties broken round-robin), and why the others do not. */
  candidates(pod: KubeObject): { fits: string[]; total: number; reasons: Map<string, number> } {
    const selector = ((pod.spec ?? {}) as PodSpecView).nodeSelector ?? {};
    const reasons = new Map<string, number>();
    const fits: Array<{ name: string; used: number }> = [];
    for (const [name, f] of this.facts) {
      const used = this.loadOf.get(name) ?? 0;
      const why = this.misfit(pod, selector, f, used);
      if (why) reasons.set(why, (reasons.get(why) ?? 0) + 1);
      else fits.push({ name, used });
    }
    const start = this.rr++;
    fits.sort((a, b) => a.used - b.used);
    // Among the least loaded, rotate so that equal nodes take turns.
    const least = fits.filter((f) => f.used === fits[0]?.used);
    const first = least.length ? least[start % least.length] : undefined;
    const ordered = first ? [first, ...fits.filter((f) => f !== first)] : fits;
    return { fits: ordered.map((f) => f.name), total: this.facts.size, reasons };
  }

  private async schedule(key: string, signal: AbortSignal): Promise<void> {
    const pod = this.sources.pod(key);
    if (!pod || !wantsScheduling(pod) || this.inFlight.has(key)) return;
    const node = this.pick(pod);
    const ns = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name ?? '';
    const bindingPath = RESOURCE.pods.object(ns, name, 'binding');
    if (node === undefined) {
      const { total, reasons } = this.candidates(pod);
      this.stats.unschedulable++;
      const why = [...reasons].map(([r, n]) => `${n} ${r}`).join(', ');
      const message = `0/${total} nodes are available${why ? `: ${why}` : ''}.`;
      // Every failed attempt, as the real scheduler does; identical ones aggregate into a count.
      this.opts.events?.event(refOf(pod, 'v1', 'Pod'), 'Warning', 'FailedScheduling', message);
      this.wantedCondition.set(key, { uid: pod.metadata.uid, message });
      this.conditions.add(key);
      this.backoff.failed(key, reasons.has('Insufficient pods'));
      return;
    }
    this.reserve(key, node);
    try {
      await this.client.create(
        bindingPath,
        { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
        signal,
      );
      this.stats.bound++;
      this.opts.events?.event(refOf(pod, 'v1', 'Pod'), 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${node}`);
    } catch (err) {
      // The reservation goes: room for a pod that waits for it.
      this.settle(key);
      this.backoff.wake('room');
      // 409: it was bound or is being deleted meanwhile. 404: the pod went, or the API serves no binding
      // subresource (then the pod is still there: say so once and try again later). Anything else is retried.
      if (err instanceof ApiError && err.code === 409) return;
      if (err instanceof ApiError && err.code === 404) {
        if (!this.sources.pod(key)) return;
        if (!this.bindingMissingNoted) this.opts.log(`scheduler: POST ${bindingPath} answered 404; does the API serve pods/binding?`);
        this.bindingMissingNoted = true;
        this.queue.addAfter(key, this.opts.retryMs);
        return;
      }
      throw err;
    }
  }
}
