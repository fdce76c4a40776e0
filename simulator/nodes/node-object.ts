// The Node object a simulated kubelet registers and keeps fresh: capacity and allocatable, nodeInfo,
// addresses, the 1.9 condition set (OutOfDisk, MemoryPressure, DiskPressure all False; Ready True with reason
// KubeletReady) and heartbeats. Pod IPs come from the node's podCIDR (10.<a>.<b>.0/24 per node index), so
// every pod IP in the cluster is unique and tells which node it runs on.

import type { KubeObject } from '../api/meta.ts';

export interface NodeShape {
  cpu: string;
  memory: string;
  pods: number;
}

export const DEFAULT_NODE_SHAPE: NodeShape = { cpu: '4', memory: '16Gi', pods: 110 };

/** Whole-second RFC 3339 UTC, as the API writes times. */
export const rfc3339 = (d: Date = new Date()): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Second and third octets of a node index (0..65535). */
function octets(index: number): [number, number] {
  return [244 + Math.floor(index / 256), index % 256];
}

export const nodeInternalIP = (index: number): string => `172.16.${Math.floor(index / 250)}.${(index % 250) + 2}`;

export const podCIDR = (index: number): string => {
  const [a, b] = octets(index);
  return `10.${a}.${b}.0/24`;
};

/** Pod IP number `n` (1..253) in the node's range; hosts .2 upward (.1 is the node's bridge). */
export function podIP(index: number, n: number): string {
  const [a, b] = octets(index);
  return `10.${a}.${b}.${1 + n}`;
}

export function nodeConditions(now: string, transition: string): Array<Record<string, string>> {
  const c = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: transition, reason, message });
  return [
    c('OutOfDisk', 'False', 'KubeletHasSufficientDisk', 'kubelet has sufficient disk space available'),
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

export function nodeObject(name: string, index: number, shape: NodeShape, now: Date = new Date()): KubeObject {
  const ts = rfc3339(now);
  const resources = { cpu: shape.cpu, memory: shape.memory, pods: String(shape.pods) };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'simulator.cluster.local/simulated': 'true' },
    },
    spec: { podCIDR: podCIDR(index), externalID: name },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: nodeConditions(ts, ts),
      addresses: [
        { type: 'InternalIP', address: nodeInternalIP(index) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: crypto.randomUUID().replaceAll('-', ''),
        systemUUID: crypto.randomUUID().toUpperCase(),
        bootID: crypto.randomUUID(),
        kernelVersion: '4.9.0-simulated',
        osImage: 'Simulated Linux',
        containerRuntimeVersion: 'sim://1.0.0',
        kubeletVersion: 'v1.9.0',
        kubeProxyVersion: 'v1.9.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [],
    },
  };
}
