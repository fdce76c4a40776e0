// The kubelet stand-in of one simulated node: it registers the Node, posts heartbeats, and moves each pod bound
// to it through its life by writing pod status through the API. The pod's life is a table of stages
// (pod-stages.ts, run by the engine of stages.ts, after kwok's Stages):
//   Pending --start--> Running (ready now, or after ready-after-seconds)
//   Running --run ends--> Succeeded / Failed (restartPolicy Never, or OnFailure with exit code 0)
//                      \-> restarted in place (Always; OnFailure with a failure): restartCount + 1,
//                          lastState terminated, waiting CrashLoopBackOff for a doubling back-off, running again
//   spec.activeDeadlineSeconds passed -> Failed, reason DeadlineExceeded
//   deletionTimestamp set -> containers stop (a short stop time, at most the grace period), then the kubelet
//                          confirms with a DELETE of grace 0 and the pod's uid as precondition.
// Every write is a merge patch of the status subresource, in order per pod; a 404 means the pod is gone.

import type { KubeObject } from '../api/meta.ts';
import { statusAs, type PodStatus } from '../api/types/index.ts';
import { ApiError, type ApiClient } from '../client/api-client.ts';
import { refOf, type EventRecorder, type EventType } from '../client/event-recorder.ts';
import { nodeStateOf, podBehaviour, type BehaviourDefaults, type NodeState } from './annotations.ts';
import { nodeConditions, nodeInternalIP, nodeObject, podIP, podIPCapacity, rfc3339, type NodePlacement, type NodeShape } from './node-object.ts';
import { containersOf, newContainerID, podStatus, type ContainerState } from './pod-status.ts';
import { newPodRun, podStages, type PodRun } from './pod-stages.ts';
import { StageEngine } from './stages.ts';
import { attachableOf, podVolumes } from '../api/volume-names.ts';
import { RESOURCE } from '../client/resource-paths.ts';
import { terminationMessages, type ContainersAccess } from './termination-message.ts';

export interface KubeletOptions extends BehaviourDefaults {
  shape: NodeShape;
  /** Node status heartbeat (the kubelet's --node-status-update-frequency, 10 s). */
  heartbeatMs: number;
  /** Time containers take to stop after a graceful delete (capped by the grace period). */
  stopMs: number;
  /** First restart back-off; doubles per restart up to maxRestartBackoffMs (real: 10 s .. 5 min). */
  restartBackoffMs: number;
  maxRestartBackoffMs: number;
  log(line: string): void;
  /** Where the kubelet's events go (source component kubelet, host the node); none: no events. */
  events?: EventRecorder;
  /** Zone and region labels of the Node. */
  placement?: NodePlacement;
  /** The simulated containers' files and log files, for termination messages (termination-message.ts). */
  containers?: ContainersAccess;
}

const isGone = (err: unknown) => err instanceof ApiError && (err.code === 404 || err.code === 409);
const phaseOf = (pod: KubeObject) => statusAs<PodStatus>(pod).phase;

export class SimKubelet {
  private readonly runs = new Map<string, PodRun>();
  private readonly usedSlots = new Set<number>();
  private nextSlot = 1;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The Node's spec.podCIDR once the node IPAM (or anyone) set it; pod IPs come from it. */
  private podCIDR: string | undefined;
  /** From the Node's node-state annotation: a stopped or terminated node's kubelet is unreachable. */
  private state: NodeState = 'ready';
  private readyTransition = rfc3339();
  readonly hostIP: string;
  /** Unique names of the volumes attached to this node (the Node's status.volumesAttached). */
  private attached = new Set<string>();
  /** What this kubelet last reported in status.volumesInUse. */
  private reportedInUse = '';
  /** The pod stages (pod-stages.ts) with this kubelet's actions. */
  private readonly stages: StageEngine<PodRun>;

  constructor(
    readonly nodeName: string,
    readonly index: number,
    private readonly client: ApiClient,
    private readonly opts: KubeletOptions,
  ) {
    this.hostIP = nodeInternalIP(index);
    this.stages = new StageEngine(
      podStages({
        volumesReady: (run) => this.volumesReady(run),
        start: (run) => this.start(run),
        ready: (run) => {
          run.view = { ...run.view, ready: true };
          this.write(run);
        },
        complete: (run) => this.complete(run),
        crash: (run) => this.crash(run),
        deadlineExceeded: (run) => {
          this.clear(run);
          const state = this.terminated(run, 137, 'DeadlineExceeded');
          this.finish(run, 'Failed', state, this.messagesOf(run, state), 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline');
        },
        confirmDeletion: (run) => this.confirmDeletion(run),
        stopMs: opts.stopMs,
      }),
      (run) => !run.done && !this.stopped,
    );
  }

  /** Pods this kubelet is running (not finished, not yet removed). */
  get activePods(): number {
    let n = 0;
    for (const r of this.runs.values()) if (!r.done) n++;
    return n;
  }

  /** Whether the kubelet is cut off (node-state stopped or terminated): no heartbeat, no pod status, no confirmations. */
  get down(): boolean {
    return this.state === 'stopped' || this.state === 'terminated';
  }

  get nodeState(): NodeState {
    return this.state;
  }

  /** The Node object changed (its podCIDR, or the node-state annotation that fails or revives the node). */
  observeNode(node: KubeObject): void {
    const cidr = (node.spec as { podCIDR?: string } | undefined)?.podCIDR;
    if (cidr) this.podCIDR = cidr;
    const attached = ((node.status as { volumesAttached?: Array<{ name?: string }> } | undefined)?.volumesAttached ?? []).map((a) => a.name ?? '');
    this.attached = new Set(attached);
    const next = nodeStateOf(node);
    if (next === this.state) return;
    const wasDown = this.down;
    const wasReady = this.state === 'ready';
    this.state = next;
    this.opts.log(`node ${this.nodeName}: state ${next}`);
    if (wasReady !== (next === 'ready') || wasDown) this.readyTransition = rfc3339();
    if (this.down) return;
    this.postHeartbeat();
    if (wasDown) this.resume();
  }

  /** Back from being unreachable: post every pod's current status and confirm deletions asked for meanwhile. */
  private resume(): void {
    for (const run of this.runs.values()) {
      if (run.done) continue;
      if (run.pod.metadata.deletionTimestamp && !run.stopping) this.stop(run, run.pod);
      else if (!run.stopping) this.write(run);
    }
  }

  private postHeartbeat(): void {
    if (this.down || this.stopped) return;
    const now = rfc3339();
    this.client
      .patch(RESOURCE.nodes.named(this.nodeName, 'status'), { status: { conditions: nodeConditions(now, this.readyTransition, this.state === 'ready') } }, 'application/strategic-merge-patch+json')
      .catch((err: unknown) => !this.stopped && this.opts.log(`node ${this.nodeName}: heartbeat failed: ${(err as Error).message}`));
  }

  /** Creates the Node (or refreshes its status when it exists) and starts heartbeats. */
  async register(signal?: AbortSignal): Promise<void> {
    const node = nodeObject(this.nodeName, this.index, this.opts.shape, new Date(), this.opts.placement);
    try {
      await this.client.create(RESOURCE.nodes.collection(), node, signal);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      await this.client.patch(RESOURCE.nodes.named(this.nodeName, 'status'), { status: node.status }, 'application/merge-patch+json', signal);
    }
    this.readyTransition = rfc3339();
    this.heartbeat = setInterval(() => this.postHeartbeat(), this.opts.heartbeatMs);
    this.heartbeat.unref?.();
  }

  /** A pod bound to this node was added or changed. */
  observe(pod: KubeObject): void {
    if (this.stopped) return;
    const uid = pod.metadata.uid ?? '';
    let run = this.runs.get(uid);
    if (!run) {
      const phase = phaseOf(pod);
      if (phase === 'Succeeded' || phase === 'Failed') return; // finished before this kubelet saw it
      run = this.admit(pod);
      if (!run) return;
    }
    run.pod = pod;
    if (pod.metadata.deletionTimestamp && !run.stopping) this.stop(run, pod);
  }

  /** The pod is gone from the API. */
  forget(pod: KubeObject): void {
    const run = this.runs.get(pod.metadata.uid ?? '');
    if (!run) return;
    this.clear(run);
    run.done = true;
    this.usedSlots.delete(run.ipSlot);
    this.runs.delete(run.uid);
    this.reportVolumesInUse();
  }

  close(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    for (const run of this.runs.values()) this.clear(run);
  }

  private admit(pod: KubeObject): PodRun | undefined {
    const behaviour = podBehaviour(pod, this.opts);
    const slot = this.allocateSlot();
    const status = statusAs<PodStatus>(pod);
    const run: PodRun = newPodRun({
      uid: pod.metadata.uid ?? '',
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name ?? '',
      behaviour,
      restartPolicy: (pod.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? 'Always',
      ipSlot: slot,
      pod,
      view: {
        phase: 'Pending',
        state: { waiting: { reason: 'ContainerCreating' } },
        lastState: {},
        ready: false,
        restarts: 0,
        containerIDs: containersOf(pod).map(() => newContainerID()),
        lastContainerIDs: [],
        hostIP: this.hostIP,
        podIP: slot > 0 ? podIP(this.index, slot, this.podCIDR) : undefined,
      },
    });
    this.runs.set(run.uid, run);
    if (status.phase === 'Running') {
      // Adopted after a restart of the nodes: it keeps running as reported; only its end is simulated again.
      run.view = { ...run.view, phase: 'Running', state: { running: { startedAt: status.startTime ?? rfc3339() } }, ready: true, startTime: status.startTime, podIP: status.podIP ?? run.view.podIP };
      run.adopted = true;
      this.stages.enter(run, 'Running');
      return run;
    }
    if (pod.metadata.deletionTimestamp) return run; // observe() stops it
    const vols = podVolumes(pod);
    // A pod with claims or attachable volumes starts only once they are bound and attached (stage volumes).
    this.stages.enter(run, vols.claims.length > 0 || vols.inline.length > 0 ? 'Volumes' : 'Pending');
    return run;
  }

  /** Stage volumes: claims resolved (bound) and every attachable volume attached to this node; mounts them. */
  private volumesReady(run: PodRun): boolean {
    if (this.down) return false;
    if (!run.attachable) {
      // Claims are read again at most every second while one is not bound (the kubelet's client is rate-limited).
      if (!run.resolvingVolumes && Date.now() >= (run.resolveAfter ?? 0)) {
        run.resolveAfter = Date.now() + 1000;
        run.resolvingVolumes = true;
        void this.resolveVolumes(run).finally(() => (run.resolvingVolumes = false));
      }
      return false;
    }
    if (!run.attachable.every((name) => this.attached.has(name))) return false;
    run.mounted = true;
    this.reportVolumesInUse();
    return true;
  }

  /** Reads the pod's claims and their volumes (as a kubelet does before mounting); leaves run.attachable unset while a claim is not bound. */
  private async resolveVolumes(run: PodRun): Promise<void> {
    const { claims, inline } = podVolumes(run.pod);
    const names = inline.map((v) => v.uniqueName);
    try {
      for (const claim of claims) {
        const c = await this.client.get(RESOURCE.persistentVolumeClaims.object(run.namespace, claim));
        const volumeName = (c.spec as { volumeName?: string } | undefined)?.volumeName;
        if (!volumeName || (c.status as { phase?: string } | undefined)?.phase !== 'Bound') return;
        const pv = await this.client.get(RESOURCE.persistentVolumes.named(volumeName));
        const a = attachableOf((pv.spec ?? {}) as Record<string, unknown>, volumeName);
        if (a) names.push(a.uniqueName);
      }
      run.attachable = [...new Set(names)];
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404) && !this.stopped) this.opts.log(`node ${this.nodeName}: volumes of ${run.namespace}/${run.name}: ${(err as Error).message}`);
    }
  }

  /** status.volumesInUse: the attachable volumes of the pods whose volumes are mounted and that have not ended. */
  private reportVolumesInUse(): void {
    if (this.stopped || this.down) return;
    const inUse = new Set<string>();
    for (const r of this.runs.values()) if (r.mounted && !r.done) for (const n of r.attachable ?? []) inUse.add(n);
    const list = [...inUse].sort();
    const text = list.join('\n');
    if (text === this.reportedInUse) return;
    this.reportedInUse = text;
    this.client
      .patch(RESOURCE.nodes.named(this.nodeName, 'status'), { status: { volumesInUse: list.length ? list : null } }, 'application/merge-patch+json')
      .catch((err: unknown) => {
        this.reportedInUse = '';
        if (!this.stopped) this.opts.log(`node ${this.nodeName}: volumesInUse: ${(err as Error).message}`);
      });
  }

  private allocateSlot(): number {
    const capacity = podIPCapacity(this.podCIDR);
    for (let i = 0; i < capacity; i++) {
      const slot = ((this.nextSlot - 1 + i) % capacity) + 1;
      if (!this.usedSlots.has(slot)) {
        this.usedSlots.add(slot);
        this.nextSlot = (slot % capacity) + 1;
        return slot;
      }
    }
    return 0; // the range is full: no IP (the pod still runs, like a host-network pod)
  }

  private clear(run: PodRun): void {
    this.stages.cancelAll(run);
  }

  /** Queues a status write built from the run's view at the time of writing. */
  private write(run: PodRun): void {
    run.chain = run.chain.then(async () => {
      // An unreachable kubelet writes nothing; resume() posts the status it has by then.
      if (run.done || this.stopped || this.down) return;
      try {
        const status = podStatus(run.pod, run.view);
        const updated = await this.client.patch(RESOURCE.pods.object(run.namespace, run.name, 'status'), { status }, 'application/merge-patch+json');
        if (updated.metadata.uid === run.uid) run.pod = updated;
      } catch (err) {
        if (isGone(err)) return;
        if (!this.stopped) this.opts.log(`node ${this.nodeName}: status of ${run.namespace}/${run.name}: ${(err as Error).message}`);
      }
    });
  }

  /** One event per container of the pod, about spec.containers{<name>}. */
  private containerEvents(run: PodRun, type: EventType, reason: string, message: (c: { name?: string; image?: string }) => string): void {
    const events = this.opts.events;
    if (!events) return;
    for (const c of containersOf(run.pod)) events.event(refOf(run.pod, 'v1', 'Pod', `spec.containers{${c.name ?? ''}}`), type, reason, message(c));
  }

  /** Stages start and restart: the containers run (new ones after a restart). */
  private start(run: PodRun): void {
    const now = rfc3339();
    run.adopted = false;
    const first = run.view.phase === 'Pending';
    if (first) {
      this.containerEvents(run, 'Normal', 'Pulling', (c) => `pulling image "${c.image ?? ''}"`);
      this.containerEvents(run, 'Normal', 'Pulled', (c) => `Successfully pulled image "${c.image ?? ''}"`);
    } else this.containerEvents(run, 'Normal', 'Pulled', (c) => `Container image "${c.image ?? ''}" already present on machine`);
    this.containerEvents(run, 'Normal', 'Created', () => 'Created container');
    this.containerEvents(run, 'Normal', 'Started', () => 'Started container');
    run.containerStartedAt = now;
    run.view = {
      ...run.view,
      // A restart runs new containers (the dead ones stay in lastState).
      containerIDs: run.view.restarts > 0 ? run.view.containerIDs.map(() => newContainerID()) : run.view.containerIDs,
      phase: 'Running',
      state: { running: { startedAt: now } },
      messages: undefined,
      ready: run.behaviour.readyAfterMs === 0,
      startTime: run.view.startTime ?? now,
    };
    this.write(run);
  }

  private terminated(run: PodRun, exitCode: number, reason?: string): ContainerState {
    return {
      terminated: {
        exitCode,
        reason: reason ?? (exitCode === 0 ? 'Completed' : 'Error'),
        startedAt: run.containerStartedAt ?? rfc3339(),
        finishedAt: rfc3339(),
      },
    };
  }

  /** The termination message of each container as it ends in `state` (read before the status is written). */
  private messagesOf(run: PodRun, state: ContainerState): string[] | undefined {
    if (!('terminated' in state)) return undefined;
    const t = state.terminated;
    const times = { startedAt: Date.parse(t.startedAt), finishedAt: Date.parse(t.finishedAt) };
    const messages = terminationMessages(run.pod, t.exitCode, times, this.opts.containers);
    return messages.some((m) => m !== '') ? messages : undefined;
  }

  private finish(run: PodRun, phase: 'Succeeded' | 'Failed', state: ContainerState, messages: string[] | undefined, reason?: string, message?: string): void {
    run.view = { ...run.view, phase, state, messages, ready: false, reason, message };
    this.write(run);
    run.chain = run.chain.then(() => {
      run.done = true;
      this.usedSlots.delete(run.ipSlot);
      this.reportVolumesInUse();
    });
  }

  /** Stage complete: the run ended with the pod's exit code, and so did the pod. */
  private complete(run: PodRun): void {
    const code = run.behaviour.exitCode;
    const state = this.terminated(run, code);
    this.finish(run, code === 0 ? 'Succeeded' : 'Failed', state, this.messagesOf(run, state));
  }

  /** Stage crash: restarted in place; the dead container becomes lastState, a back-off passes (stage restart). */
  private crash(run: PodRun): void {
    const state = this.terminated(run, run.behaviour.exitCode);
    const backoff = Math.min(this.opts.maxRestartBackoffMs, this.opts.restartBackoffMs * 2 ** run.view.restarts);
    run.backoffMs = backoff;
    run.view = {
      ...run.view,
      state: { waiting: { reason: 'CrashLoopBackOff', message: `Back-off ${Math.round(backoff / 1000)}s restarting failed container` } },
      lastState: state,
      lastMessages: this.messagesOf(run, state),
      ready: false,
      restarts: run.view.restarts + 1,
      lastContainerIDs: run.view.containerIDs,
    };
    this.write(run);
    this.containerEvents(run, 'Warning', 'BackOff', () => 'Back-off restarting failed container');
  }

  /** Graceful deletion: stop the containers (stage confirm-deletion then confirms with a grace-0 delete). */
  private stop(run: PodRun, pod: KubeObject): void {
    run.stopping = true;
    run.pod = pod;
    this.clear(run);
    if (run.view.phase === 'Running') this.containerEvents(run, 'Normal', 'Killing', (c) => `Killing container with id sim://${c.name ?? ''}:Need to kill Pod`);
    this.stages.enter(run, 'Stopping');
  }

  private confirmDeletion(run: PodRun): void {
    run.chain = run.chain.then(async () => {
      if (this.down) {
        // Unreachable: the deletion is confirmed when the node comes back (resume()).
        run.stopping = false;
        return;
      }
      try {
        await this.client.delete(RESOURCE.pods.object(run.namespace, run.name), { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: run.uid } });
      } catch (err) {
        if (!isGone(err) && !this.stopped) this.opts.log(`node ${this.nodeName}: confirming deletion of ${run.namespace}/${run.name}: ${(err as Error).message}`);
      }
    });
  }
}
