// The simulated resource usage of a running container (what the metrics API reports and the HPA reads). Set
// per pod, usually on a workload's pod template so that every pod it makes carries it:
//   simulator.cluster.local/cpu-usage:    "250m" (a quantity per container) or "80%" (of each container's CPU request)
//   simulator.cluster.local/memory-usage: "64Mi" or "50%" (of the memory request)
// or for one container: simulator.cluster.local/cpu-usage.<container> (and memory-usage.<container>), which wins.
// A value may change over time, measured from the container's start (state.running.startedAt):
//   "0s:10%,60s:90%,180s:5%"        a schedule: each value holds from its time until the next one's
//   "ramp:0s:10%,60s:90%,180s:5%"   a ramp: straight lines between the points
// (times in Go duration syntax: 90s, 2m, 1m30s; the last value holds after the last point). The cluster-wide
// defaults (`usage: {cpu, memory}` in the --container-config file) take any of these forms too.
// Defaults when absent or unparseable: 10m CPU and 16Mi memory per container (an idle container); a percentage
// on a container without that request counts as the default. Only pods the kubelets report Running have usage.

import type { KubeObject } from './meta.ts';
import { formatQuantity, milliOf, parseQuantity } from './quantity-sum.ts';

export const ANN_CPU_USAGE = 'simulator.cluster.local/cpu-usage';
export const ANN_MEMORY_USAGE = 'simulator.cluster.local/memory-usage';
export const DEFAULT_CPU_USAGE = '10m';
export const DEFAULT_MEMORY_USAGE = '16Mi';

/** Cluster-wide usage when a pod says nothing (the simulator's config file). */
export interface UsageDefaults {
  cpu?: string;
  memory?: string;
}

interface Container {
  name?: string;
  resources?: { requests?: Record<string, unknown> };
}

interface Point {
  atMs: number;
  value: string;
}

/** Go-style durations of a schedule: 1h2m3.5s, 90s, 500ms. */
function durationMs(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(h|m|s|ms))+$/.test(text)) return undefined;
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) ms += Number(m[1]) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[m[2] as 'h' | 'm' | 's' | 'ms'];
  return ms;
}

/** A schedule's points in time order, or undefined when the text is not one. */
export function parseSchedule(text: string): { ramp: boolean; points: Point[] } | undefined {
  const ramp = text.startsWith('ramp:');
  const body = ramp ? text.slice(5) : text;
  if (!body.includes(':')) return undefined;
  const points: Point[] = [];
  for (const item of body.split(',')) {
    const i = item.indexOf(':');
    const atMs = durationMs(item.slice(0, i).trim());
    const value = item.slice(i + 1).trim();
    if (i < 0 || atMs === undefined || !value) return undefined;
    points.push({ atMs, value });
  }
  points.sort((a, b) => a.atMs - b.atMs);
  return { ramp, points };
}

/** One value ("250m", "80%") in millis, or undefined when it does not apply (a share without a request). */
function valueMilli(value: string, request: unknown): number | undefined {
  const pct = /^\s*(\d+(?:\.\d+)?)%\s*$/.exec(value);
  if (pct) return request !== undefined ? (milliOf(request) * Number(pct[1])) / 100 : undefined;
  return parseQuantity(value) ? Math.max(0, milliOf(value)) : undefined;
}

/** The usage a setting gives at `elapsedMs` after the container started; undefined when it does not parse. */
export function usageAt(setting: string, request: unknown, elapsedMs: number): number | undefined {
  const schedule = parseSchedule(setting);
  if (!schedule) {
    const v = valueMilli(setting, request);
    return v === undefined ? undefined : Math.round(v);
  }
  const { points, ramp } = schedule;
  let i = points.length - 1;
  while (i > 0 && points[i].atMs > elapsedMs) i--;
  const here = valueMilli(points[i].value, request);
  if (here === undefined) return undefined;
  const next = points[i + 1];
  if (!ramp || !next || elapsedMs < points[i].atMs) return Math.round(here);
  const there = valueMilli(next.value, request);
  if (there === undefined) return Math.round(here);
  const f = (elapsedMs - points[i].atMs) / (next.atMs - points[i].atMs);
  return Math.round(here + (there - here) * f);
}

function startedAt(pod: KubeObject, container: string): number | undefined {
  type Status = { name: string; state?: { running?: { startedAt?: string } } };
  const statuses = ((pod.status ?? {}) as { containerStatuses?: Status[] }).containerStatuses ?? [];
  const t = Date.parse(statuses.find((s) => s.name === container)?.state?.running?.startedAt ?? '');
  return Number.isFinite(t) ? t : undefined;
}

/** Per container: name and usage {cpu, memory} in the real metrics' units (CPU in m, memory in Ki). */
export interface ContainerUsage {
  name: string;
  cpuMilli: number;
  memoryMilli: number;
}

export function containerUsage(pod: KubeObject, nowMs = Date.now(), defaults: UsageDefaults = {}): ContainerUsage[] {
  const a = pod.metadata.annotations ?? {};
  const containers = ((pod.spec as { containers?: Container[] } | undefined)?.containers ?? []);
  return containers.map((c) => {
    const name = c.name ?? '';
    const created = Date.parse(pod.metadata.creationTimestamp ?? '');
    const elapsed = Math.max(0, nowMs - (startedAt(pod, name) ?? (Number.isFinite(created) ? created : nowMs)));
    const pick = (ann: string, request: unknown, clusterDefault: string | undefined, fallback: string): number => {
      for (const setting of [a[`${ann}.${name}`], a[ann], clusterDefault]) {
        if (setting === undefined) continue;
        const v = usageAt(setting, request, elapsed);
        if (v !== undefined) return v;
      }
      return milliOf(fallback);
    };
    return {
      name,
      cpuMilli: pick(ANN_CPU_USAGE, c.resources?.requests?.cpu, defaults.cpu, DEFAULT_CPU_USAGE),
      memoryMilli: pick(ANN_MEMORY_USAGE, c.resources?.requests?.memory, defaults.memory, DEFAULT_MEMORY_USAGE),
    };
  });
}

/** CPU as metrics-server prints it ("250m"; at least nanocore precision is not simulated). */
export const formatCpu = (milli: number) => `${Math.round(milli)}m`;
/** Memory in Ki, as metrics-server prints it. */
export const formatMemory = (milli: number) => `${Math.round(milli / 1000 / 1024)}Ki`;
export { formatQuantity };

export const isRunning = (pod: KubeObject) => (pod.status as { phase?: string } | undefined)?.phase === 'Running' && !!(pod.spec as { nodeName?: string } | undefined)?.nodeName;
