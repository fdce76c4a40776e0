// Versions (spec 9): the path decides group and version; older apps bodies are converted with their own
// defaults; unrecognised versions and kinds are 400; shared objects read back in the version asked for.
// Events (spec 6.3) are stored, listed and watched like other kinds.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, type Json, deployment, harness, podTemplate } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('ver');
});
after(() => h.close());

const APPS = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const EXT = () => `/apis/extensions/v1beta1/namespaces/${ns}/deployments`;

describe('body versions (spec 9.1, 9.2)', () => {
  test('field.Object.apiVersion: an apps/v1beta1 Deployment at the apps/v1 path is accepted with apps/v1beta1 defaults and answered as apps/v1', async () => {
    const r = await h.call('POST', APPS(), { apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'b1' }, spec: { template: podTemplate({ app: 'b' }), rollbackTo: { revision: 1 } } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.apiVersion, 'apps/v1');
    assert.equal(r.body.spec.revisionHistoryLimit, 2, 'apps/v1beta1 default');
    assert.deepEqual(r.body.spec.selector, { matchLabels: { app: 'b' } }, 'apps/v1beta1 defaults the selector');
    assert.equal(r.body.spec.progressDeadlineSeconds, 600);
    assert.equal(r.body.spec.rollbackTo, undefined);
    assert.equal((await h.call('GET', `${APPS()}/b1`)).body.spec.revisionHistoryLimit, 2);
  });

  test('field.Object.apiVersion: an apps/v1beta2 Deployment has the apps/v1 defaults and needs a selector', async () => {
    const r = await h.call('POST', APPS(), { ...deployment('b2'), apiVersion: 'apps/v1beta2' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.spec.revisionHistoryLimit, 10);
    const noSel = deployment('b2x');
    delete noSel.spec.selector;
    const bad = await h.call('POST', APPS(), { ...noSel, apiVersion: 'apps/v1beta2' });
    assert.equal(bad.status, 422, bad.text);
  });

  test('field.Object.apiVersion / field.Object.kind: unrecognised versions and kinds not matching the path are 400', async () => {
    for (const apiVersion of ['apps/v9', 'extensions/v1beta1', 'v1', 'batch/v1']) {
      const r = await h.call('POST', APPS(), { ...deployment('x'), apiVersion });
      assert.equal(r.status, 400, `${apiVersion}: ${r.text}`);
      assert.match(r.body.message, new RegExp(`the API version in the data \\(${apiVersion.replace('/', '\\/')}\\) does not match the expected API version \\(apps/v1\\)`));
    }
    const k = await h.call('POST', APPS(), { ...deployment('x'), kind: 'ReplicaSet' });
    assert.equal(k.status, 400);
    assert.match(k.body.message, /must be of type Deployment/);
  });

  test('rule.fields.kind-inferred: kind and apiVersion may be omitted; the path decides', async () => {
    const { apiVersion: _a, kind: _k, ...bare } = deployment('bare');
    const r = await h.call('POST', APPS(), bare);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.kind, 'Deployment');
    assert.equal(r.body.apiVersion, 'apps/v1');
  });
});

describe('shared storage reads back in the version asked for (GET, list, watch)', () => {
  test('a Deployment created through apps/v1 is extensions/v1beta1 through the extensions path, and the reverse', async () => {
    await h.create(APPS(), deployment('shared'));
    const g = await h.call('GET', `${EXT()}/shared`);
    assert.equal(g.body.apiVersion, 'extensions/v1beta1');
    assert.equal(g.body.metadata.selfLink, `/apis/extensions/v1beta1/namespaces/${ns}/deployments/shared`);
    const l = await h.call('GET', EXT());
    assert.equal(l.body.apiVersion, 'extensions/v1beta1');
    assert.equal(l.body.kind, 'DeploymentList');
    assert.ok(l.body.items.some((i: Json) => i.metadata.name === 'shared'), "l.body.items.some((i: Json) => i.metadata.name === 'shared')");
    const w = await h.watch(`${EXT()}?fieldSelector=metadata.name%3Dshared&resourceVersion=0`, 1);
    assert.equal(w[0]?.object.apiVersion, 'extensions/v1beta1');
    const wa = await h.watch(`${APPS()}?fieldSelector=metadata.name%3Dshared&resourceVersion=0`, 1);
    assert.equal(wa[0]?.object.apiVersion, 'apps/v1');
  });

  test('DaemonSet templateGeneration: spec field through extensions, annotation through apps/v1', async () => {
    await h.create(`/apis/extensions/v1beta1/namespaces/${ns}/daemonsets`, { metadata: { name: 'tg' }, spec: { template: podTemplate({ app: 't' }) } });
    const apps = await h.call('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/tg`);
    assert.equal(apps.body.spec.templateGeneration, undefined);
    assert.equal(apps.body.metadata.annotations['deprecated.daemonset.template.generation'], '1');
    const ext = await h.call('GET', `/apis/extensions/v1beta1/namespaces/${ns}/daemonsets/tg`);
    assert.equal(ext.body.spec.templateGeneration, 1);
    // A template change bumps it, whichever version writes; a metadata-only change does not.
    const changed = await h.call('PUT', `/apis/apps/v1/namespaces/${ns}/daemonsets/tg`, { ...apps.body, spec: { ...apps.body.spec, template: podTemplate({ app: 't', v: '2' }) } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.metadata.annotations['deprecated.daemonset.template.generation'], '2');
    const relabelled = await h.call('PUT', `/apis/extensions/v1beta1/namespaces/${ns}/daemonsets/tg`, { ...ext.body, metadata: { ...ext.body.metadata, resourceVersion: undefined, labels: { x: 'y' } }, spec: { ...ext.body.spec, template: changed.body.spec.template, templateGeneration: 1 } });
    assert.equal(relabelled.status, 200, JSON.stringify(relabelled.body));
    assert.equal(relabelled.body.spec.templateGeneration, 2);
  });
});

describe('Events (spec 6.3: rule.events.event-kind)', () => {
  test('rule.events.event-kind: an Event is stored, listed (with field selectors) and watched', async () => {
    const EV = `/api/v1/namespaces/${ns}/events`;
    const body = {
      metadata: { name: 'ev1' },
      involvedObject: { kind: 'Pod', name: 'p1', namespace: ns, apiVersion: 'v1' },
      reason: 'Started', message: 'Started container', type: 'Normal', count: 1,
      firstTimestamp: '2018-01-01T00:00:00Z', lastTimestamp: '2018-01-01T00:00:05Z', source: { component: 'kubelet', host: 'node-1' },
    };
    const watching = h.watch(`${EV}?fieldSelector=involvedObject.name%3Dp1`, 1);
    await new Promise((r) => setTimeout(r, 100));
    const c = await h.create(EV, body);
    for (const f of ['reason', 'message', 'type', 'count', 'firstTimestamp', 'lastTimestamp']) assert.equal(c[f], (body as Json)[f], f);
    assert.deepEqual(c.source, body.source);
    const l = await h.call('GET', `${EV}?fieldSelector=reason%3DStarted`);
    assert.deepEqual(l.body.items.map((i: Json) => i.metadata.name), ['ev1']);
    const none = await h.call('GET', `${EV}?fieldSelector=involvedObject.name%3Dother`);
    assert.equal(none.body.items.length, 0);
    const events = await watching;
    assert.equal(events[0]?.type, 'ADDED');
    assert.equal(events[0]?.object.reason, 'Started');
    const cluster = await h.call('POST', EV, { ...body, metadata: { name: 'ev2' }, involvedObject: { kind: 'Node', name: 'n1' } });
    assert.equal(cluster.status, 422, 'a cluster-scoped involved object belongs in default');
    const inDefault = await h.call('POST', '/api/v1/namespaces/default/events', { ...body, metadata: { name: 'ev-node' }, involvedObject: { kind: 'Node', name: 'n1' } });
    assert.equal(inDefault.status, 201, inDefault.text);
  });
});
