// EtcdStore against a real etcd started for this file: the shared Store contract, then what is etcd's own
// (several stores on one cluster, compactions made by someone else, the key/value layout, the window by age).
// Without an etcd binary these tests fail, unless SKIP_ETCD_TESTS=1 (see etcd-test-server.ts).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EtcdStore, type EtcdStoreOptions } from './etcd.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';
import { cm, eventually, rejectsWith, storeContract } from './testing/store-contract.ts';
import { StoreError, type StoreEvent } from './store.ts';
import type { Store } from './store.ts';

const skip = etcdTestSkipReason();
let etcd: EtcdTestServer;
let counter = 0;
const opened: EtcdStore[] = [];

/** A store on the shared test etcd, under a prefix of its own unless given one. */
async function open(opts: Partial<EtcdStoreOptions> = {}): Promise<EtcdStore> {
  const s = new EtcdStore({ servers: [etcd.url], root: '/r', prefix: `/t${++counter}/r`, compactIntervalMs: 0, ...opts });
  opened.push(s);
  await s.ready();
  return s;
}

describe('EtcdStore', { skip }, () => {
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    for (const s of opened) await s.close();
    await etcd?.stop();
  });

  storeContract('EtcdStore', {
    make: (opts) => open(opts),
    applyWindow: async (s: Store) => void (await (s as EtcdStore).compactNow()),
  });
  // The same contract with reads and writes through the etcd3 package's client (etcd-kv.ts, Etcd3Kv), which the
  // store uses when its options ask for what only etcd3 does (auth, deadlines).
  storeContract('EtcdStore, kvClient etcd3', {
    make: (opts) => open({ ...opts, kvClient: 'etcd3' }),
    applyWindow: async (s: Store) => void (await (s as EtcdStore).compactNow()),
  });

  describe('etcd specifics', () => {
    it('keeps keys under its prefix and values without resourceVersion, as the apiserver lays them out', async () => {
      const s = await open({ root: '/registry', prefix: '/layout-test' });
      const stored = await s.create('/registry/configmaps/ns/a', { ...cm('a', { k: 'v' }), metadata: { name: 'a', namespace: 'ns', uid: 'u', resourceVersion: '5', creationTimestamp: 't' } });
      const raw = await s.client.get('/layout-test/configmaps/ns/a').string();
      assert.deepEqual(JSON.parse(raw!), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', uid: 'u', creationTimestamp: 't' }, data: { k: 'v' } });
      // resourceVersion comes back where the Go struct puts it (after uid), from the key's mod_revision.
      assert.deepEqual(Object.keys(stored.value.metadata), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']);
      assert.equal(stored.value.metadata.resourceVersion, String(stored.modRevision));
      assert.equal((await s.client.get('/layout-test/configmaps/ns/a').exec()).kvs[0].mod_revision, String(stored.modRevision));
      await assert.rejects(s.create('/elsewhere/a', cm('a')), TypeError, 'keys outside the root are refused');
      assert.deepEqual((await s.list('/registry/configmaps/')).items.map((i) => i.key), ['/registry/configmaps/ns/a']);
    });

    it('two stores on one etcd and one prefix see each other: same objects, same resourceVersions, watches and revisions', async () => {
      const prefix = `/shared${++counter}`;
      const a = await open({ prefix });
      const b = await open({ prefix });
      const seenByB: StoreEvent[] = [];
      b.watch('/r/', { fromRevision: b.currentRevision(), onEvent: (e) => seenByB.push(e) });
      const created = await a.create('/r/ns/x', cm('x', { v: '1' }));
      // B's revision follows A's writes once asked: a header read at most every 20 ms while callers keep asking.
      await eventually(() => assert.equal(b.currentRevision(), created.modRevision));
      const got = await b.get('/r/ns/x');
      assert.deepEqual(got, created);
      const listed = await b.list('/r/');
      assert.equal(listed.revision, created.modRevision);
      assert.deepEqual(listed.items, [created]);
      await rejectsWith(b.create('/r/ns/x', cm('x')), 'KeyExists');
      const upd = await b.update('/r/ns/x', cm('x', { v: '2' }), { expectedRevision: created.modRevision });
      await rejectsWith(a.update('/r/ns/x', cm('x', { v: 'stale' }), { expectedRevision: created.modRevision }), 'Conflict');
      await a.delete('/r/ns/x');
      await eventually(() => assert.deepEqual(seenByB.map((e) => [e.type, e.revision]), [['ADDED', created.modRevision], ['MODIFIED', upd.modRevision], ['DELETED', upd.modRevision + 1]]));
    });

    it('a compaction made elsewhere is learned from the refused read or watch, with its revision', async () => {
      const compactor = await open();
      const stale = await open(); // knows nothing of the compaction below
      for (let i = 0; i < 5; i++) await compactor.create(`/r/k${i}`, cm(`k${i}`));
      const target = compactor.currentRevision() - 1;
      await compactor.compactTo(target);
      assert.equal(compactor.oldestRevision(), target);
      assert.ok(stale.oldestRevision() < target, 'stale.oldestRevision() < target');
      // A watch from before the compaction cannot be refused synchronously by a store that does not know yet:
      // etcd refuses it, and the store ends the watch with Compacted.
      const reasons: (StoreError | undefined)[] = [];
      stale.watch('/r/', { fromRevision: target - 2, onEvent: () => assert.fail('no event from a compacted start'), onClose: (r) => reasons.push(r) });
      await eventually(() => assert.equal(reasons.length, 1));
      assert.equal(reasons[0]?.code, 'Compacted');
      assert.equal(reasons[0]?.revision, target);
      const other = await open();
      const err = await rejectsWith(other.list('/r/', { revision: target - 1 }), 'Compacted');
      assert.equal(err.revision, target);
      assert.equal(other.oldestRevision(), target, 'a new store finds the compact revision when it starts');
      // Compacting to an older revision than someone already did is not an error; the store learns the newer one.
      const third = await open();
      await third.compactTo(target - 3);
      assert.equal(third.oldestRevision(), target);
    });

    it('compacts by age: changes younger than historyAgeMs are kept even beyond historyEvents', async () => {
      let t = 0;
      const s = await open({ historyEvents: 1, historyAgeMs: 1000, now: () => t });
      for (let i = 0; i < 4; i++) await s.create(`/r/k${i}`, cm(`k${i}`));
      const before = s.oldestRevision();
      assert.equal(await s.compactNow(), before, 'everything is younger than the age');
      const atOne = s.currentRevision();
      t = 600;
      await s.compactNow(); // samples (600, atOne)
      for (let i = 0; i < 4; i++) await s.update(`/r/k${i}`, cm(`k${i}`, { v: '2' }));
      t = 1700; // the changes after atOne are younger than 1000 ms (made after t=600 >= 1700-1000)
      assert.equal(await s.compactNow(), atOne);
      t = 5000; // all old: keep the last historyEvents (1)
      assert.equal(await s.compactNow(), s.currentRevision() - 1);
    });

    it('watches resume after etcd restarts: nothing lost, nothing repeated; writes work again', async () => {
      const prefix = `/restart${++counter}/r`;
      const s = await open({ prefix });
      const base = s.currentRevision();
      const seen: number[] = [];
      const reasons: (StoreError | undefined)[] = [];
      s.watch('/r/', { fromRevision: base, onEvent: (e) => seen.push(e.revision), onClose: (r) => reasons.push(r) });
      for (const n of ['a', 'b', 'c']) await s.create(`/r/${n}`, cm(n));
      await eventually(() => assert.equal(seen.length, 3));
      await etcd.restart();
      // Writes made by another client while the store reconnects must reach its watch too.
      const other = await open({ prefix });
      for (const n of ['d', 'e']) await other.create(`/r/${n}`, cm(n));
      await s.create('/r/f', cm('f'));
      await eventually(() => assert.deepEqual(seen, [1, 2, 3, 4, 5, 6].map((i) => base + i)), 10_000);
      assert.deepEqual(reasons, []);
      assert.equal((await s.list('/r/')).items.length, 6);
    });

    it('refuses bad options', () => {
      assert.throws(() => new EtcdStore({ servers: [] }), RangeError);
      assert.throws(() => new EtcdStore({ servers: ['http://127.0.0.1:1'], historyEvents: -1 }), RangeError);
    });

    it('ready() rejects, and operations fail, when etcd cannot be reached', async () => {
      const s = new EtcdStore({ servers: ['http://127.0.0.1:1'], client: { dialTimeout: 500 } });
      await assert.rejects(s.ready());
      await assert.rejects(s.get('/registry/x'));
      await s.close();
    });
  });
});
