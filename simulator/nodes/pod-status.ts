// Pod status as a 1.9 kubelet reports it, built from what the simulated containers are doing: phase,
// conditions Initialized / Ready / PodScheduled (reasons ContainersNotReady and PodCompleted as the real
// GeneratePodReadyCondition gives them), containerStatuses with state, lastState, ready, restartCount,
// image, imageID and containerID, termination messages (termination-message.ts), hostIP, podIP, startTime.

import { createHash } from 'node:crypto';
import type { KubeObject } from '../api/meta.ts';
import { rfc3339 } from './node-object.ts';
import { podMessageShare } from './termination-message.ts';

/** Spec 8.1: restartCount is capped at 5 by garbage collection of dead containers. */
export const RESTART_COUNT_CAP = 5;

export type ContainerState =
  | { running: { startedAt: string } }
  | { waiting: { reason: string; message?: string } }
  | { terminated: { exitCode: number; reason: string; startedAt: string; finishedAt: string; message?: string } };

export interface ContainersView {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  state: ContainerState;
  lastState: ContainerState | Record<string, never>;
  ready: boolean;
  restarts: number;
  /** Per container: the current container's id, and the previous one's (for lastState). */
  containerIDs: string[];
  lastContainerIDs: string[];
  /** Per container: the termination message of a terminated state, and of lastState (termination-message.ts). */
  messages?: string[];
  lastMessages?: string[];
  hostIP: string;
  podIP?: string;
  startTime?: string;
  reason?: string;
  message?: string;
}

interface ContainerSpec {
  name?: string;
  image?: string;
}

export const containersOf = (pod: KubeObject): ContainerSpec[] => ((pod.spec as { containers?: ContainerSpec[] } | undefined)?.containers ?? []);

/** A stable, image-derived digest, so that equal images report equal imageIDs. */
export function imageID(image: string): string {
  const repo = image.replace(/[:@].*$/, '');
  return `docker-pullable://${repo}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}

/** A new container id, `sim://<64 hex>` (spec 2.2: `<runtime>://<container_id>`). */
export const newContainerID = (): string => `sim://${createHash('sha256').update(crypto.randomUUID()).digest('hex')}`;

function condition(type: string, status: boolean, transition: string, reason?: string, message?: string): Record<string, unknown> {
  return {
    type,
    status: status ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: transition,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** Keeps lastTransitionTime of a condition whose status did not change. */
function transitionOf(pod: KubeObject, type: string, status: boolean, now: string): string {
  const old = ((pod.status as { conditions?: Array<{ type?: string; status?: string; lastTransitionTime?: string }> } | undefined)?.conditions ?? []).find(
    (c) => c.type === type,
  );
  return old && old.status === (status ? 'True' : 'False') && old.lastTransitionTime ? old.lastTransitionTime : now;
}

export function podStatus(pod: KubeObject, v: ContainersView, now: Date = new Date()): Record<string, unknown> {
  const ts = rfc3339(now);
  const containers = containersOf(pod);
  const terminal = v.phase === 'Succeeded' || v.phase === 'Failed';
  const notReady = containers.map((c) => c.name ?? '');
  const readyCond = terminal
    ? condition('Ready', false, transitionOf(pod, 'Ready', false, ts), 'PodCompleted')
    : v.ready
      ? condition('Ready', true, transitionOf(pod, 'Ready', true, ts))
      : condition('Ready', false, transitionOf(pod, 'Ready', false, ts), 'ContainersNotReady', `containers with unready status: [${notReady.join(' ')}]`);
  const status: Record<string, unknown> = {
    phase: v.phase,
    conditions: [
      terminal
        ? condition('Initialized', true, transitionOf(pod, 'Initialized', true, ts), 'PodCompleted')
        : condition('Initialized', true, transitionOf(pod, 'Initialized', true, ts)),
      readyCond,
      condition('PodScheduled', true, transitionOf(pod, 'PodScheduled', true, ts)),
    ],
    hostIP: v.hostIP,
    ...(v.podIP ? { podIP: v.podIP } : {}),
    ...(v.startTime ? { startTime: v.startTime } : {}),
    ...(v.reason ? { reason: v.reason } : {}),
    ...(v.message ? { message: v.message } : {}),
    containerStatuses: containers.map((c, i) => {
      const image = c.image ?? '';
      // The fields in the order 1.9's Go encoder writes ContainerStateTerminated.
      const withID = (st: ContainerState | Record<string, never>, id: string | undefined, message: string | undefined) => {
        if (!('terminated' in st)) return st;
        const { exitCode, reason, startedAt, finishedAt } = st.terminated;
        const text = message ?? st.terminated.message;
        const shared = text ? { message: podMessageShare(pod, text) } : {};
        return { terminated: { exitCode, reason, ...shared, startedAt, finishedAt, ...(id ? { containerID: id } : {}) } };
      };
      const state = withID(v.state, v.containerIDs[i], v.messages?.[i]);
      const hasStarted = !('waiting' in v.state) || v.restarts > 0;
      return {
        name: c.name ?? '',
        state,
        lastState: withID(v.lastState, v.lastContainerIDs[i], v.lastMessages?.[i]),
        ready: v.ready && !terminal,
        restartCount: Math.min(v.restarts, RESTART_COUNT_CAP),
        image,
        imageID: hasStarted ? imageID(image) : '',
        ...(v.containerIDs[i] && hasStarted ? { containerID: v.containerIDs[i] } : {}),
      };
    }),
  };
  return status;
}
