// The Python `kubernetes` client's typed API on every served kind it has models for (python/typed_kinds.py):
// create, read, list, a typed watch, replace, strategic merge patch and delete through the generated models, which
// raise on a shape 1.9 would not write (a null required field: a new ReplicationController's status.replicas).
// Kinds the simulator serves that this client (22.6, for 1.22) has no typed API for (extensions/v1beta1 with
// PodSecurityPolicy, apps/v1beta1 and v1beta2, rbac v1beta1, admissionregistration and apiregistration v1beta1,
// storage.k8s.io/v1beta1 VolumeAttachment, certificates.k8s.io/v1beta1) are reached by the kubectl matrix instead.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { clientDir, pythonClient, requireClient, runPythonChecks, skipUnlessFound, type CheckResult, type ClientDir } from '../testing/real-clients.ts';

const probe = pythonClient();
const NS = 'typed';
const KINDS = [
  'ConfigMap', 'Secret', 'Service', 'Endpoints', 'ServiceAccount', 'Event', 'Pod', 'ReplicationController', 'ResourceQuota', 'PersistentVolumeClaim',
  'Namespace', 'Node', 'PersistentVolume', 'Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'ControllerRevision', 'Job', 'CronJob',
  'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'CertificateSigningRequest',
  // added for 1.9 (issue 40): core LimitRange and PodTemplate, networking.k8s.io/v1 NetworkPolicy, autoscaling/v2beta1, events.k8s.io/v1beta1
  'LimitRange', 'PodTemplate', 'NetworkPolicy', 'HorizontalPodAutoscalerV2beta1', 'EventV1beta1',
];
/** Computed on read: listed and each read. */
const READ_ONLY = ['ComponentStatus'];

describe(`Python kubernetes client ${probe.found?.version ?? ''}: the typed API on every kind`, { skip: skipUnlessFound(probe) }, () => {
  let sim: RunningSimulator;
  let cd: ClientDir;
  let results = new Map<string, CheckResult>();
  let output = '';

  before(async () => {
    const python = requireClient(probe).path;
    // The controllers run, so that status writers (the replication, daemon set, disruption and autoscaler loops)
    // write what they write and the watch sees their objects too.
    sim = await startSimulator({ controllers: true, nodes: { count: 1, startMs: 50, log: () => {} } });
    cd = clientDir(sim.url, NS);
    const created = await fetch(`${sim.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: NS } }) });
    assert.equal(created.status, 201);
    ({ results, output } = await runPythonChecks(python, 'typed_kinds.py', cd, NS, 240_000));
  });
  after(async () => {
    await sim?.close();
    if (cd) rmSync(cd.dir, { recursive: true, force: true });
  });

  for (const kind of KINDS) {
    test(`${kind}: typed create, read, list, watch, replace, patch, delete`, () => {
      const res = results.get(kind);
      assert.ok(res, `typed_kinds.py reported nothing for ${kind}:\n${output}`);
      assert.ok(res.ok, res.detail);
    });
  }
  for (const kind of READ_ONLY) {
    test(`${kind}: typed list and read`, () => {
      const res = results.get(kind);
      assert.ok(res, `typed_kinds.py reported nothing for ${kind}:\n${output}`);
      assert.ok(res.ok, res.detail);
    });
  }
});
