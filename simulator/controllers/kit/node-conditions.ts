// Setting one condition of a Node's status, shared by the node IPAM loop (NetworkUnavailable when no range is
// left) and the route controller (NetworkUnavailable after a route is or is not made).

import type { KubeObject } from '../../api/meta.ts';
import type { ControllerContext } from './controller.ts';
import { isNotFound } from './workload-util.ts';
import { RESOURCE } from '../../client/resource-paths.ts';

/** Sets one condition of a Node's status (added or replaced by type), re-reading on conflict. */
export async function setNodeCondition(
  ctx: ControllerContext,
  name: string,
  condition: { type: string; status: string; reason: string; message: string; lastHeartbeatTime: string; lastTransitionTime: string },
): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    let node: KubeObject;
    try {
      node = await ctx.client.get(RESOURCE.nodes.named(name), undefined, ctx.signal);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    const conditions = [
      ...((node.status as { conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> } | undefined)?.conditions ?? []),
    ];
    const i = conditions.findIndex((c) => c.type === condition.type);
    if (i >= 0 && conditions[i].status === condition.status) return false;
    if (i >= 0) conditions[i] = condition;
    else conditions.push(condition);
    try {
      await ctx.client.update(RESOURCE.nodes.named(name, 'status'), { ...node, status: { ...(node.status ?? {}), conditions } }, ctx.signal);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      if (!(err as { code?: number }).code || (err as { code?: number }).code !== 409) throw err;
    }
  }
  return false;
}
