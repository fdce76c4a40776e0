// The NoExecute taint manager of the node controller (--enable-taint-manager): a pod bound to a node with
// NoExecute taints is deleted at once when it does not tolerate one of them, after the smallest
// tolerationSeconds of the matching tolerations when it tolerates them all for a while, and never when it
// tolerates them all for ever. A scheduled deletion is cancelled when the taints go (or become tolerated for
// ever); it keeps its start time when the taints change, as the real manager's queue does. Events:
// TaintManagerEviction "Marking for deletion Pod <ns>/<name>" and "Cancelling deletion of Pod <ns>/<name>".

import type { KubeObject } from '../api/meta.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { taintsOf, tolerates, tolerationsOf, type Taint } from '../api/taints.ts';
import type { ControllerContext } from './kit/controller.ts';
import { isConflict, isNotFound, specOf } from './kit/workload-util.ts';
import { untilAborted } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';
import { isJsonNumber } from '../util/int64-json.ts';

interface Scheduled {
  createdAt: number;
  fireAt: number;
  timer: NodeJS.Timeout;
  uid: string;
}

const noExecute = (node: KubeObject | undefined): Taint[] => taintsOf(node).filter((t) => t.effect === 'NoExecute');

/** The smallest tolerationSeconds among the tolerations used (Infinity: tolerated for ever); undefined: not tolerated. */
export function minTolerationMs(pod: KubeObject, taints: Taint[]): number | undefined {
  const tols = tolerationsOf(pod).filter((t) => !t.effect || t.effect === 'NoExecute');
  let min = Infinity;
  for (const taint of taints) {
    const used = tols.filter((t) => tolerates(t, taint));
    if (used.length === 0) return undefined;
    // Number(): an int64 beyond 2^53 arrives as a BigInt (util/int64-json.ts).
    for (const t of used) if (isJsonNumber(t.tolerationSeconds)) min = Math.min(min, Math.max(0, Number(t.tolerationSeconds)) * 1000);
  }
  return min;
}

export class TaintManager {
  private readonly scheduled = new Map<string, Scheduled>();
  private readonly events: EventRecorder;
  readonly stats = { deleted: 0, cancelled: 0 };

  constructor(
    private readonly ctx: ControllerContext,
    private readonly nodes: Informer,
    private readonly pods: Informer,
  ) {
    this.events = new EventRecorder(ctx.client, { component: 'taint-controller' }, { log: ctx.log, signal: ctx.signal });
    nodes.addEventHandler({
      onAdd: (n) => this.nodeUpdated(undefined, n),
      onUpdate: (o, n) => this.nodeUpdated(o, n),
      onDelete: (n) => this.nodeUpdated(n, undefined),
    });
    pods.addEventHandler({
      onAdd: (p) => this.podUpdated(p),
      onUpdate: (_o, p) => this.podUpdated(p),
      onDelete: (p) => this.cancel(keyOf(p), undefined, false),
    });
  }

  async run(): Promise<void> {
    await untilAborted(this.ctx.signal);
    for (const s of this.scheduled.values()) clearTimeout(s.timer);
    this.scheduled.clear();
  }

  private nodeUpdated(old: KubeObject | undefined, node: KubeObject | undefined): void {
    const before = JSON.stringify(noExecute(old));
    const after = JSON.stringify(noExecute(node));
    if (old && node && before === after) return;
    const name = (node ?? old)?.metadata.name;
    for (const pod of this.pods.list()) if (specOf<{ nodeName?: string }>(pod).nodeName === name) this.process(pod, node);
  }

  private podUpdated(pod: KubeObject): void {
    const nodeName = specOf<{ nodeName?: string }>(pod).nodeName;
    if (!nodeName) return;
    this.process(pod, this.nodes.get(nodeName));
  }

  private process(pod: KubeObject, node: KubeObject | undefined): void {
    const key = keyOf(pod);
    if (pod.metadata.deletionTimestamp) return this.cancel(key, pod, false);
    const taints = noExecute(node);
    if (taints.length === 0) return this.cancel(key, pod, true);
    const min = minTolerationMs(pod, taints);
    if (min === undefined) {
      this.cancel(key, pod, false);
      void this.deletePod(pod);
      return;
    }
    if (min === Infinity) return this.cancel(key, pod, true);
    const now = Date.now();
    const existing = this.scheduled.get(key);
    let createdAt = now;
    if (existing && existing.uid === pod.metadata.uid) {
      createdAt = existing.createdAt;
      if (createdAt + min >= existing.fireAt) return; // already due no later than this
      clearTimeout(existing.timer);
    }
    const fireAt = createdAt + min;
    const timer = setTimeout(() => {
      this.scheduled.delete(key);
      const current = this.pods.get(key);
      if (current && current.metadata.uid === pod.metadata.uid) void this.deletePod(current);
    }, Math.max(0, fireAt - now));
    this.scheduled.set(key, { createdAt, fireAt, timer, uid: pod.metadata.uid ?? '' });
  }

  private cancel(key: string, pod: KubeObject | undefined, withEvent: boolean): void {
    const s = this.scheduled.get(key);
    if (!s) return;
    clearTimeout(s.timer);
    this.scheduled.delete(key);
    this.stats.cancelled++;
    if (withEvent && pod) this.events.event(refOf(pod, 'v1', 'Pod'), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  private async deletePod(pod: KubeObject): Promise<void> {
    this.events.event(refOf(pod, 'v1', 'Pod'), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${keyOf(pod)}`);
    try {
      await this.ctx.client.delete(RESOURCE.pods.of(pod), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: pod.metadata.uid } }, this.ctx.signal);
      this.stats.deleted++;
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err) && !this.ctx.signal.aborted) this.ctx.log(`taint manager: deleting ${keyOf(pod)}: ${(err as Error).message}`);
    }
  }
}
