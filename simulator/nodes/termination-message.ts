// The termination message of an ended container, by the rules of a 1.9 kubelet (spec 8.1):
// - what the container wrote to its terminationMessagePath (default /dev/termination-log): the annotation
//   `simulator.cluster.local/termination-message` (`.<container>` for one container), which the simulated process
//   writes as it ends, else the file as the container's filesystem holds it (written by exec, or configured with
//   the `files` annotation or the simulator's container config), through ContainersAccess.readFile. The kubelet
//   reads at most the last 4096 bytes of it;
// - terminationMessagePolicy FallbackToLogsOnError, a non-zero exit code and an empty message: the last 80 lines
//   of the container's log (../api/container-log.ts), at most their last 2048 bytes;
// - in the pod's status, each terminated state's message is cut to its share of 12 KiB: 12288 divided by the
//   number of containers and init containers (the kubelet's status manager), keeping the start.

import type { KubeObject } from '../api/meta.ts';
import { annotationFor, containerLogLines, LOG_ANNOTATION } from '../api/container-log.ts';
import type { ContainerRuntime } from '../api/container-runtime.ts';

export const TERMINATION_MESSAGE_ANNOTATION = 'simulator.cluster.local/termination-message';
/** Most bytes read from a container's termination-message file (the last ones). */
export const MAX_CONTAINER_MESSAGE = 4096;
/** Most bytes of a message taken from the logs (the last ones), and most lines. */
export const MAX_LOG_MESSAGE = 2048;
export const MAX_LOG_MESSAGE_LINES = 80;
/** Most bytes of all termination messages of one pod's status together. */
export const MAX_POD_MESSAGES = 12 * 1024;

/** What the kubelet reads of a container besides its pod: its files and its configured log file. */
export type ContainersAccess = Pick<ContainerRuntime, 'readFile' | 'logFile'>;

interface ContainerSpec {
  name?: string;
  image?: string;
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
}

/** The last `max` bytes of a text (a character cut in two at the start is dropped). */
function lastBytes(buf: Buffer, max: number): string {
  if (buf.length <= max) return buf.toString('utf8');
  let start = buf.length - max;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString('utf8');
}

/** The first `max` bytes of a text (a character cut in two at the end is dropped). */
function firstBytes(text: string, max: number): string {
  const buf = Buffer.from(text);
  if (buf.length <= max) return text;
  let end = max;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** The message one container leaves as it ends with `exitCode` (empty: none). */
export function containerTerminationMessage(
  pod: KubeObject,
  c: ContainerSpec,
  exitCode: number,
  run: { startedAt: number; finishedAt: number },
  access?: ContainersAccess,
): string {
  const name = c.name ?? '';
  const path = c.terminationMessagePath ?? '/dev/termination-log';
  let message = '';
  if (path !== '') {
    const written = annotationFor(pod, TERMINATION_MESSAGE_ANNOTATION, name);
    const data = written !== undefined ? Buffer.from(written) : access?.readFile?.(pod, name, path);
    if (data) message = lastBytes(data, MAX_CONTAINER_MESSAGE);
  }
  if (message === '' && exitCode !== 0 && c.terminationMessagePolicy === 'FallbackToLogsOnError') {
    const file = annotationFor(pod, LOG_ANNOTATION, name) === undefined ? access?.logFile?.(pod, name) : undefined;
    const lines = containerLogLines(pod, { name, image: c.image }, run.startedAt, run.finishedAt, file).slice(-MAX_LOG_MESSAGE_LINES);
    message = lastBytes(Buffer.from(lines.map((l) => `${l.text}\n`).join('')), MAX_LOG_MESSAGE);
  }
  return message;
}

/** The messages of all containers of the pod (spec order) that ended together with `exitCode`. */
export function terminationMessages(pod: KubeObject, exitCode: number, run: { startedAt: number; finishedAt: number }, access?: ContainersAccess): string[] {
  const containers = ((pod.spec as { containers?: ContainerSpec[] } | undefined)?.containers ?? []);
  return containers.map((c) => containerTerminationMessage(pod, c, exitCode, run, access));
}

/** A terminated state's message cut to the pod's share per container (the status manager's 12 KiB over all). */
export function podMessageShare(pod: KubeObject, message: string): string {
  const spec = (pod.spec ?? {}) as { containers?: unknown[]; initContainers?: unknown[] };
  const n = (spec.containers?.length ?? 0) + (spec.initContainers?.length ?? 0);
  return firstBytes(message, n > 0 ? Math.floor(MAX_POD_MESSAGES / n) : MAX_POD_MESSAGES);
}
