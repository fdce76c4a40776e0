// Cluster IPs and node ports of Services. As in the real server, each range's allocations live in the store
// (here /registry/ranges/<name>, read-modify-written with compare-and-swap), so several API servers sharing
// one etcd never hand out the same address. Addresses are released when a Service is finally removed, which
// a store watch sees whatever path removed it (DELETE, a finalizer emptied, the namespace controller).

import type { KubeObject } from '../../api/meta.ts';
import type { Store, WatchHandle } from '../../storage/store.ts';
import { invalid, invalidValue, type FieldError } from '../errors.ts';
import { STORAGE_REFS, storageKey } from '../../api/registry.ts';

export interface ServiceRanges {
  /** The service cluster IP range (CIDR); the real default is 10.0.0.0/24. */
  clusterIPRange: string;
  /** The node port range, inclusive (the real default is 30000-32767). */
  nodePortRange: [number, number];
}

export const DEFAULT_SERVICE_RANGES: ServiceRanges = { clusterIPRange: '10.0.0.0/24', nodePortRange: [30000, 32767] };

const IP_KEY = storageKey(STORAGE_REFS.ranges, undefined, 'serviceips');
const PORT_KEY = storageKey(STORAGE_REFS.ranges, undefined, 'servicenodeports');

interface Cidr {
  base: number;
  size: number;
}

function parseCidr(cidr: string): Cidr {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m) throw new Error(`service cluster IP range ${JSON.stringify(cidr)} is not an IPv4 CIDR`);
  const bits = Number(m[5]);
  const base = ((Number(m[1]) << 24) >>> 0) + (Number(m[2]) << 16) + (Number(m[3]) << 8) + Number(m[4]);
  const size = 2 ** (32 - bits);
  return { base: base - (base % size), size };
}

const ipToString = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

function ipToNumber(ip: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(ip);
  if (!m || m.slice(1).some((x) => Number(x) > 255)) return undefined;
  return ((Number(m[1]) << 24) >>> 0) + (Number(m[2]) << 16) + (Number(m[3]) << 8) + Number(m[4]);
}

interface RangeObject extends KubeObject {
  range: string;
  allocated: string[];
}

type Spec = { type?: string; clusterIP?: string; ports?: Array<{ nodePort?: number; port?: number }> };

export class ServiceAddressAllocator {
  private readonly cidr: Cidr;
  private watch?: WatchHandle;

  constructor(private readonly store: Store, private readonly ranges: ServiceRanges = DEFAULT_SERVICE_RANGES) {
    this.cidr = parseCidr(ranges.clusterIPRange);
  }

  /** Releases addresses of Services as they are removed. */
  start(): void {
    this.watch = this.store.watch(storageKey(STORAGE_REFS.services, undefined), {
      onEvent: (ev) => {
        if (ev.type === 'DELETED') void this.release(ev.object).catch(() => undefined);
      },
    });
  }

  stop(): void {
    this.watch?.stop();
  }

  /**
   * The allocator a dry run uses (dryRun=All): addresses are chosen and checked exactly as allocate does, but not
   * taken (the ranges are not written), and there is nothing to give back.
   */
  dryRun(): { allocate(svc: KubeObject): Promise<void>; release(svc: KubeObject): Promise<void> } {
    return { allocate: (svc) => this.allocate(svc, false), release: async () => undefined };
  }

  /** Fills in spec.clusterIP and nodePorts of a new Service, or throws 422 for taken or out-of-range ones. */
  async allocate(svc: KubeObject, persist = true): Promise<void> {
    const spec = (svc.spec ?? {}) as Spec;
    const name = svc.metadata.name ?? '';
    if (spec.type !== 'ExternalName' && spec.clusterIP !== 'None') {
      const wanted = spec.clusterIP || undefined;
      spec.clusterIP = await this.take(
        IP_KEY,
        this.ranges.clusterIPRange,
        wanted,
        (taken) => this.freeIP(taken),
        (ip) => this.checkIP(ip),
        name,
        'spec.clusterIP',
        persist,
      );
    }
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
      for (const [i, port] of (spec.ports ?? []).entries()) {
        const wanted = port.nodePort ? String(port.nodePort) : undefined;
        const got = await this.take(
          PORT_KEY,
          this.portRangeText(),
          wanted,
          (taken) => this.freePort(taken),
          (p) => this.checkPort(p),
          name,
          `spec.ports[${i}].nodePort`,
          persist,
        );
        port.nodePort = Number(got);
      }
    }
  }

  private portRangeText(): string {
    return `${this.ranges.nodePortRange[0]}-${this.ranges.nodePortRange[1]}`;
  }

  private checkIP(ip: string): string | undefined {
    const n = ipToNumber(ip);
    if (n === undefined || n < this.cidr.base || n >= this.cidr.base + this.cidr.size)
      return `provided IP is not in the valid range. The range of valid IPs is ${this.ranges.clusterIPRange}`;
    return undefined;
  }

  private checkPort(p: string): string | undefined {
    const n = Number(p);
    const [lo, hi] = this.ranges.nodePortRange;
    if (!Number.isInteger(n) || n < lo || n > hi) return `provided port is not in the valid range. The range of valid ports is ${this.portRangeText()}`;
    return undefined;
  }

  /** The first free address: network and broadcast addresses are never handed out. */
  private freeIP(taken: Set<string>): string | undefined {
    for (let n = this.cidr.base + 1; n < this.cidr.base + this.cidr.size - 1; n++) {
      const ip = ipToString(n);
      if (!taken.has(ip)) return ip;
    }
    return undefined;
  }

  private freePort(taken: Set<string>): string | undefined {
    for (let p = this.ranges.nodePortRange[0]; p <= this.ranges.nodePortRange[1]; p++) if (!taken.has(String(p))) return String(p);
    return undefined;
  }

  private async take(
    key: string,
    range: string,
    wanted: string | undefined,
    pick: (taken: Set<string>) => string | undefined,
    check: (v: string) => string | undefined,
    name: string,
    field: string,
    persist = true,
  ): Promise<string> {
    let chosen = '';
    const decide = (cur: { value: KubeObject } | undefined): KubeObject => {
      const obj = (cur?.value as RangeObject | undefined) ?? {
        kind: 'RangeAllocation',
        apiVersion: 'v1',
        metadata: { name: key.split('/').pop() },
        range,
        allocated: [],
      };
      const taken = new Set(obj.allocated);
      const fail = (detail: string): never => {
        const e: FieldError = invalidValue(field, wanted, detail);
        throw invalid('Service', '', name, [e]);
      };
      if (wanted !== undefined) {
        const why = check(wanted);
        if (why) fail(why);
        if (taken.has(wanted)) fail('provided IP is already allocated'.replace('IP', field.endsWith('nodePort') ? 'port' : 'IP'));
        chosen = wanted;
      } else {
        const free = pick(taken);
        if (free === undefined) fail(`range is full (${range})`);
        chosen = free!;
      }
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined }, allocated: [...obj.allocated, chosen] } as KubeObject;
    };
    if (persist) await this.store.guaranteedUpdate(key, decide);
    else decide(await this.store.get(key));
    return chosen;
  }

  async release(svc: KubeObject): Promise<void> {
    const spec = (svc.spec ?? {}) as Spec;
    const ips = spec.clusterIP && spec.clusterIP !== 'None' ? [spec.clusterIP] : [];
    const ports = (spec.ports ?? []).map((p) => p.nodePort).filter((p): p is number => typeof p === 'number' && p > 0).map(String);
    for (const [key, values] of [[IP_KEY, ips], [PORT_KEY, ports]] as const) {
      if (values.length === 0) continue;
      await this.store.guaranteedUpdate(key, (cur) => {
        if (!cur) return undefined;
        const obj = cur.value as RangeObject;
        const left = obj.allocated.filter((a) => !values.includes(a));
        if (left.length === obj.allocated.length) return undefined;
        return { ...obj, metadata: { ...obj.metadata, resourceVersion: undefined }, allocated: left } as KubeObject;
      });
    }
  }
}
