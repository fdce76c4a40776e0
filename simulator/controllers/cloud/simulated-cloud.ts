// The simulated cloud provider (--cloud-provider simulated): what the daemon's cloud loops talk to in place of
// a real cloud's API, with its state in the daemon's process and shown read-only on the daemon's HTTP service
// (/cloud/routes, /cloud/loadbalancers, /cloud/instances). It reads its settings from the --cloud-config file
// (README "Simulated cloud" for the format). Facets, as the 1.9 cloudprovider.Interface has them:
// - Instances: every Node the daemon sees is an instance, except one annotated
//   simulator.cluster.local/node-state: terminated or named in terminatedInstances (the VM is gone); each
//   instance has an ExternalIP from externalIPRange and, for the CloudAllocator, a pod range from
//   instancePodCIDRRange (stable per node name);
// - LoadBalancer: one load balancer per Service (named "a" + its uid without dashes, 32 characters at most),
//   an address from loadBalancerPool, released when deleted; provisioning takes loadBalancerProvisionSeconds;
//   an empty pool is an error (the service controller retries);
// - Routes: a route table of {name, targetNode, destinationCIDR}, per cluster name.

import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import type { KubeObject } from '../../api/meta.ts';
import { formatIPv4, nthAddress, parseCidr4, parseIPv4, sizeOf, subnet, formatCidr4 } from '../../api/cidr.ts';

export const CLOUD_PROVIDER_NAME = 'simulated';
export const ANN_NODE_STATE = 'simulator.cluster.local/node-state';

export interface SimulatedCloudConfig {
  region: string;
  loadBalancerPool: string[];
  loadBalancerProvisionSeconds: number;
  externalIPRange: string;
  instancePodCIDRRange: string;
  instancePodCIDRMaskSize: number;
  terminatedInstances: string[];
}

export const DEFAULT_CLOUD_CONFIG: SimulatedCloudConfig = {
  region: 'sim-region-1',
  loadBalancerPool: poolFrom('203.0.113.0/28'),
  loadBalancerProvisionSeconds: 0,
  externalIPRange: '198.51.100.0/24',
  instancePodCIDRRange: '10.200.0.0/16',
  instancePodCIDRMaskSize: 24,
  terminatedInstances: [],
};

/** Every host address of a CIDR (network and broadcast left out for /30 and wider). */
function poolFrom(cidr: string): string[] {
  const c = parseCidr4(cidr);
  if (!c) return [];
  const size = sizeOf(c);
  const out: string[] = [];
  const [from, to] = size <= 2 ? [0, size] : [1, size - 1];
  for (let i = from; i < to && out.length < 65536; i++) out.push(nthAddress(c, i));
  return out;
}

/** Reads and checks a --cloud-config file; throws with the problem (the caller names the option). */
export function loadCloudConfig(path: string): SimulatedCloudConfig {
  if (path === '') return { ...DEFAULT_CLOUD_CONFIG };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new Error(`${path} is not YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === undefined || doc === null) return { ...DEFAULT_CLOUD_CONFIG };
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error(`${path}: expected a mapping of settings, got ${Array.isArray(doc) ? 'a list' : typeof doc}`);
  const cfg: SimulatedCloudConfig = { ...DEFAULT_CLOUD_CONFIG };
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    const bad = (expected: string) => new Error(`${path}: ${key}: expected ${expected}, got ${JSON.stringify(value)}`);
    switch (key) {
      case 'region':
        if (typeof value !== 'string' || value === '') throw bad('a non-empty string');
        cfg.region = value;
        break;
      case 'loadBalancerPool': {
        const items = typeof value === 'string' ? [value] : value;
        if (!Array.isArray(items) || items.length === 0) throw bad('an IPv4 CIDR or a non-empty list of IPv4 addresses / CIDRs');
        const pool: string[] = [];
        for (const item of items) {
          if (typeof item === 'string' && parseIPv4(item) !== undefined) pool.push(formatIPv4(parseIPv4(item)!));
          else if (typeof item === 'string' && parseCidr4(item)) pool.push(...poolFrom(item));
          else throw bad('IPv4 addresses or CIDRs');
        }
        cfg.loadBalancerPool = [...new Set(pool)];
        break;
      }
      case 'loadBalancerProvisionSeconds':
        if (typeof value !== 'number' || !(value >= 0) || value > 3600) throw bad('seconds between 0 and 3600');
        cfg.loadBalancerProvisionSeconds = value;
        break;
      case 'externalIPRange':
      case 'instancePodCIDRRange':
        if (typeof value !== 'string' || !parseCidr4(value)) throw bad('an IPv4 CIDR');
        cfg[key] = value;
        break;
      case 'instancePodCIDRMaskSize':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 8 || value > 30) throw bad('an integer 8..30');
        cfg.instancePodCIDRMaskSize = value;
        break;
      case 'terminatedInstances':
        if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw bad('a list of node names');
        cfg.terminatedInstances = value as string[];
        break;
      default:
        throw new Error(`${path}: unknown setting ${JSON.stringify(key)} (known: ${Object.keys(DEFAULT_CLOUD_CONFIG).join(', ')})`);
    }
  }
  const range = parseCidr4(cfg.instancePodCIDRRange)!;
  if (cfg.instancePodCIDRMaskSize < range.bits)
    throw new Error(`${path}: instancePodCIDRMaskSize ${cfg.instancePodCIDRMaskSize} is shorter than the /${range.bits} of instancePodCIDRRange`);
  return cfg;
}

export interface LoadBalancer {
  name: string;
  service: string;
  ip: string;
  ports: Array<{ protocol: string; port: number; nodePort?: number }>;
  hosts: string[];
  createdAt: string;
  updatedAt: string;
}

export interface Route {
  name: string;
  clusterName: string;
  targetNode: string;
  destinationCIDR: string;
  createdAt: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** cloudprovider.GetLoadBalancerName: "a" + the Service's uid without dashes, cut to 32 characters. */
export const loadBalancerNameOf = (svc: KubeObject): string => `a${(svc.metadata.uid ?? '').replaceAll('-', '')}`.slice(0, 32);

export class SimulatedCloud {
  readonly providerName = CLOUD_PROVIDER_NAME;
  private lookup: (name: string) => KubeObject | undefined = () => undefined;
  private readonly externalIPs = new Map<string, string>();
  private readonly podRanges = new Map<string, string>();
  private readonly loadBalancers = new Map<string, LoadBalancer>();
  private readonly routes = new Map<string, Route>();
  readonly stats = { ensureCalls: 0, maxConcurrentEnsures: 0 };
  private ensuring = 0;

  constructor(readonly config: SimulatedCloudConfig) {}

  /** Where the cloud learns which instances exist (the daemon's Node cache). */
  attachNodes(lookup: (name: string) => KubeObject | undefined): void {
    this.lookup = lookup;
  }

  // --- Instances ---

  instanceExists(name: string): boolean {
    if (this.config.terminatedInstances.includes(name)) return false;
    const node = this.lookup(name);
    return node !== undefined && node.metadata.annotations?.[ANN_NODE_STATE] !== 'terminated';
  }

  instanceAddresses(name: string): Array<{ type: string; address: string }> {
    if (!this.instanceExists(name)) return [];
    let ip = this.externalIPs.get(name);
    if (!ip) {
      const range = parseCidr4(this.config.externalIPRange)!;
      const n = this.externalIPs.size + 1;
      if (n >= sizeOf(range) - 1) return [];
      ip = nthAddress(range, n);
      this.externalIPs.set(name, ip);
    }
    return [{ type: 'ExternalIP', address: ip }];
  }

  /** The instance's pod range (the CloudAllocator's source), or undefined when the cloud has none left. */
  instancePodCIDR(name: string): string | undefined {
    if (!this.instanceExists(name)) return undefined;
    const have = this.podRanges.get(name);
    if (have) return have;
    const range = parseCidr4(this.config.instancePodCIDRRange)!;
    const count = 2 ** (this.config.instancePodCIDRMaskSize - range.bits);
    const taken = new Set(this.podRanges.values());
    for (let i = 0; i < count; i++) {
      const c = formatCidr4(subnet(range, this.config.instancePodCIDRMaskSize, i));
      if (!taken.has(c)) {
        this.podRanges.set(name, c);
        return c;
      }
    }
    return undefined;
  }

  // --- LoadBalancer ---

  getLoadBalancer(name: string): LoadBalancer | undefined {
    return this.loadBalancers.get(name);
  }

  async ensureLoadBalancer(name: string, service: string, ports: LoadBalancer['ports'], hosts: string[]): Promise<LoadBalancer> {
    this.stats.ensureCalls++;
    this.ensuring++;
    this.stats.maxConcurrentEnsures = Math.max(this.stats.maxConcurrentEnsures, this.ensuring);
    try {
      if (this.config.loadBalancerProvisionSeconds > 0) await sleep(this.config.loadBalancerProvisionSeconds * 1000);
      const now = new Date().toISOString();
      const existing = this.loadBalancers.get(name);
      if (existing) {
        Object.assign(existing, { ports, hosts, updatedAt: now });
        return existing;
      }
      const used = new Set([...this.loadBalancers.values()].map((lb) => lb.ip));
      const ip = this.config.loadBalancerPool.find((a) => !used.has(a));
      if (!ip) throw new Error(`no free address in the load balancer pool (${this.config.loadBalancerPool.length} in use)`);
      const lb: LoadBalancer = { name, service, ip, ports, hosts, createdAt: now, updatedAt: now };
      this.loadBalancers.set(name, lb);
      return lb;
    } finally {
      this.ensuring--;
    }
  }

  async deleteLoadBalancer(name: string): Promise<boolean> {
    return this.loadBalancers.delete(name);
  }

  // --- Routes ---

  listRoutes(clusterName: string): Route[] {
    return [...this.routes.values()].filter((r) => r.clusterName === clusterName);
  }

  createRoute(clusterName: string, nameHint: string, targetNode: string, destinationCIDR: string): Route {
    const name = `${clusterName}-${nameHint}`;
    const route: Route = { name, clusterName, targetNode, destinationCIDR, createdAt: new Date().toISOString() };
    this.routes.set(name, route);
    return route;
  }

  deleteRoute(name: string): boolean {
    return this.routes.delete(name);
  }

  /** What GET /cloud/<what> shows. */
  snapshot(what: 'routes' | 'loadbalancers' | 'instances'): unknown {
    if (what === 'routes') return { kind: 'RouteList', items: [...this.routes.values()].sort((a, b) => a.name.localeCompare(b.name)) };
    if (what === 'loadbalancers')
      return {
        kind: 'LoadBalancerList',
        pool: this.config.loadBalancerPool.length,
        items: [...this.loadBalancers.values()].sort((a, b) => a.name.localeCompare(b.name)),
      };
    const names = new Set([...this.externalIPs.keys(), ...this.podRanges.keys()]);
    return {
      kind: 'InstanceList',
      region: this.config.region,
      items: [...names]
        .sort()
        .map((n) => ({ name: n, exists: this.instanceExists(n), externalIP: this.externalIPs.get(n) ?? null, podCIDR: this.podRanges.get(n) ?? null })),
    };
  }
}
