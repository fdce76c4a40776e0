// The per-kind field-selector table (field-selectors.ts): which fields each kind takes, and the values they hold
// as the real server's field sets do (integers in decimal, absent ones "0"; booleans, absent ones "false").

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bindFieldSelector, matchesFields, parseFieldSelector } from '../fields.ts';
import type { KubeObject } from '../meta.ts';
import { RESOURCES } from '../registry.ts';
import { selectableFieldsOf } from './field-selectors.ts';

const def = (group: string, version: string, kind: string) => {
  const d = RESOURCES.find((r) => r.group === group && r.version === version && r.kind === kind);
  assert.ok(d, `${group}/${version} ${kind} is served`);
  return d;
};
const obj = (kind: string, rest: Record<string, unknown>, namespace?: string): KubeObject =>
  ({ kind, apiVersion: 'v1', metadata: { name: 'x', ...(namespace ? { namespace } : {}) }, ...rest }) as KubeObject;
const matches = (d: ReturnType<typeof def>, selector: string, o: KubeObject) =>
  matchesFields(bindFieldSelector(parseFieldSelector(selector), selectableFieldsOf(d)), o);
const refused = (d: ReturnType<typeof def>, selector: string) =>
  assert.throws(() => bindFieldSelector(parseFieldSelector(selector), selectableFieldsOf(d)), { message: `field label not supported: ${selector.split(/!?=/)[0]}` }, selector);

test('nodes: spec.unschedulable reads "false" when absent; metadata.namespace is not a node field', () => {
  const node = def('', 'v1', 'Node');
  assert.ok(matches(node, 'spec.unschedulable=false', obj('Node', { spec: {} })), "matches(node, 'spec.unschedulable=false', obj('Node', { spec: {} }))");
  assert.ok(matches(node, 'spec.unschedulable=true', obj('Node', { spec: { unschedulable: true } })), "matches(node, 'spec.unschedulable=true', obj('Node', { spec: { unschedulable: true } }))");
  assert.ok(!matches(node, 'spec.unschedulable=true', obj('Node', {})), "!matches(node, 'spec.unschedulable=true', obj('Node', {}))");
  assert.ok(matches(node, 'metadata.name=x', obj('Node', {})), "matches(node, 'metadata.name=x', obj('Node', {}))");
  refused(node, 'metadata.namespace=default');
});

test('namespaces: status.phase and metadata.name only', () => {
  const ns = def('', 'v1', 'Namespace');
  assert.ok(matches(ns, 'status.phase=Active', obj('Namespace', { status: { phase: 'Active' } })), "matches(ns, 'status.phase=Active', obj('Namespace', { status: { phase: 'Active' } }))");
  refused(ns, 'metadata.namespace=x');
  refused(ns, 'spec.finalizers=kubernetes');
});

test('events: source is the reporting component; involvedObject fields', () => {
  const ev = def('', 'v1', 'Event');
  const e = obj('Event', { involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns', uid: 'u1' }, reason: 'Scheduled', type: 'Normal', source: { component: 'default-scheduler', host: 'h' } }, 'ns');
  assert.ok(matches(ev, 'source=default-scheduler', e), "matches(ev, 'source=default-scheduler', e)");
  assert.ok(matches(ev, 'involvedObject.kind=Pod,involvedObject.name=p,involvedObject.uid=u1,reason=Scheduled,type=Normal,metadata.namespace=ns', e), "matches(ev, 'involvedObject.kind=Pod,involvedObject.name=p,involvedObject.uid=u1,reason=Scheduled,t…");
  assert.ok(matches(ev, 'involvedObject.fieldPath=', e), 'an absent string is ""');
  refused(ev, 'message=hi');
});

test('pods: the 1.9 fields, and spec.host read as spec.nodeName', () => {
  const pod = def('', 'v1', 'Pod');
  const p = obj('Pod', { spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa' }, status: { phase: 'Running', podIP: '10.0.0.1' } }, 'ns');
  assert.ok(matches(pod, 'spec.nodeName=n1,spec.restartPolicy=Always,spec.schedulerName=default-scheduler,spec.serviceAccountName=sa,status.phase=Running,status.podIP=10.0.0.1', p), "matches(pod, 'spec.nodeName=n1,spec.restartPolicy=Always,spec.schedulerName=default-scheduler,spec.…");
  assert.ok(matches(pod, 'spec.host=n1', p), "matches(pod, 'spec.host=n1', p)");
  assert.ok(!matches(pod, 'spec.host=n2', p), "!matches(pod, 'spec.host=n2', p)");
  refused(pod, 'spec.hostNetwork=true');
  refused(pod, 'status.hostIP=1.2.3.4');
});

test('integers: status.replicas (RCs, ReplicaSets of apps and extensions) and status.successful (Jobs), "0" when absent', () => {
  for (const d of [def('', 'v1', 'ReplicationController'), def('apps', 'v1', 'ReplicaSet'), def('extensions', 'v1beta1', 'ReplicaSet')]) {
    assert.ok(matches(d, 'status.replicas=3', obj(d.kind, { status: { replicas: 3 } })), d.group);
    assert.ok(matches(d, 'status.replicas=0', obj(d.kind, { status: {} })), d.group);
  }
  const job = def('batch', 'v1', 'Job');
  assert.ok(matches(job, 'status.successful=0', obj('Job', {})), "matches(job, 'status.successful=0', obj('Job', {}))");
  assert.ok(matches(job, 'status.successful!=0', obj('Job', { status: { successful: 2 } })), "matches(job, 'status.successful!=0', obj('Job', { status: { successful: 2 } }))");
});

test('secrets: type; every other kind: metadata.name and metadata.namespace only', () => {
  assert.ok(matches(def('', 'v1', 'Secret'), 'type=Opaque', obj('Secret', { type: 'Opaque' })), "matches(def('', 'v1', 'Secret'), 'type=Opaque', obj('Secret', { type: 'Opaque' }))");
  for (const d of [def('', 'v1', 'ConfigMap'), def('', 'v1', 'Service'), def('apps', 'v1', 'Deployment'), def('batch', 'v1beta1', 'CronJob')]) {
    assert.ok(matches(d, 'metadata.name=x,metadata.namespace=ns', obj(d.kind, {}, 'ns')), d.kind);
    refused(d, 'status.replicas=1');
    refused(d, 'spec.type=ClusterIP');
  }
  assert.deepEqual(Object.keys(selectableFieldsOf(def('certificates.k8s.io', 'v1beta1', 'CertificateSigningRequest')).fields).sort(), ['metadata.name', 'metadata.namespace']);
  assert.ok('spec.signerName' in selectableFieldsOf(def('certificates.k8s.io', 'v1', 'CertificateSigningRequest')).fields, "'spec.signerName' in selectableFieldsOf(def('certificates.k8s.io', 'v1', 'CertificateSigningRequest…");
});
