// The simulated resource usage of a running container (what the metrics API reports and the HPA reads). Set
// per pod, usually on a workload's pod template so that every pod it makes carries it:
//   simulator.cluster.local/cpu-usage:    "250m" (a quantity per container) or "80%" (of each container's CPU request)
//   simulator.cluster.local/memory-usage: "64Mi" or "50%" (of the memory request)
// Defaults when absent or unparseable: 10m CPU and 16Mi memory per container (an idle container); a percentage
// on a container without that request counts as the default. Only pods the kubelets report Running have usage.

import type { KubeObject } from './meta.ts';
import { formatQuantity, milliOf, parseQuantity } from './quantity-sum.ts';

export const ANN_CPU_USAGE = 'simulator.cluster.local/cpu-usage';
export const ANN_MEMORY_USAGE = 'simulator.cluster.local/memory-usage';
export const DEFAULT_CPU_USAGE = '10m';
export const DEFAULT_MEMORY_USAGE = '16Mi';

interface Container {
  name?: string;
  resources?: { requests?: Record<string, unknown> };
}

function usageMilli(annotation: string | undefined, request: unknown, fallback: string): number {
  if (annotation !== undefined) {
    const pct = /^\s*(\d+(?:\.\d+)?)%\s*$/.exec(annotation);
    if (pct) {
      if (request !== undefined) return Math.round((milliOf(request) * Number(pct[1])) / 100);
    } else if (parseQuantity(annotation)) return Math.max(0, milliOf(annotation));
  }
  return milliOf(fallback);
}

/** Per container: name and usage {cpu, memory} in the real metrics' units (CPU in m, memory in Ki). */
export function containerUsage(pod: KubeObject): Array<{ name: string; cpuMilli: number; memoryMilli: number }> {
  const a = pod.metadata.annotations ?? {};
  const containers = ((pod.spec as { containers?: Container[] } | undefined)?.containers ?? []);
  return containers.map((c) => ({
    name: c.name ?? '',
    cpuMilli: usageMilli(a[ANN_CPU_USAGE], c.resources?.requests?.cpu, DEFAULT_CPU_USAGE),
    memoryMilli: usageMilli(a[ANN_MEMORY_USAGE], c.resources?.requests?.memory, DEFAULT_MEMORY_USAGE),
  }));
}

/** CPU as metrics-server prints it ("250m"; at least nanocore precision is not simulated). */
export const formatCpu = (milli: number) => `${Math.round(milli)}m`;
/** Memory in Ki, as metrics-server prints it. */
export const formatMemory = (milli: number) => `${Math.round(milli / 1000 / 1024)}Ki`;
export { formatQuantity };

export const isRunning = (pod: KubeObject) => (pod.status as { phase?: string } | undefined)?.phase === 'Running' && !!(pod.spec as { nodeName?: string } | undefined)?.nodeName;
