// The simulated kubelet's pod life as a table of stages (the engine is stages.ts, after kwok's Stages). Each
// row: the step it is armed in, a selector on the pod (restart policy, the pod's annotations through its
// PodBehaviour, spec.activeDeadlineSeconds), a delay, and the next status and step. The annotations of
// annotations.ts are the table's inputs: start-seconds is the start delay, ready-after-seconds the ready
// delay, run-seconds / fail-after-seconds / exit-code decide when a run ends and how.
//
//   step      stage              selector                                  delay                 next
//   Volumes   volumes            -                                         100 ms (a poll)       Pending once every claim is bound and every
//                                                                                                 attachable volume is in the Node's
//                                                                                                 status.volumesAttached; else Volumes again
//   Pending   start              -                                         startMs               Running (containers running)
//   BackOff   restart            -                                         the back-off          Running (new containers)
//   Running   ready              ready-after-seconds > 0, not adopted      readyAfterMs          Running, Ready=True
//   Running   complete           a run time; Never, or OnFailure + exit 0  runMs                 Finished: Succeeded / Failed
//   Running   crash              a run time; Always, or OnFailure + fail   runMs                 BackOff: CrashLoopBackOff, restartCount+1
//   Running   deadline (sticky)  activeDeadlineSeconds, first start        deadline - active     Finished: Failed DeadlineExceeded
//   Stopping  confirm-deletion   -                                         min(stopMs, grace)    (DELETE grace 0, uid precondition)

import type { KubeObject } from '../api/meta.ts';
import type { PodBehaviour } from './annotations.ts';
import type { ContainersView } from './pod-status.ts';
import { newStageTimers, type Stage, type StageSubject } from './stages.ts';

export type PodStep = 'Volumes' | 'Pending' | 'Running' | 'BackOff' | 'Finished' | 'Stopping';

/** How often a pod waiting for its volumes looks again. */
export const VOLUME_POLL_MS = 100;

/** One pod on a simulated node: what the stages read and change. */
export interface PodRun extends StageSubject {
  uid: string;
  namespace: string;
  name: string;
  behaviour: PodBehaviour;
  restartPolicy: string;
  ipSlot: number;
  view: ContainersView;
  /** Status writes of this pod, one after another. */
  chain: Promise<void>;
  containerStartedAt?: string;
  /** Found Running when the kubelet started (adopted): only its end is simulated again. */
  adopted: boolean;
  /** The back-off before the next restart. */
  backoffMs: number;
  stopping: boolean;
  done: boolean;
  /** The last pod object seen (for condition transition times and the container list). */
  pod: KubeObject;
  /** Unique names of the attachable volumes the pod uses (undefined until its claims are resolved). */
  attachable?: string[];
  /** Its volumes are mounted (they count in the Node's status.volumesInUse until the pod ends). */
  mounted?: boolean;
  resolvingVolumes?: boolean;
  resolveAfter?: number;
}

export function newPodRun(fields: Omit<PodRun, 'step' | 'stageTimers' | 'chain' | 'adopted' | 'backoffMs' | 'stopping' | 'done'>): PodRun {
  return { ...fields, step: 'Pending', stageTimers: newStageTimers(), chain: Promise.resolve(), adopted: false, backoffMs: 0, stopping: false, done: false };
}

/** What the stages do through the kubelet (status writes, events, the API). */
export interface PodActions {
  /** Whether the pod's volumes are ready (claims bound, attachable ones attached to the node); mounts them if so. */
  volumesReady(run: PodRun): boolean;
  /** The containers start (first time or after a back-off): Running, events, a status write. */
  start(run: PodRun): void;
  /** The containers became Ready. */
  ready(run: PodRun): void;
  /** The run ended with the pod's exit code and the pod is finished. */
  complete(run: PodRun): void;
  /** The run ended and the containers restart in place after a back-off (sets run.backoffMs). */
  crash(run: PodRun): void;
  /** spec.activeDeadlineSeconds passed. */
  deadlineExceeded(run: PodRun): void;
  /** Graceful deletion: the containers stopped; confirm with a grace-0 delete. */
  confirmDeletion(run: PodRun): void;
  /** Graceful stop time (the node's stopMs). */
  stopMs: number;
}

/** Never, or OnFailure with exit code 0: the pod ends with its run; otherwise it restarts in place. */
const runEndsPod = (r: PodRun) => r.restartPolicy === 'Never' || (r.restartPolicy === 'OnFailure' && r.behaviour.exitCode === 0);
const hasRun = (r: PodRun) => r.behaviour.runMs !== undefined;
// Number(): an int64 beyond 2^53 arrives as a BigInt (util/int64-json.ts); a delay needs no more precision.
const activeDeadline = (r: PodRun) => optionalNumber((r.pod.spec as { activeDeadlineSeconds?: number } | undefined)?.activeDeadlineSeconds);
const optionalNumber = (v: number | bigint | undefined | null): number | undefined => (v === undefined || v === null ? undefined : Number(v));

export function podStages(a: PodActions): Stage<PodRun>[] {
  return [
    { name: 'volumes', from: ['Volumes'], delayMs: () => VOLUME_POLL_MS, next: (r) => (a.volumesReady(r) ? 'Pending' : 'Volumes') },
    { name: 'start', from: ['Pending'], delayMs: (r) => r.behaviour.startMs, next: (r) => (a.start(r), 'Running') },
    { name: 'restart', from: ['BackOff'], delayMs: (r) => r.backoffMs, next: (r) => (a.start(r), 'Running') },
    {
      name: 'ready', from: ['Running'],
      when: (r) => !r.adopted && r.behaviour.readyAfterMs > 0,
      delayMs: (r) => r.behaviour.readyAfterMs,
      next: (r) => (a.ready(r), undefined),
    },
    { name: 'complete', from: ['Running'], when: (r) => hasRun(r) && runEndsPod(r), delayMs: (r) => r.behaviour.runMs, next: (r) => (a.complete(r), 'Finished') },
    { name: 'crash', from: ['Running'], when: (r) => hasRun(r) && !runEndsPod(r), delayMs: (r) => r.behaviour.runMs, next: (r) => (a.crash(r), 'BackOff') },
    {
      name: 'deadline', from: ['Running'], sticky: true,
      when: (r) => !r.adopted && r.view.restarts === 0 && typeof activeDeadline(r) === 'number' && activeDeadline(r)! > 0,
      delayMs: (r) => {
        const since = Date.parse(r.view.startTime ?? '') || Date.now();
        return Math.max(0, since + activeDeadline(r)! * 1000 - Date.now());
      },
      next: (r) => (a.deadlineExceeded(r), 'Finished'),
    },
    {
      name: 'confirm-deletion', from: ['Stopping'],
      delayMs: (r) => Math.min(a.stopMs, Number(r.pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000),
      next: (r) => (a.confirmDeletion(r), undefined),
    },
  ];
}
