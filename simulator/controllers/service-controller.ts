// The service controller (1.9 "service"; started only with a cloud provider): Services of type LoadBalancer
// get a load balancer from the cloud (the simulated cloud's pool) and its address in
// status.loadBalancer.ingress; a Service that is deleted or changes type loses it again (status cleared).
// --concurrent-service-syncs workers call the cloud at once; each Service is synced again every
// --service-sync-period (the resync of its informer handler; every sync ensures the load balancer, as 1.9
// does, so capacity freed in the pool is used by then at the latest), and a failed sync is retried after a
// back-off from 5 s doubling to 5 min (the real minRetryDelay/maxRetryDelay). Node changes update every load
// balancer's hosts. Events on the Service: CreatingLoadBalancer, CreatedLoadBalancer,
// CreatingLoadBalancerFailed (Warning, "Error creating load balancer (will retry): ..."), DeletingLoadBalancer,
// DeletedLoadBalancer, UpdatedLoadBalancer.

import type { KubeObject } from '../api/meta.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import { keyOf, type Informer } from '../client/informer.ts';
import { WorkQueue, runWorkers } from '../client/work-queue.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { loadBalancerNameOf, type LoadBalancer } from './cloud/simulated-cloud.ts';
import { isConflict, isNotFound, specOf } from './kit/workload-util.ts';
import { every } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const MIN_RETRY_MS = 5_000;
const MAX_RETRY_MS = 300_000;

interface ServiceSpec {
  type?: string;
  ports?: Array<{ protocol?: string; port: number; nodePort?: number }>;
}

const isLoadBalancer = (svc: KubeObject | undefined) => specOf<ServiceSpec>(svc ?? { metadata: {} }).type === 'LoadBalancer';

export class ServiceController implements Controller {
  readonly name = 'service';
  /** Services this controller gave a load balancer: key -> the Service as last seen (for deletion). */
  private readonly provisioned = new Map<string, KubeObject>();
  private readonly retryDelay = new Map<string, number>();
  readonly stats = { ensured: 0, failed: 0, deleted: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const cloud = ctx.cloud;
    if (!cloud) throw new Error('no cloud provider');
    const services = ctx.informers.informerFor(RESOURCE.services.collection());
    const nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    const events = new EventRecorder(ctx.client, { component: 'service-controller' }, { log: ctx.log, signal: ctx.signal });
    const queue = new WorkQueue<string>({ name: 'service', metrics: ctx.metrics });
    services.addEventHandler({
      onAdd: (s) => queue.add(keyOf(s)),
      onUpdate: (o, s) => {
        if (isLoadBalancer(o) || isLoadBalancer(s)) queue.add(keyOf(s));
      },
      onDelete: (s) => queue.add(keyOf(s)),
    });
    let hosts = '';
    nodes.addEventHandler({
      onAdd: () => this.nodesChanged(nodes, services, queue, () => hosts, (h) => (hosts = h)),
      onDelete: () => this.nodesChanged(nodes, services, queue, () => hosts, (h) => (hosts = h)),
    });
    if (!(await services.waitForSync(ctx.signal)) || !(await nodes.waitForSync(ctx.signal))) return;
    cloud.attachNodes((name) => nodes.get(name));
    hosts = this.hostsOf(nodes).join(',');
    // The handler's resync: every LoadBalancer Service is synced again each --service-sync-period.
    const period = Math.max(10, ctx.options.durationMs('--service-sync-period'));
    every(period, ctx.signal, () => services.list().filter(isLoadBalancer).forEach((s) => queue.add(keyOf(s))));
    const workers = Math.max(1, ctx.options.int('--concurrent-service-syncs'));
    await runWorkers(
      queue,
      workers,
      async (key, signal) => {
        try {
          await this.sync(ctx, key, services.get(key), this.hostsOf(nodes), events, signal);
          this.retryDelay.delete(key);
        } catch (err) {
          if (signal.aborted) return;
          this.stats.failed++;
          const delay = Math.min(MAX_RETRY_MS, (this.retryDelay.get(key) ?? MIN_RETRY_MS / 2) * 2);
          this.retryDelay.set(key, delay);
          ctx.log(`${key}: ${(err as Error).message}; retrying in ${delay / 1000}s`);
          queue.addAfter(key, delay);
        }
      },
      ctx.signal,
      { controller: 'service', metrics: ctx.metrics, log: ctx.log },
    );
  }

  private hostsOf(nodes: Informer): string[] {
    return nodes
      .list()
      .filter((n) => !(n.spec as { unschedulable?: boolean } | undefined)?.unschedulable)
      .map((n) => n.metadata.name ?? '')
      .sort();
  }

  private nodesChanged(nodes: Informer, services: Informer, queue: WorkQueue<string>, get: () => string, set: (h: string) => void): void {
    if (!nodes.hasSynced()) return;
    const now = this.hostsOf(nodes).join(',');
    if (now === get()) return;
    set(now);
    for (const s of services.list()) if (isLoadBalancer(s)) queue.add(keyOf(s));
  }

  private async sync(
    ctx: ControllerContext,
    key: string,
    svc: KubeObject | undefined,
    hosts: string[],
    events: EventRecorder,
    signal: AbortSignal,
  ): Promise<void> {
    const cloud = ctx.cloud!;
    const had = this.provisioned.get(key);
    if (!svc || !isLoadBalancer(svc) || (had && had.metadata.uid !== svc.metadata.uid)) {
      if (had) {
        events.event(refOf(had, 'v1', 'Service'), 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
        await cloud.deleteLoadBalancer(loadBalancerNameOf(had));
        this.provisioned.delete(key);
        this.stats.deleted++;
        events.event(refOf(had, 'v1', 'Service'), 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
        ctx.log(`${key}: load balancer deleted`);
      }
      if (svc && !isLoadBalancer(svc)) await this.writeIngress(ctx, svc, [], signal);
      if (!svc || !isLoadBalancer(svc)) return;
    }
    const name = loadBalancerNameOf(svc);
    const first = !cloud.getLoadBalancer(name);
    if (first) events.event(refOf(svc, 'v1', 'Service'), 'Normal', 'CreatingLoadBalancer', 'Creating load balancer');
    let lb: LoadBalancer;
    try {
      const ports = (specOf<ServiceSpec>(svc).ports ?? []).map((p) => ({
        protocol: p.protocol ?? 'TCP',
        port: p.port,
        ...(p.nodePort ? { nodePort: p.nodePort } : {}),
      }));
      lb = await cloud.ensureLoadBalancer(name, key, ports, hosts);
    } catch (err) {
      events.event(
        refOf(svc, 'v1', 'Service'),
        'Warning',
        'CreatingLoadBalancerFailed',
        `Error creating load balancer (will retry): ${(err as Error).message}`,
      );
      throw err;
    }
    this.provisioned.set(key, svc);
    this.stats.ensured++;
    if (first) events.event(refOf(svc, 'v1', 'Service'), 'Normal', 'CreatedLoadBalancer', 'Created load balancer');
    await this.writeIngress(ctx, svc, [{ ip: lb.ip }], signal);
  }

  private async writeIngress(ctx: ControllerContext, svc: KubeObject, ingress: Array<{ ip: string }>, signal: AbortSignal): Promise<void> {
    const have = (svc.status as { loadBalancer?: { ingress?: Array<{ ip?: string }> } } | undefined)?.loadBalancer?.ingress ?? [];
    if (JSON.stringify(have) === JSON.stringify(ingress)) return;
    try {
      await ctx.client.patch(
        RESOURCE.services.object(svc.metadata.namespace ?? 'default', svc.metadata.name ?? '', 'status'),
        { status: { loadBalancer: ingress.length ? { ingress } : { ingress: null } } },
        'application/merge-patch+json',
        signal,
      );
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
}

export const serviceController = (): Controller => new ServiceController();
