// @kubernetes/client-node 1.x (the official JavaScript client, a devDependency) against the simulator, loaded
// from the client config the simulator writes (cluster.ts clientConfigYaml): typed CRUD with replace, Watch, and
// an informer that relists after a forced 410 (the simulator's watch history is made tiny, and the informer's
// watch is cut while its resourceVersion falls out of the window).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startSimulator, clientConfigYaml, type RunningSimulator } from '../cluster.ts';
import { eventually } from '../testing/test-simulator.ts';

const NS = 'client-node';

describe('@kubernetes/client-node against the simulator', () => {
  let sim: RunningSimulator;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;

  before(async () => {
    // A window of 20 changes and 1 ms: a revision falls out of it after 20 more writes (forces the 410 below).
    sim = await startSimulator({ watchHistoryEvents: 20, watchHistoryAgeMs: 1 });
    kc = new k8s.KubeConfig();
    kc.loadFromString(clientConfigYaml(sim.url));
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
  });
  after(async () => {
    await sim?.close();
  });

  test('the simulator\'s client config loads and reaches the server (plain http)', async () => {
    const cluster = kc.getCurrentCluster();
    assert.equal(cluster?.server, sim.url);
    const version = await kc.makeApiClient(k8s.VersionApi).getCode();
    assert.equal(version.major, '1');
    assert.equal(version.minor, '9');
  });

  test('typed CRUD: create, read, replace (twice, from what the server answered), patch, list, delete', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'crud', labels: { a: '1' } }, data: { k: 'v1' } } });
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'created.metadata?.creationTimestamp instanceof Date');
    const read = await core.readNamespacedConfigMap({ name: 'crud', namespace: NS });
    read.data = { k: 'v2' };
    // client-node serialises creationTimestamp as "...:34.000Z": the server must take it as the same instant.
    const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: read });
    assert.deepEqual(replaced.data, { k: 'v2' });
    assert.equal(replaced.metadata?.uid, created.metadata?.uid);
    assert.equal(replaced.metadata?.creationTimestamp?.getTime(), created.metadata?.creationTimestamp?.getTime());
    replaced.data = { k: 'v3' };
    const again = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: replaced });
    assert.deepEqual(again.data, { k: 'v3' });
    const patched = await core.patchNamespacedConfigMap(
      { name: 'crud', namespace: NS, body: { data: { p: 'x' } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(patched.data, { k: 'v3', p: 'x' });
    const list = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'a=1' });
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['crud']);
    await core.deleteNamespacedConfigMap({ name: 'crud', namespace: NS });
    await assert.rejects(core.readNamespacedConfigMap({ name: 'crud', namespace: NS }), (e: { code?: number }) => e.code === 404);
  });

  test('typed replace of a Deployment keeps server-owned metadata', async () => {
    const d = await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.13' }] } } },
      },
    });
    d.spec!.replicas = 3;
    const replaced = await apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: d });
    assert.equal(replaced.spec?.replicas, 3);
    assert.equal(replaced.metadata?.generation, 2);
    assert.equal(replaced.metadata?.uid, d.metadata?.uid);
    const scale = await apps.readNamespacedDeploymentScale({ name: 'web', namespace: NS });
    assert.equal(scale.spec?.replicas, 3);
  });

  test('Watch delivers ADDED, MODIFIED and DELETED from a resourceVersion', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    const events: string[] = [];
    let ended: unknown = 'open';
    const watch = new k8s.Watch(kc);
    const ctl = await watch.watch(
      `/api/v1/namespaces/${NS}/configmaps`,
      { resourceVersion: list.metadata?.resourceVersion },
      (type, obj: k8s.V1ConfigMap) => events.push(`${type} ${obj.metadata?.name}`),
      (err) => (ended = err),
    );
    try {
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'w' } } });
      await core.patchNamespacedConfigMap({ name: 'w', namespace: NS, body: { data: { a: 'b' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ name: 'w', namespace: NS });
      await eventually(`three events (have ${events.join(', ')})`, async () => events.length >= 3);
      assert.deepEqual(events, ['ADDED w', 'MODIFIED w', 'DELETED w']);
      assert.equal(ended, 'open');
    } finally {
      ctl.abort();
    }
  });

  test('an informer relists after a forced 410 and its cache matches the server', async () => {
    for (const n of ['i1', 'i2']) await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: n } } });
    let lists = 0;
    const errors: unknown[] = [];
    const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/configmaps`, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: NS });
    });
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    try {
      const names = async () => (await core.listNamespacedConfigMap({ namespace: NS })).items.map((o) => o.metadata?.name).sort().join(',');
      const cached = () => informer.list(NS).map((o) => o.metadata?.name).sort().join(',');
      const first = await names();
      await eventually('the first list', async () => lists === 1 && cached() === first);
      // 30 writes in another namespace: the informer sees none of them, so its resourceVersion falls out of the
      // 20-change window. Cutting its watch makes it resume from that resourceVersion: 410, then a relist.
      await core.createNamespace({ body: { metadata: { name: `${NS}-noise` } } });
      for (let i = 0; i < 30; i++) await core.createNamespacedConfigMap({ namespace: `${NS}-noise`, body: { metadata: { name: `n${i}` } } });
      assert.ok(sim.ctx.hub.endAll() >= 1, 'the informer\'s watch was open');
      await eventually(`a relist (lists: ${lists}, errors: ${errors.map(String).join('; ')})`, async () => lists >= 2);
      await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'i3' } } });
      const now = await names();
      assert.match(now, /i3/);
      await eventually('the cache after the relist', async () => cached() === now);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
  });
});
