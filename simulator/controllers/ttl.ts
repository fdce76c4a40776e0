// The TTL controller (1.9 "ttl"): every Node gets the annotation node.alpha.kubernetes.io/ttl, the number of
// seconds kubelets may cache Secrets and ConfigMaps, chosen by the number of nodes with the real controller's
// overlapping steps (so the value does not flap at a boundary): up to 100 nodes 0 s; from above 100 up to
// 500 nodes 15 s (back to 0 below 90); up to 1000 30 s (back below 450); up to 2000 60 s (below 900); up to
// 10000 300 s (below 1800); beyond 600 s (below 9000). The count moves one step per node added or removed.

import type { KubeObject } from '../api/meta.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import { isNotFound } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const TTL_ANNOTATION = 'node.alpha.kubernetes.io/ttl';

export const TTL_BOUNDARIES: ReadonlyArray<{ sizeMin: number; sizeMax: number; ttlSeconds: number }> = [
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: 10000, ttlSeconds: 300 },
  { sizeMin: 9000, sizeMax: 2 ** 31 - 1, ttlSeconds: 600 },
];

export class TtlController implements Controller {
  readonly name = 'ttl';
  private nodeCount = 0;
  private step = 0;

  get desiredTtl(): number {
    return TTL_BOUNDARIES[this.step].ttlSeconds;
  }

  async run(ctx: ControllerContext): Promise<void> {
    const nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    const queue = new WorkQueue<string>({ name: 'ttlcontroller', metrics: ctx.metrics });
    const enqueueAll = () => nodes.list().forEach((n) => queue.add(n.metadata.name ?? ''));
    nodes.addEventHandler({
      onAdd: (n) => {
        this.nodeCount++;
        if (this.nodeCount > TTL_BOUNDARIES[this.step].sizeMax) {
          this.step++;
          enqueueAll();
        }
        queue.add(n.metadata.name ?? '');
      },
      onUpdate: (_o, n) => queue.add(n.metadata.name ?? ''),
      onDelete: () => {
        this.nodeCount--;
        if (this.nodeCount < TTL_BOUNDARIES[this.step].sizeMin) {
          this.step--;
          enqueueAll();
        }
      },
    });
    if (!(await nodes.waitForSync(ctx.signal))) return;
    await runWorkers(queue, 5, (name, signal) => this.sync(ctx, nodes.get(name), signal), ctx.signal, { controller: 'ttl', metrics: ctx.metrics, log: ctx.log });
  }

  private async sync(ctx: ControllerContext, node: KubeObject | undefined, signal: AbortSignal): Promise<void> {
    if (!node) return;
    const want = String(this.desiredTtl);
    if (node.metadata.annotations?.[TTL_ANNOTATION] === want) return;
    try {
      await ctx.client.patch(RESOURCE.nodes.named(node.metadata.name ?? ''), { metadata: { annotations: { [TTL_ANNOTATION]: want } } }, 'application/strategic-merge-patch+json', signal);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

export const ttlController = (): Controller => new TtlController();
