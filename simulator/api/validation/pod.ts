// The parts of the real 1.9 pod validators (pkg/apis/core/validation) that pod-spec.ts's structure checks
// leave out: resources (non-negative quantities, requests <= limits, resource names), probes (exactly one
// handler, non-negative periods and thresholds, a liveness successThreshold of 1), ports (names, host ports
// unique in the pod per protocol), env (valueFrom with exactly one source, the fields each source needs),
// envFrom (prefix, exactly one source), volume mounts (unique mount paths) and volume sources (at most one
// source, the fields each needs, modes). Field paths and messages follow the real validators'.

import { type FieldError, duplicate, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { parseQuantity } from '../quantity.ts';
import { labelKeyError } from '../labels.ts';
import { type Obj, isObj, isUnset } from '../kinds/util.ts';
import { configKeyErrors } from '../kinds/config-data.ts';
import { nameErrors } from '../names.ts';

// Which names 1.9 checks how (pkg/apis/core/validation, apimachinery util/validation): env[].name and the envFrom
// prefix are "environment variable names" (IsEnvVarName, relaxed from C identifiers in 1.8 so that `my.env-name`
// passes; '.', '..' and a '..' start refused), not C_IDENTIFIERs; the keys of configMapKeyRef and secretKeyRef are
// config keys (IsConfigMapKey, at most 253 characters) and their names DNS-1123 subdomains. C_IDENTIFIER is left in
// the API's doc strings only (the kubelet skips envFrom keys that are not variable names, with an event).
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const ENV_VAR_MSG = "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')";

/** The real IsEnvVarName: the character rule, then '.', '..' and a '..' prefix refused (they name directories). */
export function envVarNameErrors(name: string): string[] {
  const out: string[] = [];
  if (!ENV_VAR_NAME.test(name)) out.push(ENV_VAR_MSG);
  if (name === '.' || name === '..') out.push(`must not be '${name}'`);
  else if (name.startsWith('..')) out.push("must not start with '..'");
  return out;
}
const IANA_SVC_NAME_MSG = 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)';

/** The real IsValidPortName: at most 15 characters, lower-case letters, digits and single inner hyphens, a letter. */
export function portNameErrors(name: string): string[] {
  const out: string[] = [];
  if (name.length > 15) out.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) out.push(IANA_SVC_NAME_MSG);
  if (!/[a-z]/.test(name)) out.push('must contain at least one letter (a-z)');
  if (name.includes('--')) out.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) out.push('must not begin or end with a hyphen');
  return out;
}

const STANDARD_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'storage']);

function resourceNameErrors(name: string): string[] {
  const e = labelKeyError(name);
  if (e) return [e];
  // Without a domain prefix only the standard names (and hugepages-<size>) exist.
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !name.startsWith('hugepages-')) return ['must be a standard resource type or fully qualified'];
  return [];
}

function validateResources(res: unknown, path: string, errs: FieldError[]): void {
  if (!isObj(res)) return;
  const values: Record<'limits' | 'requests', Record<string, number>> = { limits: {}, requests: {} };
  for (const part of ['limits', 'requests'] as const) {
    const m = res[part];
    if (!isObj(m)) continue;
    for (const [k, v] of Object.entries(m)) {
      const p = `${path}.${part}[${k}]`;
      for (const msg of resourceNameErrors(k)) errs.push(invalidValue(p, k, msg));
      if (typeof v !== 'string' && typeof v !== 'number') continue;
      const q = parseQuantity(v);
      if (!q.ok) continue; // refused at decoding already (400)
      if (q.value < 0) errs.push(invalidValue(p, v, 'must be greater than or equal to 0'));
      values[part][k] = q.value;
    }
  }
  for (const [k, req] of Object.entries(values.requests)) {
    const lim = values.limits[k];
    if (lim !== undefined && req > lim) errs.push(invalidValue(`${path}.requests[${k}]`, String((res.requests as Obj)[k]), `must be less than or equal to ${k} limit`));
  }
}

function validatePortNumOrName(v: unknown, path: string, errs: FieldError[]): void {
  if (typeof v === 'number') {
    if (v < 1 || v > 65535) errs.push(invalidValue(path, v, 'must be between 1 and 65535, inclusive'));
  } else if (typeof v === 'string') {
    for (const m of portNameErrors(v)) errs.push(invalidValue(path, v, m));
  } else if (isUnset(v)) errs.push(required(path));
}

const HANDLERS = ['exec', 'httpGet', 'tcpSocket'] as const;

function validateHandler(h: Obj, path: string, errs: FieldError[], what: 'probe' | 'lifecycle'): void {
  const set = HANDLERS.filter((k) => !isUnset(h[k]));
  if (set.length === 0) errs.push(required(path, 'must specify a handler type'));
  else if (set.length > 1) errs.push(forbiddenField(`${path}.${set[1]}`, 'may not specify more than 1 handler type'));
  if (isObj(h.exec) && (!Array.isArray(h.exec.command) || h.exec.command.length === 0)) errs.push(required(`${path}.exec.command`));
  if (isObj(h.httpGet)) {
    validatePortNumOrName(h.httpGet.port, `${path}.httpGet.port`, errs);
    if (what === 'probe' && !isUnset(h.httpGet.scheme) && !['HTTP', 'HTTPS'].includes(h.httpGet.scheme as string)) errs.push(notSupported(`${path}.httpGet.scheme`, h.httpGet.scheme, ['HTTP', 'HTTPS']));
  }
  if (isObj(h.tcpSocket)) validatePortNumOrName(h.tcpSocket.port, `${path}.tcpSocket.port`, errs);
}

function validateProbe(p: unknown, path: string, errs: FieldError[]): void {
  if (!isObj(p)) return;
  validateHandler(p, path, errs, 'probe');
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const v = p[f];
    if (typeof v === 'number' && v < 0) errs.push(invalidValue(`${path}.${f}`, v, 'must be greater than or equal to 0'));
  }
}

const FIELD_REF_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.labels', 'metadata.annotations', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP'];

function validateKeyRef(ref: Obj, path: string, errs: FieldError[]): void {
  if (typeof ref.name !== 'string' || ref.name === '') errs.push(required(`${path}.name`));
  else for (const m of nameErrors(ref.name, 'dns1123-subdomain')) errs.push(invalidValue(`${path}.name`, ref.name, m));
  if (typeof ref.key !== 'string' || ref.key === '') errs.push(required(`${path}.key`));
  else for (const m of configKeyErrors(ref.key)) errs.push(invalidValue(`${path}.key`, ref.key, m));
}

function validateEnv(env: unknown, path: string, errs: FieldError[]): void {
  if (!Array.isArray(env)) return;
  env.forEach((e, i) => {
    if (!isObj(e) || !isObj(e.valueFrom)) return;
    const vf = e.valueFrom;
    const p = `${path}[${i}].valueFrom`;
    const sources = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef'].filter((k) => !isUnset(vf[k]));
    if (typeof e.value === 'string' && e.value !== '') errs.push(invalidValue(p, '', 'may not be specified when `value` is not empty'));
    if (sources.length === 0) errs.push(invalidValue(p, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (sources.length > 1) errs.push(invalidValue(p, '', 'may not have more than one field specified at a time'));
    if (isObj(vf.fieldRef)) {
      const fp = vf.fieldRef.fieldPath;
      if (typeof fp !== 'string' || fp === '') errs.push(required(`${p}.fieldRef.fieldPath`));
      else if (!FIELD_REF_PATHS.includes(fp)) errs.push(notSupported(`${p}.fieldRef.fieldPath`, fp, FIELD_REF_PATHS));
    }
    if (isObj(vf.resourceFieldRef) && (typeof vf.resourceFieldRef.resource !== 'string' || vf.resourceFieldRef.resource === '')) errs.push(required(`${p}.resourceFieldRef.resource`));
    if (isObj(vf.configMapKeyRef)) validateKeyRef(vf.configMapKeyRef, `${p}.configMapKeyRef`, errs);
    if (isObj(vf.secretKeyRef)) validateKeyRef(vf.secretKeyRef, `${p}.secretKeyRef`, errs);
  });
}

function validateEnvFrom(envFrom: unknown, path: string, errs: FieldError[]): void {
  if (!Array.isArray(envFrom)) return;
  envFrom.forEach((e, i) => {
    if (!isObj(e)) return;
    const p = `${path}[${i}]`;
    if (typeof e.prefix === 'string' && e.prefix !== '') for (const m of envVarNameErrors(e.prefix)) errs.push(invalidValue(`${p}.prefix`, e.prefix, m));
    const sources = ['configMapRef', 'secretRef'].filter((k) => !isUnset(e[k]));
    if (sources.length === 0) errs.push(invalidValue(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources.length > 1) errs.push(forbiddenField(p, 'may not have more than one field specified at a time'));
    for (const k of sources) {
      const ref = e[k];
      if (isObj(ref) && (typeof ref.name !== 'string' || ref.name === '')) errs.push(required(`${p}.${k}.name`));
    }
  });
}

/** Container rules beyond names, images, ports and env names (pod-spec.ts does those). */
export function validateContainerExtras(c: Obj, path: string, errs: FieldError[]): void {
  validateResources(c.resources, `${path}.resources`, errs);
  validateProbe(c.livenessProbe, `${path}.livenessProbe`, errs);
  validateProbe(c.readinessProbe, `${path}.readinessProbe`, errs);
  if (isObj(c.livenessProbe) && typeof c.livenessProbe.successThreshold === 'number' && c.livenessProbe.successThreshold !== 1) {
    errs.push(invalidValue(`${path}.livenessProbe.successThreshold`, c.livenessProbe.successThreshold, 'must be 1'));
  }
  if (isObj(c.lifecycle)) {
    for (const hook of ['postStart', 'preStop']) if (isObj(c.lifecycle[hook])) validateHandler(c.lifecycle[hook] as Obj, `${path}.lifecycle.${hook}`, errs, 'lifecycle');
  }
  if (Array.isArray(c.ports)) {
    c.ports.forEach((p, i) => {
      if (isObj(p) && typeof p.name === 'string' && p.name !== '') for (const m of portNameErrors(p.name)) errs.push(invalidValue(`${path}.ports[${i}].name`, p.name, m));
    });
  }
  validateEnv(c.env, `${path}.env`, errs);
  validateEnvFrom(c.envFrom, `${path}.envFrom`, errs);
  if (Array.isArray(c.volumeMounts)) {
    const paths = new Set<string>();
    c.volumeMounts.forEach((m, j) => {
      if (!isObj(m) || typeof m.mountPath !== 'string' || m.mountPath === '') return;
      if (paths.has(m.mountPath)) errs.push(invalidValue(`${path}.volumeMounts[${j}].mountPath`, m.mountPath, 'must be unique'));
      paths.add(m.mountPath);
    });
  }
}

/** Host ports are unique in a pod per protocol (the real AccumulateUniqueHostPorts): Duplicate "8080/TCP". */
export function validateHostPorts(spec: Obj, path: string, errs: FieldError[]): void {
  const seen = new Set<string>();
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    cs.forEach((c, i) => {
      if (!isObj(c) || !Array.isArray(c.ports)) return;
      c.ports.forEach((p, j) => {
        if (!isObj(p) || typeof p.hostPort !== 'number' || p.hostPort === 0) return;
        const key = `${p.hostPort}/${typeof p.protocol === 'string' ? p.protocol : 'TCP'}`;
        if (seen.has(key)) errs.push(duplicate(`${path}.${list}[${i}].ports[${j}].hostPort`, key));
        seen.add(key);
      });
    });
  }
}

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi', 'glusterfs', 'persistentVolumeClaim', 'rbd',
  'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc', 'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk',
  'projected', 'portworxVolume', 'scaleIO', 'storageos',
];

/**
 * The fields 1.9's validation requires of the cloud and network volume sources (pods and persistent volumes alike;
 * a persistent volume's secretRef of ScaleIO is a SecretReference, a pod's a LocalObjectReference, both need a name).
 */
export const SOURCE_REQUIRED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  azureDisk: ['diskName', 'diskURI'],
  azureFile: ['secretName', 'shareName'],
  cephfs: ['monitors'],
  cinder: ['volumeID'],
  glusterfs: ['endpoints', 'path'],
  iscsi: ['targetPortal', 'iqn'],
  photonPersistentDisk: ['pdID'],
  portworxVolume: ['volumeID'],
  quobyte: ['registry', 'volume'],
  rbd: ['monitors', 'image'],
  scaleIO: ['gateway', 'system', 'secretRef'],
  vsphereVolume: ['volumePath'],
};

const isEmptyValue = (v: unknown) => isUnset(v) || v === '' || (Array.isArray(v) && v.length === 0);

/** The required fields of a cloud or network source, the one-of rules of fc and flocker, and iSCSI's lun range. */
export function validateStorageSource(name: string, src: Obj, path: string, errs: FieldError[]): void {
  for (const f of SOURCE_REQUIRED_FIELDS[name] ?? []) if (isEmptyValue(src[f])) errs.push(required(`${path}.${f}`));
  if (name === 'iscsi' && typeof src.lun === 'number' && (src.lun < 0 || src.lun > 255)) errs.push(invalidValue(`${path}.lun`, src.lun, 'must be between 0 and 255, inclusive'));
  if (name === 'fc') {
    const wwns = !isEmptyValue(src.targetWWNs);
    const wwids = !isEmptyValue(src.wwids);
    if (!wwns && !wwids) errs.push(required(`${path}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
    else if (wwns && wwids) errs.push(invalidValue(`${path}.targetWWNs`, src.targetWWNs, 'targetWWNs and wwids can not be specified simultaneously'));
    else if (wwns && isUnset(src.lun)) errs.push(required(`${path}.lun`, 'lun is required if targetWWNs is specified'));
  }
  if (name === 'flocker') {
    const named = !isEmptyValue(src.datasetName);
    const byId = !isEmptyValue(src.datasetUUID);
    if (named === byId) errs.push(required(path, 'one and only one of datasetName and datasetUUID is required'));
  }
}

function validateMode(v: unknown, path: string, errs: FieldError[]): void {
  if (typeof v === 'number' && (v < 0 || v > 0o777)) errs.push(invalidValue(path, v, 'must be a number between 0 and 0777 (octal), both inclusive'));
}

function validateItems(items: unknown, path: string, errs: FieldError[]): void {
  if (!Array.isArray(items)) return;
  items.forEach((it, i) => {
    if (!isObj(it)) return;
    const p = `${path}[${i}]`;
    if (typeof it.key !== 'string' || it.key === '') errs.push(required(`${p}.key`));
    if (typeof it.path !== 'string' || it.path === '') errs.push(required(`${p}.path`));
    else if (it.path.startsWith('/')) errs.push(invalidValue(`${p}.path`, it.path, 'must be a relative path'));
    else if (it.path.split('/').includes('..')) errs.push(invalidValue(`${p}.path`, it.path, "must not contain '..'"));
    validateMode(it.mode, `${p}.mode`, errs);
  });
}

/** Each volume: at most one source (none is defaulted to emptyDir, as the real defaulter does) and its fields. */
export function validateVolumeSources(volumes: unknown, path: string, errs: FieldError[]): void {
  if (!Array.isArray(volumes)) return;
  volumes.forEach((v, i) => {
    if (!isObj(v)) return;
    const p = `${path}[${i}]`;
    const sources = VOLUME_SOURCES.filter((k) => !isUnset(v[k]));
    if (sources.length === 0) errs.push(required(p, 'must specify a volume type'));
    else if (sources.length > 1) errs.push(forbiddenField(`${p}.${sources[1]}`, 'may not specify more than 1 volume type'));
    if (isObj(v.secret)) {
      if (typeof v.secret.secretName !== 'string' || v.secret.secretName === '') errs.push(required(`${p}.secret.secretName`));
      validateMode(v.secret.defaultMode, `${p}.secret.defaultMode`, errs);
      validateItems(v.secret.items, `${p}.secret.items`, errs);
    }
    if (isObj(v.configMap)) {
      if (typeof v.configMap.name !== 'string' || v.configMap.name === '') errs.push(required(`${p}.configMap.name`));
      validateMode(v.configMap.defaultMode, `${p}.configMap.defaultMode`, errs);
      validateItems(v.configMap.items, `${p}.configMap.items`, errs);
    }
    if (isObj(v.hostPath) && (typeof v.hostPath.path !== 'string' || v.hostPath.path === '')) errs.push(required(`${p}.hostPath.path`));
    if (isObj(v.persistentVolumeClaim) && (typeof v.persistentVolumeClaim.claimName !== 'string' || v.persistentVolumeClaim.claimName === '')) errs.push(required(`${p}.persistentVolumeClaim.claimName`));
    if (isObj(v.emptyDir) && !isUnset(v.emptyDir.medium) && !['', 'Memory', 'HugePages'].includes(v.emptyDir.medium as string)) errs.push(notSupported(`${p}.emptyDir.medium`, v.emptyDir.medium, ['', 'Memory', 'HugePages']));
    if (isObj(v.downwardAPI)) validateMode(v.downwardAPI.defaultMode, `${p}.downwardAPI.defaultMode`, errs);
    if (isObj(v.projected)) validateMode(v.projected.defaultMode, `${p}.projected.defaultMode`, errs);
    for (const name of sources) if (isObj(v[name])) validateStorageSource(name, v[name] as Obj, `${p}.${name}`, errs);
    if (isObj(v.nfs)) {
      if (typeof v.nfs.server !== 'string' || v.nfs.server === '') errs.push(required(`${p}.nfs.server`));
      if (typeof v.nfs.path !== 'string' || v.nfs.path === '') errs.push(required(`${p}.nfs.path`));
    }
  });
}
