// The route controller (1.9 "route"; started only with --allocate-node-cidrs, --configure-cloud-routes and a
// cloud provider): every --route-reconciliation-period the cloud's route table (routes of --cluster-name) is
// made to match the Nodes: a Node with spec.podCIDR gets a route "<cluster>-<node uid>" to it; routes whose
// node is gone, or whose range is no longer the node's, are deleted. Each Node with a podCIDR then carries
// NetworkUnavailable=False, reason RouteCreated, "RouteController created a route" (True, NoRouteCreated,
// when creating failed, with a FailedToCreateRoute Warning event). The table is readable (read-only) at
// GET /cloud/routes on the daemon's HTTP service.

import type { KubeObject } from '../api/meta.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { setNodeCondition } from './kit/node-conditions.ts';
import { rfc3339 } from './kit/workload-util.ts';
import { sleep } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const podCIDROf = (node: KubeObject) => (node.spec as { podCIDR?: string } | undefined)?.podCIDR ?? '';

export class RouteController implements Controller {
  readonly name = 'route';
  readonly stats = { passes: 0, created: 0, deleted: 0 };

  async run(ctx: ControllerContext): Promise<void> {
    const cloud = ctx.cloud;
    if (!cloud) throw new Error('no cloud provider');
    const nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    const events = new EventRecorder(ctx.client, { component: 'route_controller' }, { log: ctx.log, signal: ctx.signal });
    if (!(await nodes.waitForSync(ctx.signal))) return;
    cloud.attachNodes((name) => nodes.get(name));
    const cluster = ctx.options.string('--cluster-name');
    const period = Math.max(10, ctx.options.durationMs('--route-reconciliation-period'));
    while (!ctx.signal.aborted) {
      try {
        await this.reconcile(ctx, nodes.list(), cluster, events);
      } catch (err) {
        if (!ctx.signal.aborted) ctx.log(`reconciling routes: ${(err as Error).message}`);
      }
      await sleep(period, ctx.signal);
    }
  }

  async reconcile(ctx: ControllerContext, nodes: KubeObject[], cluster: string, events: EventRecorder): Promise<void> {
    const cloud = ctx.cloud!;
    this.stats.passes++;
    const routes = cloud.listRoutes(cluster);
    const wanted = new Map(nodes.filter((n) => podCIDROf(n)).map((n) => [n.metadata.name ?? '', n]));
    for (const node of wanted.values()) {
      const name = node.metadata.name ?? '';
      const cidr = podCIDROf(node);
      let ok = routes.some((r) => r.targetNode === name && r.destinationCIDR === cidr);
      if (!ok) {
        try {
          cloud.createRoute(cluster, node.metadata.uid ?? name, name, cidr);
          this.stats.created++;
          ctx.log(`created route for node ${name}: ${cidr}`);
          ok = true;
        } catch (err) {
          events.event(refOf(node, 'v1', 'Node'), 'Warning', 'FailedToCreateRoute', `Could not create route ${cluster}-${node.metadata.uid} ${cidr} for node ${name}: ${(err as Error).message}`);
        }
      }
      const ts = rfc3339();
      await setNodeCondition(ctx, name, ok
        ? { type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated', message: 'RouteController created a route', lastHeartbeatTime: ts, lastTransitionTime: ts }
        : { type: 'NetworkUnavailable', status: 'True', reason: 'NoRouteCreated', message: 'RouteController failed to create a route', lastHeartbeatTime: ts, lastTransitionTime: ts });
    }
    for (const r of routes) {
      const node = wanted.get(r.targetNode);
      if (node && podCIDROf(node) === r.destinationCIDR) continue;
      cloud.deleteRoute(r.name);
      this.stats.deleted++;
      ctx.log(`deleted route ${r.name} ${r.destinationCIDR} (node ${r.targetNode} ${node ? 'has another range' : 'is gone'})`);
    }
  }
}

export const routeController = (): Controller => new RouteController();
