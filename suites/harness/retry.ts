// Read-modify-write the way real clients do it (spec 1.8: "read-then-write is safe because an optimistic-lock
// failure occurs if the object changed in between"): GET, change, PUT with the resourceVersion read, and on a
// 409 Conflict read again and retry, a bounded number of times. On a target with controllers (a real cluster,
// or the embedded simulator with its daemon) a controller may write an object (status, finalizers, default
// fields) between a check's GET and PUT; that 409 is the server doing its job, not a failure.
//
// Checks whose subject IS the optimistic lock must not use this: they work on kinds no controller writes
// (ConfigMaps) and expect the 409.
import type { KubeObject } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import type { DecodedResponse, RequestOptions } from './client.ts';
import { describeResponse, fail } from './expect.ts';

export const CONFLICT_ATTEMPTS = 8;
/**
 * Retries go on past CONFLICT_ATTEMPTS while within this time: on a loaded machine a controller may win the
 * race many times in a row, and losing it says nothing about the target.
 */
export const CONFLICT_BUDGET_MS = 30_000;

/** A retry loop's bound: at least `attempts` tries, and more while within the time budget. */
export class RetryBudget {
  private readonly started = Date.now();
  attempt = 0;
  constructor(
    private readonly attempts = CONFLICT_ATTEMPTS,
    private readonly budgetMs = CONFLICT_BUDGET_MS,
  ) {}
  /** Counts one more try; false when it would be past both bounds. */
  next(): boolean {
    this.attempt++;
    return this.attempt <= this.attempts || Date.now() - this.started < this.budgetMs;
  }
  /** Whether this try is the last one allowed. */
  get last(): boolean {
    return this.attempt >= this.attempts && Date.now() - this.started >= this.budgetMs;
  }
}

/** Whether a response is an optimistic-lock failure (409 with reason Conflict, or a 409 without a Status reason). */
export function isConflict(res: { status: number; object?: unknown }): boolean {
  if (res.status !== 409) return false;
  const reason = (res.object as { reason?: unknown } | undefined)?.reason;
  // AlreadyExists is also 409 but is not a lock failure: retrying would not help.
  return reason !== 'AlreadyExists';
}

export interface RetryResult<T> {
  /** The answer of the last PUT (the successful one, or the last refusal that was not a conflict). */
  res: DecodedResponse<T>;
  /** The object read right before that PUT (what the change was made to). */
  base: T;
  /** The body sent with that PUT. */
  sent: T;
  /** PUTs sent (1 when the first one went through). */
  attempts: number;
}

export interface RetryOptions extends RequestOptions {
  /** At most this many PUTs (default CONFLICT_ATTEMPTS). */
  attempts?: number;
  /** Path to GET the current state from (default: the PUT path, e.g. .../status or .../scale). */
  readPath?: string;
  /** What the write is, for setup failure messages. */
  what?: string;
}

/**
 * GETs `path` (or readPath), applies `mutate` to a copy, PUTs it to `path`; retried on 409 Conflict with a fresh
 * read. A GET that fails is a setup failure. The last PUT's answer is returned whatever its status, so the check
 * judges it (a 409 after every attempt is returned too: the check decides whether that can be right).
 */
export async function replaceWithRetry<T = KubeObject>(
  ctx: Pick<CheckContext, 'client'>,
  path: string,
  mutate: (current: T, attempt: number) => T | Promise<T>,
  options: RetryOptions = {},
): Promise<RetryResult<T>> {
  const { attempts: max = CONFLICT_ATTEMPTS, readPath = path, what = `PUT ${path}`, ...requestOptions } = options;
  const budget = new RetryBudget(max);
  for (;;) {
    budget.next();
    const attempt = budget.attempt;
    const read = await ctx.client.get<T>(readPath, { timeoutMs: requestOptions.timeoutMs });
    if (read.status !== 200 || read.object === undefined) fail(`${what}: reading ${readPath} first failed: ${describeResponse(read)}`);
    const base = read.object;
    const sent = await mutate(structuredClone(base), attempt);
    const res = await ctx.client.replace<T>(path, sent, requestOptions);
    if (!isConflict(res) || budget.last) return { res, base, sent, attempts: attempt };
    // Let the writer that won finish its burst (controllers often write twice in a row).
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 5))));
  }
}
