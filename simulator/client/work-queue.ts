// The rate-limited, deduplicating work queue of client-go: a key queued twice before a worker takes it is
// processed once; a key that is being processed is not handed to a second worker but re-queued when the first
// finishes (done); failed keys come back after a per-key exponential backoff (5 ms doubling up to 1000 s)
// combined with an overall token bucket (10 per second, burst 100), whichever is later.

import { TokenBucket } from './token-bucket.ts';
import type { DaemonMetrics } from './metrics.ts';

export interface WorkQueueOptions {
  name: string;
  metrics?: DaemonMetrics;
  baseDelayMs?: number;
  maxDelayMs?: number;
  overallQps?: number;
  overallBurst?: number;
}

export class WorkQueue<K = string> {
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly addedAt = new Map<K, number>();
  private readonly failures = new Map<K, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters: Array<(k: K | undefined) => void> = [];
  private readonly overall: TokenBucket;
  private overallNextFree = 0;
  private shuttingDown = false;

  constructor(private readonly opts: WorkQueueOptions) {
    this.overall = new TokenBucket({ qps: opts.overallQps ?? 10, burst: opts.overallBurst ?? 100 });
  }

  get name(): string {
    return this.opts.name;
  }

  get length(): number {
    return this.queue.length;
  }

  private updateDepth(): void {
    this.opts.metrics?.workqueueDepth.set({ name: this.opts.name }, this.queue.length);
  }

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.opts.metrics?.workqueueAdds.inc({ name: this.opts.name });
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  private enqueue(key: K): void {
    this.addedAt.set(key, performance.now());
    const waiter = this.waiters.shift();
    if (waiter) {
      this.take(key);
      waiter(key);
      return;
    }
    this.queue.push(key);
    this.updateDepth();
  }

  private take(key: K): void {
    this.dirty.delete(key);
    this.processing.add(key);
    const t = this.addedAt.get(key);
    if (t !== undefined) this.opts.metrics?.workqueueLatency.observe({ name: this.opts.name }, (performance.now() - t) / 1000);
    this.addedAt.delete(key);
  }

  /** The next key, or undefined once the queue is shut down (or the signal aborts). */
  get(signal?: AbortSignal): Promise<K | undefined> {
    if (this.queue.length > 0) {
      const key = this.queue.shift()!;
      this.updateDepth();
      this.take(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (k: K | undefined) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(k);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Marks a key finished; if it was added again meanwhile it goes back in the queue. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key);
  }

  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(key);
    }, ms);
    this.timers.add(t);
  }

  /** The delay the rate limiter would give this key now (and counts the failure). */
  nextDelay(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const perItem = Math.min(this.opts.maxDelayMs ?? 1_000_000, (this.opts.baseDelayMs ?? 5) * 2 ** n);
    // Overall bucket: each retry reserves the next free slot.
    const now = performance.now();
    let overall = 0;
    if (!this.overall.tryAcquire()) {
      this.overallNextFree = Math.max(this.overallNextFree, now) + 1000 / this.overall.qps;
      overall = this.overallNextFree - now;
    }
    return Math.max(perItem, overall);
  }

  addRateLimited(key: K): void {
    this.opts.metrics?.workqueueRetries.inc({ name: this.opts.name });
    this.addAfter(key, this.nextDelay(key));
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
    this.overall.stop();
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}

/**
 * Runs `workers` loops taking keys from the queue and reconciling them; a failure re-queues the key with
 * backoff, a success forgets its failures. Resolves when the signal aborts and the workers have stopped.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  workers: number,
  reconcile: (key: K, signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
  opts: { controller: string; metrics?: DaemonMetrics; log?: (line: string) => void },
): Promise<void> {
  const stop = () => queue.shutDown();
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  const worker = async () => {
    for (;;) {
      const key = await queue.get(signal);
      if (key === undefined) return;
      const start = performance.now();
      try {
        await reconcile(key, signal);
        queue.forget(key);
        opts.metrics?.reconcileTotal.inc({ controller: opts.controller, result: 'success' });
      } catch (err) {
        opts.metrics?.reconcileTotal.inc({ controller: opts.controller, result: 'error' });
        if (!signal.aborted) {
          opts.log?.(`${opts.controller}: error syncing ${String(key)}: ${(err as Error).message}; requeued`);
          queue.addRateLimited(key);
        }
      } finally {
        opts.metrics?.reconcileDuration.observe({ controller: opts.controller }, (performance.now() - start) / 1000);
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
}
