// The annotations that steer a simulated pod's life (README.md in this folder lists them). They are read from
// the pod's own metadata; workload controllers copy a template's annotations to its pods, so setting them on a
// Deployment's or Job's pod template steers every pod it makes. Unparseable values are ignored (the node's
// defaults apply), as a real node ignores annotations it does not understand.

import type { KubeObject } from '../api/meta.ts';

export const ANNOTATION_PREFIX = 'simulator.cluster.local/';
export const ANN_START_SECONDS = `${ANNOTATION_PREFIX}start-seconds`;
export const ANN_READY_AFTER_SECONDS = `${ANNOTATION_PREFIX}ready-after-seconds`;
export const ANN_RUN_SECONDS = `${ANNOTATION_PREFIX}run-seconds`;
export const ANN_EXIT_CODE = `${ANNOTATION_PREFIX}exit-code`;
export const ANN_FAIL_AFTER_SECONDS = `${ANNOTATION_PREFIX}fail-after-seconds`;
export const ANN_NEVER_READY = `${ANNOTATION_PREFIX}never-ready`;
/** On a Node: how its simulated kubelet behaves (README "Failing nodes"). */
export const ANN_NODE_STATE = `${ANNOTATION_PREFIX}node-state`;

/**
 * ready: heartbeats, Ready=True (also: annotation absent or unknown); not-ready: heartbeats with Ready=False
 * (KubeletNotReady), pods keep running; stopped: the kubelet is unreachable (no heartbeat, no pod status, no
 * deletion confirmed) until the annotation goes back to ready; terminated: stopped, and the simulated cloud
 * reports the node's instance gone.
 */
export type NodeState = 'ready' | 'not-ready' | 'stopped' | 'terminated';

export function nodeStateOf(node: KubeObject | undefined): NodeState {
  const v = node?.metadata.annotations?.[ANN_NODE_STATE];
  return v === 'not-ready' || v === 'stopped' || v === 'terminated' ? v : 'ready';
}

/** How one pod behaves on a simulated node; durations in milliseconds. */
export interface PodBehaviour {
  /** Pending -> Running. */
  startMs: number;
  /** Running -> Ready (after start); Infinity = never ready. */
  readyAfterMs: number;
  /** Containers exit this long after each start; undefined = they run until the pod is deleted. */
  runMs: number | undefined;
  /** Exit code of each run. */
  exitCode: number;
}

export interface BehaviourDefaults {
  startMs: number;
  /** Run time of pods whose restartPolicy is Never or OnFailure (batch pods) when no annotation says otherwise. */
  batchRunMs: number;
}

function seconds(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : undefined;
}

function exitCode(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*-?\d+\s*$/.test(v)) return undefined;
  return Number(v);
}

export function podBehaviour(pod: KubeObject, defaults: BehaviourDefaults): PodBehaviour {
  const a = pod.metadata.annotations ?? {};
  const restartPolicy = (pod.spec as { restartPolicy?: string } | undefined)?.restartPolicy ?? 'Always';
  const batch = restartPolicy === 'Never' || restartPolicy === 'OnFailure';
  const failAfter = seconds(a[ANN_FAIL_AFTER_SECONDS]);
  let runMs = seconds(a[ANN_RUN_SECONDS]) ?? (batch ? defaults.batchRunMs : undefined);
  let code = exitCode(a[ANN_EXIT_CODE]) ?? 0;
  // fail-after-seconds: the run ends that early, and with a failure even when no exit code is given.
  if (failAfter !== undefined) {
    runMs = runMs === undefined ? failAfter : Math.min(runMs, failAfter);
    if (code === 0) code = 1;
  }
  const neverReady = a[ANN_NEVER_READY] === 'true';
  return {
    startMs: seconds(a[ANN_START_SECONDS]) ?? defaults.startMs,
    readyAfterMs: neverReady ? Infinity : (seconds(a[ANN_READY_AFTER_SECONDS]) ?? 0),
    runMs,
    exitCode: code,
  };
}
