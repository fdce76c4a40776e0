// One object, several versions: Deployments, DaemonSets and ReplicaSets at every group version 1.9 served them
// (extensions/v1beta1, apps/v1beta1 for Deployments, apps/v1beta2, apps/v1), each with its own defaults, Scale type
// and validation, over one storage; a watch at one version sees writes made at another.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, type Json, harness, podTemplate } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('wv');
});
after(() => h.close());

const at = (gv: string, resource: string) => `/apis/${gv}/namespaces/${ns}/${resource}`;
const VERSIONS = ['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2', 'apps/v1'];

/** A Deployment of that version whose pods carry app=<name>, selected by it. */
function deployment(name: string, spec: Json, apiVersion: string): Json {
  const labels = { app: name };
  return { apiVersion, kind: 'Deployment', metadata: { name }, spec: { selector: { matchLabels: labels }, template: podTemplate(labels), ...spec } };
}

describe('Deployments', () => {
  test('created at apps/v1beta2 with its defaults, read at every version in that version', async () => {
    const created = await h.create(at('apps/v1beta2', 'deployments'), deployment('web', { replicas: 2 }, 'apps/v1beta2'));
    assert.equal(created.apiVersion, 'apps/v1beta2');
    assert.equal(created.spec.revisionHistoryLimit, 10);
    assert.equal(created.spec.progressDeadlineSeconds, 600);
    assert.deepEqual(created.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    for (const gv of VERSIONS) {
      const r = await h.call('GET', `${at(gv, 'deployments')}/web`);
      assert.equal(r.status, 200, `${gv}: ${r.text}`);
      assert.equal(r.body.apiVersion, gv);
      assert.equal(r.body.kind, 'Deployment');
      assert.equal(r.body.metadata.uid, created.metadata.uid, gv);
      assert.equal(r.body.metadata.selfLink, `${at(gv, 'deployments')}/web`);
      assert.equal(r.body.spec.replicas, 2, gv);
      assert.equal(r.body.spec.revisionHistoryLimit, 10, `${gv}: the stored value, not this version's default`);
      const list = await h.call('GET', at(gv, 'deployments'));
      assert.equal(list.body.kind, 'DeploymentList');
      assert.equal(list.body.apiVersion, gv);
    }
  });

  test("each version's own defaults on create", async () => {
    const noSelector = (name: string, gv: string) => {
      const d = deployment(name, {}, gv);
      delete d.spec.selector;
      return d;
    };
    const b1 = await h.create(at('apps/v1beta1', 'deployments'), noSelector('b1', 'apps/v1beta1'));
    assert.equal(b1.spec.revisionHistoryLimit, 2, 'apps/v1beta1 keeps two old ReplicaSets');
    assert.deepEqual(b1.spec.selector, { matchLabels: b1.spec.template.metadata.labels }, 'apps/v1beta1 takes the selector from the template');
    assert.equal(b1.spec.progressDeadlineSeconds, 600);
    const ext = await h.create(at('extensions/v1beta1', 'deployments'), noSelector('e1', 'extensions/v1beta1'));
    assert.equal(ext.spec.revisionHistoryLimit, undefined, 'extensions/v1beta1 keeps every old ReplicaSet');
    assert.deepEqual(ext.spec.strategy.rollingUpdate, { maxUnavailable: 1, maxSurge: 1 });
    for (const gv of ['apps/v1beta2', 'apps/v1']) {
      const r = await h.call('POST', at(gv, 'deployments'), noSelector(`n${gv.length}`, gv));
      assert.equal(r.status, 422, `${gv} requires a selector: ${r.text}`);
    }
    // Read at apps/v1, the apps/v1beta1 object keeps the value it was defaulted with.
    assert.equal((await h.call('GET', `${at('apps/v1', 'deployments')}/b1`)).body.spec.revisionHistoryLimit, 2);
  });

  test('the selector is immutable from apps/v1beta2 on, mutable at apps/v1beta1 and extensions/v1beta1', async () => {
    await h.create(at('apps/v1', 'deployments'), deployment('sel', {}, 'apps/v1'));
    for (const gv of VERSIONS) {
      const cur = (await h.call('GET', `${at(gv, 'deployments')}/sel`)).body;
      const labels = { app: `sel-${gv.replace(/\W/g, '')}` };
      const next = { ...cur, spec: { ...cur.spec, selector: { matchLabels: labels }, template: podTemplate(labels) } };
      const r = await h.call('PUT', `${at(gv, 'deployments')}/sel`, next);
      assert.equal(r.status, gv === 'apps/v1beta2' || gv === 'apps/v1' ? 422 : 200, `${gv}: ${r.text}`);
    }
  });

  test("scaled through each version's /scale, with that version's Scale", async () => {
    await h.create(at('apps/v1', 'deployments'), deployment('sc', { replicas: 1 }, 'apps/v1'));
    const scaleTypes: Record<string, string> = { 'extensions/v1beta1': 'extensions/v1beta1', 'apps/v1beta1': 'apps/v1beta1', 'apps/v1beta2': 'apps/v1beta2', 'apps/v1': 'autoscaling/v1' };
    let replicas = 1;
    for (const gv of VERSIONS) {
      const path = `${at(gv, 'deployments')}/sc/scale`;
      const got = await h.call('GET', path);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.body.apiVersion, scaleTypes[gv]);
      assert.equal(got.body.spec.replicas, replicas, gv);
      if (gv === 'apps/v1') assert.equal(typeof got.body.status.selector, 'string');
      else {
        assert.deepEqual(got.body.status.selector, { app: 'sc' }, gv);
        assert.equal(got.body.status.targetSelector, 'app=sc', gv);
      }
      replicas += 1;
      const put = await h.call('PUT', path, { ...got.body, spec: { replicas } });
      assert.equal(put.status, 200, `${gv}: ${put.text}`);
      assert.equal((await h.call('GET', `${at('apps/v1', 'deployments')}/sc`)).body.spec.replicas, replicas);
      // Another version's Scale is refused.
      const wrong = await h.call('PUT', path, { ...got.body, apiVersion: gv === 'apps/v1' ? 'extensions/v1beta1' : 'autoscaling/v1', spec: { replicas } });
      assert.equal(wrong.status, 400, `${gv}: ${wrong.text}`);
    }
  });

  test('a watch at extensions/v1beta1 sees a write made at apps/v1beta2, in its own version', async () => {
    const created = await h.create(at('apps/v1beta2', 'deployments'), deployment('watched', {}, 'apps/v1beta2'));
    const events = h.watch(`${at('extensions/v1beta1', 'deployments')}?fieldSelector=metadata.name=watched&resourceVersion=${created.metadata.resourceVersion}`, 1, 5000);
    const upd = await h.call('PATCH', `${at('apps/v1beta2', 'deployments')}/watched`, { metadata: { labels: { seen: 'yes' } } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(upd.status, 200, upd.text);
    const [ev] = await events;
    assert.equal(ev?.type, 'MODIFIED');
    assert.equal(ev.object.apiVersion, 'extensions/v1beta1');
    assert.equal(ev.object.metadata.labels.seen, 'yes');
  });

  test('apps/v1beta1 rollback, and spec.rollbackTo read back at apps/v1beta1', async () => {
    await h.create(at('apps/v1beta1', 'deployments'), deployment('rb', {}, 'apps/v1beta1'));
    const r = await h.call('POST', `${at('apps/v1beta1', 'deployments')}/rb/rollback`, { apiVersion: 'apps/v1beta1', kind: 'DeploymentRollback', name: 'rb', rollbackTo: { revision: 3 } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await h.call('GET', `${at('apps/v1beta1', 'deployments')}/rb`)).body.spec.rollbackTo, { revision: 3 });
    assert.equal((await h.call('GET', `${at('apps/v1beta2', 'deployments')}/rb`)).body.spec.rollbackTo, undefined);
  });
});

describe('DaemonSets and ReplicaSets at apps/v1beta2', () => {
  const labels = { app: 'b2' };
  test('DaemonSet: apps/v1beta2 defaults (RollingUpdate), read at extensions/v1beta1 and apps/v1', async () => {
    const ds = await h.create(at('apps/v1beta2', 'daemonsets'), { apiVersion: 'apps/v1beta2', kind: 'DaemonSet', metadata: { name: 'ds' }, spec: { selector: { matchLabels: labels }, template: podTemplate(labels) } });
    assert.equal(ds.apiVersion, 'apps/v1beta2');
    assert.deepEqual(ds.spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } });
    assert.equal(ds.spec.revisionHistoryLimit, 10);
    assert.equal(ds.spec.templateGeneration, undefined);
    const ext = (await h.call('GET', `${at('extensions/v1beta1', 'daemonsets')}/ds`)).body as Json;
    assert.equal(ext.apiVersion, 'extensions/v1beta1');
    assert.equal(ext.spec.updateStrategy.type, 'RollingUpdate');
    assert.equal((await h.call('GET', `${at('apps/v1', 'daemonsets')}/ds`)).body.apiVersion, 'apps/v1');
    const noSel = await h.call('POST', at('apps/v1beta2', 'daemonsets'), { apiVersion: 'apps/v1beta2', kind: 'DaemonSet', metadata: { name: 'ds2' }, spec: { template: podTemplate(labels) } });
    assert.equal(noSel.status, 422, noSel.text);
  });

  test('ReplicaSet: created at apps/v1beta2, scaled through its apps/v1beta2 Scale, read at extensions/v1beta1', async () => {
    const rs = await h.create(at('apps/v1beta2', 'replicasets'), { apiVersion: 'apps/v1beta2', kind: 'ReplicaSet', metadata: { name: 'rs' }, spec: { selector: { matchLabels: labels }, template: podTemplate(labels) } });
    assert.equal(rs.spec.replicas, 1);
    const scale = await h.call('GET', `${at('apps/v1beta2', 'replicasets')}/rs/scale`);
    assert.equal(scale.body.apiVersion, 'apps/v1beta2');
    const put = await h.call('PUT', `${at('apps/v1beta2', 'replicasets')}/rs/scale`, { ...scale.body, spec: { replicas: 4 } });
    assert.equal(put.status, 200, put.text);
    const ext = (await h.call('GET', `${at('extensions/v1beta1', 'replicasets')}/rs`)).body as Json;
    assert.equal(ext.apiVersion, 'extensions/v1beta1');
    assert.equal(ext.spec.replicas, 4);
  });
});

describe('ReplicationControllers through extensions/v1beta1', () => {
  test('replicationcontrollers/scale reads and writes the core object; the dummy parent answers nothing itself', async () => {
    const labels = { app: 'rc' };
    await h.create(`/api/v1/namespaces/${ns}/replicationcontrollers`, { metadata: { name: 'rc' }, spec: { replicas: 1, selector: labels, template: podTemplate(labels) } });
    const path = `${at('extensions/v1beta1', 'replicationcontrollers')}/rc/scale`;
    const scale = await h.call('GET', path);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.body.apiVersion, 'extensions/v1beta1');
    assert.deepEqual(scale.body.status.selector, labels);
    const put = await h.call('PUT', path, { ...scale.body, spec: { replicas: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await h.call('GET', `/api/v1/namespaces/${ns}/replicationcontrollers/rc`)).body.spec.replicas, 3);
    assert.equal((await h.call('GET', `${at('extensions/v1beta1', 'replicationcontrollers')}/rc`)).status, 405);
  });
});
