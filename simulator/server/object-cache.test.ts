// The namespace and quota listers (object-cache.ts): what they hold follows the store, a watch that ends is
// followed by a relist, and on etcd a create is one transaction (the namespace and quota reads come from the
// caches), while a namespace or quota made through another API server is still found.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { MemoryStore } from '../storage/memory.ts';
import { EtcdStore } from '../storage/etcd.ts';
import type { Store, WatchRequest } from '../storage/store.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';
import { startApiServer, type RunningApiServer } from './start.ts';
import { ObjectCache } from './object-cache.ts';

const ns = (name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({ kind: 'Namespace', apiVersion: 'v1', metadata: { name, ...extra } });

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ObjectCache', () => {
  it('holds what the store holds under its prefix, from the list on, and knows what was deleted', async () => {
    const store = new MemoryStore();
    await store.create('/registry/namespaces/a', ns('a'));
    const cache = new ObjectCache(store, '/registry/namespaces/');
    assert.equal(cache.get('/registry/namespaces/a'), undefined, 'before the first list it cannot say');
    await cache.start();
    assert.equal(cache.get('/registry/namespaces/a')?.metadata.name, 'a');
    assert.equal(cache.get('/registry/namespaces/b'), null, 'a synced cache knows what is missing');
    // On the memory store the event arrives before the write returns: no wait.
    await store.create('/registry/namespaces/b', ns('b'));
    assert.equal(cache.get('/registry/namespaces/b')?.metadata.name, 'b');
    const cur = (await store.get('/registry/namespaces/b'))!;
    await store.update('/registry/namespaces/b', { ...cur.value, metadata: { ...cur.value.metadata, deletionTimestamp: '2020-01-01T00:00:00Z' } });
    assert.equal(cache.get('/registry/namespaces/b')?.metadata.deletionTimestamp, '2020-01-01T00:00:00Z');
    await store.delete('/registry/namespaces/b');
    assert.equal(cache.get('/registry/namespaces/b'), null);
    assert.ok(cache.recentlyDeleted('/registry/namespaces/b'), 'a deleted namespace is remembered as recently deleted');
    assert.ok(!cache.recentlyDeleted('/registry/namespaces/b', 0), 'for a while only');
    await store.create('/registry/configmaps/a/x', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'a' } });
    assert.deepEqual(cache.list('/registry/')!.map((o) => o.metadata.name).sort(), ['a'], 'only its prefix');
    cache.close();
    await store.close();
  });

  it('relists when its watch ends, and sees what changed meanwhile', async () => {
    const inner = new MemoryStore();
    let closeWatch: ((reason: undefined) => void) | undefined;
    // A store whose watches the test can end, as a compaction or a lost etcd connection would.
    const store = new Proxy(inner, {
      get(target, prop, receiver) {
        if (prop === 'watch') {
          return (prefix: string, req: WatchRequest) => {
            const h = target.watch(prefix, req);
            closeWatch = () => {
              h.stop();
              req.onClose?.(undefined);
            };
            return h;
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const cache = new ObjectCache(store, '/registry/namespaces/');
    await cache.start();
    assert.equal(cache.stats.lists, 1);
    closeWatch!(undefined);
    assert.equal(cache.get('/registry/namespaces/c'), undefined, 'not synced while it relists');
    await inner.create('/registry/namespaces/c', ns('c'));
    await until('the relist', () => cache.stats.lists === 2 && cache.isSynced);
    assert.equal(cache.get('/registry/namespaces/c')?.metadata.name, 'c');
    await inner.create('/registry/namespaces/d', ns('d'));
    assert.equal(cache.get('/registry/namespaces/d')?.metadata.name, 'd', 'and follows the new watch');
    cache.close();
    await inner.close();
  });
});

describe('listers on etcd', { skip: etcdTestSkipReason() }, () => {
  let etcd: EtcdTestServer;
  let a: RunningApiServer;
  let b: RunningApiServer;
  let storeA: EtcdStore;
  const post = async (url: string, path: string, body: object) => {
    const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  before(async () => {
    etcd = await startEtcd();
    storeA = new EtcdStore({ servers: [etcd.url] });
    a = await startApiServer({ store: storeA });
    b = await startApiServer({ store: new EtcdStore({ servers: [etcd.url] }) });
    await until('the listers', () => !!a.ctx.listers?.namespaces.isSynced && !!a.ctx.listers.resourceQuotas.isSynced);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await etcd?.stop();
  });

  it('a create is one etcd transaction: the namespace and quota reads come from the caches', async () => {
    assert.equal((await post(a.url, '/api/v1/namespaces', { metadata: { name: 'one-call' } })).status, 201);
    await until('the namespace in the cache', () => !!a.ctx.listers!.namespaces.get('/registry/namespaces/one-call'));
    // The first create in a namespace without cached quotas looks them up once (as the real quota accessor does).
    assert.equal((await post(a.url, '/api/v1/namespaces/one-call/configmaps', { metadata: { name: 'first' } })).status, 201);
    const before = storeA.callCounts();
    for (let i = 0; i < 5; i++) assert.equal((await post(a.url, '/api/v1/namespaces/one-call/configmaps', { metadata: { name: `cm-${i}` } })).status, 201);
    const after = storeA.callCounts();
    assert.equal(after.txn - before.txn, 5, 'one transaction per create');
    // The store may read its current revision in the background (a count-only range): only writes and reads of
    // objects count here.
    assert.ok(after.range - before.range <= 1, `no namespace or quota reads: ${after.range - before.range} ranges`);
  });

  it('a namespace just created through another API server is found before its event arrives (live lookup)', async () => {
    for (let i = 0; i < 5; i++) {
      const name = `through-b-${i}`;
      assert.equal((await post(b.url, '/api/v1/namespaces', { metadata: { name } })).status, 201);
      const made = await post(a.url, `/api/v1/namespaces/${name}/configmaps`, { metadata: { name: 'x' } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    assert.equal((await post(a.url, '/api/v1/namespaces/never-made/configmaps', { metadata: { name: 'x' } })).status, 404);
  });

  it('a namespace being deleted refuses creates through either server once its change is seen', async () => {
    assert.equal((await post(a.url, '/api/v1/namespaces', { metadata: { name: 'going' } })).status, 201);
    const del = await fetch(`${b.url}/api/v1/namespaces/going`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    const seen = (s: RunningApiServer) => !!s.ctx.listers!.namespaces.get('/registry/namespaces/going')?.metadata.deletionTimestamp;
    await until('the deletion in both caches', () => seen(a) && seen(b));
    assert.equal((await post(a.url, '/api/v1/namespaces/going/configmaps', { metadata: { name: 'x' } })).status, 403);
    assert.equal((await post(b.url, '/api/v1/namespaces/going/configmaps', { metadata: { name: 'x' } })).status, 403);
  });
});
