// The wait of pods that fit on no node, as kube-scheduler's podBackoff: a pod's first failed try waits 1 s,
// each further one twice as long, up to 60 s; binding or deleting the pod forgets it. While a pod waits, the
// informer's updates of it (the scheduler's own PodScheduled=False write among them) do not bring it back early:
// before this, every such pod was tried again each second and its update made it try again at once, so a Job
// of a billion parallel pods that fit nowhere kept the scheduler busy with its pods and nothing else got bound.
//
// Something in the cluster that may let waiting pods fit brings them back before their time, as the newer
// scheduling queue moves its unschedulable pods on cluster events: a change of a node's facts wakes every
// waiting pod, room freed on a node wakes those that lacked room. Wakes come at most once per `coalesceMs`,
// so a stream of changes costs one pass over the waiting pods per interval, not one per change.

export type RetryReason = 'room' | 'other';

interface Waiting {
  delayMs: number;
  timer: NodeJS.Timeout | undefined;
  /** Some node lacked room for the pod (freed room may let it fit). */
  room: boolean;
}

export class PodBackoff {
  private readonly waiting = new Map<string, Waiting>();
  private pendingWake: 'room' | 'all' | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly opts: {
      initialMs: number;
      maxMs: number;
      coalesceMs: number;
      /** Tries the pod again (the scheduler's queue add). */
      retry(key: string): void;
    },
  ) {}

  /** Pods waiting now. */
  get size(): number {
    return this.waiting.size;
  }

  /** Whether the pod waits for its next try (updates of it are then not a reason to try it). */
  isWaiting(key: string): boolean {
    return this.waiting.get(key)?.timer !== undefined;
  }

  /** A try of the pod failed: it waits twice as long as after its last failure (1 s first). Returns the wait. */
  failed(key: string, lackedRoom: boolean): number {
    if (this.closed) return 0;
    const prev = this.waiting.get(key);
    if (prev?.timer) clearTimeout(prev.timer);
    const delayMs = prev ? Math.min(prev.delayMs * 2, this.opts.maxMs) : this.opts.initialMs;
    const entry: Waiting = { delayMs, room: lackedRoom, timer: undefined };
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      this.opts.retry(key);
    }, delayMs);
    entry.timer.unref?.();
    this.waiting.set(key, entry);
    return delayMs;
  }

  /** The pod was bound or deleted. */
  forget(key: string): void {
    const w = this.waiting.get(key);
    if (w?.timer) clearTimeout(w.timer);
    this.waiting.delete(key);
  }

  /** The cluster changed so that waiting pods may fit: 'all' after a node's facts changed, 'room' after room was freed. */
  wake(what: 'room' | 'all'): void {
    if (this.closed || this.waiting.size === 0) return;
    this.pendingWake = this.pendingWake === 'all' || what === 'all' ? 'all' : 'room';
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      const what = this.pendingWake;
      this.pendingWake = undefined;
      for (const [key, w] of this.waiting) {
        if (!w.timer || (what === 'room' && !w.room)) continue;
        clearTimeout(w.timer);
        w.timer = undefined;
        this.opts.retry(key);
      }
    }, this.opts.coalesceMs);
    this.wakeTimer.unref?.();
  }

  close(): void {
    this.closed = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const w of this.waiting.values()) if (w.timer) clearTimeout(w.timer);
    this.waiting.clear();
  }
}
