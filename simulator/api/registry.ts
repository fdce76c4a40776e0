// The resource registry: every kind the simulator serves, declared once. Routes, discovery, storage keys and
// per-kind behaviour are derived from these declarations.

import type { GroupVersion } from './meta.ts';
import type { ResourceDef, ScaleDef, Verb } from './resource-types.ts';
import { apiVersionOf } from './meta.ts';

export type { NameRule, ResourceDef, ScaleDef, SubresourceName, Verb } from './resource-types.ts';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const CORE: GroupVersion = { group: '', version: 'v1' };
const APPS: GroupVersion = { group: 'apps', version: 'v1' };
const EXT: GroupVersion = { group: 'extensions', version: 'v1beta1' };
const BATCH: GroupVersion = { group: 'batch', version: 'v1' };
const BATCHB: GroupVersion = { group: 'batch', version: 'v1beta1' };
const AUTHZ: GroupVersion = { group: 'authorization.k8s.io', version: 'v1' };
const APPS_BETA2: GroupVersion = { group: 'apps', version: 'v1beta2' };
const APPS_BETA1: GroupVersion = { group: 'apps', version: 'v1beta1' };
const POLICY: GroupVersion = { group: 'policy', version: 'v1beta1' };
const AUTOSCALING: GroupVersion = { group: 'autoscaling', version: 'v1' };
const METRICS: GroupVersion = { group: 'metrics.k8s.io', version: 'v1beta1' };
const RBAC: GroupVersion = { group: 'rbac.authorization.k8s.io', version: 'v1' };
const CERTB: GroupVersion = { group: 'certificates.k8s.io', version: 'v1beta1' };
const CERT: GroupVersion = { group: 'certificates.k8s.io', version: 'v1' };
const APIEXT: GroupVersion = { group: 'apiextensions.k8s.io', version: 'v1beta1' };
const APIEXT_V1: GroupVersion = { group: 'apiextensions.k8s.io', version: 'v1' };
const STORAGE: GroupVersion = { group: 'storage.k8s.io', version: 'v1' };
const STORAGE_BETA1: GroupVersion = { group: 'storage.k8s.io', version: 'v1beta1' };
const STORAGE_ALPHA1: GroupVersion = { group: 'storage.k8s.io', version: 'v1alpha1' };
const AUTHN: GroupVersion = { group: 'authentication.k8s.io', version: 'v1' };
const AUTHN_BETA1: GroupVersion = { group: 'authentication.k8s.io', version: 'v1beta1' };
const AUTHZ_BETA1: GroupVersion = { group: 'authorization.k8s.io', version: 'v1beta1' };
const AUTOSCALING_V2BETA1: GroupVersion = { group: 'autoscaling', version: 'v2beta1' };
const EVENTS_BETA1: GroupVersion = { group: 'events.k8s.io', version: 'v1beta1' };
const NETWORKING: GroupVersion = { group: 'networking.k8s.io', version: 'v1' };
const RBAC_BETA1: GroupVersion = { group: 'rbac.authorization.k8s.io', version: 'v1beta1' };
const RBAC_ALPHA1: GroupVersion = { group: 'rbac.authorization.k8s.io', version: 'v1alpha1' };
const ADMREG_BETA1: GroupVersion = { group: 'admissionregistration.k8s.io', version: 'v1beta1' };
const ADMREG_ALPHA1: GroupVersion = { group: 'admissionregistration.k8s.io', version: 'v1alpha1' };
const APIREG_BETA1: GroupVersion = { group: 'apiregistration.k8s.io', version: 'v1beta1' };
const BATCH_V2ALPHA1: GroupVersion = { group: 'batch', version: 'v2alpha1' };
const SCHEDULING_ALPHA1: GroupVersion = { group: 'scheduling.k8s.io', version: 'v1alpha1' };
const SETTINGS_ALPHA1: GroupVersion = { group: 'settings.k8s.io', version: 'v1alpha1' };

type Decl = Omit<ResourceDef, 'group' | 'version' | 'verbs' | 'storageResource' | 'storageApiVersion' | 'nameRule'> &
  Partial<Pick<ResourceDef, 'verbs' | 'storageResource' | 'storageApiVersion' | 'nameRule'>>;

function declare(gv: GroupVersion, d: Decl): ResourceDef {
  return {
    ...gv,
    verbs: ALL_VERBS,
    storageResource: d.resource,
    storageApiVersion: apiVersionOf(gv),
    nameRule: 'dns1123-subdomain',
    ...d,
  };
}

const METRICS_REASON = 'kubectl top (1.32 and 1.20) reads metrics.k8s.io, which a 1.9 cluster serves through an aggregated server';

const scaleAutoscaling: ScaleDef = { apiVersion: 'autoscaling/v1' };
const scaleExtensions: ScaleDef = { apiVersion: 'extensions/v1beta1' };

export const RESOURCES: ResourceDef[] = [
  // core/v1
  // Namespaces have no deletecollection (the real registry's namespace REST does not implement it): 405, not in discovery.
  declare(CORE, { kind: 'Namespace', resource: 'namespaces', singular: 'namespace', namespaced: false, shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], subresources: { status: true, finalize: true }, nameRule: 'dns1123-label' }),
  declare(CORE, { kind: 'ConfigMap', resource: 'configmaps', singular: 'configmap', namespaced: true, shortNames: ['cm'], subresources: {} }),
  declare(CORE, { kind: 'Secret', resource: 'secrets', singular: 'secret', namespaced: true, subresources: {} }),
  // Services have no deletecollection in 1.9 (their REST does not implement it): 405, not in discovery.
  declare(CORE, {
    kind: 'Service', resource: 'services', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: { status: true, proxy: true }, nameRule: 'dns1035-label', allowCreateOnUpdate: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  }),
  declare(CORE, {
    kind: 'Event', resource: 'events', singular: 'event', namespaced: true, shortNames: ['ev'], subresources: {}, allowCreateOnUpdate: true,
  }),
  declare(CORE, {
    kind: 'Pod', resource: 'pods', singular: 'pod', namespaced: true, shortNames: ['po'], categories: ['all'], subresources: { status: true, binding: true, eviction: true, log: true, exec: true, attach: true, portforward: true, proxy: true },
  }),
  // POST a Binding to bind the pod of the same name to a node (the scheduler's write); nothing is stored.
  declare(CORE, { kind: 'Binding', resource: 'bindings', singular: 'binding', namespaced: true, subresources: {}, verbs: ['create'], virtual: true }),
  declare(CORE, { kind: 'Node', resource: 'nodes', singular: 'node', namespaced: false, shortNames: ['no'], subresources: { status: true, proxy: true } }),
  declare(CORE, { kind: 'Endpoints', resource: 'endpoints', singular: 'endpoints', namespaced: true, shortNames: ['ep'], subresources: {}, allowCreateOnUpdate: true }),
  declare(CORE, { kind: 'ServiceAccount', resource: 'serviceaccounts', singular: 'serviceaccount', namespaced: true, shortNames: ['sa'], subresources: {} }),
  declare(CORE, {
    kind: 'ReplicationController', resource: 'replicationcontrollers', singular: 'replicationcontroller', namespaced: true, shortNames: ['rc'], categories: ['all'],
    subresources: { status: true, scale: scaleAutoscaling }, tracksGeneration: true,
  }),
  declare(CORE, { kind: 'ResourceQuota', resource: 'resourcequotas', singular: 'resourcequota', namespaced: true, shortNames: ['quota'], subresources: { status: true } }),
  // Volumes: persistent volumes are cluster-wide, claims live in namespaces; both have /status (controllers' writes).
  declare(CORE, { kind: 'PersistentVolume', resource: 'persistentvolumes', singular: 'persistentvolume', namespaced: false, shortNames: ['pv'], subresources: { status: true } }),
  declare(CORE, { kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims', singular: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'], subresources: { status: true } }),
  // LimitRange: read by the LimitRanger admission step (server/admission/limit-ranger.ts); PodTemplate: stored only.
  declare(CORE, { kind: 'LimitRange', resource: 'limitranges', singular: 'limitrange', namespaced: true, shortNames: ['limits'], subresources: {} }),
  declare(CORE, { kind: 'PodTemplate', resource: 'podtemplates', singular: 'podtemplate', namespaced: true, subresources: {} }),
  // The health of the control plane's parts as this process knows them (server/component-statuses.ts): get, list.
  declare(CORE, { kind: 'ComponentStatus', resource: 'componentstatuses', singular: 'componentstatus', namespaced: false, shortNames: ['cs'], subresources: {}, verbs: ['get', 'list'], computed: true, storageResource: 'componentstatuses' }),
  // apps/v1
  declare(APPS, { kind: 'Deployment', resource: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: { status: true, scale: scaleAutoscaling }, tracksGeneration: true, acceptedBodyVersions: ['apps/v1beta1', 'apps/v1beta2'] }),
  declare(APPS, { kind: 'DaemonSet', resource: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: { status: true }, tracksGeneration: true, acceptedBodyVersions: ['apps/v1beta2'] }),
  declare(APPS, { kind: 'ReplicaSet', resource: 'replicasets', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: { status: true, scale: scaleAutoscaling }, tracksGeneration: true, acceptedBodyVersions: ['apps/v1beta2'] }),
  declare(APPS, { kind: 'StatefulSet', resource: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: { status: true, scale: scaleAutoscaling }, tracksGeneration: true, acceptedBodyVersions: ['apps/v1beta1', 'apps/v1beta2'] }),
  declare(APPS, { kind: 'ControllerRevision', resource: 'controllerrevisions', singular: 'controllerrevision', namespaced: true, subresources: {} }),
  // apps/v1beta2 and apps/v1beta1 as 1.9 served them for StatefulSets and ControllerRevisions: the same storage
  // (apps/v1), their own defaults and Scale type, the same short name and category (one REST storage served every
  // version in 1.9); deleting through them orphans by default, as 1.9 did.
  declare(APPS_BETA2, { kind: 'StatefulSet', resource: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: { status: true, scale: { apiVersion: 'apps/v1beta2' } }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(APPS_BETA2, { kind: 'ControllerRevision', resource: 'controllerrevisions', singular: 'controllerrevision', namespaced: true, subresources: {}, storageApiVersion: 'apps/v1' }),
  declare(APPS_BETA1, { kind: 'StatefulSet', resource: 'statefulsets', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'], subresources: { status: true, scale: { apiVersion: 'apps/v1beta1' } }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(APPS_BETA1, { kind: 'ControllerRevision', resource: 'controllerrevisions', singular: 'controllerrevision', namespaced: true, subresources: {}, storageApiVersion: 'apps/v1' }),
  // extensions/v1beta1: same storage as apps/v1 for the workloads, and the same short names and categories: in
  // 1.9 one REST storage per kind served every group, so discovery listed deploy/ds/rs and "all" in each (clients
  // resolve a short name to the preferred group, apps, by group order).
  // deployments/rollback (DeploymentRollback) exists only in extensions/v1beta1 and apps/v1beta1 (not served here).
  declare(EXT, { kind: 'Deployment', resource: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: { rollback: true, status: true, scale: scaleExtensions }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(EXT, { kind: 'DaemonSet', resource: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: { status: true }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(EXT, { kind: 'ReplicaSet', resource: 'replicasets', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: { status: true, scale: scaleExtensions }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(EXT, { kind: 'Ingress', resource: 'ingresses', singular: 'ingress', namespaced: true, shortNames: ['ing'], subresources: { status: true }, tracksGeneration: true }),
  // In 1.9 extensions/v1beta1 also served NetworkPolicy (the same objects as networking.k8s.io/v1), PodSecurityPolicy,
  // and the Scale of core ReplicationControllers, under a resource that answers nothing itself (ReplicationControllerDummy,
  // no verbs) so the subresource has a parent.
  declare(EXT, { kind: 'NetworkPolicy', resource: 'networkpolicies', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'], subresources: {}, storageApiVersion: 'networking.k8s.io/v1', tracksGeneration: true }),
  declare(EXT, { kind: 'PodSecurityPolicy', resource: 'podsecuritypolicies', singular: 'podsecuritypolicy', namespaced: false, shortNames: ['psp'], subresources: {} }),
  declare(EXT, {
    kind: 'ReplicationControllerDummy', resource: 'replicationcontrollers', singular: 'replicationcontroller', namespaced: true, subresources: { scale: scaleExtensions }, verbs: [],
    storageResource: 'replicationcontrollers', storageApiVersion: 'v1', tracksGeneration: true,
  }),
  // apps/v1beta1 (Deployment) and apps/v1beta2 (Deployment, DaemonSet, ReplicaSet): the apps/v1 objects, each version
  // with its own defaults (api/kinds/workload-versions.ts) and Scale type; deleting through them orphans by default.
  declare(APPS_BETA1, { kind: 'Deployment', resource: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: { rollback: true, status: true, scale: { apiVersion: 'apps/v1beta1' } }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(APPS_BETA2, { kind: 'Deployment', resource: 'deployments', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: { status: true, scale: { apiVersion: 'apps/v1beta2' } }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(APPS_BETA2, { kind: 'DaemonSet', resource: 'daemonsets', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'], subresources: { status: true }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  declare(APPS_BETA2, { kind: 'ReplicaSet', resource: 'replicasets', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'], subresources: { status: true, scale: { apiVersion: 'apps/v1beta2' } }, tracksGeneration: true, storageApiVersion: 'apps/v1', defaultOrphan: true }),
  // batch
  declare(BATCH, { kind: 'Job', resource: 'jobs', singular: 'job', namespaced: true, categories: ['all'], subresources: { status: true }, tracksGeneration: true }),
  declare(BATCHB, { kind: 'CronJob', resource: 'cronjobs', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: { status: true }, tracksGeneration: true }),
  declare(BATCH_V2ALPHA1, { kind: 'CronJob', resource: 'cronjobs', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: { status: true }, tracksGeneration: true, storageApiVersion: 'batch/v1beta1' }),
  // policy, autoscaling
  declare(POLICY, { kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], subresources: { status: true }, tracksGeneration: true }),
  declare(AUTOSCALING, { kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: { status: true } }),
  // autoscaling/v2beta1: the same objects; metrics a v1 object cannot hold are kept in annotations (api/kinds/autoscaler.ts).
  declare(AUTOSCALING_V2BETA1, { kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', singular: 'horizontalpodautoscaler', namespaced: true, shortNames: ['hpa'], categories: ['all'], subresources: { status: true }, storageApiVersion: 'autoscaling/v1' }),
  // metrics.k8s.io: usage computed from the pods the simulated kubelets run (server/metrics.ts); nothing stored.
  // A 1.9 cluster serves this group through the APIService v1beta1.metrics.k8s.io (metrics-server); the simulator
  // serves it itself and registers that APIService (server/aggregator/, Local), which an APIService naming a real
  // metrics-server's Service replaces (its requests are then proxied there).
  declare(METRICS, { kind: 'PodMetrics', resource: 'pods', singular: '', namespaced: true, subresources: {}, verbs: ['get', 'list'], computed: true, storageResource: 'metrics.k8s.io/pods', beyond19: METRICS_REASON }),
  declare(METRICS, { kind: 'NodeMetrics', resource: 'nodes', singular: '', namespaced: false, subresources: {}, verbs: ['get', 'list'], computed: true, storageResource: 'metrics.k8s.io/nodes', beyond19: METRICS_REASON }),
  // authorization: virtual types answered from the server's authorizer (server/access-review.ts)
  declare(AUTHZ, { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', singular: 'localsubjectaccessreview', namespaced: true, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ, { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ, { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ, { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', singular: 'subjectaccessreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ_BETA1, { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', singular: 'localsubjectaccessreview', namespaced: true, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ_BETA1, { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', singular: 'selfsubjectrulesreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ_BETA1, { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', singular: 'selfsubjectaccessreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHZ_BETA1, { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', singular: 'subjectaccessreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  // authentication: a bearer token checked by the server's authenticators (server/token-review.ts).
  declare(AUTHN, { kind: 'TokenReview', resource: 'tokenreviews', singular: 'tokenreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  declare(AUTHN_BETA1, { kind: 'TokenReview', resource: 'tokenreviews', singular: 'tokenreview', namespaced: false, subresources: {}, verbs: ['create'], virtual: true }),
  // certificates.k8s.io: v1beta1 (1.9) and v1 (what current kubectl approves through) over one storage in the
  // v1beta1 form; the fields v1 adds (signerName, expirationSeconds, condition status) are kept in it.
  declare(CERTB, { kind: 'CertificateSigningRequest', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest', namespaced: false, shortNames: ['csr'], subresources: { approval: true, status: true }, nameRule: 'path-segment' }),
  declare(CERT, {
    beyond19: 'kubectl 1.32 `certificate approve` reads and approves through certificates.k8s.io/v1 only',
    kind: 'CertificateSigningRequest', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest', namespaced: false, shortNames: ['csr'], subresources: { approval: true, status: true },
    nameRule: 'path-segment', storageApiVersion: 'certificates.k8s.io/v1beta1',
  }),
  // storage.k8s.io: StorageClass in v1 and v1beta1 over one storage; VolumeAttachment in v1beta1 (the attach/detach
  // controller's records of which volume is attached to which node).
  declare(STORAGE, { kind: 'StorageClass', resource: 'storageclasses', singular: 'storageclass', namespaced: false, shortNames: ['sc'], subresources: {} }),
  declare(STORAGE_BETA1, { kind: 'StorageClass', resource: 'storageclasses', singular: 'storageclass', namespaced: false, shortNames: ['sc'], subresources: {}, storageApiVersion: 'storage.k8s.io/v1' }),
  declare(STORAGE_BETA1, { kind: 'VolumeAttachment', resource: 'volumeattachments', singular: 'volumeattachment', namespaced: false, subresources: {}, offByDefault: 'served from 1.10; 1.9 had VolumeAttachment at v1alpha1 only' }),
  declare(STORAGE_ALPHA1, { kind: 'VolumeAttachment', resource: 'volumeattachments', singular: 'volumeattachment', namespaced: false, subresources: {}, storageApiVersion: 'storage.k8s.io/v1beta1' }),
  // rbac.authorization.k8s.io/v1: names are path segments (ValidateRBACName); every RBAC strategy allows
  // create-on-update (PUT reconciles roles that may not exist yet). No short names in 1.9; discovery lists
  // the group's resources alphabetically, as the real server does.
  declare(RBAC, { kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', singular: 'clusterrolebinding', namespaced: false, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true }),
  declare(RBAC, { kind: 'ClusterRole', resource: 'clusterroles', singular: 'clusterrole', namespaced: false, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true }),
  declare(RBAC, { kind: 'RoleBinding', resource: 'rolebindings', singular: 'rolebinding', namespaced: true, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true }),
  declare(RBAC, { kind: 'Role', resource: 'roles', singular: 'role', namespaced: true, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true }),
  ...[RBAC_BETA1, RBAC_ALPHA1].flatMap((gv) => [
    declare(gv, { kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', singular: 'clusterrolebinding', namespaced: false, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true, storageApiVersion: 'rbac.authorization.k8s.io/v1' }),
    declare(gv, { kind: 'ClusterRole', resource: 'clusterroles', singular: 'clusterrole', namespaced: false, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true, storageApiVersion: 'rbac.authorization.k8s.io/v1' }),
    declare(gv, { kind: 'RoleBinding', resource: 'rolebindings', singular: 'rolebinding', namespaced: true, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true, storageApiVersion: 'rbac.authorization.k8s.io/v1' }),
    declare(gv, { kind: 'Role', resource: 'roles', singular: 'role', namespaced: true, subresources: {}, nameRule: 'path-segment', allowCreateOnUpdate: true, storageApiVersion: 'rbac.authorization.k8s.io/v1' }),
  ]),
  // apiextensions.k8s.io: v1beta1 as 1.9 served it, and v1 (what current clients look for) over the same storage.
  // The custom resources they define join the registry at run time (server/custom-resources.ts).
  declare(APIEXT, { kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions', singular: 'customresourcedefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], subresources: { status: true } }),
  declare(APIEXT_V1, { beyond19: 'kubectl 1.32 and @kubernetes/client-node 1.x create and read CRDs at apiextensions.k8s.io/v1 (client-node has no v1beta1 API)', kind: 'CustomResourceDefinition', resource: 'customresourcedefinitions', singular: 'customresourcedefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'], subresources: { status: true }, storageApiVersion: 'apiextensions.k8s.io/v1beta1' }),
  // events.k8s.io/v1beta1: the core Events under the 1.9 field names of the new API (api/kinds/event.ts converts).
  declare(EVENTS_BETA1, { kind: 'Event', resource: 'events', singular: 'event', namespaced: true, shortNames: ['ev'], subresources: {}, storageResource: 'events', storageApiVersion: 'v1' }),
  declare(NETWORKING, { kind: 'NetworkPolicy', resource: 'networkpolicies', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'], subresources: {}, tracksGeneration: true }),
  // admissionregistration.k8s.io: the webhooks the admission chain calls (server/admission/webhooks.ts).
  declare(ADMREG_BETA1, { kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration', namespaced: false, subresources: {} }),
  declare(ADMREG_BETA1, { kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations', singular: 'validatingwebhookconfiguration', namespaced: false, subresources: {} }),
  declare(ADMREG_ALPHA1, { kind: 'InitializerConfiguration', resource: 'initializerconfigurations', singular: 'initializerconfiguration', namespaced: false, subresources: {} }),
  // apiregistration.k8s.io: the aggregator's APIServices (server/aggregator/: registration, availability, proxy).
  declare(APIREG_BETA1, { kind: 'APIService', resource: 'apiservices', singular: 'apiservice', namespaced: false, subresources: { status: true } }),
  // Alpha in 1.9, stored and validated when turned on.
  declare(SCHEDULING_ALPHA1, { kind: 'PriorityClass', resource: 'priorityclasses', singular: 'priorityclass', namespaced: false, shortNames: ['pc'], subresources: {} }),
  declare(SETTINGS_ALPHA1, { kind: 'PodPreset', resource: 'podpresets', singular: 'podpreset', namespaced: true, subresources: {} }),
];

/**
 * The order of /apis in 1.9: the aggregator's own group, then the built-in groups by their APIService priority,
 * then any other (custom resources, aggregated APIs) in the order they were added.
 */
const GROUP_ORDER = [
  'apiregistration.k8s.io', 'extensions', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch',
  'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'settings.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io',
  'apiextensions.k8s.io', 'scheduling.k8s.io',
];

/** Whether a 1.9 cluster (with the simulator's documented additions) serves this definition without any flag. */
export function servedByDefault(d: ResourceDef): boolean {
  return d.offByDefault === undefined && !d.version.includes('alpha');
}

/** What a default 1.9 cluster serves (runtime-config.ts: other selections). */
export const DEFAULT_RESOURCES: readonly ResourceDef[] = RESOURCES.filter(servedByDefault);

export interface GroupDef {
  name: string;
  versions: string[];
  preferredVersion: string;
}

/** API groups in discovery order (the core group is served at /api, not listed here). */
export function apiGroups(defs: readonly ResourceDef[] = DEFAULT_RESOURCES): GroupDef[] {
  const order: string[] = [];
  const versions = new Map<string, string[]>();
  for (const d of defs) {
    if (d.group === '') continue;
    if (!versions.has(d.group)) {
      versions.set(d.group, []);
      order.push(d.group);
    }
    const vs = versions.get(d.group)!;
    if (!vs.includes(d.version)) vs.push(d.version);
  }
  const rank = (g: string): number => {
    const i = GROUP_ORDER.indexOf(g);
    return i < 0 ? GROUP_ORDER.length : i;
  };
  order.sort((a, b) => rank(a) - rank(b));
  return order.map((name) => {
    const vs = versions.get(name)!;
    // GA before beta before alpha; higher numbers first.
    const sorted = [...vs].sort(compareVersionPriority);
    return { name, versions: sorted, preferredVersion: sorted[0] };
  });
}

/** Kubernetes version priority: v1 > v1beta2 > v1beta1 > v1alpha1. Negative when a sorts first. */
export function compareVersionPriority(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
  return a.localeCompare(b);
}

export class Registry {
  private readonly byPath = new Map<string, ResourceDef>();
  private readonly byGvk = new Map<string, ResourceDef>();
  readonly defs: ResourceDef[];

  constructor(defs: readonly ResourceDef[] = DEFAULT_RESOURCES) {
    this.defs = [...defs];
    for (const d of defs) this.index(d);
  }

  private index(d: ResourceDef): void {
    this.byPath.set(`${d.group}/${d.version}/${d.resource}`, d);
    this.byGvk.set(`${d.group}/${d.version}/${d.kind}`, d);
  }

  /** Serves a definition from now on (a custom resource whose CRD was established); replaces one at the same path. */
  add(d: ResourceDef): void {
    const old = this.lookup(d.group, d.version, d.resource);
    if (old) this.remove(old);
    this.defs.push(d);
    this.index(d);
  }

  /** Stops serving a definition (its CRD went away or stopped serving that version). */
  remove(d: ResourceDef): void {
    const i = this.defs.indexOf(d);
    if (i >= 0) this.defs.splice(i, 1);
    if (this.byPath.get(`${d.group}/${d.version}/${d.resource}`) === d) this.byPath.delete(`${d.group}/${d.version}/${d.resource}`);
    if (this.byGvk.get(`${d.group}/${d.version}/${d.kind}`) === d) this.byGvk.delete(`${d.group}/${d.version}/${d.kind}`);
  }

  lookup(group: string, version: string, resource: string): ResourceDef | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  byKind(group: string, version: string, kind: string): ResourceDef | undefined {
    return this.byGvk.get(`${group}/${version}/${kind}`);
  }

  servesGroupVersion(group: string, version: string): boolean {
    return this.defs.some((d) => d.group === group && d.version === version);
  }

  resourcesOf(group: string, version: string): ResourceDef[] {
    return this.defs.filter((d) => d.group === group && d.version === version);
  }

  /** Every served definition that shares storage with d (d included). */
  sharingStorage(d: ResourceDef): ResourceDef[] {
    return this.defs.filter((x) => x.storageResource === d.storageResource);
  }
}

/** Where a kind's objects are stored: every ResourceDef is one; the storage of the server's own objects names one. */
export type StorageRef = Pick<ResourceDef, 'storageResource' | 'namespaced'>;

/**
 * The storage of the objects the server reads or writes itself, beside a request for them (namespaces a write
 * checks, quotas it charges, PDBs an eviction reads, RBAC objects the authorizer caches...).
 */
export const STORAGE_REFS = {
  namespaces: { storageResource: 'namespaces', namespaced: false },
  pods: { storageResource: 'pods', namespaced: true },
  nodes: { storageResource: 'nodes', namespaced: false },
  services: { storageResource: 'services', namespaced: true },
  endpoints: { storageResource: 'endpoints', namespaced: true },
  resourceQuotas: { storageResource: 'resourcequotas', namespaced: true },
  podDisruptionBudgets: { storageResource: 'poddisruptionbudgets', namespaced: true },
  customResourceDefinitions: { storageResource: 'customresourcedefinitions', namespaced: false },
  apiServices: { storageResource: 'apiservices', namespaced: false },
  podSecurityPolicies: { storageResource: 'podsecuritypolicies', namespaced: false },
  secrets: { storageResource: 'secrets', namespaced: true },
  configMaps: { storageResource: 'configmaps', namespaced: true },
  serviceAccounts: { storageResource: 'serviceaccounts', namespaced: true },
  clusterRoles: { storageResource: 'clusterroles', namespaced: false },
  clusterRoleBindings: { storageResource: 'clusterrolebindings', namespaced: false },
  roles: { storageResource: 'roles', namespaced: true },
  roleBindings: { storageResource: 'rolebindings', namespaced: true },
  ranges: { storageResource: 'ranges', namespaced: false },
} as const satisfies Record<string, StorageRef>;

/**
 * The one key function of storage: /registry/<storage resource>/[<namespace>/][<name>]. Without a name, the prefix
 * of a collection (every namespace when namespace is undefined). Every key the server reads or writes is made here.
 */
export function storageKey(ref: StorageRef, namespace: string | undefined, name?: string): string {
  if (name !== undefined) return ref.namespaced ? `/registry/${ref.storageResource}/${namespace}/${name}` : `/registry/${ref.storageResource}/${name}`;
  return ref.namespaced && namespace !== undefined ? `/registry/${ref.storageResource}/${namespace}/` : `/registry/${ref.storageResource}/`;
}

/** Storage key of one object: /registry/<storage resource>/[<namespace>/]<name>. */
export function objectKey(def: StorageRef, namespace: string | undefined, name: string): string {
  return storageKey(def, namespace, name);
}

/** Prefix of a collection: every namespace when namespace is undefined. */
export function collectionPrefix(def: StorageRef, namespace: string | undefined): string {
  return storageKey(def, namespace);
}
