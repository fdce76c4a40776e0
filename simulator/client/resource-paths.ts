// Typed paths of the resources the API clients (controllers, nodes, proxy) read and write, derived from the API's
// resource registry (`api/registry.ts` RESOURCES): group, version, plural and scope come from the declaration, so
// no client builds a URL by hand and a resource the registry does not serve fails when this module loads, not on
// the first request. `RESOURCE.pods.of(pod, 'status')`, `RESOURCE.pods.collection(ns)`, `RESOURCE.nodes.object(name)`.

import { RESOURCES, type ResourceDef, type SubresourceName } from '../api/registry.ts';
import { resourcePath } from './api-client.ts';

/** A subresource of the registry, or a service's / node's proxy (served by the server's proxy, not a registry entry). */
export type Subresource = SubresourceName | 'proxy';

/** What a path needs of an object: its namespace and name. */
export interface Named {
  metadata: { namespace?: string; name?: string };
}

export class ResourcePaths {
  readonly group: string;
  readonly version: string;
  /** `v1`, `apps/v1`... as in an object's apiVersion and an owner reference. */
  readonly apiVersion: string;
  /** The plural name in paths. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;

  constructor(def: Pick<ResourceDef, 'group' | 'version' | 'resource' | 'kind' | 'namespaced'>) {
    this.group = def.group;
    this.version = def.version;
    this.apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    this.resource = def.resource;
    this.kind = def.kind;
    this.namespaced = def.namespaced;
  }

  /** The discovery document of the group version (a 404 tells the server does not serve it). */
  groupVersion(): string {
    return this.group ? `/apis/${this.group}/${this.version}` : `/api/${this.version}`;
  }

  /** The collection of one namespace, or (no namespace, or a cluster-scoped resource) of the whole cluster. */
  collection(namespace?: string): string {
    return resourcePath({ group: this.group, version: this.version, resource: this.resource, namespace: this.namespaced ? namespace : undefined });
  }

  /** One object (the namespace is left out for a cluster-scoped resource), or one of its subresources. */
  object(namespace: string | undefined, name: string, subresource?: Subresource): string {
    const ns = this.namespaced ? namespace : undefined;
    return resourcePath({ group: this.group, version: this.version, resource: this.resource, namespace: ns, name, subresource });
  }

  /** One cluster-scoped object by name (a Node, a PersistentVolume...). */
  named(name: string, subresource?: Subresource): string {
    return this.object(undefined, name, subresource);
  }

  /**
   * The proxy of a service or node: `<scheme>:<name>:<port>` (the colons are the syntax, so only the name is
   * encoded), then `rest`, the path handed to the target (heapster's `/apis/metrics/...` through `kube-system`).
   */
  proxy(namespace: string | undefined, target: { scheme?: string; name: string; port?: string }, rest = ''): string {
    return `${this.collection(namespace)}/${target.scheme ?? ''}:${encodeURIComponent(target.name)}:${target.port ?? ''}/proxy${rest}`;
  }

  /** The path of an object from its metadata, or of one of its subresources. */
  of(obj: Named, subresource?: Subresource): string {
    return this.object(obj.metadata.namespace ?? '', obj.metadata.name ?? '', subresource);
  }
}

/** The paths of the resource `plural` served at `apiVersion` by the registry; throws if it does not serve it. */
export function served(apiVersion: string, plural: string): ResourcePaths {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const def = RESOURCES.find((r) => r.group === group && r.version === version && r.resource === plural);
  if (!def) throw new Error(`resource-paths: the API registry serves no ${plural} at ${apiVersion}`);
  return new ResourcePaths(def);
}

/** The resources the API clients of this repository use, by name. */
export const RESOURCE = {
  namespaces: served('v1', 'namespaces'),
  pods: served('v1', 'pods'),
  nodes: served('v1', 'nodes'),
  services: served('v1', 'services'),
  endpoints: served('v1', 'endpoints'),
  secrets: served('v1', 'secrets'),
  configMaps: served('v1', 'configmaps'),
  serviceAccounts: served('v1', 'serviceaccounts'),
  replicationControllers: served('v1', 'replicationcontrollers'),
  resourceQuotas: served('v1', 'resourcequotas'),
  persistentVolumes: served('v1', 'persistentvolumes'),
  persistentVolumeClaims: served('v1', 'persistentvolumeclaims'),
  deployments: served('apps/v1', 'deployments'),
  replicaSets: served('apps/v1', 'replicasets'),
  daemonSets: served('apps/v1', 'daemonsets'),
  statefulSets: served('apps/v1', 'statefulsets'),
  controllerRevisions: served('apps/v1', 'controllerrevisions'),
  jobs: served('batch/v1', 'jobs'),
  cronJobs: served('batch/v1beta1', 'cronjobs'),
  podDisruptionBudgets: served('policy/v1beta1', 'poddisruptionbudgets'),
  horizontalPodAutoscalers: served('autoscaling/v1', 'horizontalpodautoscalers'),
  podMetrics: served('metrics.k8s.io/v1beta1', 'pods'),
  subjectAccessReviews: served('authorization.k8s.io/v1', 'subjectaccessreviews'),
  certificateSigningRequests: served('certificates.k8s.io/v1beta1', 'certificatesigningrequests'),
  storageClasses: served('storage.k8s.io/v1', 'storageclasses'),
  // 1.9's VolumeAttachments are alpha (storage.k8s.io/v1alpha1, served only with --runtime-config).
  volumeAttachments: served('storage.k8s.io/v1alpha1', 'volumeattachments'),
  clusterRoles: served('rbac.authorization.k8s.io/v1', 'clusterroles'),
} as const;

/**
 * Heapster's pod metrics of a namespace (its own model API, `/apis/metrics/v1alpha1/...`), reached through the
 * proxy of the kube-system/heapster service, as 1.9's legacy HPA metrics client reads them.
 */
export const heapsterPodMetricsPath = (namespace: string): string =>
  RESOURCE.services.proxy('kube-system', { scheme: 'http', name: 'heapster' }, `/apis/metrics/v1alpha1/namespaces/${encodeURIComponent(namespace)}/pods`);

/** Discovery: the resources of one group version (`/api/v1`, `/apis/apps/v1`). */
export const groupVersionPath = (group: string, version: string): string => (group ? `/apis/${group}/${version}` : `/api/${version}`);

/** Discovery: one API group (its versions), `/apis/<group>`. */
export const groupPath = (group: string): string => `/apis/${encodeURIComponent(group)}`;
