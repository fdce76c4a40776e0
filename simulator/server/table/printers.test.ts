// Cells of the server-side printers: formats and the status words kubectl users read.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatLabelSelector, formatLabels, humanDuration, since } from './format.ts';
import { PRINTERS, defaultPrinter, formatEndpoints, podSummary, printerFor } from './printers.ts';

const NOW = Date.parse('2018-01-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const S = 1000;

describe('human durations', () => {
  const cases: Array<[number, string]> = [
    [-5 * S, '<invalid>'], [-1500, '0s'], [0, '0s'], [59 * S, '59s'], [119 * S, '119s'], [120 * S, '2m'], [330 * S, '5m30s'],
    [600 * S, '10m'], [179 * 60 * S, '179m'], [3 * 3600 * S, '3h'], [(3 * 3600 + 20 * 60) * S, '3h20m'], [30 * 3600 * S, '30h'],
    [(3 * 24 + 4) * 3600 * S, '3d4h'], [2 * 24 * 3600 * S, '2d'], [12 * 24 * 3600 * S, '12d'], [(2 * 365 + 30) * 24 * 3600 * S, '2y30d'],
    [9 * 365 * 24 * 3600 * S, '9y'],
  ];
  for (const [ms, want] of cases) test(`${ms} ms -> ${want}`, () => assert.equal(humanDuration(ms), want));
  test('since: unset or unparsable timestamps are <unknown>', () => {
    assert.equal(since(undefined, NOW), '<unknown>');
    assert.equal(since('x', NOW), '<unknown>');
    assert.equal(since(ago(300), NOW), '5m');
  });
});

describe('labels and selectors', () => {
  test('label maps are sorted k=v pairs or <none>', () => {
    assert.equal(formatLabels({ b: '2', a: '1' }), 'a=1,b=2');
    assert.equal(formatLabels({}), '<none>');
    assert.equal(formatLabels(undefined), '<none>');
  });
  test('label selectors in selector syntax, requirements sorted by key', () => {
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' } }), 'app=web');
    assert.equal(
      formatLabelSelector({ matchLabels: { z: '1' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }, { key: 'env', operator: 'NotIn', values: ['x'] }, { key: 'a', operator: 'Exists' }, { key: 'b', operator: 'DoesNotExist' }] }),
      'a,!b,env notin (x),tier in (a,b),z=1',
    );
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector(undefined), '<none>');
  });
});

const container = (name = 'c') => ({ name, image: `${name}:1` });
function pod(status: object, extra: { deletionTimestamp?: string; containers?: number; initContainers?: number } = {}) {
  return {
    metadata: { name: 'p', creationTimestamp: ago(300), ...(extra.deletionTimestamp ? { deletionTimestamp: extra.deletionTimestamp } : {}) },
    spec: { containers: Array.from({ length: extra.containers ?? 1 }, (_, i) => container(`c${i}`)), initContainers: extra.initContainers ? Array.from({ length: extra.initContainers }, (_, i) => container(`i${i}`)) : undefined, nodeName: 'n1' },
    status,
  };
}
const running = { name: 'c0', ready: true, restartCount: 0, state: { running: { startedAt: ago(200) } } };

describe('pod READY, STATUS, RESTARTS', () => {
  const cases: Array<[string, object, object | undefined, { ready: string; status: string; restarts: string }]> = [
    ['Pending (not scheduled)', { phase: 'Pending' }, undefined, { ready: '0/1', status: 'Pending', restarts: '0' }],
    ['ContainerCreating', { phase: 'Pending', containerStatuses: [{ name: 'c0', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }] }, undefined, { ready: '0/1', status: 'ContainerCreating', restarts: '0' }],
    ['Running', { phase: 'Running', containerStatuses: [running] }, undefined, { ready: '1/1', status: 'Running', restarts: '0' }],
    ['Completed', { phase: 'Succeeded', containerStatuses: [{ name: 'c0', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, undefined, { ready: '0/1', status: 'Completed', restarts: '0' }],
    ['Error', { phase: 'Failed', containerStatuses: [{ name: 'c0', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }, undefined, { ready: '0/1', status: 'Error', restarts: '0' }],
    ['ExitCode without a reason', { phase: 'Failed', containerStatuses: [{ name: 'c0', restartCount: 0, state: { terminated: { exitCode: 3 } } }] }, undefined, { ready: '0/1', status: 'ExitCode:3', restarts: '0' }],
    [
      'CrashLoopBackOff with the last restart',
      { phase: 'Running', containerStatuses: [{ name: 'c0', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(65) } } }] },
      undefined,
      { ready: '0/1', status: 'CrashLoopBackOff', restarts: '4 (65s ago)' },
    ],
    ['Terminating', { phase: 'Running', containerStatuses: [running] }, { deletionTimestamp: ago(1) }, { ready: '1/1', status: 'Terminating', restarts: '0' }],
    ['Unknown when the node is lost', { phase: 'Running', reason: 'NodeLost', containerStatuses: [running] }, { deletionTimestamp: ago(1) }, { ready: '1/1', status: 'Unknown', restarts: '0' }],
    ['Evicted (status reason)', { phase: 'Failed', reason: 'Evicted' }, undefined, { ready: '0/1', status: 'Evicted', restarts: '0' }],
    ['Init:0/1', { phase: 'Pending', initContainerStatuses: [{ name: 'i0', restartCount: 0, state: { running: {} } }] }, { initContainers: 1 }, { ready: '0/1', status: 'Init:0/1', restarts: '0' }],
    ['Init:Error', { phase: 'Pending', initContainerStatuses: [{ name: 'i0', restartCount: 2, state: { terminated: { exitCode: 1, reason: 'Error' } } }] }, { initContainers: 1 }, { ready: '0/1', status: 'Init:Error', restarts: '2' }],
    [
      'Running when one container completed and another runs',
      { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'c0', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { ...running, name: 'c1' }] },
      { containers: 2 },
      { ready: '1/2', status: 'Running', restarts: '0' },
    ],
  ];
  for (const [name, status, extra, want] of cases) {
    test(name, () => assert.deepEqual(podSummary(pod(status, extra), NOW), want));
  }

  test('a pod row: name, ready, status, restarts, age, then IP, node, nominated node, readiness gates', () => {
    const p = pod({ phase: 'Running', podIP: '10.0.0.5', containerStatuses: [running] });
    assert.deepEqual(PRINTERS.Pod.row(p, NOW).cells, ['p', '1/1', 'Running', '0', '5m', '10.0.0.5', 'n1', '<none>', '<none>']);
    assert.deepEqual(PRINTERS.Pod.columns.map((c) => [c.name, c.type, c.priority]), [
      ['Name', 'string', 0], ['Ready', 'string', 0], ['Status', 'string', 0], ['Restarts', 'string', 0], ['Age', 'string', 0],
      ['IP', 'string', 1], ['Node', 'string', 1], ['Nominated Node', 'string', 1], ['Readiness Gates', 'string', 1],
    ]);
    assert.equal(PRINTERS.Pod.columns[0].format, 'name');
  });

  test('finished pods carry a Completed row condition', () => {
    assert.equal(PRINTERS.Pod.row(pod({ phase: 'Succeeded' }), NOW).conditions?.[0].reason, 'Succeeded');
    assert.equal(PRINTERS.Pod.row(pod({ phase: 'Failed' }), NOW).conditions?.[0].reason, 'Failed');
    assert.equal(PRINTERS.Pod.row(pod({ phase: 'Running' }), NOW).conditions, undefined);
  });
});

describe('workload rows', () => {
  const template = { spec: { containers: [container('web'), container('log')] } };
  test('deployment: READY as ready/desired, wide containers, images and selector', () => {
    const d = { metadata: { name: 'd', creationTimestamp: ago(30) }, spec: { replicas: 2, selector: { matchLabels: { app: 'd' } }, template }, status: { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 } };
    assert.deepEqual(PRINTERS.Deployment.row(d, NOW).cells, ['d', '1/2', 2, 1, '30s', 'web,log', 'web:1,log:1', 'app=d']);
    assert.deepEqual(PRINTERS.Deployment.columns.map((c) => c.name), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age', 'Containers', 'Images', 'Selector']);
  });
  test('replica set and replication controller: desired, current, ready', () => {
    const rs = { metadata: { name: 'rs', creationTimestamp: ago(30) }, spec: { replicas: 3, selector: { matchLabels: { a: 'b' } }, template }, status: { replicas: 3, readyReplicas: 2 } };
    assert.deepEqual(PRINTERS.ReplicaSet.row(rs, NOW).cells, ['rs', 3, 3, 2, '30s', 'web,log', 'web:1,log:1', 'a=b']);
    const rc = { metadata: { name: 'rc', creationTimestamp: ago(30) }, spec: { replicas: 1, selector: { a: 'b' }, template }, status: {} };
    assert.deepEqual(PRINTERS.ReplicationController.row(rc, NOW).cells, ['rc', 1, 0, 0, '30s', 'web,log', 'web:1,log:1', 'a=b']);
  });
  test('daemon set: desired, current, ready, up-to-date, available, node selector', () => {
    const ds = { metadata: { name: 'ds', creationTimestamp: ago(30) }, spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { ...template.spec, nodeSelector: { disk: 'ssd' } } } }, status: { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 1 } };
    assert.deepEqual(PRINTERS.DaemonSet.row(ds, NOW).cells, ['ds', 2, 2, 1, 2, 1, 'disk=ssd', '30s', 'web,log', 'web:1,log:1', 'a=b']);
    assert.deepEqual(PRINTERS.DaemonSet.columns.filter((c) => c.priority === 0).map((c) => c.name), ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age']);
  });
  test('stateful set: desired, current; controller revision: controller kind.group/name, revision', () => {
    const ss = { metadata: { name: 'db', creationTimestamp: ago(30) }, spec: { replicas: 3, template }, status: { replicas: 2 } };
    assert.deepEqual(PRINTERS.StatefulSet.row(ss, NOW).cells, ['db', 3, 2, '30s', 'web,log', 'web:1,log:1']);
    const rev = { metadata: { name: 'db-abc', creationTimestamp: ago(30), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u', controller: true }] }, revision: 2 };
    assert.deepEqual(PRINTERS.ControllerRevision.row(rev, NOW).cells, ['db-abc', 'statefulset.apps/db', 2, '30s']);
    assert.deepEqual(PRINTERS.ControllerRevision.row({ metadata: { name: 'x' } }, NOW).cells.slice(1, 3), ['<none>', 0]);
  });
  test('horizontal pod autoscaler: reference, targets, min (<unset>), max, replicas; pod disruption budget', () => {
    const hpa = (spec: object, status: object) => ({ metadata: { name: 'web', creationTimestamp: ago(30) }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, ...spec }, status });
    assert.deepEqual(PRINTERS.HorizontalPodAutoscaler.row(hpa({ minReplicas: 1, targetCPUUtilizationPercentage: 50 }, { currentReplicas: 2, currentCPUUtilizationPercentage: 7 }), NOW).cells, ['web', 'Deployment/web', '7%/50%', 1, 3, 2, '30s']);
    assert.deepEqual(PRINTERS.HorizontalPodAutoscaler.row(hpa({}, {}), NOW).cells.slice(2, 4), ['<unknown>/80%', '<unset>']);
    const v2 = hpa({ metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 60 } }] }, { currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 12 } }] });
    assert.equal(PRINTERS.HorizontalPodAutoscaler.row(v2, NOW).cells[2], '12%/60%');
    const pdb = { metadata: { name: 'b', creationTimestamp: ago(30) }, spec: { maxUnavailable: 1 }, status: { disruptionsAllowed: 1 } };
    assert.deepEqual(PRINTERS.PodDisruptionBudget.row(pdb, NOW).cells, ['b', 'N/A', '1', 1, '30s']);
  });
  test('job: completions and duration', () => {
    const job = (spec: object, status: object) => ({ metadata: { name: 'j', creationTimestamp: ago(100) }, spec: { template, ...spec }, status });
    assert.deepEqual(PRINTERS.Job.row(job({ completions: 3 }, { succeeded: 1, startTime: ago(90) }), NOW).cells.slice(0, 4), ['j', '1/3', '90s', '100s']);
    assert.deepEqual(PRINTERS.Job.row(job({}, { succeeded: 1, startTime: ago(90), completionTime: ago(80) }), NOW).cells.slice(1, 3), ['1/1', '10s']);
    assert.deepEqual(PRINTERS.Job.row(job({ parallelism: 4 }, {}), NOW).cells.slice(1, 3), ['0/1 of 4', '']);
    assert.deepEqual(PRINTERS.Job.columns.filter((c) => c.priority === 0).map((c) => c.name), ['Name', 'Completions', 'Duration', 'Age']);
  });
  test('cron job: schedule, suspend, active, last schedule', () => {
    const cj = { metadata: { name: 'cj', creationTimestamp: ago(600) }, spec: { schedule: '*/1 * * * *', suspend: false, jobTemplate: { spec: { template } } }, status: { active: [{ name: 'x' }], lastScheduleTime: ago(20) } };
    assert.deepEqual(PRINTERS.CronJob.row(cj, NOW).cells.slice(0, 6), ['cj', '*/1 * * * *', 'False', 1, '20s', '10m']);
    assert.deepEqual(PRINTERS.CronJob.row({ metadata: { name: 'x' }, spec: {}, status: {} }, NOW).cells.slice(2, 5), ['<unset>', 0, '<none>']);
    assert.equal(PRINTERS.CronJob.columns[2].type, 'boolean');
  });
});

describe('core and networking rows', () => {
  test('node: Ready, NotReady, Unknown, SchedulingDisabled; roles from labels', () => {
    const node = (conditions: object[], extra: object = {}, labels: object = {}) => ({ metadata: { name: 'n', creationTimestamp: ago(60), labels }, spec: extra, status: { conditions, nodeInfo: { kubeletVersion: 'v1.9.0' }, addresses: [{ type: 'InternalIP', address: '172.16.0.2' }] } });
    assert.deepEqual(PRINTERS.Node.row(node([{ type: 'Ready', status: 'True' }]), NOW).cells, ['n', 'Ready', '<none>', '60s', 'v1.9.0', '172.16.0.2', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    assert.equal(PRINTERS.Node.row(node([{ type: 'Ready', status: 'Unknown' }], { unschedulable: true }), NOW).cells[1], 'NotReady,SchedulingDisabled');
    assert.equal(PRINTERS.Node.row(node([]), NOW).cells[1], 'Unknown');
    assert.equal(PRINTERS.Node.row(node([], {}, { 'node-role.kubernetes.io/master': '', 'kubernetes.io/role': 'node' }), NOW).cells[2], 'master,node');
  });
  test('service: type, cluster IP, external IP, ports, wide selector', () => {
    const svc = (spec: object, status: object = {}) => ({ metadata: { name: 's', creationTimestamp: ago(5) }, spec, status });
    assert.deepEqual(PRINTERS.Service.row(svc({ type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } }), NOW).cells, ['s', 'ClusterIP', '10.0.0.1', '<none>', '80/TCP', '5s', 'app=web']);
    assert.deepEqual(PRINTERS.Service.row(svc({ type: 'NodePort', clusterIP: '10.0.0.2', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] }), NOW).cells.slice(1, 5), ['NodePort', '10.0.0.2', '<none>', '80:30080/TCP,53/UDP']);
    assert.equal(PRINTERS.Service.row(svc({ type: 'LoadBalancer' }), NOW).cells[3], '<pending>');
    assert.equal(PRINTERS.Service.row(svc({ type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } }), NOW).cells[3], '1.2.3.4');
    assert.equal(PRINTERS.Service.row(svc({ type: 'ExternalName', externalName: 'example.com' }), NOW).cells[3], 'example.com');
    assert.equal(PRINTERS.Service.row(svc({ type: 'ClusterIP', clusterIP: 'None' }), NOW).cells[4], '<none>');
  });
  test('endpoints: ip:port, at most three, then + N more...', () => {
    assert.equal(formatEndpoints({}), '<none>');
    assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }] }), '10.0.0.1:80,10.0.0.2:80');
    assert.equal(formatEndpoints({ subsets: [{ addresses: [1, 2, 3, 4, 5].map((i) => ({ ip: `10.0.0.${i}` })), ports: [{ port: 80 }] }] }), '10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 2 more...');
    assert.equal(formatEndpoints({ subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] }), '10.0.0.1');
  });
  test('ingress: class, hosts, address, ports', () => {
    const ing = { metadata: { name: 'i', creationTimestamp: ago(5) }, spec: { tls: [{}], rules: [{ host: 'a.example' }, {}, { host: 'b.example' }, { host: 'c.example' }, { host: 'd.example' }] }, status: { loadBalancer: { ingress: [{ hostname: 'lb.example' }] } } };
    assert.deepEqual(PRINTERS.Ingress.row(ing, NOW).cells, ['i', '<none>', 'a.example,b.example,c.example + 2 more...', 'lb.example', '80, 443', '5s']);
    assert.equal(PRINTERS.Ingress.row({ metadata: { name: 'i' }, spec: {} }, NOW).cells[2], '*');
  });
  test('namespaces, config maps, secrets, service accounts', () => {
    const meta = { name: 'x', creationTimestamp: ago(3) };
    assert.deepEqual(PRINTERS.Namespace.row({ metadata: meta, status: { phase: 'Terminating' } }, NOW).cells, ['x', 'Terminating', '3s']);
    assert.deepEqual(PRINTERS.ConfigMap.row({ metadata: meta, data: { a: '1', b: '2' }, binaryData: { c: '' } }, NOW).cells, ['x', 3, '3s']);
    assert.deepEqual(PRINTERS.Secret.row({ metadata: meta, type: 'Opaque', data: { a: '' } }, NOW).cells, ['x', 'Opaque', 1, '3s']);
    assert.deepEqual(PRINTERS.ServiceAccount.row({ metadata: meta, secrets: [{ name: 's' }] }, NOW).cells, ['x', 1, '3s']);
  });
  test('events: last seen, type, reason, object, message; wide subobject, source, first seen, count, name', () => {
    const ev = { metadata: { name: 'web.1' }, involvedObject: { kind: 'Pod', name: 'web', fieldPath: 'spec.containers{c}' }, reason: 'Started', message: ' Started container \n', type: 'Normal', source: { component: 'kubelet', host: 'n1' }, firstTimestamp: ago(600), lastTimestamp: ago(30), count: 3 };
    assert.deepEqual(PRINTERS.Event.row(ev, NOW).cells, ['30s', 'Normal', 'Started', 'pod/web', 'spec.containers{c}', 'kubelet, n1', 'Started container', '10m', 3, 'web.1']);
    assert.deepEqual(PRINTERS.Event.columns.filter((c) => c.priority === 0).map((c) => c.name), ['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    const single = PRINTERS.Event.row({ metadata: { name: 'e' }, involvedObject: { kind: 'Node' }, firstTimestamp: ago(5) }, NOW).cells;
    assert.deepEqual([single[0], single[3], single[8]], ['5s', 'node', 1]);
  });
  test('anything else: Name and Created At (RFC 3339)', () => {
    assert.equal(printerFor('Binding'), defaultPrinter);
    assert.deepEqual(defaultPrinter.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
    assert.deepEqual(defaultPrinter.row({ metadata: { name: 'b', creationTimestamp: '2018-01-01T11:00:00Z' } }, NOW).cells, ['b', '2018-01-01T11:00:00Z']);
  });
});

describe('volumes', () => {
  test('PersistentVolume, PersistentVolumeClaim, StorageClass and VolumeAttachment rows', () => {
    const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, creationTimestamp: ago(120), ...extra });
    const pv = { metadata: meta('pv1'), spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Recycle', claimRef: { namespace: 'ns', name: 'c' }, storageClassName: 'fast' }, status: { phase: 'Bound' } };
    assert.deepEqual(PRINTERS.PersistentVolume.row(pv, NOW).cells, ['pv1', '5Gi', 'RWO,RWX', 'Recycle', 'Bound', 'ns/c', 'fast', '', '2m']);
    const pending = { metadata: meta('c'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } };
    assert.deepEqual(PRINTERS.PersistentVolumeClaim.row(pending, NOW).cells, ['c', 'Pending', '', '', '', '', '2m']);
    const bound = { ...pending, spec: { ...pending.spec, volumeName: 'pv1', storageClassName: 'fast' }, status: { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'] } };
    assert.deepEqual(PRINTERS.PersistentVolumeClaim.row(bound, NOW).cells, ['c', 'Bound', 'pv1', '5Gi', 'RWO', 'fast', '2m']);
    assert.equal(PRINTERS.PersistentVolumeClaim.row({ ...bound, metadata: { ...bound.metadata, deletionTimestamp: ago(1) } }, NOW).cells[1], 'Terminating');
    const sc = { metadata: meta('standard', { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }), provisioner: 'kubernetes.io/host-path' };
    assert.deepEqual(PRINTERS.StorageClass.row(sc, NOW).cells, ['standard (default)', 'kubernetes.io/host-path', '2m']);
    const va = { metadata: meta('csi-1'), spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'n1' }, status: { attached: true } };
    assert.deepEqual(PRINTERS.VolumeAttachment.row(va, NOW).cells, ['csi-1', 'csi.example.com', 'pv1', 'n1', true, '2m']);
  });
});
