// The ReplicationController controller (--concurrent_rc_syncs workers): the ReplicaSet logic of
// replicaset.ts over core/v1 ReplicationControllers, whose selector is a plain label map (equality only)
// and whose pods are owned with apiVersion v1, kind ReplicationController.

import type { Controller } from './kit/controller.ts';
import { ReplicaManager, type ReplicaKind } from './replicaset.ts';
import { specOf } from './workload-util.ts';

export const REPLICATION_CONTROLLER_KIND: ReplicaKind = {
  controller: 'replicationcontroller',
  informerPath: '/api/v1/replicationcontrollers',
  apiVersion: 'v1',
  kind: 'ReplicationController',
  workersOption: '--concurrent_rc_syncs',
  objectPath: (ns, name) => `/api/v1/namespaces/${encodeURIComponent(ns)}/replicationcontrollers/${encodeURIComponent(name)}`,
  // An RC's selector is a map; an empty or missing one was defaulted from the template labels by the API.
  selectorOf: (obj) => {
    const sel = specOf<{ selector?: Record<string, string> }>(obj).selector;
    return sel && Object.keys(sel).length ? { matchLabels: sel } : undefined;
  },
};

export const replicationControllerController = (): Controller => new ReplicaManager(REPLICATION_CONTROLLER_KIND);
