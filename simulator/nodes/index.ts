// Simulated nodes against any API server (README.md in this folder): N kubelet stand-ins that register
// Node objects and run the pods bound to them, and a default-scheduler that binds pending pods. Everything
// goes through the HTTP API with the daemon's ApiClient, so the nodes behave the same against this
// simulator and against a real API server.
//
// One pod informer (list + watch of every pod) feeds the scheduler and all kubelets: a real kubelet watches
// only its own pods (a field selector on spec.nodeName), but N watches of the same stream would only cost
// the simulator time. Each kubelet keeps its own client and rate limit (kubelet: 5 qps, burst 10; scheduler:
// 50 qps, burst 100, the real defaults), so writes are paced as a real cluster would pace them.

import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../api/meta.ts';
import { ApiClient } from '../client/api-client.ts';
import { EventRecorder } from '../client/event-recorder.ts';
import type { ClientConfig } from '../client/kubeconfig.ts';
import { Informer, keyOf } from '../client/informer.ts';
import { SimKubelet, type KubeletOptions } from './kubelet.ts';
import type { ContainersAccess } from './termination-message.ts';
import { DEFAULT_NODE_SHAPE, type NodePlacement, type NodeShape } from './node-object.ts';
import { ANN_NODE_STATE, type NodeState } from './annotations.ts';
import { SimScheduler } from './scheduler.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export interface NodesOptions {
  /** Number of nodes (default 3). */
  count?: number;
  /** Node names are `<prefix><i>`, i from 0 (default "sim-node-"). */
  namePrefix?: string;
  /** Offset of the first node's index (pod and node IP ranges); lets two node sets share one cluster. */
  indexOffset?: number;
  shape?: Partial<NodeShape>;
  /**
   * Zones to spread the nodes over (node i in zone i mod zones), as failure-domain.beta.kubernetes.io/zone
   * labels `<region>-<a|b|c...>` and the region label; 0 (default): no zone or region labels.
   */
  zones?: number;
  /** Region label value when zones are given (default "sim-region-1"). */
  region?: string;
  /** Pending -> Running, ms (default 200). */
  startMs?: number;
  /** Run time of batch pods (restartPolicy Never/OnFailure) without a run-seconds annotation, ms (default 1000). */
  batchRunMs?: number;
  heartbeatMs?: number;
  /** Containers' stop time on graceful deletion, ms (default 100; never more than the grace period). */
  stopMs?: number;
  restartBackoffMs?: number;
  maxRestartBackoffMs?: number;
  /** Per-kubelet client limits (default 5 qps, burst 10; a negative qps = unlimited). */
  kubeletQps?: number;
  kubeletBurst?: number;
  /** Scheduler client limits (default 50 qps, burst 100). */
  schedulerQps?: number;
  schedulerBurst?: number;
  schedulerWorkers?: number;
  /** Wait before an unschedulable pod is tried again, ms (default 1000; doubling per failed try). */
  schedulerRetryMs?: number;
  /** Longest wait of an unschedulable pod, ms (default 60,000, as kube-scheduler's pod backoff). */
  schedulerMaxRetryMs?: number;
  /** Credentials and TLS for the API (server is taken from apiUrl). */
  clientConfig?: Omit<ClientConfig, 'server'>;
  /** Set false to leave scheduling to another scheduler. */
  scheduler?: boolean;
  /**
   * Events of the kubelets (Pulling, Pulled, Created, Started, BackOff, Killing) and the scheduler (Scheduled,
   * FailedScheduling), as the real ones post them (default true). false: none, as kwok's nodes: at 100,000
   * pods they are 600,000 Event writes, most of a scale run's API work and memory, that no control loop reads.
   */
  events?: boolean;
  /**
   * The simulated containers (nodes/containers/, the runtime the API server execs into): the kubelets read the
   * termination-message file and the configured log file of an ended container through it. Without it, only the
   * pod's annotations make termination messages.
   */
  containers?: ContainersAccess;
  log?: (line: string) => void;
}

export interface NodesHandle {
  nodeNames: string[];
  kubelets: ReadonlyMap<string, SimKubelet>;
  scheduler: SimScheduler | undefined;
  /** Pods seen running on the simulated nodes right now (not finished). */
  activePods(): number;
  /**
   * Fails or revives a node: sets its simulator.cluster.local/node-state annotation (what `kubectl annotate
   * node <name> simulator.cluster.local/node-state=stopped --overwrite` does) and resolves once its kubelet saw it.
   */
  setNodeState(name: string, state: NodeState): Promise<void>;
  close(): Promise<void>;
}

export async function startNodes(apiUrl: string, opts: NodesOptions = {}): Promise<NodesHandle> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`nodes: ${line}\n`));
  const cfg: ClientConfig = { ...opts.clientConfig, server: apiUrl };
  const contentType = 'application/json';
  const schedulerClient = await ApiClient.create(cfg, { qps: opts.schedulerQps ?? 50, burst: opts.schedulerBurst ?? 100, contentType, codec: null, userAgent: 'default-scheduler/v1.9.0' });
  // The kubelets' clients share one bounded connection pool (each keeps its own rate limit): a pool per client
  // would be two thousand of them for 1,000 nodes, each opening sockets at will under load.
  const kubeletPool = ApiClient.sharedPool(cfg, 64);
  const kopts: KubeletOptions = {
    shape: { ...DEFAULT_NODE_SHAPE, ...opts.shape },
    startMs: opts.startMs ?? 200,
    batchRunMs: opts.batchRunMs ?? 1000,
    heartbeatMs: opts.heartbeatMs ?? 10_000,
    stopMs: opts.stopMs ?? 100,
    restartBackoffMs: opts.restartBackoffMs ?? 10_000,
    maxRestartBackoffMs: opts.maxRestartBackoffMs ?? 300_000,
    containers: opts.containers,
    log,
  };
  const count = opts.count ?? 3;
  const prefix = opts.namePrefix ?? 'sim-node-';
  const kubelets = new Map<string, SimKubelet>();
  const lifetime = new AbortController();
  const clients: ApiClient[] = [schedulerClient];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}${i}`;
    const client = await ApiClient.create(cfg, { qps: opts.kubeletQps ?? 5, burst: opts.kubeletBurst ?? 10, contentType, codec: null, userAgent: `kubelet/v1.9.0 (${name})`, dispatcher: kubeletPool });
    // Events go through a client of their own, as the kubelet's --event-qps=5 --event-burst=10 (unlimited with an unlimited kubelet).
    const unlimited = (opts.kubeletQps ?? 5) < 0;
    clients.push(client);
    let events: EventRecorder | undefined;
    if (opts.events !== false) {
      const eventClient = await ApiClient.create(cfg, { qps: unlimited ? -1 : 5, burst: unlimited ? 0 : 10, contentType, codec: null, userAgent: `kubelet/v1.9.0 (${name})`, dispatcher: kubeletPool });
      clients.push(eventClient);
      events = new EventRecorder(eventClient, { component: 'kubelet', host: name }, { log, signal: lifetime.signal });
    }
    kubelets.set(name, new SimKubelet(name, (opts.indexOffset ?? 0) + i, client, { ...kopts, events, placement: placementOf(i, opts) }));
  }
  setMaxListeners(0, lifetime.signal); // every scheduler worker and watch listens to it
  const closeAll = async () => {
    lifetime.abort();
    for (const k of kubelets.values()) k.close();
    await Promise.all(clients.map((c) => c.close()));
    await kubeletPool.destroy();
  };
  try {
    await Promise.all([...kubelets.values()].map((k) => k.register(lifetime.signal)));
  } catch (err) {
    await closeAll();
    throw err;
  }

  // Non-terminal pods bound to each node, for the scheduler's room check.
  const boundTo = new Map<string, Set<string>>();
  const podNode = new Map<string, string>();
  const track = (pod: KubeObject | undefined, key: string) => {
    const old = podNode.get(key);
    const phase = (pod?.status as { phase?: string } | undefined)?.phase;
    const node = pod && !['Succeeded', 'Failed'].includes(phase ?? '') ? (pod.spec as { nodeName?: string } | undefined)?.nodeName : undefined;
    if (old === node) return;
    if (old) {
      boundTo.get(old)?.delete(key);
      scheduler?.loadChanged(old);
    }
    if (node) {
      podNode.set(key, node);
      let set = boundTo.get(node);
      if (!set) boundTo.set(node, (set = new Set()));
      set.add(key);
      scheduler?.loadChanged(node);
    } else podNode.delete(key);
  };

  // The scheduler's events go through a client of their own, as kube-scheduler's event client: its
  // FailedScheduling events for pods that fit nowhere do not spend the rate limit its bindings need. Its own
  // connections too (not forComponent's shared ones): a pool is bounded (64), and a flood's event writes holding
  // every connection would hold the bindings back again.
  let schedulerEvents: EventRecorder | undefined;
  if (opts.scheduler !== false && opts.events !== false) {
    const eventClient = await ApiClient.create(cfg, { qps: opts.schedulerQps ?? 50, burst: opts.schedulerBurst ?? 100, contentType, codec: null, userAgent: 'default-scheduler/v1.9.0' });
    clients.push(eventClient);
    schedulerEvents = new EventRecorder(eventClient, { component: 'default-scheduler' }, { log, signal: lifetime.signal });
  }
  const pods = new Informer(schedulerClient, RESOURCE.pods.collection(), { log });
  const nodes = new Informer(schedulerClient, RESOURCE.nodes.collection(), { log });
  const scheduler =
    opts.scheduler === false
      ? undefined
      : new SimScheduler(
          schedulerClient,
          { pod: (key) => pods.get(key), podsOn: (node) => boundTo.get(node)?.size ?? 0 },
          { workers: opts.schedulerWorkers ?? 16, retryMs: opts.schedulerRetryMs ?? 1000, maxRetryMs: opts.schedulerMaxRetryMs, log, events: schedulerEvents },
        );
  const onPod = (pod: KubeObject) => {
    const key = keyOf(pod);
    track(pod, key);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    if (nodeName) {
      scheduler?.settled(pod);
      kubelets.get(nodeName)?.observe(pod);
    } else scheduler?.enqueue(pod);
  };
  pods.addEventHandler({
    onAdd: onPod,
    onUpdate: (_old, pod) => onPod(pod),
    onDelete: (pod) => {
      track(undefined, keyOf(pod));
      scheduler?.settled(pod);
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) kubelets.get(nodeName)?.forget(pod);
    },
  });
  // A node that becomes ready or gains room may take pods that were waiting.
  nodes.addEventHandler({
    onAdd: (node) => {
      scheduler?.nodeChanged(node.metadata.name ?? '', node);
      kubelets.get(node.metadata.name ?? '')?.observeNode(node);
      pods.list().forEach((p) => scheduler?.enqueue(p));
    },
    onUpdate: (_old, node) => {
      scheduler?.nodeChanged(node.metadata.name ?? '', node);
      kubelets.get(node.metadata.name ?? '')?.observeNode(node);
    },
    onDelete: (node) => scheduler?.nodeChanged(node.metadata.name ?? '', undefined),
  });
  void nodes.run(lifetime.signal);
  void pods.run(lifetime.signal);
  await nodes.waitForSync(lifetime.signal);
  await pods.waitForSync(lifetime.signal);
  void scheduler?.run(lifetime.signal);
  log(`${count} simulated node(s) registered: ${[...kubelets.keys()].join(', ')}${scheduler ? '; scheduler running' : ''}`);

  return {
    nodeNames: [...kubelets.keys()],
    kubelets,
    scheduler,
    activePods: () => [...kubelets.values()].reduce((n, k) => n + k.activePods, 0),
    async setNodeState(name, state) {
      const kubelet = kubelets.get(name);
      if (!kubelet) throw new Error(`no simulated node ${name}`);
      await schedulerClient.patch(RESOURCE.nodes.named(name), { metadata: { annotations: { [ANN_NODE_STATE]: state } } }, 'application/merge-patch+json');
      for (let i = 0; i < 400 && kubelet.nodeState !== state; i++) await new Promise((r) => setTimeout(r, 25));
    },
    close: closeAll,
  };
}

/** Zone and region of node i: zones `<region>-a`, `-b`, ... in turn. */
export function placementOf(i: number, opts: Pick<NodesOptions, 'zones' | 'region'>): NodePlacement {
  const zones = opts.zones ?? 0;
  if (zones <= 0) return {};
  const region = opts.region ?? 'sim-region-1';
  const z = i % zones;
  const suffix = z < 26 ? String.fromCharCode(97 + z) : `z${z}`;
  return { region, zone: `${region}-${suffix}` };
}

export { ANN_NODE_STATE, nodeStateOf, type NodeState } from './annotations.ts';
export { REGION_LABEL, ZONE_LABEL } from './node-object.ts';
export { ANN_EXIT_CODE, ANN_FAIL_AFTER_SECONDS, ANN_NEVER_READY, ANN_READY_AFTER_SECONDS, ANN_RUN_SECONDS, ANN_START_SECONDS } from './annotations.ts';
