// NetworkPolicy (networking.k8s.io/v1 and extensions/v1beta1, one storage): 1.9's defaults (a port's protocol
// TCP; policyTypes [Ingress], plus Egress when egress rules are given) and ValidateNetworkPolicySpec: the pod
// selector, each rule's ports (TCP or UDP, a port number or name) and peers (exactly one of podSelector,
// namespaceSelector, ipBlock; an ipBlock's cidr valid and each except a strict subset of it), policyTypes
// Ingress or Egress, at most two. The spec may change on update.

import { isIPv6 } from 'node:net';
import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { contains, parseCidr4 } from '../cidr.ts';
import { portNameErrors } from '../validation/pod.ts';
import { validateLabelSelector } from './selector.ts';
import { type Obj, isObj } from './util.ts';

const PROTOCOLS = ['TCP', 'UDP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const RULES = [['ingress', 'from'], ['egress', 'to']] as const;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function applyDefaults(obj: KubeObject): void {
  const spec = obj.spec as Obj | undefined;
  if (!isObj(spec)) return;
  for (const [rules] of RULES) {
    for (const rule of list(spec[rules])) {
      for (const port of list(isObj(rule) ? rule.ports : undefined)) if (isObj(port) && (port.protocol === undefined || port.protocol === null)) port.protocol = 'TCP';
    }
  }
  if (list(spec.policyTypes).length === 0) spec.policyTypes = list(spec.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
}

/** Go's net.ParseCIDR: an IPv4 or IPv6 address and a prefix length within its width. */
function validCidr(text: string): boolean {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return false;
  if (isIPv6(m[1])) return Number(m[2]) <= 128;
  return parseCidr4(text) !== undefined;
}

function validateIpBlock(block: Obj, path: string, errs: FieldError[]): void {
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (cidr === '') {
    errs.push(required(`${path}.cidr`, ''));
    return;
  }
  if (!validCidr(cidr)) {
    errs.push(invalidValue(`${path}.cidr`, cidr, `invalid CIDR address: ${cidr}`));
    return;
  }
  const outer = parseCidr4(cidr);
  list(block.except).forEach((e, i) => {
    const p = `${path}.except[${i}]`;
    const text = typeof e === 'string' ? e : '';
    if (!validCidr(text)) {
      errs.push(invalidValue(p, text, `invalid CIDR address: ${text}`));
      return;
    }
    const inner = parseCidr4(text);
    // IPv4 only: an IPv6 except is checked for its form.
    if (outer && inner && (!contains(outer, inner.base) || inner.bits <= outer.bits)) errs.push(invalidValue(p, text, 'must be a strict subset of `cidr`'));
  });
}

function validatePort(port: Obj, path: string, errs: FieldError[]): void {
  if (port.protocol !== undefined && port.protocol !== null && !PROTOCOLS.includes(port.protocol as string)) errs.push(notSupported(`${path}.protocol`, port.protocol, PROTOCOLS));
  const v = port.port;
  if (typeof v === 'number' && (v < 1 || v > 65535)) errs.push(invalidValue(`${path}.port`, v, 'must be between 1 and 65535, inclusive'));
  if (typeof v === 'string') for (const m of portNameErrors(v)) errs.push(invalidValue(`${path}.port`, v, m));
}

function validatePeer(peer: Obj, path: string, errs: FieldError[]): void {
  let peers = 0;
  for (const key of ['podSelector', 'namespaceSelector'] as const) {
    if (!isObj(peer[key])) continue;
    peers++;
    errs.push(...validateLabelSelector(peer[key], `${path}.${key}`));
  }
  if (isObj(peer.ipBlock)) {
    peers++;
    validateIpBlock(peer.ipBlock, `${path}.ipBlock`, errs);
  }
  if (peers === 0) errs.push(required(path, 'must specify a peer'));
  else if (peers > 1) errs.push(forbiddenField(path, 'may not specify more than 1 peer'));
}

export function validateNetworkPolicy(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = (isObj(obj.spec) ? obj.spec : {}) as Obj;
  errs.push(...validateLabelSelector(isObj(spec.podSelector) ? spec.podSelector : {}, 'spec.podSelector'));
  for (const [rules, peers] of RULES) {
    list(spec[rules]).forEach((rule, i) => {
      if (!isObj(rule)) return;
      const path = `spec.${rules}[${i}]`;
      list(rule.ports).forEach((p, j) => isObj(p) && validatePort(p, `${path}.ports[${j}]`, errs));
      list(rule[peers]).forEach((p, j) => isObj(p) && validatePeer(p, `${path}.${peers}[${j}]`, errs));
    });
  }
  const types = list(spec.policyTypes);
  if (types.length > POLICY_TYPES.length) errs.push(invalidValue('spec.policyTypes', types, 'may not specify more than two policyTypes'));
  else types.forEach((t, i) => !POLICY_TYPES.includes(t as string) && errs.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES)));
  return errs;
}

registerStrategy('NetworkPolicy', { applyDefaults, validate: validateNetworkPolicy });
