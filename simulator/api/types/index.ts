// The shapes of the kinds' spec and status, typed once (the JSON form of the 1.9 API types, every field optional
// as it is on the wire). Controllers, nodes, tests and the suites (type-only) read objects through these instead
// of declaring their own partial copies. Add fields as code needs them; keep the real field names.

import type { LabelSelector } from '../labels.ts';
import type { KubeObject } from '../meta.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A status condition (DeploymentCondition, JobCondition, PodCondition, NodeCondition share this form). */
export interface Condition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  lastHeartbeatTime?: string;
}

export interface ObjectReference {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  apiVersion: string;
  resourceVersion?: string;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

// ---- apps/v1 ----

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplate;
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  minReadySeconds?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  collisionCount?: number;
  conditions?: Condition[];
}

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplate;
}

export interface ReplicaSetStatus {
  replicas?: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

// ---- batch ----

export interface JobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  startTime?: string;
  completionTime?: string;
  conditions?: Condition[];
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
}

// ---- core/v1 ----

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  image?: string;
  imageID?: string;
  containerID?: string;
  state?: Record<string, unknown>;
  lastState?: Record<string, unknown>;
}

export interface PodStatus {
  phase?: PodPhase | string;
  conditions?: Condition[];
  hostIP?: string;
  podIP?: string;
  startTime?: string;
  reason?: string;
  message?: string;
  qosClass?: string;
  containerStatuses?: ContainerStatus[];
}

export interface NodeStatus {
  conditions?: Condition[];
  addresses?: Array<{ type: string; address: string }>;
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
}

/** The status of a typed object, {} when it has none (objects read from the API are untyped JSON). */
export const statusAs = <T>(obj: KubeObject): T => (obj.status ?? {}) as T;
