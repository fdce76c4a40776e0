// The ReplicationController controller (--concurrent_rc_syncs workers): the ReplicaSet logic of
// kit/replica-manager.ts over core/v1 ReplicationControllers, whose selector is a plain label map (equality only)
// and whose pods are owned with apiVersion v1, kind ReplicationController.

import type { Controller } from './kit/controller.ts';
import { ReplicaManager, type ReplicaKind } from './kit/replica-manager.ts';
import { specOf } from './kit/workload-util.ts';
import { RESOURCE } from '../client/resource-paths.ts';

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  controller: 'replicationcontroller',
  component: 'replication-controller',
  owners: RESOURCE.replicationControllers,
  workersOption: '--concurrent_rc_syncs',
  // An RC's selector is a map; an empty or missing one was defaulted from the template labels by the API.
  selectorOf: (obj) => {
    const sel = specOf<{ selector?: Record<string, string> }>(obj).selector;
    return sel && Object.keys(sel).length ? { matchLabels: sel } : undefined;
  },
};

export const replicationControllerController = (): Controller => new ReplicaManager(REPLICATION_CONTROLLER_KIND);
