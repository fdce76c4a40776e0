// Client-side rate limit toward the API server, like client-go's token bucket (flowcontrol): the bucket starts
// full with `burst` tokens and refills at `qps` tokens per second; callers wait in arrival order.
// Written here rather than taken from npm because it must take an AbortSignal and report its waits as metrics.

export class RateLimiterAbortedError extends Error {
  constructor() {
    super('rate limiter wait aborted');
    this.name = 'AbortError';
  }
}

export interface TokenBucketOptions {
  qps: number;
  burst: number;
  now?: () => number;
}

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class TokenBucket {
  private tokens: number;
  private last: number;
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  readonly qps: number;
  readonly burst: number;

  /** qps <= 0 or non-finite means no limit. */
  constructor(opts: TokenBucketOptions) {
    this.qps = opts.qps;
    this.burst = Math.max(1, Math.floor(opts.burst));
    this.now = opts.now ?? (() => performance.now());
    this.tokens = this.burst;
    this.last = this.now();
  }

  get unlimited(): boolean {
    return !(this.qps > 0) || !Number.isFinite(this.qps);
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
  }

  /** Takes a token without waiting; false when none is left. */
  tryAcquire(): boolean {
    if (this.unlimited) return true;
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Resolves once a token is taken; rejects if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new RateLimiterAbortedError());
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new RateLimiterAbortedError());
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer || this.waiters.length === 0) return;
    this.refill();
    const wait = this.tokens >= 1 ? 0 : ((1 - this.tokens) / this.qps) * 1000;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refill();
      while (this.waiters.length > 0 && this.tokens >= 1) {
        this.tokens -= 1;
        const w = this.waiters.shift()!;
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.resolve();
      }
      this.schedule();
    }, Math.ceil(wait));
  }

  /** Rejects every waiter (used at shutdown). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.waiters.splice(0)) {
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      w.reject(new RateLimiterAbortedError());
    }
  }
}
