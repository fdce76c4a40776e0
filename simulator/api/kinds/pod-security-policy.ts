// PodSecurityPolicy (extensions/v1beta1, cluster-scoped): 1.9's default (allowPrivilegeEscalation true) and
// ValidatePodSecurityPolicy: the four strategies' rules and ID ranges, the volume plugins (1.9's list and "*"),
// host port ranges, capabilities neither required to drop and allowed or added by default (1.9 names those fields
// without "spec."), defaultAllowPrivilegeEscalation only with allowPrivilegeEscalation, allowed host paths and
// flex volumes, and the seccomp and AppArmor profile annotations.

import type { KubeObject } from '../meta.ts';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, invalidValue, notSupported, required } from '../field-errors.ts';
import { type Obj, isObj } from './util.ts';

/** 1.9's volume plugins a policy may name (psputil.GetAllFSTypesAsSet), and "*". */
export const PSP_VOLUME_TYPES = [
  '*', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephFS', 'cinder', 'configMap', 'downwardAPI', 'emptyDir', 'fc', 'flexVolume', 'flocker',
  'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'iscsi', 'nfs', 'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected',
  'quobyte', 'rbd', 'scaleIO', 'secret', 'storageos', 'vsphereVolume',
];

export const SECCOMP_DEFAULT = 'seccomp.security.alpha.kubernetes.io/defaultProfileName';
export const SECCOMP_ALLOWED = 'seccomp.security.alpha.kubernetes.io/allowedProfileNames';
const APPARMOR_DEFAULT = 'apparmor.security.beta.kubernetes.io/defaultProfileName';
const APPARMOR_ALLOWED = 'apparmor.security.beta.kubernetes.io/allowedProfileNames';

const STRATEGY_RULES: Array<[string, string[]]> = [
  ['runAsUser', ['MustRunAs', 'MustRunAsNonRoot', 'RunAsAny']],
  ['seLinux', ['MustRunAs', 'RunAsAny']],
  ['supplementalGroups', ['MustRunAs', 'RunAsAny']],
  ['fsGroup', ['MustRunAs', 'RunAsAny']],
];

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');

function applyDefaults(obj: KubeObject): void {
  const spec = obj.spec as Obj | undefined;
  if (isObj(spec) && (spec.allowPrivilegeEscalation === undefined || spec.allowPrivilegeEscalation === null)) spec.allowPrivilegeEscalation = true;
}

function validateIdRange(r: Obj, path: string, errs: FieldError[]): void {
  const min = typeof r.min === 'number' ? r.min : 0;
  const max = typeof r.max === 'number' ? r.max : 0;
  if (min < 0) errs.push(invalidValue(`${path}.min`, min, 'min cannot be negative'));
  if (max < 0) errs.push(invalidValue(`${path}.max`, max, 'max cannot be negative'));
  if (min > max) errs.push(invalidValue(path, min, 'min cannot be greater than max'));
}

function validateHostPortRange(r: Obj, path: string, errs: FieldError[]): void {
  const min = typeof r.min === 'number' ? r.min : 0;
  const max = typeof r.max === 'number' ? r.max : 0;
  if (min < 0 || min > 65535) errs.push(invalidValue(`${path}.min`, min, 'min must be between 0 and 65535, inclusive'));
  if (max < 0 || max > 65535) errs.push(invalidValue(`${path}.max`, max, 'max must be between 0 and 65535, inclusive'));
  if (min > max) errs.push(invalidValue(path, r, 'min cannot be greater than max'));
}

/** 1.9's seccomp profile names: docker/default, unconfined, localhost/<relative path without "..">. */
function seccompProfileErrors(p: string): string | undefined {
  if (p === 'docker/default' || p === 'unconfined') return undefined;
  if (p.startsWith('localhost/')) {
    const rest = p.slice('localhost/'.length);
    return rest.startsWith('/') || rest.split('/').includes('..') ? 'must be a valid seccomp profile' : undefined;
  }
  return 'must be a valid seccomp profile';
}

/** 1.9's AppArmor profile names: runtime/default or localhost/<name>. */
const apparmorProfileError = (p: string) => (p === '' || p === 'runtime/default' || p.startsWith('localhost/') ? undefined : `invalid AppArmor profile name: "${p}"`);

function validateAnnotations(annotations: Record<string, string>, errs: FieldError[]): void {
  const at = (k: string) => `metadata.annotations[${k}]`;
  const seccompDefault = annotations[SECCOMP_DEFAULT];
  if (seccompDefault !== undefined) {
    const e = seccompProfileErrors(seccompDefault);
    if (e) errs.push(invalidValue(at(SECCOMP_DEFAULT), seccompDefault, e));
  }
  for (const p of (annotations[SECCOMP_ALLOWED] ?? '').split(',').filter(Boolean)) {
    const e = p === '*' ? undefined : seccompProfileErrors(p);
    if (e) errs.push(invalidValue(at(SECCOMP_ALLOWED), p, e));
  }
  for (const k of [APPARMOR_DEFAULT, APPARMOR_ALLOWED]) {
    for (const p of (annotations[k] ?? '').split(',').filter(Boolean)) {
      const e = apparmorProfileError(p);
      if (e) errs.push(invalidValue(at(k), p, e));
    }
  }
}

export function validatePodSecurityPolicy(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  validateAnnotations(obj.metadata.annotations ?? {}, errs);
  const spec = (isObj(obj.spec) ? obj.spec : {}) as Obj;
  for (const [field, rules] of STRATEGY_RULES) {
    const s = (isObj(spec[field]) ? spec[field] : {}) as Obj;
    if (!rules.includes(s.rule as string)) errs.push(notSupported(`spec.${field}.rule`, s.rule ?? '', rules));
    list(s.ranges).forEach((r, i) => isObj(r) && validateIdRange(r, `spec.${field}.ranges[${i}]`, errs));
  }
  const volumes = strings(spec.volumes);
  for (const v of volumes) if (!PSP_VOLUME_TYPES.includes(v)) errs.push(notSupported('spec.volumes', v, PSP_VOLUME_TYPES));
  list(spec.hostPorts).forEach((r, i) => isObj(r) && validateHostPortRange(r, `spec.hostPorts[${i}]`, errs));
  const drops = strings(spec.requiredDropCapabilities);
  const allowed = strings(spec.allowedCapabilities);
  if (drops.length && allowed.includes('*')) errs.push(invalidValue('requiredDropCapabilities', drops, 'must be empty when all capabilities are allowed by a wildcard'));
  for (const field of ['defaultAddCapabilities', 'allowedCapabilities']) {
    for (const cap of strings(spec[field])) if (drops.includes(cap)) errs.push(invalidValue(field, cap, `capability is listed in ${field} and requiredDropCapabilities`));
  }
  if (spec.defaultAllowPrivilegeEscalation === true && spec.allowPrivilegeEscalation === false) {
    errs.push(invalidValue('spec.defaultAllowPrivilegeEscalation', true, 'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true'));
  }
  list(spec.allowedHostPaths).forEach((p, i) => {
    const prefix = isObj(p) && typeof p.pathPrefix === 'string' ? p.pathPrefix : '';
    if (prefix === '') errs.push(required(`spec.allowedHostPaths[${i}]`, ''));
    else if (prefix.split('/').includes('..')) errs.push(invalidValue(`spec.allowedHostPaths[${i}]`, prefix, "must not contain '..'"));
  });
  const flex = list(spec.allowedFlexVolumes);
  if (flex.length && !volumes.includes('*') && !volumes.includes('flexVolume')) {
    errs.push(invalidValue('spec.allowedFlexVolumes', flex, "volumes does not include 'flexVolume' or '*', so no flex volumes are allowed"));
  }
  flex.forEach((f, i) => {
    if (!isObj(f) || typeof f.driver !== 'string' || f.driver === '') errs.push(required(`spec.allowedFlexVolumes[${i}].driver`, 'must specify a driver'));
  });
  return errs;
}

registerStrategy('PodSecurityPolicy', { applyDefaults, validate: validatePodSecurityPolicy });
