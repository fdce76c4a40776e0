import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeApi } from '../testing/fake-api.ts';
import { ApiClient } from './api-client.ts';
import { Informer, InformerFactory, resyncPeriodMs } from './informer.ts';
import type { KubeObject } from '../api/meta.ts';

const until = async (cond: () => boolean, timeoutMs = 3000) => {
  const start = performance.now();
  while (!cond()) {
    if (performance.now() - start > timeoutMs) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
};

const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'd' }, data });

async function setup() {
  const api = new FakeApi();
  await api.start();
  const client = await ApiClient.create({ server: api.url }, { qps: -1, burst: 1, contentType: 'application/json', codec: null, maxRetries: 0 });
  return {
    api,
    client,
    cleanup: async () => {
      await client.close();
      await api.close();
    },
  };
}

test('lists, then watches from the list resourceVersion; handlers see adds, updates, deletes', async () => {
  const { api, client, cleanup } = await setup();
  const ac = new AbortController();
  try {
    api.put('/api/v1/configmaps', cm('a'));
    const inf = new Informer(client, '/api/v1/configmaps', { backoffMs: 10 });
    const seen: string[] = [];
    inf.addEventHandler({
      onAdd: (o) => seen.push(`add ${o.metadata.name}`),
      onUpdate: (_o, n) => seen.push(`update ${n.metadata.name}`),
      onDelete: (o) => seen.push(`delete ${o.metadata.name}`),
    });
    void inf.run(ac.signal);
    assert.equal(await inf.waitForSync(ac.signal), true);
    const listRv = inf.resourceVersion;
    api.put('/api/v1/configmaps', cm('b'));
    api.put('/api/v1/configmaps', cm('a', { k: 'v' }));
    api.remove('/api/v1/configmaps', 'd', 'b');
    assert.ok(await until(() => seen.length === 4), JSON.stringify(seen));
    assert.deepEqual(seen, ['add a', 'add b', 'update a', 'delete b']);
    assert.ok(api.requests.some((r) => r.includes('watch=true') && r.includes(`resourceVersion=${listRv}`)), 'watch starts at the list resourceVersion');
    assert.deepEqual(inf.list().map((o) => o.metadata.name), ['a']);
    assert.deepEqual(inf.get('d/a')?.data, { k: 'v' });
    assert.equal(inf.stats.lists, 1);
  } finally {
    ac.abort();
    await cleanup();
  }
});

test('a watch that ends is resumed without a new list; 410 Gone leads to a relist that reconciles the cache', async () => {
  const { api, client, cleanup } = await setup();
  const ac = new AbortController();
  try {
    api.put('/api/v1/configmaps', cm('keep'));
    api.put('/api/v1/configmaps', cm('lost'));
    const inf = new Informer(client, '/api/v1/configmaps', { backoffMs: 10 });
    const deletes: string[] = [];
    inf.addEventHandler({ onDelete: (o) => deletes.push(o.metadata.name!) });
    void inf.run(ac.signal);
    await inf.waitForSync(ac.signal);
    assert.ok(await until(() => api.watcherCount === 1), 'watching');
    api.endWatches();
    assert.ok(await until(() => inf.stats.watches >= 2 && api.watcherCount === 1), 'watch resumed');
    assert.equal(inf.stats.lists, 1, 'resumed from the last resourceVersion, no new list');
    // An object vanishes and that history is compacted away: the resumed watch is too old (410).
    api.removeSilently('/api/v1/configmaps', 'd', 'lost');
    api.compactedBefore = api.revision;
    api.endWatches();
    assert.ok(await until(() => inf.stats.relistsAfterGone >= 1 && deletes.includes('lost')), `stats ${JSON.stringify(inf.stats)}`);
    assert.equal(inf.stats.lists, 2);
    assert.deepEqual(inf.list().map((o) => o.metadata.name), ['keep']);
  } finally {
    ac.abort();
    await cleanup();
  }
});

test('resync hands every cached object to onUpdate again', async () => {
  const { api, client, cleanup } = await setup();
  const ac = new AbortController();
  try {
    api.put('/api/v1/configmaps', cm('x'));
    const inf = new Informer(client, '/api/v1/configmaps', { resyncMs: 50 });
    let resynced = 0;
    inf.addEventHandler({ onUpdate: (a, b) => void (a === b && resynced++) });
    void inf.run(ac.signal);
    assert.ok(await until(() => resynced >= 2), 'await until(() => resynced >= 2)');
  } finally {
    ac.abort();
    await cleanup();
  }
});

test('the factory shares one informer per path; late handlers get the cache replayed', async () => {
  const { api, client, cleanup } = await setup();
  const ac = new AbortController();
  try {
    api.put('/api/v1/configmaps', cm('one'));
    const f = new InformerFactory(client);
    assert.equal(f.informerFor('/api/v1/configmaps'), f.informerFor('/api/v1/configmaps'));
    f.start(ac.signal);
    assert.equal(await f.waitForSync(ac.signal), true);
    const late: string[] = [];
    f.informerFor('/api/v1/configmaps').addEventHandler({ onAdd: (o) => late.push(o.metadata.name!) });
    assert.deepEqual(late, ['one']);
    assert.equal(api.requests.filter((r) => r.startsWith('GET /api/v1/configmaps?') && !r.includes('watch')).length, 1);
  } finally {
    ac.abort();
    await cleanup();
  }
});

test('resync period is between the minimum and twice it', () => {
  assert.equal(resyncPeriodMs(1000, () => 0), 1000);
  assert.equal(resyncPeriodMs(1000, () => 0.999), 1999);
});
