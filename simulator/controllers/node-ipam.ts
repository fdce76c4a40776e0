// Node IPAM of the node controller (--allocate-node-cidrs), as 1.9's two in-tree allocators:
// - RangeAllocator (--cidr-allocator-type=RangeAllocator): --cluster-cidr cut into /--node-cidr-mask-size
//   blocks; the blocks overlapping --service-cluster-ip-range and those already on Nodes are taken at start;
//   a Node without spec.podCIDR gets the next free block (searching on from the last one given) by a patch;
//   a Node's block is freed when the Node goes. With no block left the Node gets an event CIDRNotAvailable
//   ("Node <n> status is now: CIDRNotAvailable", type Normal as 1.9 posts it) and, like the real allocator,
//   is tried again on its next update (every heartbeat), so it gets a block as soon as one is freed;
// - CloudAllocator: the block the cloud provider gives the node's instance (the simulated cloud's
//   instancePodCIDRRange), and NetworkUnavailable=False (RouteCreated) since the cloud routes it itself.
// Settings the real controller refuses (no --cluster-cidr, a cluster mask longer than the node mask, an
// unknown allocator type, CloudAllocator without a cloud) stop this controller with that reason.

import type { KubeObject } from '../api/meta.ts';
import { formatCidr4, overlaps, parseCidr4, subnet, type Cidr4 } from '../api/cidr.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import type { Informer } from '../client/informer.ts';
import type { ControllerContext } from './kit/controller.ts';
import { isNotFound, rfc3339 } from './kit/workload-util.ts';
import { setNodeCondition } from './kit/node-conditions.ts';
import { untilAborted } from '../client/timers.ts';
import { RESOURCE } from '../client/resource-paths.ts';

const podCIDROf = (node: KubeObject) => (node.spec as { podCIDR?: string } | undefined)?.podCIDR ?? '';

/** The bitmap of node blocks in the cluster range (cidr_set.go). */
export class CidrSet {
  private readonly used: Uint8Array;
  private next = 0;
  readonly count: number;
  constructor(
    readonly cluster: Cidr4,
    readonly maskSize: number,
  ) {
    this.count = 2 ** (maskSize - cluster.bits);
    this.used = new Uint8Array(this.count);
  }
  private indexOf(c: Cidr4): number | undefined {
    if (c.bits !== this.maskSize || !overlaps(this.cluster, c)) return undefined;
    return (c.base - this.cluster.base) / 2 ** (32 - this.maskSize);
  }
  allocateNext(): string | undefined {
    for (let i = 0; i < this.count; i++) {
      const idx = (this.next + i) % this.count;
      if (!this.used[idx]) {
        this.used[idx] = 1;
        this.next = (idx + 1) % this.count;
        return formatCidr4(subnet(this.cluster, this.maskSize, idx));
      }
    }
    return undefined;
  }
  /** Marks every block overlapping the range as used (service range, existing node blocks). */
  occupy(range: Cidr4): boolean {
    if (!overlaps(this.cluster, range)) return false;
    const first = Math.max(this.cluster.base, range.base);
    const last = Math.min(this.cluster.base + 2 ** (32 - this.cluster.bits), range.base + 2 ** (32 - range.bits)) - 1;
    const size = 2 ** (32 - this.maskSize);
    for (let i = Math.floor((first - this.cluster.base) / size); i <= Math.floor((last - this.cluster.base) / size); i++) this.used[i] = 1;
    return true;
  }
  release(text: string): void {
    const c = parseCidr4(text);
    const idx = c && this.indexOf(c);
    if (idx !== undefined && Number.isInteger(idx)) this.used[idx] = 0;
  }
  get free(): number {
    return this.used.reduce((n, u) => n + (u ? 0 : 1), 0);
  }
}

export class NodeIpam {
  private readonly events: EventRecorder;
  private set: CidrSet | undefined;
  private readonly type: string;
  /** Nodes being given a block (so concurrent updates do not allocate twice). */
  private readonly inFlight = new Set<string>();
  private readonly byNode = new Map<string, string>();
  private failure: string | undefined;
  readonly stats = { allocated: 0, released: 0, notAvailable: 0 };

  constructor(
    private readonly ctx: ControllerContext,
    private readonly nodes: Informer,
  ) {
    const o = ctx.options;
    this.events = new EventRecorder(ctx.client, { component: 'cidrAllocator' }, { log: ctx.log, signal: ctx.signal });
    this.type = o.string('--cidr-allocator-type');
    if (this.type === 'RangeAllocator') {
      const cluster = parseCidr4(o.string('--cluster-cidr'));
      const mask = o.int('--node-cidr-mask-size');
      if (!o.string('--cluster-cidr')) this.failure = 'must specify --cluster-cidr if --allocate-node-cidrs is true';
      else if (!cluster) this.failure = `--cluster-cidr ${o.string('--cluster-cidr')}: only IPv4 ranges can be allocated here`;
      else if (mask < cluster.bits || mask > 32)
        this.failure = `invalid --cluster-cidr ${o.string('--cluster-cidr')}: its mask size must not be greater than --node-cidr-mask-size ${mask}`;
      else if (mask - cluster.bits > 24)
        this.failure = `--cluster-cidr ${o.string('--cluster-cidr')} with --node-cidr-mask-size ${mask} makes too many node ranges`;
      else {
        this.set = new CidrSet(cluster, mask);
        const service = parseCidr4(o.string('--service-cluster-ip-range'));
        if (service && this.set.occupy(service)) ctx.log(`node IPAM: ${o.string('--service-cluster-ip-range')} (services) left out of ${formatCidr4(cluster)}`);
      }
    } else if (this.type === 'CloudAllocator') {
      if (!ctx.cloud) this.failure = 'the CloudAllocator needs a cloud provider that gives instances pod ranges (--cloud-provider simulated)';
    } else this.failure = `unknown --cidr-allocator-type ${JSON.stringify(this.type)} (RangeAllocator or CloudAllocator)`;
  }

  async run(): Promise<void> {
    if (this.failure) throw new Error(`node IPAM: ${this.failure}`);
    if (!(await this.nodes.waitForSync(this.ctx.signal))) return;
    // Blocks already given out are taken first, so that no block is ever handed out twice.
    for (const node of this.nodes.list()) this.occupyExisting(node);
    this.nodes.addEventHandler({
      onAdd: (n) => void this.sync(n),
      onUpdate: (_o, n) => void this.sync(n),
      onDelete: (n) => this.release(n),
    });
    for (const node of this.nodes.list()) void this.sync(node);
    await untilAborted(this.ctx.signal);
  }

  private occupyExisting(node: KubeObject): void {
    const name = node.metadata.name ?? '';
    const cidr = podCIDROf(node);
    if (!cidr || this.byNode.get(name) === cidr) return;
    this.byNode.set(name, cidr);
    const c = parseCidr4(cidr);
    if (this.set && c && !this.set.occupy(c)) this.ctx.log(`node IPAM: node ${name} has ${cidr}, outside the cluster range`);
  }

  private release(node: KubeObject): void {
    const name = node.metadata.name ?? '';
    const cidr = this.byNode.get(name) ?? podCIDROf(node);
    this.byNode.delete(name);
    if (!cidr || !this.set) return;
    this.set.release(cidr);
    this.stats.released++;
    this.ctx.log(`node IPAM: released ${cidr} of deleted node ${name}`);
  }

  private async sync(node: KubeObject): Promise<void> {
    const name = node.metadata.name ?? '';
    if (podCIDROf(node)) return this.occupyExisting(node);
    // A block given already: this event is older than the patch that gave it (a heartbeat's update delivered after
    // the patch returned, on a loaded machine). Allocating again would hand the node a second block and starve
    // the others (the real allocator re-reads the node and keeps the block it has).
    if (this.byNode.has(name)) return;
    if (this.inFlight.has(name) || node.metadata.deletionTimestamp) return;
    this.inFlight.add(name);
    try {
      const cidr = this.set ? this.set.allocateNext() : this.ctx.cloud?.instancePodCIDR(name);
      if (!cidr) {
        this.stats.notAvailable++;
        this.events.event(refOf(node, 'v1', 'Node'), 'Normal', 'CIDRNotAvailable', `Node ${name} status is now: CIDRNotAvailable`);
        return;
      }
      try {
        await this.ctx.client.patch(
          RESOURCE.nodes.named(name),
          { spec: { podCIDR: cidr } },
          'application/strategic-merge-patch+json',
          this.ctx.signal,
        );
        this.byNode.set(name, cidr);
        this.stats.allocated++;
        this.ctx.log(`node IPAM: ${cidr} for node ${name}`);
        if (this.type === 'CloudAllocator') {
          const condition = {
            type: 'NetworkUnavailable',
            status: 'False',
            reason: 'RouteCreated',
            message: 'NodeController create implicit route',
            lastHeartbeatTime: rfc3339(),
            lastTransitionTime: rfc3339(),
          };
          await setNodeCondition(this.ctx, name, condition);
        }
      } catch (err) {
        if (this.set) this.set.release(cidr);
        if (!isNotFound(err)) {
          this.events.event(refOf(node, 'v1', 'Node'), 'Normal', 'CIDRAssignmentFailed', `Node ${name} status is now: CIDRAssignmentFailed`);
          this.ctx.log(`node IPAM: assigning ${cidr} to node ${name} failed: ${(err as Error).message}`);
        }
      }
    } finally {
      this.inFlight.delete(name);
    }
  }
}
