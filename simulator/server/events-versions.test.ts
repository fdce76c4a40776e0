// Events at core/v1 and events.k8s.io/v1beta1: one storage, 1.9's field mapping (regarding/involvedObject,
// note/message, reportingController/reportingComponent, deprecated* for the core-only fields).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, harness } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('ev');
});
after(() => h.close());

test('a core Event read at events.k8s.io/v1beta1, and a v1beta1 one read at core/v1; a watch at one sees the other', async () => {
  const core = await h.create(`/api/v1/namespaces/${ns}/events`, {
    metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', namespace: ns, name: 'p' }, reason: 'Started', message: 'started it', type: 'Normal',
    source: { component: 'kubelet' }, count: 2, firstTimestamp: '2018-01-01T00:00:00Z', lastTimestamp: '2018-01-01T00:01:00Z',
  });
  const b = (await h.call('GET', `/apis/events.k8s.io/v1beta1/namespaces/${ns}/events/e1`)).body;
  assert.equal(b.apiVersion, 'events.k8s.io/v1beta1');
  assert.deepEqual(b.regarding, { kind: 'Pod', namespace: ns, name: 'p' });
  assert.equal(b.note, 'started it');
  assert.deepEqual(b.deprecatedSource, { component: 'kubelet' });
  assert.equal(b.deprecatedCount, 2);
  assert.equal(b.deprecatedFirstTimestamp, '2018-01-01T00:00:00Z');
  assert.equal(b.involvedObject, undefined);
  assert.equal(b.message, undefined);
  assert.equal(b.metadata.uid, core.metadata.uid);
  const watch = h.watch(`/api/v1/namespaces/${ns}/events?fieldSelector=metadata.name=e2`, 1, 5000);
  await h.create(`/apis/events.k8s.io/v1beta1/namespaces/${ns}/events`, {
    apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'e2' }, eventTime: '2018-01-01T00:00:00.000000Z',
    regarding: { kind: 'Pod', namespace: ns, name: 'p' }, reason: 'Pulled', note: 'pulled it', type: 'Normal', action: 'Pull', reportingController: 'kubelet', reportingInstance: 'node-1',
  });
  const [ev] = await watch;
  assert.equal(ev?.object.apiVersion, 'v1');
  assert.equal(ev.object.message, 'pulled it');
  assert.equal(ev.object.reportingComponent, 'kubelet');
  assert.equal(ev.object.action, 'Pull');
  assert.deepEqual(ev.object.involvedObject, { kind: 'Pod', namespace: ns, name: 'p' });
});
