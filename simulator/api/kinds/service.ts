// Service (core/v1). Its fields are "not shown" in the spec (2.1); defaults and rules follow the real
// 1.9 defaulter and validator (wire-facts 5 "Service"): type ClusterIP, sessionAffinity None, port
// protocol TCP, targetPort from port.

import { isIP } from 'node:net';
import type { KubeObject } from '../meta.ts';
import { registerStrategy, type KindStrategy } from '../strategy.ts';
import { nameErrors } from '../names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { type Obj, isObj, isUnset, objAt, setDefault } from './util.ts';

export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
const AFFINITIES = ['ClientIP', 'None'];
const PROTOCOLS = ['TCP', 'UDP'];
const CLIENT_IP_TIMEOUT = 10800;

export function defaultService(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Obj;
  if (isUnset(spec.type) || spec.type === '') spec.type = 'ClusterIP';
  if (isUnset(spec.sessionAffinity) || spec.sessionAffinity === '') spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  else if (spec.sessionAffinity === 'ClientIP') {
    const cfg = isObj(spec.sessionAffinityConfig) ? spec.sessionAffinityConfig : (spec.sessionAffinityConfig = {});
    const clientIP = isObj(cfg.clientIP) ? cfg.clientIP : (cfg.clientIP = {});
    setDefault(clientIP, 'timeoutSeconds', CLIENT_IP_TIMEOUT);
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && isUnset(spec.externalTrafficPolicy)) spec.externalTrafficPolicy = 'Cluster';
  if (Array.isArray(spec.ports)) {
    for (const p of spec.ports) {
      if (!isObj(p)) continue;
      setDefault(p, 'protocol', 'TCP');
      if (isUnset(p.targetPort) || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
    }
  }
}

export function validateService(obj: KubeObject): FieldError[] {
  const spec = obj.spec;
  if (!isObj(spec)) return [required('spec')];
  const errs: FieldError[] = [];
  const type = spec.type as string;
  if (!SERVICE_TYPES.includes(type)) errs.push(notSupported('spec.type', spec.type ?? '', SERVICE_TYPES));
  if (!AFFINITIES.includes(spec.sessionAffinity as string)) errs.push(notSupported('spec.sessionAffinity', spec.sessionAffinity ?? '', AFFINITIES));
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && spec.clusterIP !== 'None' && isIP(spec.clusterIP) === 0) {
    errs.push(invalidValue('spec.clusterIP', spec.clusterIP, "must be empty, 'None', or a valid IP address"));
  }
  if (type === 'ExternalName') {
    if (typeof spec.externalName !== 'string' || spec.externalName === '') errs.push(required('spec.externalName'));
    else for (const m of nameErrors(spec.externalName, 'dns1123-subdomain')) errs.push(invalidValue('spec.externalName', spec.externalName, m));
  }
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  if (ports.length === 0 && type !== 'ExternalName' && spec.clusterIP !== 'None') errs.push(required('spec.ports'));
  const names = new Set<string>();
  // The real ValidateService: a headless service cannot be a NodePort or LoadBalancer one; (port, protocol)
  // pairs and node ports are unique.
  if (spec.clusterIP === 'None' && (type === 'NodePort' || type === 'LoadBalancer')) errs.push(invalidValue('spec.clusterIP', 'None', `may not be set to 'None' for ${type} services`));
  const portKeys = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    if (isObj(p) && typeof p.port === 'number') {
      const key = `${p.port}/${typeof p.protocol === 'string' ? p.protocol : 'TCP'}`;
      if (portKeys.has(key)) errs.push(duplicate(`spec.ports[${i}]`, { port: p.port, protocol: p.protocol ?? 'TCP' }));
      portKeys.add(key);
    }
    if (isObj(p) && typeof p.nodePort === 'number' && p.nodePort !== 0) {
      const key = `${p.nodePort}/${typeof p.protocol === 'string' ? p.protocol : 'TCP'}`;
      if (nodePorts.has(key)) errs.push(duplicate(`spec.ports[${i}].nodePort`, p.nodePort));
      nodePorts.add(key);
    }
  });
  ports.forEach((p, i) => {
    if (!isObj(p)) return;
    const pp = `spec.ports[${i}]`;
    // Names are required to tell ports apart once there is more than one (real validateServicePort).
    if (ports.length > 1 && (typeof p.name !== 'string' || p.name === '')) errs.push(required(`${pp}.name`));
    if (typeof p.name === 'string' && p.name !== '') {
      for (const m of nameErrors(p.name, 'dns1123-label')) errs.push(invalidValue(`${pp}.name`, p.name, m));
      if (names.has(p.name)) errs.push(duplicate(`${pp}.name`, p.name));
      names.add(p.name);
    }
    portRange(errs, `${pp}.port`, p.port, true);
    if (!PROTOCOLS.includes(p.protocol as string)) errs.push(notSupported(`${pp}.protocol`, p.protocol ?? '', PROTOCOLS));
    if (typeof p.targetPort === 'number') portRange(errs, `${pp}.targetPort`, p.targetPort, true);
    else if (typeof p.targetPort === 'string' && nameErrors(p.targetPort, 'dns1123-label').length > 0) errs.push(invalidValue(`${pp}.targetPort`, p.targetPort, 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'));
    if (!isUnset(p.nodePort) && p.nodePort !== 0) {
      if (type === 'ClusterIP' || type === 'ExternalName') errs.push(forbiddenField(`${pp}.nodePort`, `may not be used when \`type\` is '${type}'`));
      else portRange(errs, `${pp}.nodePort`, p.nodePort, false);
    }
  });
  errs.push(...validateLabels(spec.selector, 'spec.selector'));
  return errs;
}

function portRange(errs: FieldError[], path: string, v: unknown, isRequired: boolean): void {
  if (isUnset(v) || v === 0) {
    if (isRequired) errs.push(required(path));
    return;
  }
  if (typeof v === 'number' && (v < 1 || v > 65535)) errs.push(invalidValue(path, v, 'must be between 1 and 65535, inclusive'));
}

/** clusterIP cannot change once set, except for ExternalName services (real ValidateServiceUpdate). */
export function validateServiceUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const n = objAt(next, 'spec');
  const o = objAt(old, 'spec');
  if (!n || !o || o.type === 'ExternalName' || n.type === 'ExternalName') return [];
  if (typeof o.clusterIP === 'string' && o.clusterIP !== '' && n.clusterIP !== o.clusterIP) return [invalidValue('spec.clusterIP', n.clusterIP ?? '', 'field is immutable')];
  return [];
}

export const serviceStrategy: KindStrategy = {
  applyDefaults: defaultService,
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  prepareForCreate: (obj) => {
    obj.status = { loadBalancer: {} };
  },
  // Cluster IP and node ports are taken before the Service is stored and given back if it is not.
  beforeCreate: (obj, env) => env.serviceAddresses.allocate(obj),
  afterCreate: async (obj, stored, env) => {
    if (!stored) await env.serviceAddresses.release(obj);
  },
};

registerStrategy('Service', serviceStrategy);
