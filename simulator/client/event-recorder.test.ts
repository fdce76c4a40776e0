// The shared event recorder against the real API server: shape of a new Event, aggregation of identical events
// by a PATCH of count/lastTimestamp, a new Event when the old one is gone, never throwing, and the field selector
// kubectl describe uses to find them.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, KubeList } from '../api/meta.ts';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { ApiClient } from './api-client.ts';
import { EventRecorder, refOf, type InvolvedObject } from './event-recorder.ts';

let sim: RunningSimulator;
let client: ApiClient;
before(async () => {
  sim = await startSimulator();
  client = await ApiClient.create({ server: sim.url }, { qps: -1, burst: 0, contentType: 'application/json', codec: null });
});
after(async () => {
  await client.close();
  await sim.close();
});

interface Ev extends KubeObject {
  involvedObject: InvolvedObject;
  reason: string;
  message: string;
  type: string;
  count: number;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
}

let seq = 0;
async function namespaceWithConfigMap(): Promise<{ ns: string; cm: KubeObject }> {
  const ns = `ev-${++seq}-${Math.random().toString(36).slice(2, 7)}`;
  await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cm = await client.create(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'thing' } });
  return { ns, cm };
}
const events = async (ns: string, fieldSelector?: string) => (await client.list<Ev>(`/api/v1/namespaces/${ns}/events`, fieldSelector ? { fieldSelector } : undefined)).items as Ev[];

test('a new event: named <object>.<hex>, in the object namespace, with reference, source, count 1 and timestamps', async () => {
  const { ns, cm } = await namespaceWithConfigMap();
  const rec = new EventRecorder(client, { component: 'test-controller', host: 'h1' });
  rec.event(refOf(cm, 'v1', 'ConfigMap'), 'Normal', 'Did', 'did a thing');
  await rec.flush();
  const list = await events(ns);
  assert.equal(list.length, 1);
  const e = list[0];
  assert.match(e.metadata.name ?? '', /^thing\.[0-9a-f]+$/);
  assert.deepEqual(e.involvedObject, { kind: 'ConfigMap', namespace: ns, name: 'thing', uid: cm.metadata.uid, apiVersion: 'v1', resourceVersion: cm.metadata.resourceVersion });
  assert.equal(e.reason, 'Did');
  assert.equal(e.message, 'did a thing');
  assert.equal(e.type, 'Normal');
  assert.deepEqual(e.source, { component: 'test-controller', host: 'h1' });
  assert.equal(e.count, 1);
  assert.match(e.firstTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(e.lastTimestamp, e.firstTimestamp);
});

test('identical events aggregate into one Event whose count goes up; another message is another Event', async () => {
  const { ns, cm } = await namespaceWithConfigMap();
  const rec = new EventRecorder(client, { component: 'test-controller' });
  const ref = refOf(cm, 'v1', 'ConfigMap');
  for (let i = 0; i < 5; i++) rec.event(ref, 'Warning', 'Failing', 'it failed');
  rec.event(ref, 'Warning', 'Failing', 'it failed differently');
  await rec.flush();
  const list = await events(ns);
  assert.equal(list.length, 2);
  const same = list.find((e) => e.message === 'it failed');
  assert.equal(same?.count, 5);
  assert.equal(list.find((e) => e.message === 'it failed differently')?.count, 1);
  // Deleted meanwhile: the next identical event creates a new one, carrying on the count.
  assert.equal((await client.request('DELETE', `/api/v1/namespaces/${ns}/events/${same?.metadata.name}`)).status, 200);
  rec.event(ref, 'Warning', 'Failing', 'it failed');
  await rec.flush();
  const again = (await events(ns)).filter((e) => e.message === 'it failed');
  assert.equal(again.length, 1);
  assert.notEqual(again[0].metadata.name, same?.metadata.name);
  assert.equal(again[0].count, 6);
});

test('a write that fails is logged, never thrown; a cluster-scoped object gets its events in default', async () => {
  const lines: string[] = [];
  const rec = new EventRecorder(client, { component: 'test-controller' }, { log: (l) => lines.push(l) });
  rec.event({ kind: 'ConfigMap', namespace: 'no-such-namespace', name: 'x', apiVersion: 'v1' }, 'Normal', 'R', 'm');
  const node = { metadata: { name: `node-${Math.random().toString(36).slice(2, 7)}`, uid: 'u-1' } } as KubeObject;
  rec.event(refOf(node, 'v1', 'Node'), 'Normal', 'Starting', 'Starting kubelet.');
  await rec.flush();
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /event R for ConfigMap no-such-namespace\/x not recorded/);
  const mine = (await events('default', `involvedObject.name=${node.metadata.name}`));
  assert.equal(mine.length, 1);
  assert.equal(mine[0].involvedObject.kind, 'Node');
});

test('the field selector kubectl describe sends finds an object events and nothing else', async () => {
  const { ns, cm } = await namespaceWithConfigMap();
  const other = await client.create(`/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
  const rec = new EventRecorder(client, { component: 'test-controller' });
  rec.event(refOf(cm, 'v1', 'ConfigMap'), 'Normal', 'Mine', 'mine');
  rec.event(refOf(other, 'v1', 'ConfigMap'), 'Normal', 'Theirs', 'theirs');
  await rec.flush();
  const sel = `involvedObject.name=thing,involvedObject.namespace=${ns},involvedObject.kind=ConfigMap,involvedObject.uid=${cm.metadata.uid}`;
  const list: KubeList<Ev> = await client.list<Ev>(`/api/v1/namespaces/${ns}/events`, { fieldSelector: sel });
  assert.deepEqual(list.items.map((e) => e.reason), ['Mine']);
});

test('spam filter: 25 writes per object in a burst, then one per 5 minutes; the rest are dropped', async () => {
  const { ns, cm } = await namespaceWithConfigMap();
  let now = 1_000_000;
  const rec = new EventRecorder(client, { component: 'spammy' }, { now: () => now });
  const ref = refOf(cm, 'v1', 'ConfigMap');
  for (let i = 0; i < 40; i++) rec.event(ref, 'Warning', 'Failing', 'again');
  await rec.flush();
  assert.equal(rec.dropped, 15);
  let list = await events(ns);
  assert.equal(list.length, 1);
  assert.equal(list[0].count, 25);
  now += 299_000;
  rec.event(ref, 'Warning', 'Failing', 'again');
  assert.equal(rec.dropped, 16, 'not refilled before 5 minutes');
  now += 2_000;
  rec.event(ref, 'Warning', 'Failing', 'again');
  await rec.flush();
  list = await events(ns);
  assert.equal(list[0].count, 26);
});

test('similar events with more than 10 messages collapse into one "(combined from similar events)" Event', async () => {
  const { ns, cm } = await namespaceWithConfigMap();
  const rec = new EventRecorder(client, { component: 'similar' });
  const ref = refOf(cm, 'v1', 'ConfigMap');
  for (let i = 0; i < 20; i++) rec.event(ref, 'Warning', 'FailedCreate', `Error creating: pod-${i} is invalid`);
  await rec.flush();
  const list = await events(ns);
  // 9 distinct ones, then one combined Event carrying the latest message and the count of the rest.
  assert.equal(list.length, 10);
  const combined = list.filter((e) => e.message.startsWith('(combined from similar events): '));
  assert.equal(combined.length, 1);
  assert.equal(combined[0].count, 11);
  assert.equal(combined[0].message, '(combined from similar events): Error creating: pod-19 is invalid');
});
