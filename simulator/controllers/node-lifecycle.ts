// The node controller (1.9 "node": node lifecycle, node IPAM and the taint manager in one loop), after the
// real one's state machine:
// - every --node-monitor-period, each Node's Ready condition is compared with what was seen last time. The
//   controller keeps its own clock: probeTimestamp is when it last saw the heartbeat (lastHeartbeatTime)
//   change, readyTransitionTimestamp when it saw the Ready transition change. A node not heard of for
//   --node-monitor-grace-period (--node-startup-grace-period while it never posted Ready) gets Ready,
//   MemoryPressure and DiskPressure set to Unknown (NodeStatusUnknown "Kubelet stopped posting node status.",
//   or NodeStatusNeverUpdated); on that transition every pod on it gets Ready=False and a NodeNotReady event;
// - a node Ready=False for --pod-eviction-timeout since its transition, or Unknown for that long since its last
//   heartbeat, is queued for eviction in its zone (failure-domain region + zone labels). Each zone's queue is
//   drained every 100 ms through a token bucket (burst 1) at --node-eviction-rate nodes per second; evicting
//   a node deletes its pods (DaemonSet pods excepted) after setting their status reason NodeLost. A node that
//   is Ready again leaves the queue;
// - zone states after every pass: FullDisruption (no Ready node), PartialDisruption (more than 2 not Ready
//   and at least --unhealthy-zone-threshold of them), Normal. A partially disrupted zone evicts at
//   --secondary-node-eviction-rate when it has more than --large-cluster-size-threshold nodes, else not at all;
//   a fully disrupted zone at the normal rate; when every zone is fully disrupted nothing is evicted (the
//   master is more likely cut off than every node dead), and on leaving that state every node's timestamps
//   start again;
// - with --enable-taint-manager and the TaintBasedEvictions gate, instead of deleting pods the queue adds the
//   NoExecute taint node.alpha.kubernetes.io/notReady (Ready False) or .../unreachable (Unknown) at the same
//   rates, removed when the node is Ready; the taint manager (taint-manager.ts, with --enable-taint-manager)
//   then deletes pods that do not tolerate a NoExecute taint, after the smallest tolerationSeconds;
// - with the TaintNodesByCondition gate, NoSchedule taints follow the MemoryPressure, OutOfDisk, DiskPressure
//   and NetworkUnavailable conditions (status True);
// - with a cloud provider, a node that is not Ready and whose instance the cloud no longer has is deleted,
//   and nodes get the instance's addresses;
// - with --allocate-node-cidrs, node-ipam.ts sets spec.podCIDR.

import type { KubeObject } from '../api/meta.ts';
import { ApiError } from '../client/api-client.ts';
import { EventRecorder, refOf } from '../client/event-recorder.ts';
import type { Informer } from '../client/informer.ts';
import { CONDITION_TAINTS, TAINT_NOT_READY, TAINT_UNREACHABLE, taintsOf, type Taint } from '../api/taints.ts';
import type { Controller, ControllerContext } from './kit/controller.ts';
import { NodeIpam } from './node-ipam.ts';
import { TaintManager } from './taint-manager.ts';
import { isConflict, isNotFound, rfc3339, specOf } from './kit/workload-util.ts';
import { controllerNameOf } from './kit/owner.ts';
import { sleep } from '../client/timers.ts';
import { copyJson } from '../util/json-value.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
export const REGION_LABEL = 'failure-domain.beta.kubernetes.io/region';
/** How often the eviction (or tainting) queues are drained (the real NodeEvictionPeriod). */
export const EVICTION_PASS_MS = 100;

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

interface NodeCondition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface HealthData {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  ready: NodeCondition | undefined;
}

const conditionsOf = (node: KubeObject): NodeCondition[] => (node.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? [];
const readyOf = (node: KubeObject) => conditionsOf(node).find((c) => c.type === 'Ready');
const ms = (t: string | undefined) => (t ? Date.parse(t) : NaN);

/** utilnode.GetZoneKey: region and zone labels; "" when both are missing. */
export function zoneKeyOf(node: KubeObject): string {
  const l = node.metadata.labels ?? {};
  const region = l[REGION_LABEL] ?? '';
  const zone = l[ZONE_LABEL] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\u0000:${zone}`;
}
const zoneName = (key: string) => key.replace(':\u0000:', '/') || '(no zone)';

/** system.IsMasterNode: masters do not count towards zone health. */
const isMasterNode = (name: string) => /master(-...)?$/.test(name);

/** ComputeZoneState, as the real controller counts: a node without a Ready condition counts as not ready. */
export function computeZoneState(ready: Array<NodeCondition | undefined>, unhealthyZoneThreshold: number): { notReady: number; state: ZoneState } {
  let readyNodes = 0;
  let notReady = 0;
  for (const c of ready) {
    if (c?.status === 'True') readyNodes++;
    else notReady++;
  }
  if (readyNodes === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  // float32 arithmetic in Go: compare in single precision too.
  if (notReady > 2 && Math.fround(Math.fround(notReady) / Math.fround(notReady + readyNodes)) >= Math.fround(unhealthyZoneThreshold))
    return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

/** A token bucket with burst 1 (flowcontrol.NewTokenBucketRateLimiter(qps, 1)); qps 0 never accepts. */
export class EvictionLimiter {
  private tokens = 1;
  private last = Date.now();
  constructor(readonly qps: number) {}
  tryAccept(now = Date.now()): boolean {
    if (this.qps <= 0) return false;
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
  saturated(now = Date.now()): boolean {
    return this.qps <= 0 || Math.min(1, this.tokens + ((now - this.last) / 1000) * this.qps) < 1;
  }
}

/**
 * RateLimitedTimedQueue: nodes in arrival order, each tried when the zone's limiter lets it. Like the real
 * UniqueQueue, a node processed successfully stays known (it is not queued again) until remove() (the node is
 * Ready again, or gone).
 */
export class RateLimitedQueue {
  private readonly items = new Map<string, { uid: string; processAt: number }>();
  private readonly known = new Set<string>();
  limiter: EvictionLimiter;
  constructor(qps: number) {
    this.limiter = new EvictionLimiter(qps);
  }
  add(name: string, uid: string): boolean {
    if (this.known.has(name)) return false;
    this.known.add(name);
    this.items.set(name, { uid, processAt: Date.now() });
    return true;
  }
  remove(name: string): boolean {
    this.items.delete(name);
    return this.known.delete(name);
  }
  has(name: string): boolean {
    return this.items.has(name);
  }
  get size(): number {
    return this.items.size;
  }
  swapLimiter(qps: number): void {
    if (qps === this.limiter.qps) return;
    const drained = this.limiter.saturated();
    this.limiter = new EvictionLimiter(qps);
    // Burst 1: a limiter that was waiting hands its wait to the new one.
    if (drained) this.limiter.tryAccept();
  }
  /** Processes heads while the limiter accepts; fn returns false to retry the node later. */
  async try(fn: (name: string, uid: string) => Promise<boolean>): Promise<void> {
    for (const [name, item] of this.items) {
      if (!this.limiter.tryAccept()) return;
      const now = Date.now();
      if (now < item.processAt) return;
      let ok = false;
      try {
        ok = await fn(name, item.uid);
      } catch {
        ok = false;
      }
      if (ok) this.items.delete(name);
      else {
        // Retried after the others (the real queue re-inserts it with a later processAt).
        this.items.delete(name);
        this.items.set(name, { uid: item.uid, processAt: Date.now() + 1 });
      }
    }
  }
}

export interface NodeLifecycleStats {
  evictedNodes: Array<{ node: string; zone: string; at: number }>;
  markedUnknown: number;
  deletedNodes: number;
}

export class NodeLifecycleController implements Controller {
  readonly name = 'node';
  readonly stats: NodeLifecycleStats = { evictedNodes: [], markedUnknown: 0, deletedNodes: 0 };
  private readonly health = new Map<string, HealthData>();
  private readonly known = new Map<string, KubeObject>();
  readonly zoneStates = new Map<string, ZoneState>();
  private readonly queues = new Map<string, RateLimitedQueue>();
  private events!: EventRecorder;
  private ctx!: ControllerContext;
  private nodes!: Informer;
  private pods!: Informer;
  private useTaintBasedEvictions = false;
  private evictionQps = 0;

  async run(ctx: ControllerContext): Promise<void> {
    this.ctx = ctx;
    const o = ctx.options;
    this.events = new EventRecorder(ctx.client, { component: 'controllermanager' }, { log: ctx.log, signal: ctx.signal });
    this.nodes = ctx.informers.informerFor(RESOURCE.nodes.collection());
    this.pods = ctx.informers.informerFor(RESOURCE.pods.collection());
    const runTaintManager = o.bool('--enable-taint-manager');
    this.useTaintBasedEvictions = runTaintManager && ctx.gates.enabled('TaintBasedEvictions');
    this.evictionQps = o.float('--node-eviction-rate');
    if (this.useTaintBasedEvictions) ctx.log('using taint based evictions');

    let ipam: NodeIpam | undefined;
    if (o.bool('--allocate-node-cidrs')) {
      // Bad IPAM settings stop this controller (the real daemon stops altogether), not the daemon's other loops.
      ipam = new NodeIpam(ctx, this.nodes);
    }
    const taintManager = runTaintManager ? new TaintManager(ctx, this.nodes, this.pods) : undefined;
    if (ctx.gates.enabled('TaintNodesByCondition')) {
      this.nodes.addEventHandler({ onAdd: (n) => void this.noScheduleTaintingPass(n), onUpdate: (_o, n) => void this.noScheduleTaintingPass(n) });
    }
    if (!(await this.nodes.waitForSync(ctx.signal)) || !(await this.pods.waitForSync(ctx.signal))) return;
    ctx.cloud?.attachNodes((name) => this.nodes.get(name));

    const loops: Array<Promise<void>> = [];
    const every = (periodMs: number, fn: () => Promise<void>) =>
      loops.push(
        (async () => {
          while (!ctx.signal.aborted) {
            try {
              await fn();
            } catch (err) {
              if (!ctx.signal.aborted) ctx.log(`${(err as Error).message}`);
            }
            await sleep(periodMs, ctx.signal);
          }
        })(),
      );
    every(Math.max(10, o.durationMs('--node-monitor-period')), () => this.monitorNodeStatus());
    every(EVICTION_PASS_MS, () => (this.useTaintBasedEvictions ? this.noExecuteTaintingPass() : this.evictionPass()));
    if (taintManager) loops.push(taintManager.run());
    if (ipam) loops.push(ipam.run());
    await Promise.all(loops);
  }

  private queueFor(node: KubeObject): RateLimitedQueue {
    const zone = zoneKeyOf(node);
    let q = this.queues.get(zone);
    if (!q) {
      q = new RateLimitedQueue(this.evictionQps);
      this.queues.set(zone, q);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
      this.ctx.log(`initializing eviction queue for zone ${zoneName(zone)}`);
    }
    return q;
  }

  /** Queue state, for tests and /configz-style introspection. */
  queued(): Record<string, string[]> {
    return Object.fromEntries([...this.queues].map(([z, q]) => [zoneName(z), [...(q as unknown as { items: Map<string, unknown> }).items.keys()]]));
  }

  private nodeEvent(node: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.event(refOf(node, 'v1', 'Node'), type, reason, message);
  }

  async monitorNodeStatus(): Promise<void> {
    const { signal } = this.ctx;
    const nodes = this.nodes.list();
    const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata.name ?? '';
      if (!this.known.has(name)) {
        this.known.set(name, node);
        this.nodeEvent(node, 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
        const q = this.queueFor(node);
        if (this.useTaintBasedEvictions) await this.markNodeAsReachable(node);
        else q.remove(name);
      } else this.queueFor(node);
    }
    for (const [name, node] of this.known) {
      if (names.has(name)) continue;
      this.known.delete(name);
      this.health.delete(name);
      for (const q of this.queues.values()) q.remove(name);
      this.nodeEvent(node, 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
    }

    const zoneConditions = new Map<string, Array<NodeCondition | undefined>>();
    for (const original of nodes) {
      if (signal.aborted) return;
      const name = original.metadata.name ?? '';
      let result;
      try {
        result = await this.updateNodeStatusWithRetry(original);
      } catch (err) {
        if (isNotFound(err)) continue;
        this.ctx.log(`update status of node ${name}: ${(err as Error).message}; skipping, no pods will be evicted`);
        continue;
      }
      const { node, observed, current } = result;
      const zone = zoneKeyOf(node);
      if (!isMasterNode(name)) {
        if (!zoneConditions.has(zone)) zoneConditions.set(zone, []);
        zoneConditions.get(zone)!.push(current);
      }
      if (!current) continue;
      const h = this.health.get(name)!;
      const now = Date.now();
      const timeout = this.ctx.options.durationMs('--pod-eviction-timeout');
      const q = this.queueFor(node);
      if (observed.status === 'False' || observed.status === 'Unknown') {
        if (this.useTaintBasedEvictions) {
          const [want, opposite] = observed.status === 'False' ? [TAINT_NOT_READY, TAINT_UNREACHABLE] : [TAINT_UNREACHABLE, TAINT_NOT_READY];
          // Swapped at once when the opposite taint is there already; otherwise through the rate-limited queue.
          if (taintsOf(node).some((t) => t.key === opposite && t.effect === 'NoExecute'))
            await this.swapTaints(node, [{ key: want, effect: 'NoExecute' }], [opposite]);
          else if (q.add(name, node.metadata.uid ?? ''))
            this.ctx.log(`node ${name} is ${observed.status === 'False' ? 'NotReady' : 'unresponsive'}; queued for tainting`);
        } else {
          const since = observed.status === 'False' ? h.readyTransitionTimestamp : h.probeTimestamp;
          if (now > since + timeout && q.add(name, node.metadata.uid ?? '')) {
            this.ctx.log(
              `node ${name} is ${observed.status === 'False' ? 'NotReady' : 'unresponsive'} for more than ${timeout} ms; its pods are queued for eviction in zone ${zoneName(zone)}`,
            );
          }
        }
      }
      if (observed.status === 'True') {
        if (this.useTaintBasedEvictions) {
          if (await this.markNodeAsReachable(node)) this.ctx.log(`node ${name} is healthy again, taints removed`);
        } else if (q.remove(name)) this.ctx.log(`node ${name} is ready again, eviction cancelled`);
      }
      if (current.status !== 'True' && observed.status === 'True') {
        this.nodeEvent(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        await this.markAllPodsNotReady(name).catch((err: unknown) =>
          this.ctx.log(`unable to mark all pods NotReady on node ${name}: ${(err as Error).message}`),
        );
      }
      const cloud = this.ctx.cloud;
      if (cloud) {
        if (current.status !== 'True' && !cloud.instanceExists(name)) {
          this.ctx.log(`deleting node ${name}: no longer present in the cloud provider`);
          this.nodeEvent(node, 'Normal', 'DeletingNode', `Node ${name} event: Deleting Node ${name} because it's not present according to cloud provider`);
          await this.ctx.client.delete(RESOURCE.nodes.named(name), { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }, signal).then(
            () => this.stats.deletedNodes++,
            (err: unknown) => !isNotFound(err) && this.ctx.log(`unable to delete node ${name}: ${(err as Error).message}`),
          );
          continue;
        }
        await this.syncAddresses(node);
      }
    }
    this.handleDisruption(zoneConditions, nodes);
  }

  /** tryUpdateNodeStatus with the real controller's retries (a conflict re-reads the node). */
  private async updateNodeStatusWithRetry(node: KubeObject): Promise<{ node: KubeObject; observed: NodeCondition; current: NodeCondition | undefined }> {
    let n = node;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.tryUpdateNodeStatus(n);
      } catch (err) {
        if (attempt >= 4 || !(err instanceof ApiError)) throw err;
        n = await this.ctx.client.get(RESOURCE.nodes.named(n.metadata.name ?? ''), undefined, this.ctx.signal);
      }
    }
  }

  private async tryUpdateNodeStatus(original: KubeObject): Promise<{ node: KubeObject; observed: NodeCondition; current: NodeCondition | undefined }> {
    const o = this.ctx.options;
    const name = original.metadata.name ?? '';
    const node = copyJson(original);
    const createdTs = node.metadata.creationTimestamp ?? undefined;
    const created = ms(createdTs) || Date.now();
    const now = Date.now();
    const currentReady = readyOf(node);
    let observed: NodeCondition;
    let grace: number;
    if (!currentReady) {
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: createdTs, lastTransitionTime: createdTs };
      grace = o.durationMs('--node-startup-grace-period');
      this.health.set(name, { probeTimestamp: created, readyTransitionTimestamp: created, ready: undefined });
    } else {
      observed = { ...currentReady };
      grace = o.durationMs('--node-monitor-grace-period');
    }
    let saved = this.health.get(name);
    const savedReady = saved?.ready;
    if (!saved) {
      saved = { probeTimestamp: now, readyTransitionTimestamp: now, ready: currentReady ? { ...currentReady } : undefined };
    } else if (!savedReady && currentReady) {
      saved = { probeTimestamp: now, readyTransitionTimestamp: now, ready: { ...currentReady } };
    } else if (savedReady && !currentReady) {
      saved = { probeTimestamp: now, readyTransitionTimestamp: now, ready: undefined };
    } else if (savedReady && currentReady && savedReady.lastHeartbeatTime !== currentReady.lastHeartbeatTime) {
      const transition = savedReady.lastTransitionTime !== currentReady.lastTransitionTime ? now : saved.readyTransitionTimestamp;
      saved = { probeTimestamp: now, readyTransitionTimestamp: transition, ready: { ...currentReady } };
    }
    this.health.set(name, saved);

    if (now > saved.probeTimestamp + grace) {
      const conditions = conditionsOf(node).map((c) => ({ ...c }));
      const ts = rfc3339();
      let ready = conditions.find((c) => c.type === 'Ready');
      if (!ready) {
        const fresh: NodeCondition = {
          type: 'Ready',
          status: 'Unknown',
          reason: 'NodeStatusNeverUpdated',
          message: 'Kubelet never posted node status.',
          lastHeartbeatTime: createdTs,
          lastTransitionTime: ts,
        };
        conditions.push(fresh);
        ready = fresh;
      } else if (observed.status !== 'Unknown') {
        Object.assign(ready, {
          status: 'Unknown',
          reason: 'NodeStatusUnknown',
          message: 'Kubelet stopped posting node status.',
          lastHeartbeatTime: observed.lastHeartbeatTime,
          lastTransitionTime: ts,
        });
      }
      // NetworkUnavailable is left alone: the route controller owns it.
      for (const type of ['MemoryPressure', 'DiskPressure']) {
        const c = conditions.find((x) => x.type === type);
        if (!c)
          conditions.push({
            type,
            status: 'Unknown',
            reason: 'NodeStatusNeverUpdated',
            message: 'Kubelet never posted node status.',
            lastHeartbeatTime: createdTs,
            lastTransitionTime: ts,
          });
        else if (c.status !== 'Unknown')
          Object.assign(c, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: ts });
      }
      if (JSON.stringify(ready) !== JSON.stringify(currentReady ?? null) || !currentReady) {
        node.status = { ...(node.status ?? {}), conditions };
        const updated = await this.ctx.client.update(RESOURCE.nodes.named(name, 'status'), node, this.ctx.signal);
        this.stats.markedUnknown++;
        this.health.set(name, {
          probeTimestamp: saved.probeTimestamp,
          readyTransitionTimestamp: Date.now(),
          ready: readyOf(updated) ? { ...readyOf(updated)! } : saved.ready,
        });
        // The saved condition stays the kubelet's last one, so the kubelet's next heartbeat counts as new.
        this.health.get(name)!.ready = saved.ready;
        return { node: updated, observed, current: readyOf(updated) };
      }
    }
    return { node, observed, current: currentReady };
  }

  private handleDisruption(zoneConditions: Map<string, Array<NodeCondition | undefined>>, nodes: KubeObject[]): void {
    const threshold = this.ctx.options.float('--unhealthy-zone-threshold');
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conds] of zoneConditions) {
      const { state } = computeZoneState(conds, threshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWereFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneConditions.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWereFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      this.ctx.log('all nodes are not Ready: entering master disruption mode, evictions stop');
      for (const node of nodes) {
        if (this.useTaintBasedEvictions) void this.markNodeAsReachable(node);
        else this.queues.get(zoneKeyOf(node))?.remove(node.metadata.name ?? '');
      }
      for (const zone of this.zoneStates.keys()) {
        this.queues.get(zone)?.swapLimiter(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWereFullyDisrupted) {
      this.ctx.log('some nodes are Ready again: leaving master disruption mode');
      const now = Date.now();
      for (const node of nodes) {
        const h = this.health.get(node.metadata.name ?? '');
        if (h) Object.assign(h, { probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const zone of this.zoneStates.keys()) {
        this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, newStates.get(zone) ?? 'Normal');
        this.zoneStates.set(zone, newStates.get(zone) ?? 'Normal');
      }
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const next = newStates.get(zone) ?? 'Normal';
      if (state === next) continue;
      this.ctx.log(`zone ${zoneName(zone)} is now in state ${next}`);
      this.setLimiterInZone(zone, zoneConditions.get(zone)?.length ?? 0, next);
      this.zoneStates.set(zone, next);
    }
  }

  private setLimiterInZone(zone: string, zoneSize: number, state: ZoneState): void {
    const o = this.ctx.options;
    const q = this.queues.get(zone);
    if (!q) return;
    if (state === 'Normal' || state === 'FullDisruption') q.swapLimiter(this.evictionQps);
    else if (state === 'PartialDisruption') q.swapLimiter(zoneSize > o.int('--large-cluster-size-threshold') ? o.float('--secondary-node-eviction-rate') : 0);
  }

  /** The current eviction rate of a zone (nodes per second), for tests. */
  rateOf(zoneKey: string): number | undefined {
    return this.queues.get(zoneKey)?.limiter.qps;
  }

  private podsOn(nodeName: string): KubeObject[] {
    return this.pods.list().filter((p) => specOf<{ nodeName?: string }>(p).nodeName === nodeName);
  }

  async evictionPass(): Promise<void> {
    for (const [zone, q] of this.queues) {
      await q.try(async (name, uid) => {
        if (this.ctx.signal.aborted) return false;
        this.stats.evictedNodes.push({ node: name, zone: zoneName(zone), at: Date.now() });
        return this.deletePods(name, uid);
      });
    }
  }

  /** util.DeletePods: every pod of the node except DaemonSet pods, status reason NodeLost first. */
  private async deletePods(nodeName: string, nodeUID: string): Promise<boolean> {
    const node = this.nodes.get(nodeName);
    if (node) this.nodeEvent(node, 'Normal', 'DeletingAllPods', `Node ${nodeName} event: Deleting all Pods from Node ${nodeName}.`);
    else
      this.events.event(
        { kind: 'Node', name: nodeName, uid: nodeUID, namespace: '' } as never,
        'Normal',
        'DeletingAllPods',
        `Node ${nodeName} event: Deleting all Pods from Node ${nodeName}.`,
      );
    let ok = true;
    for (const pod of this.podsOn(nodeName)) {
      if (pod.metadata.deletionTimestamp) continue;
      // A DaemonSet's pod would only be made again on the same node (the real deletePods leaves them too).
      if (controllerNameOf(pod, RESOURCE.daemonSets.kind) !== undefined) continue;
      try {
        const status = (pod.status ?? {}) as { reason?: string };
        if (status.reason !== 'NodeLost') {
          await this.ctx.client
            .patch(
              RESOURCE.pods.of(pod, 'status'),
              { status: { reason: 'NodeLost', message: `Node ${nodeName} which was running pod ${pod.metadata.name} is unresponsive` } },
              'application/merge-patch+json',
              this.ctx.signal,
            )
            .catch((err: unknown) => {
              if (!isNotFound(err)) throw err;
            });
        }
        this.events.event(refOf(pod, 'v1', 'Pod'), 'Normal', 'NodeControllerEviction', `Marking for deletion Pod ${pod.metadata.name} from Node ${nodeName}`);
        await this.ctx.client.delete(RESOURCE.pods.of(pod), undefined, this.ctx.signal);
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) continue;
        this.ctx.log(`unable to evict pods of node ${nodeName}: ${(err as Error).message}`);
        ok = false;
      }
    }
    return ok;
  }

  private async markAllPodsNotReady(nodeName: string): Promise<void> {
    for (const pod of this.podsOn(nodeName)) {
      const conditions = ((pod.status as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []).map((c) => ({ ...c }));
      const ready = conditions.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      ready.status = 'False';
      (ready as NodeCondition & { lastTransitionTime?: string }).lastTransitionTime = rfc3339();
      try {
        await this.ctx.client.update(RESOURCE.pods.of(pod, 'status'), { ...pod, status: { ...(pod.status ?? {}), conditions } }, this.ctx.signal);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  async noExecuteTaintingPass(): Promise<void> {
    for (const q of this.queues.values()) {
      await q.try(async (name) => {
        const node = this.nodes.get(name);
        if (!node) return true;
        const ready = readyOf(node);
        if (!ready || ready.status === 'True') return true;
        const [want, opposite] = ready.status === 'False' ? [TAINT_NOT_READY, TAINT_UNREACHABLE] : [TAINT_UNREACHABLE, TAINT_NOT_READY];
        this.stats.evictedNodes.push({ node: name, zone: zoneName(zoneKeyOf(node)), at: Date.now() });
        return this.swapTaints(node, [{ key: want, effect: 'NoExecute' }], [opposite]);
      });
    }
  }

  /** Removes the NotReady/Unreachable taints; true when the node was queued for tainting. */
  private async markNodeAsReachable(node: KubeObject): Promise<boolean> {
    const has = taintsOf(node).some((t) => (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE) && t.effect === 'NoExecute');
    if (has) await this.swapTaints(node, [], [TAINT_NOT_READY, TAINT_UNREACHABLE]);
    return this.queues.get(zoneKeyOf(node))?.remove(node.metadata.name ?? '') ?? false;
  }

  /** SwapNodeControllerTaint: adds and removes taints (by key) with the node's resourceVersion, re-read on conflict. */
  async swapTaints(node: KubeObject, add: Taint[], removeKeys: string[]): Promise<boolean> {
    let current = node;
    for (let attempt = 0; attempt < 5; attempt++) {
      const taints = taintsOf(current);
      const kept = taints.filter((t) => !removeKeys.includes(t.key) || add.some((a) => a.key === t.key && a.effect === t.effect));
      const missing = add.filter((a) => !kept.some((t) => t.key === a.key && t.effect === a.effect));
      if (missing.length === 0 && kept.length === taints.length) return true;
      const next = [...kept, ...missing.map((a) => ({ ...a, timeAdded: rfc3339() }))];
      try {
        await this.ctx.client.patch(
          RESOURCE.nodes.named(current.metadata.name ?? ''),
          { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { taints: next.length ? next : null } },
          'application/merge-patch+json',
          this.ctx.signal,
        );
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err)) {
          this.ctx.log(`failed to swap taints of node ${current.metadata.name}: ${(err as Error).message}`);
          return false;
        }
        current = await this.ctx.client.get(RESOURCE.nodes.named(current.metadata.name ?? ''), undefined, this.ctx.signal);
      }
    }
    return false;
  }

  /** TaintNodesByCondition: NoSchedule taints for the conditions that are True, none for the others. */
  private async noScheduleTaintingPass(node: KubeObject): Promise<void> {
    const want = conditionsOf(node)
      .filter((c) => CONDITION_TAINTS[c.type] && c.status === 'True')
      .map((c): Taint => ({ key: CONDITION_TAINTS[c.type], effect: 'NoSchedule' }));
    const managed = new Set(Object.values(CONDITION_TAINTS));
    const have = taintsOf(node).filter((t) => managed.has(t.key));
    const toRemove = have.filter((t) => !want.some((w) => w.key === t.key && w.effect === t.effect)).map((t) => t.key);
    const toAdd = want.filter((w) => !have.some((t) => t.key === w.key && t.effect === w.effect));
    if (toRemove.length === 0 && toAdd.length === 0) return;
    await this.swapTaints(node, toAdd, toRemove).catch((err: unknown) => this.ctx.log(`condition taints of ${node.metadata.name}: ${(err as Error).message}`));
  }

  /** The cloud instance's addresses (ExternalIP) on the Node, added when missing. */
  private async syncAddresses(node: KubeObject): Promise<void> {
    const cloud = this.ctx.cloud;
    if (!cloud) return;
    const have = (node.status as { addresses?: Array<{ type: string; address: string }> } | undefined)?.addresses ?? [];
    const extra = cloud.instanceAddresses(node.metadata.name ?? '').filter((a) => !have.some((h) => h.type === a.type && h.address === a.address));
    if (extra.length === 0) return;
    await this.ctx.client
      .patch(
        RESOURCE.nodes.named(node.metadata.name ?? '', 'status'),
        { status: { addresses: [...have, ...extra] } },
        'application/merge-patch+json',
        this.ctx.signal,
      )
      .catch((err: unknown) => !isNotFound(err) && this.ctx.log(`addresses of node ${node.metadata.name}: ${(err as Error).message}`));
  }
}

export const nodeLifecycleController = (): Controller => new NodeLifecycleController();
