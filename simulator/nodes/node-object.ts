// The Node object a simulated kubelet registers and keeps fresh: capacity and allocatable, nodeInfo,
// addresses, zone/region labels, the 1.9 condition set (OutOfDisk, MemoryPressure, DiskPressure all False;
// Ready True with reason KubeletReady, or False with KubeletNotReady on a node failed with the node-state
// annotation) and heartbeats. Like a real kubelet it does not set spec.podCIDR itself (the daemon's node IPAM
// does, with --allocate-node-cidrs); pod IPs come from the node's podCIDR once it has one, and until then
// from 10.<a>.<b>.0/24 by node index, so every pod IP in the cluster is unique and tells which node it runs on.

import type { KubeObject } from '../api/meta.ts';
import { nthAddress, parseCidr4, sizeOf } from '../api/cidr.ts';

export const ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';
export const REGION_LABEL = 'failure-domain.beta.kubernetes.io/region';

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

/**
 * Pod IP number `n` (1..) of a node: host n+1 of its spec.podCIDR when it has one (.1 is the node's bridge),
 * else of the index-derived 10.<a>.<b>.0/24. Undefined when the range has no room for it.
 */
export function podIP(index: number, n: number, cidr?: string): string | undefined {
  const range = cidr ? parseCidr4(cidr) : undefined;
  if (range) return n + 1 < sizeOf(range) - 1 ? nthAddress(range, n + 1) : undefined;
  const [a, b] = octets(index);
  return n <= 253 ? `10.${a}.${b}.${1 + n}` : undefined;
}

/** How many pod IPs a node's range holds (253 for a /24: .2 to .254). */
export function podIPCapacity(cidr?: string): number {
  const range = cidr ? parseCidr4(cidr) : undefined;
  return range ? Math.max(0, sizeOf(range) - 3) : 253;
}

/** The kubelet's Ready condition as it posts it: True (KubeletReady) or, on a failed node, False (KubeletNotReady). */
export function nodeConditions(now: string, transition: string, ready = true): Array<Record<string, string>> {
  const c = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: now,
    lastTransitionTime: transition,
    reason,
    message,
  });
  return [
    c('OutOfDisk', 'False', 'KubeletHasSufficientDisk', 'kubelet has sufficient disk space available'),
    c('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    c('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    ready
      ? c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
      : c('Ready', 'False', 'KubeletNotReady', 'simulated failure (simulator.cluster.local/node-state: not-ready)'),
  ];
}

export interface NodePlacement {
  zone?: string;
  region?: string;
}

export function nodeObject(name: string, index: number, shape: NodeShape, now: Date = new Date(), placement: NodePlacement = {}): KubeObject {
  const ts = rfc3339(now);
  const resources = { cpu: shape.cpu, memory: shape.memory, pods: String(shape.pods) };
  const labels: Record<string, string> = { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name };
  if (placement.region) labels[REGION_LABEL] = placement.region;
  if (placement.zone) labels[ZONE_LABEL] = placement.zone;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'simulator.cluster.local/simulated': 'true' },
    },
    spec: { externalID: name },
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
