// Descriptions of the RBAC group's types (rbac.authorization.k8s.io/v1, and v1beta1's, the same types): roles, bindings, rules, subjects.

import { t, type PackageDescriptions } from './common.ts';

const RULES = 'What the role allows; it allows nothing else.';
const ROLE_REF = 'The role granted. Cannot be changed: delete and recreate the binding instead.';
const SUBJECTS = 'The users, groups and service accounts granted the role.';

export const RBAC_V1: PackageDescriptions = {
  packages: ['io.k8s.api.rbac.v1', 'io.k8s.api.rbac.v1beta1'],
  types: {
    Role: t('A set of permissions within one namespace.', { rules: RULES }),
    ClusterRole: t('A set of permissions cluster-wide, or within any namespace when granted by a RoleBinding.', {
      rules: RULES,
      aggregationRule: 'When set, the rules are kept by the controller as the union of the cluster roles these selectors pick.',
    }),
    RoleBinding: t('Grants a role (or cluster role) to subjects within one namespace.', { roleRef: ROLE_REF, subjects: SUBJECTS }),
    ClusterRoleBinding: t('Grants a cluster role to subjects cluster-wide.', { roleRef: ROLE_REF, subjects: SUBJECTS }),
    PolicyRule: t('One permission: verbs allowed on resources (or on non-resource URLs).', {
      verbs: 'The verbs allowed: get, list, watch, create, update, patch, delete, deletecollection... "*" for all.',
      apiGroups: 'The groups of the resources ("" for the core group); "*" for all.',
      resources: 'The resources, with subresources as "pods/log"; "*" for all.',
      resourceNames: 'Only these objects, by name; every object when empty.',
      nonResourceURLs: 'URL paths that are not resources (e.g. /healthz, /version); only in cluster roles.',
    }),
    AggregationRule: t('How a cluster role is put together from others.', { clusterRoleSelectors: 'Label selectors of the cluster roles whose rules are added.' }),
    RoleRef: t('A reference to the role a binding grants.', { apiGroup: 'The role\'s group: rbac.authorization.k8s.io.', kind: 'Role or ClusterRole.', name: 'The role\'s name.' }),
    Subject: t('Who a binding grants its role to.', {
      kind: 'User, Group or ServiceAccount.',
      apiGroup: '"rbac.authorization.k8s.io" for users and groups, "" for service accounts.',
      name: 'The user, group or service account name.',
      namespace: 'The service account\'s namespace; empty for users and groups.',
    }),
  },
};
