import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../storage/memory.ts';
import type { StoreEvent } from '../storage/store.ts';
import { WatchCaches } from './watch-cache.ts';

const cm = (ns: string, name: string, v = '1') => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: ns }, data: { v } });

test('many watchers of one type share one store watch, and each gets every change of its prefix in order', async () => {
  const store = new MemoryStore();
  const caches = new WatchCaches(store);
  const seen: string[][] = [];
  const handles = [];
  for (let i = 0; i < 200; i++) {
    const got: string[] = [];
    seen.push(got);
    handles.push(caches.watch(i % 2 ? '/registry/configmaps/a/' : '/registry/configmaps/', { onEvent: (e: StoreEvent) => got.push(`${e.type} ${e.key}@${e.revision}`) }));
  }
  await store.create('/registry/configmaps/a/x', cm('a', 'x'));
  await store.create('/registry/configmaps/b/y', cm('b', 'y'));
  await store.update('/registry/configmaps/a/x', cm('a', 'x', '2'));
  await store.delete('/registry/configmaps/b/y');
  assert.equal(caches.stats.storeWatches, 1);
  assert.equal(store.stats().watchers, 1, 'one store watcher however many HTTP watchers');
  for (let i = 0; i < 200; i++) {
    const keys = seen[i].map((s) => s.split(' ')[1].split('@')[0]);
    assert.deepEqual(keys, i % 2 ? ['/registry/configmaps/a/x', '/registry/configmaps/a/x'] : ['/registry/configmaps/a/x', '/registry/configmaps/b/y', '/registry/configmaps/a/x', '/registry/configmaps/b/y']);
    const revs = seen[i].map((s) => Number(s.split('@')[1]));
    assert.deepEqual(revs, [...revs].sort((a, b) => a - b));
  }
  for (const h of handles) h.stop();
  assert.deepEqual(caches.subscriberCounts(), { '/registry/configmaps/': 0 });
  caches.close();
  await store.close();
});

test('a watch from a resourceVersion in the window is replayed from it; an older one goes to the store', async () => {
  const store = new MemoryStore();
  const caches = new WatchCaches(store, 3);
  caches.watch('/registry/configmaps/', { onEvent: () => {} }).stop(); // opens the cache at the current revision
  const revs: number[] = [];
  for (let i = 0; i < 5; i++) revs.push((await store.create(`/registry/configmaps/n/c${i}`, cm('n', `c${i}`))).modRevision);
  // The window holds the last 3 changes: resuming after revs[1] replays revs[2..4] from it.
  const got: number[] = [];
  caches.watch('/registry/configmaps/', { fromRevision: revs[1], onEvent: (e) => got.push(e.revision) }).stop();
  assert.deepEqual(got, revs.slice(2));
  assert.equal(caches.stats.fromStore, 0);
  // Resuming after revs[0] needs revs[1], which the window dropped: the store's history serves it.
  const older: number[] = [];
  caches.watch('/registry/configmaps/', { fromRevision: revs[0], onEvent: (e) => older.push(e.revision) }).stop();
  assert.deepEqual(older, revs.slice(1));
  assert.equal(caches.stats.fromStore, 1);
  caches.close();
  await store.close();
});

test('a watcher that stops itself while a change is handed out does not stop the others', async () => {
  const store = new MemoryStore();
  const caches = new WatchCaches(store);
  const got: string[] = [];
  const h1 = caches.watch('/registry/pods/', { onEvent: () => h1.stop() });
  caches.watch('/registry/pods/', { onEvent: (e) => got.push(e.key) });
  await store.create('/registry/pods/n/p1', { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p1', namespace: 'n' } });
  await store.create('/registry/pods/n/p2', { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p2', namespace: 'n' } });
  assert.deepEqual(got, ['/registry/pods/n/p1', '/registry/pods/n/p2']);
  caches.close();
  await store.close();
});

test('closing the caches ends every watcher (the server can then close)', async () => {
  const store = new MemoryStore();
  const caches = new WatchCaches(store);
  let closed = 0;
  for (let i = 0; i < 3; i++) caches.watch('/registry/secrets/', { onEvent: () => {}, onClose: () => closed++ });
  caches.close();
  assert.equal(closed, 3);
  assert.equal(store.stats().watchers, 0);
  await store.close();
});
