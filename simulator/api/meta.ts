// The spec's vocabulary as types. Objects are held in their versioned JSON form (what the wire shows);
// these types name the parts the server itself reads and writes.

export type Kind = string;
export type ResourceVersion = string;

export interface GroupVersion {
  group: string; // "" for the core group
  version: string;
}

export interface GroupVersionKind extends GroupVersion {
  kind: Kind;
}

export interface GroupVersionResource extends GroupVersion {
  resource: string;
}

/** "v1" for the core group, "apps/v1" otherwise. */
export function apiVersionOf(gv: GroupVersion): string {
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export interface OwnerReference {
  apiVersion: string;
  kind: Kind;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: ResourceVersion;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  clusterName?: string;
}

export interface ListMeta {
  selfLink?: string;
  resourceVersion?: ResourceVersion;
  continue?: string;
}

/** Any stored object: TypeMeta + ObjectMeta + kind-specific parts. */
export interface KubeObject {
  apiVersion?: string;
  kind?: Kind;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: Kind;
  metadata: ListMeta;
  items: T[];
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: ListMeta;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';

export interface WatchEvent<T = KubeObject | Status> {
  type: WatchEventType;
  object: T;
}

/** Query parameters of list, watch and collection delete (spec 4.2). */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  includeUninitialized?: boolean;
  watch?: boolean;
  resourceVersion?: ResourceVersion;
  timeoutSeconds?: number;
  limit?: number;
  continue?: string;
  pretty?: boolean;
}

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export interface DeleteOptions {
  kind?: 'DeleteOptions';
  apiVersion?: string;
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: PropagationPolicy;
  dryRun?: string[];
}
