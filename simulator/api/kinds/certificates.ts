// certificates.k8s.io CertificateSigningRequest, v1beta1 (the 1.9 API, the storage form) and v1 (served over the
// same storage, the version current kubectl approves through). As the real strategies:
// - create: the requester (spec.username, uid, groups, extra) is who sent the request, never the body; the status
//   starts empty (nobody creates a pre-approved request);
// - the main resource changes neither spec nor status; /status changes the certificate and adds conditions other
//   than Approved/Denied (Failed, from the signer); /approval changes only the conditions (generic store);
// - v1beta1 defaults usages to digital signature + key encipherment (1.9 SetDefaults); v1 requires usages and
//   signerName, and a status on each condition (True, False or Unknown);
// - validation: spec.request must be a PEM CERTIFICATE REQUEST whose signature checks (ParseCSR + CheckSignature),
//   usages must be given; Approved, Denied and Failed appear once each, Approved and Denied never together (the
//   later servers' rule: a request is either approved or denied).
// Reading through v1 fills what the v1beta1 form may lack: signerName (by the request's content, as the real
// defaulting does) and a condition status of "True".

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { registerStrategy, type Requester } from '../strategy.ts';
import { type FieldError, duplicate, invalidValue, notSupported, required } from '../field-errors.ts';
import { CsrError, csrSignatureValid, parseCsrPem, type ParsedCsr } from '../pkcs10.ts';
import { isObj, type Obj } from './util.ts';

export const APPROVED = 'Approved';
export const DENIED = 'Denied';
export const FAILED = 'Failed';
export const V1 = 'certificates.k8s.io/v1';

export const KUBELET_CLIENT_USAGES = ['key encipherment', 'digital signature', 'client auth'];
export const SIGNER_KUBELET_CLIENT = 'kubernetes.io/kube-apiserver-client-kubelet';
export const SIGNER_KUBELET_SERVING = 'kubernetes.io/kubelet-serving';
export const SIGNER_LEGACY_UNKNOWN = 'kubernetes.io/legacy-unknown';

/** Every key usage the API names (capi.KeyUsage). */
export const KEY_USAGES = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment', 'cert sign', 'crl sign',
  'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing', 'email protection', 's/mime', 'ipsec end system',
  'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing', 'microsoft sgc', 'netscape sgc',
];

export interface CsrCondition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
}

const specOf = (o: KubeObject): Obj => (isObj(o.spec) ? o.spec : {});
export const conditionsOf = (o: KubeObject): CsrCondition[] => {
  const c = isObj(o.status) ? o.status.conditions : undefined;
  return Array.isArray(c) ? (c.filter(isObj) as unknown as CsrCondition[]) : [];
};
export const isApproved = (o: KubeObject) => conditionsOf(o).some((c) => c.type === APPROVED && (c.status ?? 'True') === 'True');
export const isDenied = (o: KubeObject) => conditionsOf(o).some((c) => c.type === DENIED && (c.status ?? 'True') === 'True');
export const isFailed = (o: KubeObject) => conditionsOf(o).some((c) => c.type === FAILED && (c.status ?? 'True') === 'True');

/** The PEM text of spec.request (base64 on the wire). */
export function requestPem(o: KubeObject): Buffer {
  const r = specOf(o).request;
  return typeof r === 'string' ? Buffer.from(r, 'base64') : Buffer.alloc(0);
}

/** The parsed request, checked like the real ParseCSR + CheckSignature; throws CsrError. */
export function parseRequest(o: KubeObject): ParsedCsr {
  const parsed = parseCsrPem(requestPem(o));
  if (!csrSignatureValid(parsed)) throw new CsrError('x509: signature verification failure');
  return parsed;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The kubelet client shape of the 1.9 approver (isNodeClientCert): O=[system:nodes], CN system:node:*, no SANs, exactly the client usages. */
export function isNodeClientRequest(usages: string[], p: ParsedCsr): boolean {
  if (p.organizations.length !== 1 || p.organizations[0] !== 'system:nodes') return false;
  if (p.dnsNames.length > 0 || p.emailAddresses.length > 0 || p.ipAddresses.length > 0) return false;
  if (!sameSet([...new Set(usages)], KUBELET_CLIENT_USAGES) || usages.length !== new Set(usages).size) return false;
  return p.commonName.startsWith('system:node:');
}

/** signerName as the real defaulting picks it from the request's content. */
export function defaultSignerName(o: KubeObject): string {
  let p: ParsedCsr;
  try {
    p = parseCsrPem(requestPem(o));
  } catch {
    return SIGNER_LEGACY_UNKNOWN;
  }
  const usages = (specOf(o).usages as string[] | undefined) ?? [];
  if (isNodeClientRequest(usages, p)) return SIGNER_KUBELET_CLIENT;
  const serving = ['key encipherment', 'digital signature', 'server auth'];
  const servingOk = sameSet([...new Set(usages)], serving) || sameSet([...new Set(usages)], ['digital signature', 'server auth']);
  if (servingOk && p.organizations.length === 1 && p.organizations[0] === 'system:nodes' && p.commonName.startsWith('system:node:') && p.emailAddresses.length === 0 && p.uris.length === 0 && p.dnsNames.length + p.ipAddresses.length > 0) {
    return SIGNER_KUBELET_SERVING;
  }
  return SIGNER_LEGACY_UNKNOWN;
}

const isV1 = (def: ResourceDef) => def.version === 'v1';

function applyDefaults(obj: KubeObject, def: ResourceDef): void {
  if (isV1(def)) return;
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  if (!Array.isArray(spec.usages) || spec.usages.length === 0) spec.usages = ['digital signature', 'key encipherment'];
}

function prepareForCreate(obj: KubeObject, _def: ResourceDef, requester?: Requester): void {
  const spec = isObj(obj.spec) ? obj.spec : (obj.spec = {});
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (requester) {
    if (requester.name) spec.username = requester.name;
    if (requester.uid) spec.uid = requester.uid;
    if (requester.groups?.length) spec.groups = [...requester.groups];
    if (requester.extra && Object.keys(requester.extra).length) spec.extra = structuredClone(requester.extra);
  }
  obj.status = {};
}

const QUALIFIED_SIGNER = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

function validate(obj: KubeObject, def: ResourceDef): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  try {
    parseRequest(obj);
  } catch (e) {
    errs.push(invalidValue('spec.request', spec.request ?? '', (e as Error).message));
  }
  const usages = Array.isArray(spec.usages) ? spec.usages : [];
  if (usages.length === 0) errs.push(required('spec.usages', 'usages must be provided'));
  // Through v1 a new request names its signer and known usages; stored objects (labelled with the storage
  // version) may predate these rules and are read with defaults instead.
  const v1Body = obj.apiVersion === V1 || (isV1(def) && obj.apiVersion === undefined);
  if (v1Body) {
    usages.forEach((u, i) => {
      if (!KEY_USAGES.includes(u as string)) errs.push(notSupported(`spec.usages[${i}]`, u, KEY_USAGES));
    });
    const signer = typeof spec.signerName === 'string' ? spec.signerName : '';
    if (signer === '') errs.push(required('spec.signerName'));
    else if (!QUALIFIED_SIGNER.test(signer)) errs.push(invalidValue('spec.signerName', signer, 'must be a fully qualified domain and path of the form \'example.com/signer-name\''));
  }
  const seen = new Set<string>();
  conditionsOf(obj).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    if (!c.type) errs.push(required(`${path}.type`));
    if (!c.status) {
      if (v1Body) errs.push(required(`${path}.status`));
    } else if (!CONDITION_STATUSES.includes(c.status)) errs.push(notSupported(`${path}.status`, c.status, CONDITION_STATUSES));
    if (c.type === APPROVED || c.type === DENIED || c.type === FAILED) {
      if (seen.has(c.type)) errs.push(duplicate(`${path}.type`, c.type));
      seen.add(c.type);
    }
  });
  if (seen.has(APPROVED) && seen.has(DENIED)) errs.push(invalidValue('status.conditions', DENIED, 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

/** The main resource changes neither the request (immutable) nor the status (the subresources' business). */
function prepareForUpdate(next: KubeObject, old: KubeObject): void {
  next.spec = old.spec;
}

/** /status: the certificate and new non-approval conditions; the approval itself stays what it was. */
function prepareForStatusUpdate(next: KubeObject, old: KubeObject): void {
  const decided = conditionsOf(old).filter((c) => c.type === APPROVED || c.type === DENIED);
  const others = conditionsOf(next).filter((c) => c.type !== APPROVED && c.type !== DENIED);
  const status = { ...(isObj(next.status) ? next.status : {}) };
  const conditions = [...decided, ...others];
  if (conditions.length) status.conditions = conditions;
  else delete status.conditions;
  next.status = status;
}

function fromStorage(out: KubeObject, stored: KubeObject, apiVersion: string): void {
  if (apiVersion !== V1) return;
  const spec = specOf(stored);
  if (typeof spec.signerName !== 'string' || spec.signerName === '') {
    // Go's field order: request, signerName, then the rest.
    const { request, ...rest } = spec;
    out.spec = { request, signerName: defaultSignerName(stored), ...rest };
  }
  const conds = conditionsOf(stored);
  if (conds.some((c) => !c.status)) out.status = { ...(stored.status as Obj), conditions: conds.map((c) => (c.status ? c : { ...c, status: 'True' })) };
}

registerStrategy('CertificateSigningRequest', { applyDefaults, prepareForCreate, validate, prepareForUpdate, prepareForStatusUpdate, conversion: { fromStorage } });
