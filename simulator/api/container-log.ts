// What a simulated container writes to its log, from data on its pod: the lines of the annotation
// `simulator.cluster.local/log` ("\n" separates lines; `log.<container>` for one container; a pod template's
// annotation reaches its pods) or of a configured file, written at each start, or by default one line naming
// the container and its image; then the `log-repeat` line (`PERIOD LINE`, `{n}` counting from 1) every period.
// One description read by three places: the API server's pods/log (server/subresources/pod-log.ts), attach
// (nodes/containers/runtime.ts: an attached client sees the lines as they come) and the kubelet's termination
// message from the logs (nodes/termination-message.ts, terminationMessagePolicy FallbackToLogsOnError).

import type { KubeObject } from './meta.ts';

export const LOG_ANNOTATION = 'simulator.cluster.local/log';
export const LOG_REPEAT_ANNOTATION = 'simulator.cluster.local/log-repeat';
/** Most repeated lines one instance is taken to have written (older ones are rotated away, as by the kubelet). */
const MAX_REPEATED_LINES = 100_000;

export interface LogLine {
  /** When it was written (ms since the epoch). */
  at: number;
  text: string;
}

/** A pod annotation for one container (`<key>.<container>`) or, failing that, for all of them. */
export function annotationFor(pod: KubeObject, key: string, container: string): string | undefined {
  const a = pod.metadata.annotations ?? {};
  return a[`${key}.${container}`] ?? a[key];
}

/** `PERIOD LINE` (a number with ms, s, m or h, then the text); at least 10 ms. */
export function parseRepeat(text: string | undefined): { periodMs: number; line: string } | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)(ms|s|m|h)\s+(.*)$/s.exec(text ?? '');
  if (!m) return undefined;
  const periodMs = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return periodMs >= 10 ? { periodMs, line: m[3] } : undefined;
}

/** The repeated line of a container, if its pod has one. */
export const repeatedLine = (pod: KubeObject, container: string) => parseRepeat(annotationFor(pod, LOG_REPEAT_ANNOTATION, container));

/** The text of the `n`th repeated line. */
export const repeatedText = (line: string, n: number): string => line.replaceAll('{n}', String(n));

/**
 * What one instance of the container (started at `startedAt`) wrote until `until`: the literal lines (the `log`
 * annotation, else `file`, the configured file's text) or the default line, all at its start, then the repeated
 * line every period.
 */
export function containerLogLines(
  pod: KubeObject,
  container: { name: string; image?: string },
  startedAt: number,
  until: number,
  file?: string,
): LogLine[] {
  const annotation = annotationFor(pod, LOG_ANNOTATION, container.name);
  const literal = annotation ?? file;
  const repeat = repeatedLine(pod, container.name);
  const texts =
    literal !== undefined
      ? literal.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1)
      : repeat
        ? []
        : [`container ${container.name} started (image ${container.image ?? ''})`];
  const out = texts.map((text) => ({ at: startedAt, text }));
  if (repeat) {
    const count = Math.max(0, Math.floor((until - startedAt) / repeat.periodMs));
    for (let n = Math.max(1, count - MAX_REPEATED_LINES + 1); n <= count; n++) {
      out.push({ at: startedAt + n * repeat.periodMs, text: repeatedText(repeat.line, n) });
    }
  }
  return out;
}
