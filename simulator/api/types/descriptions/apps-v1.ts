// Descriptions of the apps group's types (apps/v1): Deployments, ReplicaSets, DaemonSets, StatefulSets and the
// ControllerRevisions their controllers keep. DeploymentSpec and DeploymentStatus fields are in the spec's words
// (spec-tables/fields.yaml), which index.ts takes first.

import {
  COLLISION_COUNT, condition, INT_OR_PERCENT, LAST_UPDATE_TIME, MIN_READY_SECONDS, OBSERVED_GENERATION, REVISION_HISTORY_LIMIT, SELECTOR, t, TEMPLATE,
  type PackageDescriptions,
} from './common.ts';

export const APPS_V1: PackageDescriptions = {
  packages: ['io.k8s.api.apps.v1'],
  types: {
    Deployment: t('Declares pods by a template and a replica count; the deployment controller rolls changes of the template out through ReplicaSets, one per template revision, and can roll back.', {
      spec: 'The desired pods: template, replicas, selector, and how an update replaces old pods.',
      status: 'What the deployment controller last saw: replica counts and conditions (Available, Progressing).',
    }),
    DeploymentSpec: t('The desired state of a deployment.'),
    DeploymentStatus: t('What the deployment controller last observed.'),
    DeploymentStrategy: t('How a deployment replaces the pods of an old template with pods of the new one.', {
      type: 'RollingUpdate (default): replace pods a few at a time, within maxSurge and maxUnavailable; Recreate: remove every old pod before creating new ones.',
      rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
    }),
    RollingUpdateDeployment: t('Limits that pace a rolling update of a deployment.', {
      maxUnavailable: `How many desired pods may be unavailable during the update: ${INT_OR_PERCENT}, percentages rounded down. Default 25%. Cannot be 0 when maxSurge is 0.`,
      maxSurge: `How many pods may exist above the desired count during the update: ${INT_OR_PERCENT}, percentages rounded up. Default 25%. Cannot be 0 when maxUnavailable is 0.`,
    }),
    DeploymentCondition: condition('deployment', 'Available, Progressing, ReplicaFailure', { lastUpdateTime: LAST_UPDATE_TIME }),
    ReplicaSet: t('Keeps a number of copies of a pod running: creates pods from its template when too few match its selector, deletes some when too many do. Usually owned by a Deployment.', {
      spec: 'How many pods, which pods, and the template of new ones.',
      status: 'How many pods the ReplicaSet controller last saw.',
    }),
    ReplicaSetSpec: t('The desired state of a ReplicaSet.', {
      replicas: 'How many pods to keep. Default 1.',
      minReadySeconds: MIN_READY_SECONDS,
      selector: SELECTOR,
      template: TEMPLATE,
    }),
    ReplicaSetStatus: t('What the ReplicaSet controller last saw.', {
      replicas: 'Pods matching the selector.',
      fullyLabeledReplicas: 'Pods whose labels match the template\'s labels.',
      readyReplicas: 'Pods ready.',
      availableReplicas: 'Pods ready for at least minReadySeconds.',
      observedGeneration: OBSERVED_GENERATION,
      conditions: 'Observations of the ReplicaSet, e.g. ReplicaFailure.',
    }),
    ReplicaSetCondition: condition('ReplicaSet', 'ReplicaFailure'),
    DaemonSet: t('Runs one copy of a pod on every node (or every node a selector picks); new nodes get one, removed nodes lose theirs.', {
      spec: 'The pod to run on each node and how updates replace it.',
      status: 'How many nodes run the pod, as the DaemonSet controller last saw.',
    }),
    DaemonSetSpec: t('The desired state of a DaemonSet.', {
      selector: SELECTOR,
      template: 'The pod run on each eligible node; its nodeSelector and affinity pick the nodes.',
      updateStrategy: 'How pods are replaced when the template changes.',
      minReadySeconds: MIN_READY_SECONDS,
      revisionHistoryLimit: `${REVISION_HISTORY_LIMIT} Default 10.`,
    }),
    DaemonSetStatus: t('What the DaemonSet controller last saw.', {
      currentNumberScheduled: 'Nodes that run the pod and should.',
      numberMisscheduled: 'Nodes that run the pod but should not.',
      desiredNumberScheduled: 'Nodes that should run the pod.',
      numberReady: 'Nodes whose pod is ready.',
      observedGeneration: OBSERVED_GENERATION,
      updatedNumberScheduled: 'Nodes whose pod has the current template.',
      numberAvailable: 'Nodes whose pod has been ready for at least minReadySeconds.',
      numberUnavailable: 'Nodes that should run an available pod and do not.',
      collisionCount: COLLISION_COUNT,
      conditions: 'Observations of the DaemonSet.',
    }),
    DaemonSetUpdateStrategy: t('How a DaemonSet replaces its pods when the template changes.', {
      type: 'RollingUpdate (default in apps/v1): replace pods node by node; OnDelete: a new pod only where the old one was deleted by hand.',
      rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
    }),
    RollingUpdateDaemonSet: t('Limits that pace a rolling update of a DaemonSet.', {
      maxUnavailable: `How many nodes may be without an available pod during the update: ${INT_OR_PERCENT}. Default 1.`,
      maxSurge: `How many nodes may run an old and a new pod at once during the update: ${INT_OR_PERCENT}. Default 0.`,
    }),
    DaemonSetCondition: condition('DaemonSet', 'set by controllers'),
    StatefulSet: t('Runs pods with stable identities: each gets an ordinal name (<set>-0, <set>-1...), its own storage from claim templates, and a stable DNS name through a headless service; pods start, update and stop in order.', {
      spec: 'The pods, their number, their storage and how updates roll out.',
      status: 'Replica counts and revisions, as the StatefulSet controller last saw.',
    }),
    StatefulSetSpec: t('The desired state of a StatefulSet.', {
      replicas: 'How many pods. Default 1.',
      selector: SELECTOR,
      template: 'The pod; each replica is made from it with its own name and claims.',
      volumeClaimTemplates: 'Claims made for each pod (named <claim>-<pod>) and mounted by the template\'s volumes of the same name.',
      serviceName: 'The headless service that gives the pods their DNS names; it must exist.',
      podManagementPolicy: 'OrderedReady (default): create and remove pods one at a time, each waiting for the previous; Parallel: all at once.',
      updateStrategy: 'How pods are replaced when the template changes.',
      revisionHistoryLimit: `${REVISION_HISTORY_LIMIT} Default 10.`,
    }),
    StatefulSetStatus: t('What the StatefulSet controller last saw.', {
      observedGeneration: OBSERVED_GENERATION,
      replicas: 'Pods the controller made.',
      readyReplicas: 'Pods ready.',
      currentReplicas: 'Pods at currentRevision.',
      updatedReplicas: 'Pods at updateRevision.',
      currentRevision: 'The revision of the pods before the update in progress.',
      updateRevision: 'The revision the pods are being updated to.',
      collisionCount: COLLISION_COUNT,
      conditions: 'Observations of the StatefulSet.',
    }),
    StatefulSetUpdateStrategy: t('How a StatefulSet replaces its pods when the template changes.', {
      type: 'RollingUpdate (default): replace pods from the highest ordinal down; OnDelete: a new pod only where the old one was deleted by hand.',
      rollingUpdate: 'Limits of a rolling update; only with type RollingUpdate.',
    }),
    RollingUpdateStatefulSetStrategy: t('Limits of a StatefulSet\'s rolling update.', {
      partition: 'Only pods with an ordinal at or above this are updated; the others keep the old template (a canary). Default 0.',
    }),
    StatefulSetCondition: condition('StatefulSet', 'set by controllers'),
    ControllerRevision: t('An immutable snapshot of a template, written by the DaemonSet and StatefulSet controllers so updates can be tracked and rolled back.', {
      data: 'The snapshot: the part of the owner\'s spec that defines a revision.',
      revision: 'The revision number, increasing with each new template.',
    }),
  },
};
