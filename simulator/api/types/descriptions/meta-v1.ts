// Descriptions of the machinery types every group shares (meta/v1, and the value types Quantity, IntOrString,
// RawExtension): object and list metadata, selectors, options, Status, discovery documents.

import { t, type PackageDescriptions } from './common.ts';

const TYPE_META = {
  apiVersion: 'The group and version of this object\'s schema, e.g. "v1" or "apps/v1".',
  kind: 'The name of this object\'s schema, in CamelCase.',
};

export const META_V1: PackageDescriptions = {
  packages: ['io.k8s.apimachinery.pkg.apis.meta.v1', 'io.k8s.apimachinery.pkg.api.resource', 'io.k8s.apimachinery.pkg.runtime', 'io.k8s.apimachinery.pkg.util.intstr'],
  types: {
    Time: t('A point in time, written as RFC 3339 in UTC with whole seconds, e.g. "2018-01-02T15:04:05Z".'),
    MicroTime: t('A point in time with microseconds, written as RFC 3339 in UTC, e.g. "2018-01-02T15:04:05.000123Z".'),
    Duration: t('A length of time in Go\'s notation, e.g. "90s", "1h30m".'),
    Patch: t('The body of a PATCH request; what it holds depends on its Content-Type (JSON patch, merge patch, strategic merge patch).'),
    Quantity: t('A decimal amount with an optional unit suffix: binary (Ki, Mi, Gi...), decimal (k, M, G...) or milli (m), e.g. "250m", "1Gi", "2".'),
    RawExtension: t('Another object embedded whole, in its own JSON form.'),
    IntOrString: t('A value that is either an integer or a string, e.g. a port number or a port name, a count or a percentage.'),
    ObjectMeta: t('The metadata every stored object carries: its name and namespace, identity, version, labels, annotations, owners and deletion state.', {
      name: 'The object\'s name, unique among objects of its kind in its namespace. Required on create unless generateName is given. Cannot be changed.',
      generateName: 'A prefix from which the server makes a unique name when name is empty (a random suffix is added).',
      namespace: 'The namespace the object lives in; empty for cluster-wide kinds. Cannot be changed.',
      selfLink: 'The URL path of this object on the server. Set by the server; read-only.',
      uid: 'An identifier unique in space and time, set by the server when the object is created; a new object of the same name gets a new one. Read-only.',
      resourceVersion: 'The version of the object as stored. Opaque to clients: pass it back for optimistic concurrency on update, or to start a watch after this change.',
      generation: 'A number the server increases each time the desired state (spec) changes. Read-only.',
      creationTimestamp: 'When the server created the object (RFC 3339, UTC). Read-only.',
      deletionTimestamp: 'When the object will be removed: set by the server once a delete was asked for and the object waits for its grace period or finalizers. Read-only.',
      deletionGracePeriodSeconds: 'Seconds the object is given to end gracefully before it is removed; set with deletionTimestamp. Read-only.',
      labels: 'Key/value pairs to organise and select objects (label selectors match them).',
      annotations: 'Key/value pairs of non-identifying information for tools and controllers; not selectable.',
      ownerReferences: 'The objects this one depends on. When every owner is gone the garbage collector deletes this object; a controller owner is the one managing it.',
      initializers: 'Initializers still to run before the object is visible to ordinary reads (alpha; the simulator never sets any).',
      finalizers: 'Names of parties that must clean up before the object is removed; a deleted object stays until the list is empty.',
      clusterName: 'The cluster the object belongs to. Not used: the server ignores it.',
    }),
    ListMeta: t('The metadata of a list answer.', {
      selfLink: 'The URL path of this list on the server. Read-only.',
      resourceVersion: 'The storage version the list was read at; start a watch from it to see every later change.',
      continue: 'A token for the next chunk when the list was asked for with a limit and more items remain; empty on the last chunk.',
      remainingItemCount: 'How many items remain after this chunk, when the server can tell.',
    }),
    LabelSelector: t('A query over labels. An object matches when it matches every matchLabels pair and every matchExpressions requirement; an empty selector matches everything.', {
      matchLabels: 'Labels the object must carry with exactly these values.',
      matchExpressions: 'Requirements on labels, all of which must hold.',
    }),
    LabelSelectorRequirement: t('One requirement on a label: a key, an operator and values.', {
      key: 'The label key the requirement is about.',
      operator: 'In, NotIn, Exists or DoesNotExist.',
      values: 'The values for In and NotIn (at least one); empty for Exists and DoesNotExist.',
    }),
    OwnerReference: t('A reference to an object this one depends on, in the same namespace.', {
      apiVersion: 'The group and version of the owner\'s kind.',
      kind: 'The owner\'s kind.',
      name: 'The owner\'s name.',
      uid: 'The owner\'s uid: the reference holds only while an object with this uid exists.',
      controller: 'True when the owner is the controller managing this object; at most one owner is.',
      blockOwnerDeletion: 'When true, a foreground deletion of the owner waits until this object is gone.',
    }),
    Initializer: t('One pending initializer.', { name: 'The name of the process that will initialize the object.' }),
    Initializers: t('The initialization state of an object (alpha).', {
      pending: 'Initializers that have not run yet, in order.',
      result: 'Set when initialization failed: why.',
    }),
    DeleteOptions: t('Options of a delete request, sent as its body or query.', {
      ...TYPE_META,
      gracePeriodSeconds: 'Seconds the object has to end gracefully; 0 means at once; unset means the kind\'s default.',
      preconditions: 'Conditions the stored object must meet for the delete to proceed (409 otherwise).',
      orphanDependents: 'Deprecated: true orphans the dependents, false deletes them in the background. Use propagationPolicy.',
      propagationPolicy: 'What happens to dependents: Orphan (kept, owner reference removed), Background (deleted after the owner) or Foreground (deleted before the owner).',
      dryRun: 'When "All", everything is checked and answered but nothing is removed.',
    }),
    Preconditions: t('Conditions a delete checks against the stored object.', {
      uid: 'The uid the object must have.',
      resourceVersion: 'The resourceVersion the object must have.',
    }),
    Status: t('The result of a request that does not answer an object: success of some deletes, or any error.', {
      ...TYPE_META,
      metadata: 'List-style metadata; usually empty.',
      status: '"Success" or "Failure".',
      message: 'What happened, for people.',
      reason: 'A CamelCase word for machines naming why it failed (NotFound, AlreadyExists, Conflict, Invalid...); empty when unknown.',
      details: 'More about the failure, depending on reason: the object named and the causes.',
      code: 'The HTTP status code of the answer.',
    }),
    StatusDetails: t('Details of a failed request.', {
      name: 'The name of the object the failure is about.',
      group: 'The group of that object\'s kind.',
      kind: 'That object\'s kind (or resource).',
      uid: 'That object\'s uid, when known.',
      causes: 'The individual causes, e.g. one per invalid field.',
      retryAfterSeconds: 'When set, how long the client should wait before trying again.',
    }),
    StatusCause: t('One cause of a failure.', {
      reason: 'A CamelCase word naming the cause (FieldValueRequired, FieldValueInvalid...).',
      message: 'The cause, for people.',
      field: 'The path of the field at fault, e.g. "spec.containers[0].name".',
    }),
    WatchEvent: t('One change on a watch stream.', {
      type: 'ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.',
      object: 'The object after the change (for DELETED: its last state; for ERROR: a Status).',
    }),
    APIVersions: t('The versions of the core API (GET /api).', {
      ...TYPE_META,
      versions: 'The versions served under /api.',
      serverAddressByClientCIDRs: 'The address clients in each network should use to reach the server.',
    }),
    APIGroupList: t('Every API group the server serves (GET /apis).', { ...TYPE_META, groups: 'The groups.' }),
    APIGroup: t('One API group, its versions and the version clients should prefer.', {
      ...TYPE_META,
      name: 'The group\'s name, e.g. "apps".',
      versions: 'The versions of the group this server serves.',
      preferredVersion: 'The version clients should use when they have no reason to pick another.',
      serverAddressByClientCIDRs: 'The address clients in each network should use to reach the server.',
    }),
    GroupVersionForDiscovery: t('One version of a group.', {
      groupVersion: 'Group and version as "group/version" ("v1" for the core group).',
      version: 'The version alone, e.g. "v1beta1".',
    }),
    ServerAddressByClientCIDR: t('Which server address clients from a network should use.', {
      clientCIDR: 'The clients\' network, in CIDR notation.',
      serverAddress: 'The address (host or host:port) to use from there.',
    }),
    APIResourceList: t('The resources of one group version (GET /api/v1, /apis/<group>/<version>).', {
      ...TYPE_META,
      groupVersion: 'The group version these resources belong to.',
      resources: 'The resources and subresources served.',
    }),
    APIResource: t('One resource (or subresource, "pods/status") a group version serves, and what can be done with it.', {
      name: 'The plural resource name used in paths, e.g. "deployments" or "deployments/scale".',
      singularName: 'The singular name, e.g. "deployment".',
      namespaced: 'Whether objects of this resource live in namespaces.',
      group: 'The group of the kind, when it differs from the containing group version (subresources).',
      version: 'The version of the kind, when it differs from the containing group version.',
      kind: 'The kind of the objects, e.g. "Deployment".',
      verbs: 'The verbs the resource supports: get, list, watch, create, update, patch, delete, deletecollection.',
      shortNames: 'Abbreviations clients accept for the resource, e.g. "deploy".',
      categories: 'Groups of resources this one belongs to, e.g. "all".',
    }),
  },
};
