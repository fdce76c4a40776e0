// Fair queuing of request handling between clients (flows), so that one busy client cannot make another wait
// behind all of its requests.
//
// Node reads every request that has arrived in one pass of its event loop and, without this, answers them in that
// order within the pass: when a thousand kubelets and a controller daemon keep hundreds of requests in flight, a
// pass takes tens of milliseconds and every request waits for a whole pass, whoever sent it (measured in the scale
// bench: a GET probe's p99 of 100-230 ms at 20,000 pods; 24-43 ms with this). Here a pass answers requests at once
// until a time budget is spent and queues the rest by flow; the queues are served round robin at the end of the
// pass (node's check phase, after it has read every socket), so a client with one request waits for at most one
// request of each other busy flow, not for their queues. Within a flow, requests keep their order.
//
// A flow is the client program (app.ts flowOf: the User-Agent's product, "kubelet" for every kubelet): per
// connection or per user would make each of a thousand kubelets a flow of its own, and a user's one request would
// again wait for a thousand. The real server of the era had nothing of the kind (API Priority and Fairness came in
// 1.18, with priority levels for the same reason); it had preemptive goroutines on every core instead, so a GET there
// did not wait for unrelated work either. A client sees no difference but when its answer comes.
//
// The budget counts wall time from the pass's first answer, so the promise continuations of each answer (node runs
// them after every socket callback, and the drain lets them run after each request it starts) count too.

export type Task = () => void;

export interface FairQueueOptions {
  /** Milliseconds of answering per pass of the event loop before requests queue (default 5). */
  budgetMs?: number;
  now?: () => number;
}

export interface FairQueueStats {
  /** Requests answered at once (nothing waiting, budget left in the pass). */
  immediate: number;
  /** Requests that waited in their flow's queue for a later pass. */
  queued: number;
  /** Passes that served queues. */
  drains: number;
  /** The most requests waiting at once. */
  maxWaiting: number;
}

export class FairQueue {
  private readonly budget: number;
  private readonly now: () => number;
  /** When the current pass of the event loop began answering (undefined: nothing answered in it yet). */
  private passStart: number | undefined;
  private scheduled = false;
  private readonly flows = new Map<string, Task[]>();
  /** Flows with waiting work, in round-robin order: ring[head..]. */
  private ring: string[] = [];
  private head = 0;
  private waiting = 0;
  readonly stats: FairQueueStats = { immediate: 0, queued: 0, drains: 0, maxWaiting: 0 };

  constructor(options: FairQueueOptions = {}) {
    this.budget = options.budgetMs ?? 5;
    this.now = options.now ?? performance.now.bind(performance);
  }

  /** Requests waiting for a later pass. */
  get queued(): number {
    return this.waiting;
  }

  /** Runs task now when nothing waits and the pass has budget left; queues it under its flow otherwise. */
  run(flow: string, task: Task): void {
    const now = this.now();
    if (this.passStart === undefined) {
      this.passStart = now;
      this.schedule();
    }
    if (this.waiting === 0 && now - this.passStart < this.budget) {
      this.stats.immediate++;
      task();
      return;
    }
    this.stats.queued++;
    let q = this.flows.get(flow);
    if (!q) {
      q = [];
      this.flows.set(flow, q);
    }
    if (q.length === 0) this.ring.push(flow);
    q.push(task);
    if (++this.waiting > this.stats.maxWaiting) this.stats.maxWaiting = this.waiting;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.endPass);
  }

  /**
   * The end of a pass (node's check phase, after it has read every socket): serves the queues round robin, one
   * request per flow per round, until the pass's budget is spent (at least one request, so that queues always
   * move). After each request the promise continuations it queued run before the next starts, and the budget
   * counts wall time from the pass's first answer, so they count too.
   */
  private readonly endPass = async (): Promise<void> => {
    this.scheduled = false;
    const start = this.passStart ?? this.now();
    this.passStart = undefined;
    if (this.waiting === 0) return;
    this.stats.drains++;
    do {
      const flow = this.ring[this.head++]!;
      const q = this.flows.get(flow)!;
      const task = q.shift()!;
      this.waiting--;
      if (q.length > 0) this.ring.push(flow);
      else this.flows.delete(flow);
      if (this.head > 1024 && this.head * 2 > this.ring.length) {
        this.ring = this.ring.slice(this.head);
        this.head = 0;
      }
      try {
        task();
      } catch {
        // A task answers its own errors; nothing may stop the others.
      }
      await undefined;
    } while (this.waiting > 0 && this.now() - start < this.budget);
    // What is left waits for the next pass, after node has read what arrived meanwhile.
    if (this.waiting > 0) this.schedule();
  };
}
