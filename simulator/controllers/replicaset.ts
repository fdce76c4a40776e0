// The ReplicaSet controller (--concurrent-replicaset-syncs workers): the replica manager of
// kit/replica-manager.ts over apps/v1 ReplicaSets (the ReplicationController controller is the same manager over
// core/v1 ReplicationControllers).

import type { LabelSelector } from '../api/labels.ts';
import type { Controller } from './kit/controller.ts';
import { ReplicaManager, type ReplicaKind, type ReplicaSpec } from './kit/replica-manager.ts';
import { specOf } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const REPLICA_SET_KIND: ReplicaKind = {
  controller: 'replicaset',
  component: 'replicaset-controller',
  owners: RESOURCE.replicaSets,
  workersOption: '--concurrent-replicaset-syncs',
  selectorOf: (obj) => specOf<ReplicaSpec>(obj).selector as LabelSelector | undefined,
};

export const replicaSetController = (): Controller => new ReplicaManager(REPLICA_SET_KIND);
