// The fields each kind can be selected by (the fieldSelector query parameter of list, watch and
// deletecollection), as the real 1.9 server declares them: one field-label conversion function per kind
// (pkg/apis/core/v1 and the groups' conversion.go) naming what may be asked, and the kind's ToSelectableFields
// giving each field's value as a string. A kind not listed here takes metadata.name and metadata.namespace.
//
// Values are what the real server's field set holds: strings as they are, absent strings "", integers in
// decimal (absent: "0"), booleans "true"/"false" (absent: "false"). Everything not listed is refused with a
// 400 naming the field ("field label not supported: x"), checked before anything is read.

import type { KubeObject } from '../meta.ts';
import type { ResourceDef } from '../registry.ts';
import { META_FIELDS, type FieldGetter, type SelectableFields } from '../fields.ts';

function at(obj: KubeObject, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

const str = (path: string): FieldGetter => (o) => {
  const v = at(o, path);
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
};
const int = (path: string): FieldGetter => (o) => {
  const v = at(o, path);
  // An int64 beyond 2^53 is a BigInt (util/int64-json.ts): its digits, as Go prints the int64.
  return typeof v === 'number' ? String(Math.trunc(v)) : typeof v === 'bigint' ? String(v) : '0';
};
const bool = (path: string): FieldGetter => (o) => (at(o, path) === true ? 'true' : 'false');

const strings = (...paths: string[]): Record<string, FieldGetter> => Object.fromEntries(paths.map((p) => [p, str(p)]));

interface Entry extends SelectableFields {
  /** The groups serving the kind under this table ('' = core). */
  groups: string[];
  /** Only these versions (all when absent). */
  versions?: string[];
  kind: string;
}

/** Per kind: every selectable field (metadata ones included: cluster-wide Nodes and Namespaces have no namespace). */
export const FIELD_SELECTORS: readonly Entry[] = [
  {
    groups: [''], kind: 'Pod',
    fields: {
      ...META_FIELDS,
      ...strings('spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName'),
    },
    // Clients of the first v1 days send spec.host; the server reads it as spec.nodeName.
    aliases: { 'spec.host': 'spec.nodeName' },
  },
  { groups: [''], kind: 'Node', fields: { 'metadata.name': META_FIELDS['metadata.name'], 'spec.unschedulable': bool('spec.unschedulable') } },
  { groups: [''], kind: 'Namespace', fields: { 'metadata.name': META_FIELDS['metadata.name'], 'status.phase': str('status.phase') } },
  {
    groups: [''], kind: 'Event',
    fields: {
      ...META_FIELDS,
      ...strings('involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'type'),
      // The reporting component (source.component), not the whole source object.
      source: str('source.component'),
    },
  },
  { groups: [''], kind: 'Secret', fields: { ...META_FIELDS, type: str('type') } },
  { groups: [''], kind: 'ReplicationController', fields: { ...META_FIELDS, 'status.replicas': int('status.replicas') } },
  { groups: ['apps', 'extensions'], kind: 'ReplicaSet', fields: { ...META_FIELDS, 'status.replicas': int('status.replicas') } },
  { groups: ['batch'], kind: 'Job', fields: { ...META_FIELDS, 'status.successful': int('status.successful') } },
  // certificates.k8s.io/v1 (served for current kubectl) adds spec.signerName; v1beta1 in 1.9 had none.
  { groups: ['certificates.k8s.io'], versions: ['v1'], kind: 'CertificateSigningRequest', fields: { ...META_FIELDS, 'spec.signerName': str('spec.signerName') } },
];

const DEFAULT: SelectableFields = { fields: META_FIELDS };

/** The selectable fields of one served definition (custom resources: metadata.name and metadata.namespace). */
export function selectableFieldsOf(def: Pick<ResourceDef, 'group' | 'version' | 'kind' | 'customResourceDefinition'>): SelectableFields {
  if (def.customResourceDefinition) return DEFAULT;
  const entry = FIELD_SELECTORS.find((e) => e.kind === def.kind && e.groups.includes(def.group) && (!e.versions || e.versions.includes(def.version)));
  return entry ?? DEFAULT;
}
