// The default roles and bindings a 1.9 API server with RBAC bootstraps (the real bootstrappolicy package:
// cluster roles, their bindings, one role per controller of the controller manager bound to its service
// account in kube-system, and a few namespaced roles). Written at start when RBAC is among the
// --authorization-modes and missing (an existing object is left as it is, so an edited or deleted default
// stays so until the next start, as with the real reconciler's create-if-missing for deleted objects).
//
// admin, edit and view are aggregated ClusterRoles (1.9): their rules are the union of the
// system:aggregate-to-* roles selected by label, which the clusterrole-aggregation controller maintains; they
// are written here with that union already filled in, so that RBAC works without the daemon.

import type { Store } from '../../storage/store.ts';
import { StoreError } from '../../storage/store.ts';
import type { KubeObject } from '../../api/meta.ts';
import { RBAC_GROUP, type PolicyRule, type Subject } from './rbac.ts';
import { STORAGE_REFS, storageKey } from '../../api/registry.ts';

const READ = ['get', 'list', 'watch'];
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {}),
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });
const events = (): PolicyRule => rule(['create', 'update', 'patch'], [''], ['events']);

const VIEW: PolicyRule[] = [
  rule(READ, [''], ['pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'endpoints', 'persistentvolumeclaims', 'configmaps']),
  rule(READ, [''], ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
  // read access to namespaces at the namespace scope: reading *this* namespace
  rule(READ, [''], ['namespaces']),
  rule(READ, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'replicasets', 'replicasets/scale']),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(READ, ['batch'], ['jobs', 'cronjobs']),
  rule(READ, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
  rule(READ, ['policy'], ['poddisruptionbudgets']),
  rule(READ, ['networking.k8s.io'], ['networkpolicies']),
];

const EDIT: PolicyRule[] = [
  rule(READ_WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
  rule(READ_WRITE, [''], ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'endpoints', 'persistentvolumeclaims', 'configmaps', 'secrets']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(READ_WRITE, ['apps'], ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
  rule(READ_WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(READ_WRITE, ['batch'], ['jobs', 'cronjobs']),
  rule(READ_WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'ingresses', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale', 'networkpolicies']),
  rule(READ_WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(READ_WRITE, ['networking.k8s.io'], ['networkpolicies']),
];

const ADMIN: PolicyRule[] = [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings'])];

interface RoleDef {
  name: string;
  rules: PolicyRule[];
  labels?: Record<string, string>;
  aggregate?: string;
}

const AGG = 'rbac.authorization.k8s.io/aggregate-to-';

export const CLUSTER_ROLES: RoleDef[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])] },
  // discovery, health and OpenAPI documents for everyone
  { name: 'system:discovery', rules: [urls(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/openapi', '/openapi/*', '/swagger-2.0.0.pb-v1', '/swagger.json', '/swaggerapi', '/swaggerapi/*', '/version', '/version/'])] },
  { name: 'system:basic-user', rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'])] },
  { name: 'admin', rules: [...ADMIN, ...EDIT, ...VIEW], aggregate: 'admin' },
  { name: 'edit', rules: [...EDIT, ...VIEW], aggregate: 'edit', labels: { [`${AGG}admin`]: 'true' } },
  { name: 'view', rules: VIEW, aggregate: 'view', labels: { [`${AGG}edit`]: 'true' } },
  { name: 'system:aggregate-to-admin', rules: ADMIN, labels: { [`${AGG}admin`]: 'true' } },
  { name: 'system:aggregate-to-edit', rules: EDIT, labels: { [`${AGG}edit`]: 'true' } },
  { name: 'system:aggregate-to-view', rules: VIEW, labels: { [`${AGG}view`]: 'true' } },
  { name: 'system:heapster', rules: [rule(READ, [''], ['events', 'pods', 'nodes', 'namespaces']), rule(READ, ['extensions'], ['deployments'])] },
  {
    name: 'system:node',
    rules: [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
      rule(READ, [''], ['services']),
      rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
      rule(['update', 'patch'], [''], ['nodes/status']),
      rule(['update', 'patch', 'delete'], [''], ['nodes']),
      rule(['create', 'update', 'patch'], [''], ['events']),
      rule(READ, [''], ['pods']),
      rule(['create', 'delete'], [''], ['pods']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(['create'], [''], ['pods/eviction']),
      rule(['get'], [''], ['secrets', 'configmaps', 'persistentvolumeclaims', 'persistentvolumes', 'endpoints']),
      rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    ],
  },
  { name: 'system:node-bootstrapper', rules: [rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests'])] },
  { name: 'system:node-problem-detector', rules: [rule(['get'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), events()] },
  { name: 'system:node-proxier', rules: [rule(['list', 'watch'], [''], ['services', 'endpoints']), rule(['get'], [''], ['nodes']), events()] },
  { name: 'system:persistent-volume-provisioner', rules: [rule(['get', 'list', 'watch', 'create', 'delete'], [''], ['persistentvolumes']), rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']), rule(['get', 'list', 'watch'], ['storage.k8s.io'], ['storageclasses']), rule(['watch'], [''], ['events']), events()] },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  { name: 'system:kube-aggregator', rules: [rule(READ, [''], ['services', 'endpoints'])] },
  {
    name: 'system:kube-controller-manager',
    rules: [
      events(),
      rule(['create'], [''], ['endpoints', 'secrets', 'serviceaccounts']),
      rule(['delete'], [''], ['secrets']),
      rule(['get'], [''], ['endpoints', 'namespaces', 'secrets', 'serviceaccounts']),
      rule(['update'], [''], ['endpoints', 'secrets', 'serviceaccounts']),
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      // the shared informers of every controller
      rule(['list', 'watch'], ['*'], ['*']),
    ],
  },
  {
    name: 'system:kube-scheduler',
    rules: [
      events(),
      rule(['create'], [''], ['endpoints']),
      rule(['get', 'update', 'patch', 'delete'], [''], ['endpoints'], ['kube-scheduler']),
      rule(READ, [''], ['nodes']),
      rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
      rule(['create'], [''], ['bindings', 'pods/binding']),
      rule(['update', 'patch'], [''], ['pods/status']),
      rule(READ, [''], ['replicationcontrollers', 'services']),
      rule(READ, ['apps', 'extensions'], ['replicasets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
    ],
  },
  { name: 'system:kube-dns', rules: [rule(['list', 'watch'], [''], ['endpoints', 'services'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient'])] },
  { name: 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', rules: [rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient'])] },
];

/** One role per controller, bound to the service account of the same name in kube-system (--use-service-account-credentials). */
export const CONTROLLER_ROLES: RoleDef[] = [
  { name: 'attachdetach-controller', rules: [rule(['list', 'watch'], [''], ['persistentvolumes', 'persistentvolumeclaims']), rule(READ, [''], ['nodes']), rule(['patch', 'update'], [''], ['nodes/status']), rule(['list', 'watch'], [''], ['pods']), events()] },
  { name: 'bootstrap-signer', rules: [] },
  { name: 'certificate-controller', rules: [rule(['get', 'list', 'watch', 'delete'], ['certificates.k8s.io'], ['certificatesigningrequests']), rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']), events()] },
  { name: 'clusterrole-aggregation-controller', rules: [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])] },
  { name: 'cronjob-controller', rules: [rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']), rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']), rule(['update'], ['batch'], ['cronjobs/status']), rule(['list', 'delete'], [''], ['pods']), events()] },
  {
    name: 'daemon-set-controller',
    rules: [
      rule(READ, ['extensions', 'apps'], ['daemonsets']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/status']),
      rule(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
      rule(['create'], [''], ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
      events(),
    ],
  },
  {
    name: 'deployment-controller',
    rules: [
      rule(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], ['deployments']),
      rule(['update'], ['extensions', 'apps'], ['deployments/status']),
      rule(['update'], ['extensions', 'apps'], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['extensions', 'apps'], ['replicasets']),
      rule(['get', 'list', 'update', 'watch'], [''], ['pods']),
      events(),
    ],
  },
  {
    name: 'disruption-controller',
    rules: [
      rule(READ, ['extensions', 'apps'], ['deployments', 'replicasets']),
      rule(READ, [''], ['replicationcontrollers']),
      rule(READ, ['policy'], ['poddisruptionbudgets']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
      events(),
    ],
  },
  { name: 'endpoint-controller', rules: [rule(READ, [''], ['services', 'pods']), rule(['get', 'list', 'create', 'update', 'delete'], [''], ['endpoints']), rule(['create'], [''], ['endpoints/restricted']), events()] },
  { name: 'generic-garbage-collector', rules: [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), events()] },
  {
    name: 'horizontal-pod-autoscaler',
    rules: [
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], ['*'], ['*/scale']),
      rule(['list'], [''], ['pods']),
      rule(['get'], [''], ['services/proxy'], ['http:heapster:', 'https:heapster:']),
      rule(['list'], ['metrics.k8s.io'], ['pods']),
      rule(READ, ['custom.metrics.k8s.io'], ['*']),
      events(),
    ],
  },
  { name: 'job-controller', rules: [rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']), rule(['update'], ['batch'], ['jobs/status']), rule(['update'], ['batch'], ['jobs/finalizers']), rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']), events()] },
  { name: 'namespace-controller', rules: [rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']), rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']), rule(['get', 'list', 'delete', 'deletecollection'], ['*'], ['*'])] },
  { name: 'node-controller', rules: [rule(['get', 'list', 'update', 'delete', 'patch'], [''], ['nodes']), rule(['patch', 'update'], [''], ['nodes/status']), rule(['update'], [''], ['pods/status']), rule(['list', 'delete'], [''], ['pods']), events()] },
  {
    name: 'persistent-volume-binder',
    rules: [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
      rule(['update'], [''], ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
      rule(['update'], [''], ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
      rule(READ, ['storage.k8s.io'], ['storageclasses']),
      rule(['get', 'create', 'delete'], [''], ['services', 'endpoints']),
      rule(['get'], [''], ['secrets']),
      rule(['list', 'watch'], [''], ['nodes']),
      rule(['watch'], [''], ['events']),
      events(),
    ],
  },
  { name: 'pod-garbage-collector', rules: [rule(['list', 'watch', 'delete'], [''], ['pods']), rule(['list'], [''], ['nodes'])] },
  { name: 'pvc-protection-controller', rules: [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']), rule(['list', 'watch', 'get'], [''], ['pods']), events()] },
  { name: 'replicaset-controller', rules: [rule(['get', 'list', 'watch', 'update'], ['extensions', 'apps'], ['replicasets']), rule(['update'], ['extensions', 'apps'], ['replicasets/status']), rule(['update'], ['extensions', 'apps'], ['replicasets/finalizers']), rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']), events()] },
  { name: 'replication-controller', rules: [rule(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']), rule(['update'], [''], ['replicationcontrollers/status']), rule(['update'], [''], ['replicationcontrollers/finalizers']), rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']), events()] },
  { name: 'resourcequota-controller', rules: [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), events()] },
  { name: 'route-controller', rules: [rule(['list', 'watch'], [''], ['nodes']), rule(['patch'], [''], ['nodes/status']), events()] },
  { name: 'service-account-controller', rules: [rule(['create'], [''], ['serviceaccounts']), events()] },
  { name: 'service-controller', rules: [rule(READ, [''], ['services']), rule(['update'], [''], ['services/status']), rule(['list', 'watch'], [''], ['nodes']), events()] },
  {
    name: 'statefulset-controller',
    rules: [
      rule(['list', 'watch'], [''], ['pods']),
      rule(READ, ['apps'], ['statefulsets']),
      rule(['update'], ['apps'], ['statefulsets/status']),
      rule(['update'], ['apps'], ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
      rule(['get', 'create'], [''], ['persistentvolumeclaims']),
      events(),
    ],
  },
  { name: 'ttl-controller', rules: [rule(['update', 'patch', 'list', 'watch'], [''], ['nodes']), events()] },
]
  .filter((r) => r.name !== 'bootstrap-signer')
  // This simulator's controllers write with merge patches where the real ones PUT (status, annotations):
  // wherever a controller role grants update, it grants patch too, and nothing else beyond the real roles.
  .map((r) => ({ ...r, rules: r.rules.map((x) => (x.verbs.includes('update') && !x.verbs.includes('patch') ? { ...x, verbs: [...x.verbs, 'patch'] } : x)) }));

interface BindingDef {
  name: string;
  role: string;
  subjects: Subject[];
}

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });

export const CLUSTER_ROLE_BINDINGS: BindingDef[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  // 1.8+ binds nobody here (the Node authorizer took over); the simulator's own kubelets are in system:nodes and
  // rely on this binding, which the simulator's RBAC bootstrap therefore keeps (server/authorization/README.md).
  { name: 'system:node', role: 'system:node', subjects: [group('system:nodes')] },
  { name: 'system:node-proxier', role: 'system:node-proxier', subjects: [user('system:kube-proxy')] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [user('system:kube-controller-manager')] },
  { name: 'system:kube-dns', role: 'system:kube-dns', subjects: [{ kind: 'ServiceAccount', name: 'kube-dns', namespace: 'kube-system' }] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [user('system:kube-scheduler')] },
];

/** Namespaced defaults: [namespace, Role, its rules, who is bound]. */
export const NAMESPACE_ROLES: { namespace: string; name: string; rules: PolicyRule[]; subjects: Subject[] }[] = [
  {
    namespace: 'kube-system',
    name: 'extension-apiserver-authentication-reader',
    rules: [rule(['get'], [''], ['configmaps'], ['extension-apiserver-authentication'])],
    subjects: [],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:bootstrap-signer',
    rules: [rule(['get', 'list', 'watch'], [''], ['secrets'])],
    subjects: [{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'kube-system' }],
  },
  {
    namespace: 'kube-system',
    name: 'system:controller:token-cleaner',
    rules: [rule(['delete', 'get', 'list', 'watch'], [''], ['secrets']), events()],
    subjects: [{ kind: 'ServiceAccount', name: 'token-cleaner', namespace: 'kube-system' }],
  },
  {
    namespace: 'kube-public',
    name: 'system:controller:bootstrap-signer',
    rules: [rule(['get', 'list', 'watch'], [''], ['configmaps']), rule(['update'], [''], ['configmaps'], ['cluster-info']), events()],
    subjects: [{ kind: 'ServiceAccount', name: 'bootstrap-signer', namespace: 'kube-system' }],
  },
];

const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

function meta(kind: string, resource: string, name: string, namespace: string | undefined, labels: Record<string, string> = {}) {
  const ts = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const path = namespace ? `/apis/${RBAC_GROUP}/v1/namespaces/${namespace}/${resource}/${encodeURIComponent(name)}` : `/apis/${RBAC_GROUP}/v1/${resource}/${encodeURIComponent(name)}`;
  return {
    kind,
    apiVersion: `${RBAC_GROUP}/v1`,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      selfLink: path,
      uid: crypto.randomUUID(),
      creationTimestamp: ts,
      labels: { ...BOOTSTRAP_LABELS, ...labels },
      annotations: { ...AUTOUPDATE },
    },
  };
}

/** Every default object as [storage key, object]. */
export function bootstrapObjects(): [string, KubeObject][] {
  const out: [string, KubeObject][] = [];
  const clusterRole = (r: RoleDef) => {
    const o: Record<string, unknown> = { ...meta('ClusterRole', 'clusterroles', r.name, undefined, r.labels), rules: structuredClone(r.rules) };
    if (r.aggregate) o.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [`${AGG}${r.aggregate}`]: 'true' } }] };
    out.push([storageKey(STORAGE_REFS.clusterRoles, undefined, r.name), o as unknown as KubeObject]);
  };
  const clusterBinding = (b: BindingDef) => {
    const o = { ...meta('ClusterRoleBinding', 'clusterrolebindings', b.name, undefined), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: b.role }, subjects: structuredClone(b.subjects) };
    out.push([storageKey(STORAGE_REFS.clusterRoleBindings, undefined, b.name), o as unknown as KubeObject]);
  };
  for (const r of CLUSTER_ROLES) clusterRole(r);
  for (const b of CLUSTER_ROLE_BINDINGS) clusterBinding(b);
  for (const r of CONTROLLER_ROLES) {
    const name = `system:controller:${r.name}`;
    clusterRole({ ...r, name });
    clusterBinding({ name, role: name, subjects: [{ kind: 'ServiceAccount', name: r.name, namespace: 'kube-system' }] });
  }
  for (const r of NAMESPACE_ROLES) {
    out.push([storageKey(STORAGE_REFS.roles, r.namespace, r.name), { ...meta('Role', 'roles', r.name, r.namespace), rules: structuredClone(r.rules) } as unknown as KubeObject]);
    if (r.subjects.length) {
      const b = { ...meta('RoleBinding', 'rolebindings', r.name, r.namespace), roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: r.name }, subjects: structuredClone(r.subjects) };
      out.push([storageKey(STORAGE_REFS.roleBindings, r.namespace, r.name), b as unknown as KubeObject]);
    }
  }
  return out;
}

/** Creates the defaults that are missing; returns how many were created. */
export async function ensureBootstrapPolicy(store: Store): Promise<number> {
  let created = 0;
  for (const [key, obj] of bootstrapObjects()) {
    if (await store.get(key)) continue;
    try {
      await store.create(key, obj);
      created++;
    } catch (e) {
      if (!(e instanceof StoreError && e.code === 'KeyExists')) throw e;
    }
  }
  return created;
}
