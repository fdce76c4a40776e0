// Storage kinds as the 1.9 API server defines them:
// - core/v1 PersistentVolume (cluster-scoped) and PersistentVolumeClaim: status.phase starts Pending (the real
//   server's defaulting on every decode); status only through /status, written by the volume controllers.
//   A volume needs a capacity (storage only), access modes, exactly one volume source; its source never changes.
//   A claim needs access modes and resources.requests.storage; its spec is fixed after creation except a
//   volumeName set once and, for a bound claim, a larger storage request (volume expansion; never smaller).
// - storage.k8s.io/v1 (and v1beta1) StorageClass: a provisioner (qualified name), reclaimPolicy Delete or Retain
//   (defaulted to Delete); provisioner, parameters and reclaimPolicy cannot change.
// - storage.k8s.io/v1beta1 VolumeAttachment: attacher, source.persistentVolumeName and nodeName are required and
//   the spec cannot change; the status is written by whoever completes the attachment.

import type { KubeObject } from '../meta.ts';
import { isDeepStrictEqual } from 'node:util';
import { registerStrategy } from '../strategy.ts';
import { type FieldError, forbiddenField, invalidValue, notSupported, required } from '../field-errors.ts';
import { parseQuantity, QUANTITY_ERROR } from '../quantity-sum.ts';
import { nameErrors } from '../names.ts';
import { validateLabelSelector } from './selector.ts';
import { validateStorageSource } from '../validation/pod.ts';
import { type Obj, isObj } from './util.ts';

export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'];
export const RECLAIM_POLICIES = ['Recycle', 'Delete', 'Retain'];
export const CLASS_RECLAIM_POLICIES = ['Delete', 'Retain'];
export const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
/** The volume sources a PersistentVolume may name here (the wire schema's PersistentVolumeSource). */
export const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder', 'cephfs', 'fc', 'flocker', 'flexVolume',
  'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local', 'storageos', 'csi',
];

const specOf = (o: KubeObject): Obj => (isObj(o.spec) ? o.spec : {});

/** Bytes of a quantity (whole units), undefined when it does not parse. */
export function quantityBytes(v: unknown): number | undefined {
  const q = parseQuantity(v);
  return q ? q.milli / 1000 : undefined;
}

function validateAccessModes(modes: unknown, path: string, whenEmpty: string): FieldError[] {
  if (!Array.isArray(modes) || modes.length === 0) return [required(path, whenEmpty)];
  const errs: FieldError[] = [];
  modes.forEach((m) => {
    if (!ACCESS_MODES.includes(m as string)) errs.push(notSupported(path, m, ACCESS_MODES));
  });
  return errs;
}

function validateStorageQuantity(v: unknown, path: string): FieldError[] {
  const q = parseQuantity(v);
  if (!q) return [invalidValue(path, v, QUANTITY_ERROR)];
  if (q.milli < 0) return [invalidValue(path, v, 'must be greater than or equal to 0')];
  return [];
}

function validateClassName(v: unknown, path: string): FieldError[] {
  if (v === undefined || v === null || v === '') return [];
  return nameErrors(String(v), 'dns1123-subdomain').map((msg) => invalidValue(path, v, msg));
}

const nonEmpty = (o: Obj | undefined, f: string) => typeof o?.[f] === 'string' && (o[f] as string) !== '';

/** The one volume source a PersistentVolume's spec names, with its own required fields. */
function validateVolumeSource(spec: Obj): FieldError[] {
  const set = PV_SOURCES.filter((s) => isObj(spec[s]));
  if (set.length === 0) return [required('spec', 'must specify a volume type')];
  const errs: FieldError[] = [];
  for (const extra of set.slice(1)) errs.push(forbiddenField(`spec.${extra}`, 'may not specify more than 1 volume type'));
  const req = (src: string, field: string, detail?: string) => {
    if (!nonEmpty(spec[src] as Obj, field)) errs.push(required(`spec.${src}.${field}`, detail));
  };
  if (isObj(spec.hostPath)) {
    req('hostPath', 'path');
    if (spec.persistentVolumeReclaimPolicy === 'Recycle' && /^\/+$/.test(String(spec.hostPath.path ?? ''))) {
      errs.push(forbiddenField('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
    }
  }
  if (isObj(spec.nfs)) {
    req('nfs', 'server');
    req('nfs', 'path');
    if (nonEmpty(spec.nfs, 'path') && !String(spec.nfs.path).startsWith('/')) errs.push(invalidValue('spec.nfs.path', spec.nfs.path, 'must be an absolute path'));
  }
  for (const name of set) validateStorageSource(name, spec[name] as Obj, `spec.${name}`, errs);
  if (isObj(spec.gcePersistentDisk)) req('gcePersistentDisk', 'pdName');
  if (isObj(spec.awsElasticBlockStore)) req('awsElasticBlockStore', 'volumeID');
  if (isObj(spec.flexVolume)) req('flexVolume', 'driver');
  if (isObj(spec.local)) req('local', 'path');
  if (isObj(spec.csi)) {
    req('csi', 'driver');
    req('csi', 'volumeHandle');
  }
  return errs;
}

// ---- PersistentVolume ----

function defaultVolume(obj: KubeObject): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  if (spec.persistentVolumeReclaimPolicy === undefined || spec.persistentVolumeReclaimPolicy === '') spec.persistentVolumeReclaimPolicy = 'Retain';
}

/** Created objects start Pending (the real server's status defaulting). */
const pendingStatus = (obj: KubeObject) => {
  obj.status = { phase: 'Pending' };
};

export function validatePersistentVolume(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', 'must specify at least 1 access mode'));
  const cap = isObj(spec.capacity) ? spec.capacity : {};
  if (Object.keys(cap).length === 0) errs.push(required('spec.capacity', 'must specify a volume capacity'));
  for (const [k, v] of Object.entries(cap)) {
    if (k !== 'storage') errs.push(notSupported(`spec.capacity`, k, ['storage']));
    else errs.push(...validateStorageQuantity(v, 'spec.capacity[storage]'));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy !== undefined && !RECLAIM_POLICIES.includes(policy as string)) errs.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  errs.push(...validateVolumeSource(spec));
  if (spec.claimRef !== undefined && spec.claimRef !== null && !isObj(spec.claimRef)) errs.push(invalidValue('spec.claimRef', spec.claimRef, 'must be an object reference'));
  return errs;
}

function validateVolumeUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const pick = (o: KubeObject) => Object.fromEntries(PV_SOURCES.map((s) => [s, specOf(o)[s]]).filter(([, v]) => v !== undefined));
  if (!isDeepStrictEqual(pick(next), pick(old))) return [forbiddenField('spec.persistentvolumesource', 'is immutable after creation')];
  return [];
}

registerStrategy('PersistentVolume', { applyDefaults: defaultVolume, prepareForCreate: pendingStatus, validate: validatePersistentVolume, validateUpdate: validateVolumeUpdate });

// ---- PersistentVolumeClaim ----

export const claimRequest = (o: KubeObject): unknown => {
  const res = specOf(o).resources;
  return isObj(res) && isObj(res.requests) ? res.requests.storage : undefined;
};

export function validatePersistentVolumeClaim(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required'));
  if (isObj(spec.selector)) errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const storage = claimRequest(obj);
  if (storage === undefined || storage === null) errs.push(required('spec.resources[storage]'));
  else errs.push(...validateStorageQuantity(storage, 'spec.resources[storage]'));
  errs.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  const status = isObj(obj.status) ? obj.status : {};
  if (isObj(status.capacity)) for (const [k, v] of Object.entries(status.capacity)) errs.push(...validateStorageQuantity(v, `status.capacity[${k}]`));
  return errs;
}

/**
 * A claim's spec is fixed, except: volumeName may be set once (binding), and a bound claim may ask for more
 * storage (the real server allows it with volume expansion, which this simulator serves; never less).
 */
function validateClaimUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const n = structuredClone(specOf(next));
  const o = specOf(old);
  if (!o.volumeName) n.volumeName = o.volumeName;
  const errs: FieldError[] = [];
  const bound = isObj(old.status) && old.status.phase === 'Bound';
  const nb = quantityBytes(claimRequest(next));
  const ob = quantityBytes(claimRequest(old));
  if (bound && nb !== undefined && ob !== undefined) {
    if (nb < ob) errs.push(forbiddenField('spec.resources.requests.storage', 'field can not be less than previous value'));
    const res = isObj(n.resources) ? n.resources : {};
    n.resources = { ...res, requests: { ...(isObj(res.requests) ? res.requests : {}), storage: claimRequest(old) } };
  }
  const clean = (s: Obj) => JSON.parse(JSON.stringify(s)) as Obj;
  if (!isDeepStrictEqual(clean(n), clean(o))) errs.push(forbiddenField('spec', 'is immutable after creation except resources.requests for bound claims'));
  return errs;
}

registerStrategy('PersistentVolumeClaim', { prepareForCreate: pendingStatus, validate: validatePersistentVolumeClaim, validateUpdate: validateClaimUpdate });

// ---- StorageClass ----

const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_BYTES = 256 * 1024;

function defaultStorageClass(obj: KubeObject): void {
  const o = obj as Obj;
  if (o.reclaimPolicy === undefined || o.reclaimPolicy === null || o.reclaimPolicy === '') o.reclaimPolicy = 'Delete';
}

export function validateStorageClass(obj: KubeObject): FieldError[] {
  const o = obj as Obj;
  const errs: FieldError[] = [];
  const p = o.provisioner;
  if (typeof p !== 'string' || p === '') errs.push(required('provisioner'));
  else {
    const name = p.toLowerCase();
    const slash = name.lastIndexOf('/');
    if (!QUALIFIED_NAME.test(name) || name.length - slash - 1 > 63) {
      errs.push(invalidValue('provisioner', p, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"));
    }
  }
  if (isObj(o.parameters)) {
    const entries = Object.entries(o.parameters);
    if (entries.length > MAX_PARAMETERS) errs.push(invalidValue('parameters', entries.length, `must have at most ${MAX_PARAMETERS} parameters`));
    let size = 0;
    for (const [k, v] of entries) {
      if (k === '') errs.push(invalidValue('parameters', o.parameters, 'key cannot be empty'));
      size += k.length + String(v).length;
    }
    if (size > MAX_PARAMETERS_BYTES) errs.push(forbiddenField('parameters', `must have a total size of at most ${MAX_PARAMETERS_BYTES} bytes`));
  }
  if (o.reclaimPolicy !== undefined && !CLASS_RECLAIM_POLICIES.includes(o.reclaimPolicy as string)) errs.push(notSupported('reclaimPolicy', o.reclaimPolicy, CLASS_RECLAIM_POLICIES));
  if (o.volumeBindingMode !== undefined && !BINDING_MODES.includes(o.volumeBindingMode as string)) errs.push(notSupported('volumeBindingMode', o.volumeBindingMode, BINDING_MODES));
  if (o.allowVolumeExpansion !== undefined && typeof o.allowVolumeExpansion !== 'boolean') errs.push(invalidValue('allowVolumeExpansion', o.allowVolumeExpansion, 'must be a boolean'));
  return errs;
}

function validateStorageClassUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  const n = next as Obj;
  const o = old as Obj;
  const errs: FieldError[] = [];
  if (!isDeepStrictEqual(n.parameters ?? {}, o.parameters ?? {})) errs.push(forbiddenField('parameters', 'updates to parameters are forbidden.'));
  if (n.provisioner !== o.provisioner) errs.push(forbiddenField('provisioner', 'updates to provisioner are forbidden.'));
  if (n.reclaimPolicy !== o.reclaimPolicy) errs.push(forbiddenField('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  return errs;
}

registerStrategy('StorageClass', { applyDefaults: defaultStorageClass, validate: validateStorageClass, validateUpdate: validateStorageClassUpdate });

// ---- VolumeAttachment ----

export function validateVolumeAttachment(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (!nonEmpty(spec, 'attacher')) errs.push(required('spec.attacher'));
  const source = isObj(spec.source) ? spec.source : undefined;
  if (!nonEmpty(source, 'persistentVolumeName')) errs.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  if (!nonEmpty(spec, 'nodeName')) errs.push(required('spec.nodeName'));
  return errs;
}

function validateVolumeAttachmentUpdate(next: KubeObject, old: KubeObject): FieldError[] {
  return isDeepStrictEqual(specOf(next), specOf(old)) ? [] : [invalidValue('spec', next.spec, 'field is immutable')];
}

registerStrategy('VolumeAttachment', { validate: validateVolumeAttachment, validateUpdate: validateVolumeAttachmentUpdate });
