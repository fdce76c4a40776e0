// Bounded polling and small readers for checks that wait on controllers and nodes. No fixed sleeps: every wait
// is a poll with a bound, and "nothing moved within the bound" is a skip of the check (the target has no
// controller or no nodes), while "something moved but did not finish" is a failure.
import { availableParallelism, loadavg } from 'node:os';
import type { KubeList, KubeObject } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import { describeResponse, fail } from './expect.ts';

/**
 * A bound on "does it happen at all" (a controller acts, a rollout finishes), stretched by how busy this machine is:
 * the load average per core, from 1 up to 4. On 2 cores kept busy by other work, the target's controllers and
 * nodes (and a daemon under test) get a fraction of a core and take that many times longer; a skip ("no
 * controller acts") or a failure ("did not finish") must not come from that. Never for bounds that tell an
 * option's value from its default.
 */
export function busyScaled(ms: number): number {
  const perCore = loadavg()[0] / Math.max(1, availableParallelism());
  return Math.round(ms * Math.min(4, Math.max(1, perCore)));
}

/** How long a target may take to show that a controller or a node acts at all. */
export const NOTHING_MOVES_MS = busyScaled(20_000);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `probe` every `everyMs` until it returns a value (not undefined) or the time is up. */
export async function within<T>(ms: number, probe: () => Promise<T | undefined>, everyMs = 200): Promise<T | undefined> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) return undefined;
    await sleep(everyMs);
  }
}

export async function read(ctx: CheckContext, path: string): Promise<KubeObject | undefined> {
  const res = await ctx.client.get(path);
  return res.status === 200 ? res.object : undefined;
}

export async function listItems(ctx: CheckContext, path: string, labelSelector?: string): Promise<KubeObject[]> {
  const res = await ctx.client.get<KubeList>(path, labelSelector ? { query: { labelSelector } } : undefined);
  return res.object?.items ?? [];
}

/** Pods of a namespace matching a selector, not being deleted. */
export async function livePods(ctx: CheckContext, ns: string, selector: string): Promise<KubeObject[]> {
  return (await listItems(ctx, `/api/v1/namespaces/${ns}/pods`, selector)).filter((p) => !p.metadata.deletionTimestamp);
}

export const phaseOf = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export function conditionsOf(obj: KubeObject | undefined): Condition[] {
  const c = (obj?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c as Condition[]) : [];
}

export async function createOrFail(ctx: CheckContext, path: string, body: unknown, what: string): Promise<KubeObject> {
  const res = await ctx.client.create(path, body);
  if (![200, 201, 202].includes(res.status) || !res.object) fail(`setup: creating ${what} failed: ${describeResponse(res)}`);
  return res.object;
}

/** A pod template for workload checks; annotations steer simulated nodes (ignored by other targets). */
export function podTemplate(labels: Record<string, string>, opts: { restartPolicy?: string; annotations?: Record<string, string> } = {}) {
  return {
    metadata: { labels, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      ...(opts.restartPolicy ? { restartPolicy: opts.restartPolicy } : {}),
      terminationGracePeriodSeconds: 0,
      containers: [{ name: 'main', image: 'busybox:1.28', command: ['sh', '-c', 'sleep 1'] }],
    },
  };
}
