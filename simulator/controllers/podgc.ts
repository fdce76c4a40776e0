// The pod garbage collector (1.9 podgc): every check period (20 s, configurable here for tests)
// - when more than --terminated-pod-gc-threshold pods are terminated (Succeeded or Failed; 0 or less turns
//   this off), deletes the oldest of them (by creation time) down to the threshold;
// - force-deletes (grace 0) pods bound to a node that no longer exists (orphans);
// - force-deletes pods being deleted that were never scheduled (no kubelet will ever confirm them).

import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import type { Informer } from '../client/informer.ts';
import { isTerminated, specOf } from './kit/workload-util.ts';
import { sleep } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export interface PodGCOptions {
  checkIntervalMs?: number;
}

export class PodGCController implements Controller {
  readonly name = 'podgc';
  readonly stats = { terminated: 0, orphaned: 0, unscheduledTerminating: 0 };
  constructor(private readonly opts: PodGCOptions = {}) {}

  async run(ctx: ControllerContext): Promise<void> {
    const pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    const nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    if (!(await pods.waitForSync(ctx.signal)) || !(await nodes.waitForSync(ctx.signal))) return;
    const interval = this.opts.checkIntervalMs ?? 20_000;
    while (!ctx.signal.aborted) {
      try {
        await this.gc(ctx, pods, nodes);
      } catch (err) {
        if (!ctx.signal.aborted) ctx.log(`podgc: ${(err as Error).message}`);
      }
      await sleep(interval, ctx.signal);
    }
  }

  private async forceDelete(ctx: ControllerContext, pod: KubeObject): Promise<void> {
    try {
      await ctx.client.delete(RESOURCE.pods.of(pod), { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }, ctx.signal);
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
  }

  async gc(ctx: ControllerContext, pods: Informer, nodes: Informer): Promise<void> {
    const threshold = ctx.options.int('--terminated-pod-gc-threshold');
    const all = pods.list();
    if (threshold > 0) {
      const terminated = all.filter((p) => isTerminated(p) && !p.metadata.deletionTimestamp);
      const excess = terminated.length - threshold;
      if (excess > 0) {
        terminated.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
        for (const p of terminated.slice(0, excess)) {
          await this.forceDelete(ctx, p);
          this.stats.terminated++;
        }
      }
    }
    const nodeNames = new Set(nodes.list().map((n) => n.metadata.name));
    for (const p of all) {
      const nodeName = specOf<{ nodeName?: string }>(p).nodeName;
      if (nodeName && !nodeNames.has(nodeName)) {
        // The cache may not know a node that just registered: ask the API before deleting.
        const exists = await ctx.client.get(RESOURCE.nodes.named(nodeName), undefined, ctx.signal).then(
          () => true,
          (err: unknown) => !(err instanceof ApiError && err.code === 404),
        );
        if (exists) continue;
        await this.forceDelete(ctx, p);
        this.stats.orphaned++;
      } else if (!nodeName && p.metadata.deletionTimestamp) {
        await this.forceDelete(ctx, p);
        this.stats.unscheduledTerminating++;
      }
    }
  }
}

export const podGCController = (opts?: PodGCOptions): Controller => new PodGCController(opts);
