// IPv4 CIDR arithmetic shared by the node IPAM controller, the simulated cloud and the simulated kubelets
// (pod IPs from a node's spec.podCIDR). IPv6 ranges parse as "not IPv4" (the 1.9 allocators were IPv4-only
// in practice too: a /64 per node out of an IPv6 cluster range was not supported before 1.13).

export interface Cidr4 {
  /** Network address as an unsigned 32-bit number. */
  base: number;
  /** Prefix length, 0..32. */
  bits: number;
}

export function parseIPv4(text: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

export const formatIPv4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** "10.244.0.0/16" -> its network (host bits cleared, as Go's net.ParseCIDR returns it), or undefined. */
export function parseCidr4(text: string): Cidr4 | undefined {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(text.trim());
  if (!m) return undefined;
  const ip = parseIPv4(m[1]);
  const bits = Number(m[2]);
  if (ip === undefined || bits > 32) return undefined;
  return { base: (ip & maskOf(bits)) >>> 0, bits };
}

const maskOf = (bits: number): number => (bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0);

export const formatCidr4 = (c: Cidr4): string => `${formatIPv4(c.base)}/${c.bits}`;

/** Number of addresses in the range. */
export const sizeOf = (c: Cidr4): number => 2 ** (32 - c.bits);

export const contains = (c: Cidr4, ip: number): boolean => ((ip & maskOf(c.bits)) >>> 0) === c.base;

/** Whether two ranges share any address. */
export const overlaps = (a: Cidr4, b: Cidr4): boolean => contains(a, b.base) || contains(b, a.base);

/** The n-th address of the range (0 = the network address). */
export const nthAddress = (c: Cidr4, n: number): string => formatIPv4((c.base + n) >>> 0);

/** The i-th subnet of size /bits inside c. */
export const subnet = (c: Cidr4, bits: number, i: number): Cidr4 => ({ base: (c.base + i * 2 ** (32 - bits)) >>> 0, bits });
