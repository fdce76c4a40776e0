// The behaviour every Store backend owes the server (store.ts; README.md, "The Store contract"), as one suite
// that each backend's test file runs against its own stores: memory.test.ts and etcd.test.ts.
//
// Written against what all backends share: revisions are relative to the store's revision when the test starts
// (an etcd cluster does not start at 1), and watch assertions wait for events (etcd delivers them
// asynchronously; the memory store before the write resolves, which passes the same checks).

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.ts';
import { StoreError, type Store, type StoreErrorCode, type StoreEvent } from '../store.ts';

export interface ContractSubject {
  /** A new store whose keys under "/r/" nobody else writes, with this history window. */
  make(opts: { historyEvents?: number; historyAgeMs?: number }): Promise<Store>;
  /** Makes the history window take effect now (memory: nothing to do, it is a rule; etcd: compact). */
  applyWindow(store: Store): Promise<void>;
}

export function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data };
}

export async function rejectsWith(p: Promise<unknown> | (() => unknown), code: StoreErrorCode): Promise<StoreError> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected StoreError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  return caught;
}

/** Polls `check` until it stops throwing (or `ms` pass, then rethrows its last failure). */
export async function eventually(check: () => void, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

const dataOf = (o: KubeObject | undefined) => o?.data as Record<string, string> | undefined;

export function storeContract(name: string, subject: ContractSubject): void {
  describe(`Store contract: ${name}`, () => {
    const stores: Store[] = [];
    const make = async (opts: { historyEvents?: number; historyAgeMs?: number } = {}) => {
      const s = await subject.make(opts);
      stores.push(s);
      return s;
    };
    after(async () => {
      for (const s of stores) await s.close().catch(() => undefined);
    });

    it('takes exactly one new revision per write and stamps resourceVersion with it', async () => {
      const s = await make();
      const base = s.currentRevision();
      assert.ok(s.oldestRevision() <= base, 's.oldestRevision() <= base');
      const a = await s.create('/r/ns/a', cm('a'));
      assert.deepEqual([a.modRevision, a.createRevision, a.value.metadata.resourceVersion], [base + 1, base + 1, String(base + 1)]);
      const a2 = await s.update('/r/ns/a', cm('a', { k: 'v' }));
      assert.deepEqual([a2.modRevision, a2.createRevision, a2.value.metadata.resourceVersion], [base + 2, base + 1, String(base + 2)]);
      const got = await s.get('/r/ns/a');
      assert.deepEqual(got?.value, a2.value);
      assert.equal(got?.createRevision, base + 1);
      const d = await s.delete('/r/ns/a');
      assert.deepEqual([d.modRevision, d.createRevision, d.value.metadata.resourceVersion], [base + 3, base + 1, String(base + 3)]);
      assert.deepEqual(d.value.data, { k: 'v' }, 'a delete returns the last state');
      assert.equal(s.currentRevision(), base + 3);
      assert.equal(await s.get('/r/ns/a'), undefined);
    });

    it('stores a copy and hands out frozen objects; the caller object is not stamped', async () => {
      const s = await make();
      const input = cm('a', { k: 'v' });
      const stored = await s.create('/r/ns/a', input);
      (input.data as Record<string, string>).k = 'changed';
      assert.deepEqual((await s.get('/r/ns/a'))?.value.data, { k: 'v' });
      assert.equal(input.metadata.resourceVersion, undefined);
      assert.throws(() => {
        stored.value.metadata.name = 'x';
      }, TypeError);
      const read = await s.get('/r/ns/a');
      assert.throws(() => {
        (read!.value.data as Record<string, string>).k = 'x';
      }, TypeError);
      // The text a store hands back with a create is its stored object's JSON (StoredObject.json).
      if (stored.json !== undefined) assert.deepEqual(JSON.parse(stored.json), stored.value);
      // A resourceVersion in the input is replaced by the write's revision.
      const upd = await s.update('/r/ns/a', { ...cm('a'), metadata: { name: 'a', resourceVersion: '999999' } });
      assert.equal(upd.value.metadata.resourceVersion, String(upd.modRevision));
    });

    it('refuses values that are not JSON objects with metadata, and failed writes take no revision', async () => {
      const s = await make();
      const base = s.currentRevision();
      await assert.rejects(s.create('/r/x', null as unknown as KubeObject), TypeError);
      await assert.rejects(s.create('/r/x', { kind: 'X' } as unknown as KubeObject), TypeError);
      const cyclic: KubeObject = { metadata: {} };
      cyclic.self = cyclic;
      await assert.rejects(s.create('/r/x', cyclic), TypeError);
      await assert.rejects(s.create('', cm('a')), TypeError);
      await s.create('/r/a', cm('a'));
      await rejectsWith(s.create('/r/a', cm('a')), 'KeyExists');
      await rejectsWith(s.update('/r/missing', cm('missing')), 'NotFound');
      await rejectsWith(s.delete('/r/missing'), 'NotFound');
      const conflict = await rejectsWith(s.update('/r/a', cm('a'), { expectedRevision: base }), 'Conflict');
      assert.equal(conflict.revision, base + 1, 'Conflict carries the current modRevision');
      await rejectsWith(s.delete('/r/a', { expectedRevision: base + 99 }), 'Conflict');
      await rejectsWith(s.update('/r/missing', cm('missing'), { expectedRevision: base + 1 }), 'NotFound');
      assert.equal(s.currentRevision(), base + 1);
      const ok = await s.update('/r/a', cm('a', { x: '1' }), { expectedRevision: base + 1 });
      assert.equal(ok.modRevision, base + 2);
      const gone = await s.delete('/r/a', { expectedRevision: base + 2 });
      assert.deepEqual(gone.value.data, { x: '1' });
    });

    it('recreating a deleted key starts a new createRevision; old revisions still read the old states', async () => {
      const s = await make();
      const base = s.currentRevision();
      await s.create('/r/a', cm('a'));
      await s.delete('/r/a');
      const again = await s.create('/r/a', cm('a', { n: '2' }));
      assert.equal(again.createRevision, base + 3);
      assert.equal((await s.list('/r/', { revision: base + 2 })).items.length, 0);
      const first = (await s.list('/r/', { revision: base + 1 })).items;
      assert.deepEqual(first.map((i) => [i.value.metadata.resourceVersion, i.createRevision]), [[String(base + 1), base + 1]]);
    });

    it('lists in key order within the prefix, in pages with an inclusive next key', async () => {
      const s = await make();
      for (const n of ['c', 'a', 'e', 'b', 'd']) await s.create(`/r/ns1/${n}`, cm(n));
      await s.create('/r/ns10/z', cm('z')); // shares the string prefix "/r/ns1" but not "/r/ns1/"
      await s.create('/r/ns0/y', cm('y'));
      const first = await s.list('/r/ns1/', { limit: 2 });
      assert.equal(first.revision, s.currentRevision());
      assert.deepEqual(first.items.map((i) => i.key), ['/r/ns1/a', '/r/ns1/b']);
      assert.equal(first.nextKey, '/r/ns1/b\u0000');
      const second = await s.list('/r/ns1/', { limit: 2, startKey: first.nextKey, revision: first.revision });
      assert.deepEqual(second.items.map((i) => i.key), ['/r/ns1/c', '/r/ns1/d']);
      const third = await s.list('/r/ns1/', { limit: 2, startKey: second.nextKey, revision: first.revision });
      assert.deepEqual(third.items.map((i) => i.key), ['/r/ns1/e']);
      assert.equal(third.nextKey, undefined);
      const exact = await s.list('/r/ns1/', { limit: 5 });
      assert.equal(exact.items.length, 5);
      assert.equal(exact.nextKey, undefined, 'no next key when nothing is left');
      assert.deepEqual((await s.list('/r/')).items.map((i) => i.key), ['/r/ns0/y', '/r/ns1/a', '/r/ns1/b', '/r/ns1/c', '/r/ns1/d', '/r/ns1/e', '/r/ns10/z']);
      for (const i of (await s.list('/r/')).items) assert.equal(i.value.metadata.resourceVersion, String(i.modRevision));
    });

    it('filters without counting skipped items toward the limit, across many skipped items', async () => {
      const s = await make();
      for (let i = 0; i < 60; i++) await s.create(`/r/k${String(i).padStart(2, '0')}`, cm(`k${i}`, { tenth: String(i % 10 === 0) }));
      const even = (o: KubeObject) => dataOf(o)?.tenth === 'true';
      const page = await s.list('/r/', { limit: 2, filter: even });
      assert.deepEqual(page.items.map((i) => i.key), ['/r/k00', '/r/k10']);
      assert.equal(page.nextKey, '/r/k10\u0000');
      // Page through everything: every match exactly once, at one revision.
      const seen: string[] = [];
      let startKey: string | undefined;
      let pages = 0;
      do {
        const p = await s.list('/r/', { limit: 2, filter: even, startKey, revision: page.revision });
        seen.push(...p.items.map((i) => i.key));
        startKey = p.nextKey;
        assert.ok(++pages < 10, '++pages < 10');
      } while (startKey);
      assert.deepEqual(seen, ['/r/k00', '/r/k10', '/r/k20', '/r/k30', '/r/k40', '/r/k50']);
      const none = await s.list('/r/', { limit: 3, filter: () => false });
      assert.deepEqual(none.items, []);
      assert.equal(none.nextKey, undefined);
    });

    it('reads a consistent snapshot at a revision while writes go on, page after page', async () => {
      const s = await make();
      for (const n of ['a', 'b', 'c', 'd']) await s.create(`/r/${n}`, cm(n, { v: '1' }));
      const first = await s.list('/r/', { limit: 2 });
      await s.update('/r/a', cm('a', { v: '2' }));
      await s.delete('/r/c');
      await s.create('/r/bb', cm('bb'));
      await s.update('/r/d', cm('d', { v: '2' }));
      const rest = await s.list('/r/', { limit: 10, startKey: first.nextKey, revision: first.revision });
      assert.equal(rest.revision, first.revision);
      assert.deepEqual([...first.items, ...rest.items].map((i) => [i.key, dataOf(i.value)?.v]), [['/r/a', '1'], ['/r/b', '1'], ['/r/c', '1'], ['/r/d', '1']]);
      const now = await s.list('/r/');
      assert.deepEqual(now.items.map((i) => [i.key, dataOf(i.value)?.v]), [['/r/a', '2'], ['/r/b', '1'], ['/r/bb', undefined], ['/r/d', '2']]);
    });

    it('guaranteedUpdate creates, updates, leaves alone, deletes and rethrows', async () => {
      const s = await make();
      const base = s.currentRevision();
      const created = await s.guaranteedUpdate('/r/a', (cur) => {
        assert.equal(cur, undefined);
        return cm('a', { n: '1' });
      });
      assert.equal(created.result?.modRevision, base + 1);
      const updated = await s.guaranteedUpdate('/r/a', (cur) => cm('a', { n: String(Number(dataOf(cur?.value)?.n) + 1) }));
      assert.deepEqual(updated.result?.value.data, { n: '2' });
      assert.equal(updated.result?.createRevision, base + 1);
      const same = await s.guaranteedUpdate('/r/a', () => undefined);
      assert.equal(same.result?.modRevision, base + 2);
      assert.equal(s.currentRevision(), base + 2);
      const gone = await s.guaranteedUpdate('/r/a', () => null);
      assert.equal(gone.deleted?.modRevision, base + 3);
      assert.deepEqual(gone.deleted?.value.data, { n: '2' });
      assert.equal(await s.get('/r/a'), undefined);
      assert.deepEqual(await s.guaranteedUpdate('/r/a', () => null), {});
      assert.deepEqual(await s.guaranteedUpdate('/r/a', () => undefined), {});
      await assert.rejects(
        s.guaranteedUpdate('/r/a', () => {
          throw new Error('validation failed');
        }),
        /validation failed/,
      );
      assert.equal(s.currentRevision(), base + 3);
    });

    it('guaranteedUpdate retries on concurrent writes: no lost update', async () => {
      const s = await make();
      await s.create('/r/n', cm('n', { n: '0' }));
      const incr = () =>
        s.guaranteedUpdate('/r/n', async (cur) => {
          await new Promise((r) => setImmediate(r));
          return cm('n', { n: String(Number(dataOf(cur?.value)?.n) + 1) });
        });
      await Promise.all(Array.from({ length: 10 }, incr));
      assert.deepEqual((await s.get('/r/n'))?.value.data, { n: '10' });
    });

    it('watch replays after fromRevision, then streams live; DELETED carries the last state at the deletion revision', async () => {
      const s = await make();
      const base = s.currentRevision();
      await s.create('/r/a', cm('a'));
      await s.update('/r/a', cm('a', { v: '2' }));
      await s.create('/r/other/x', cm('x'));
      const seen: StoreEvent[] = [];
      const h = s.watch('/r/a', { fromRevision: base, onEvent: (e) => seen.push(e) });
      await eventually(() => assert.equal(seen.length, 2));
      await s.delete('/r/a');
      await eventually(() => assert.equal(seen.length, 3));
      assert.deepEqual(seen.map((e) => [e.type, e.key, e.revision, e.object.metadata.resourceVersion]), [
        ['ADDED', '/r/a', base + 1, String(base + 1)],
        ['MODIFIED', '/r/a', base + 2, String(base + 2)],
        ['DELETED', '/r/a', base + 4, String(base + 4)],
      ]);
      assert.deepEqual(seen[1].prevObject?.metadata.resourceVersion, String(base + 1));
      assert.deepEqual(seen[2].object.data, { v: '2' });
      assert.equal(seen[2].prevObject?.metadata.resourceVersion, String(base + 2));
      h.stop();
    });

    it('watch without fromRevision sees only later changes; stop() is idempotent and ends delivery', async () => {
      const s = await make();
      await s.create('/r/a', cm('a'));
      const seen: number[] = [];
      const h = s.watch('/r/', { onEvent: (e) => seen.push(e.revision) });
      const b = await s.create('/r/b', cm('b'));
      await eventually(() => assert.deepEqual(seen, [b.modRevision]));
      h.stop();
      h.stop();
      await s.create('/r/c', cm('c'));
      const probe: number[] = [];
      const p = s.watch('/r/', { fromRevision: b.modRevision, onEvent: (e) => probe.push(e.revision) });
      await eventually(() => assert.equal(probe.length, 1)); // the write has reached watchers by now
      p.stop();
      assert.deepEqual(seen, [b.modRevision]);
    });

    it('every watcher sees every change in order, exactly once, while writes race', async () => {
      const s = await make();
      const base = s.currentRevision();
      const watchers = [base, base, base + 5].map((from) => {
        const seen: StoreEvent[] = [];
        s.watch('/r/', { fromRevision: from, onEvent: (e) => seen.push(e) });
        return { from, seen };
      });
      const keys = ['/r/a', '/r/b', '/r/c', '/r/d'];
      const ops = Array.from({ length: 40 }, (_, i) =>
        s.guaranteedUpdate(keys[i % keys.length], async (cur) => {
          await new Promise((r) => setImmediate(r));
          return i % 7 === 6 ? null : cm('x', { i: String(i), prev: String(cur?.modRevision ?? 0) });
        }),
      );
      await Promise.all(ops);
      const end = s.currentRevision();
      for (const w of watchers) {
        await eventually(() => assert.equal(w.seen.length, end - w.from));
        assert.deepEqual(w.seen.map((e) => e.revision), Array.from({ length: end - w.from }, (_, i) => w.from + 1 + i));
        for (const e of w.seen) assert.equal(e.object.metadata.resourceVersion, String(e.revision));
      }
      // The watch stream rebuilds the state the store holds.
      const state = new Map<string, string>();
      for (const e of watchers[0].seen) {
        if (e.type === 'ADDED') assert.ok(!state.has(e.key), `ADDED for a new key at ${e.revision}`);
        else assert.ok(state.has(e.key), `${e.type} for a known key at ${e.revision}`);
        if (e.type === 'DELETED') state.delete(e.key);
        else state.set(e.key, e.object.metadata.resourceVersion!);
      }
      const listed = await s.list('/r/');
      assert.deepEqual(new Map(listed.items.map((i) => [i.key, i.value.metadata.resourceVersion])), state);
    });

    it('a throwing watcher is ended through onClose; the store and other watchers go on', async () => {
      const s = await make();
      const good: number[] = [];
      const reasons: (StoreError | undefined)[] = [];
      s.watch('/r/', {
        onEvent: () => {
          throw new Error('boom');
        },
        onClose: (r) => reasons.push(r),
      });
      s.watch('/r/', { onEvent: (e) => good.push(e.revision) });
      const a = await s.create('/r/a', cm('a'));
      const b = await s.create('/r/b', cm('b'));
      await eventually(() => assert.deepEqual(good, [a.modRevision, b.modRevision]));
      await eventually(() => assert.equal(reasons.length, 1));
      assert.match(reasons[0]?.message ?? '', /boom/);
    });

    it('a future fromRevision waits for that revision', async () => {
      const s = await make();
      const base = s.currentRevision();
      const seen: number[] = [];
      s.watch('/r/', { fromRevision: base + 2, onEvent: (e) => seen.push(e.revision) });
      for (const n of ['a', 'b', 'c']) await s.create(`/r/${n}`, cm(n));
      await eventually(() => assert.deepEqual(seen, [base + 3]));
    });

    it('history window: older revisions are Compacted for list and watch, newer ones FutureRevision', async () => {
      const s = await make({ historyEvents: 2, historyAgeMs: 0 });
      const base = s.currentRevision();
      await s.create('/r/a', cm('a'));
      for (let i = 0; i < 4; i++) await s.update('/r/a', cm('a', { i: String(i) }));
      await subject.applyWindow(s);
      const cur = s.currentRevision();
      assert.equal(cur, base + 5);
      assert.equal(s.oldestRevision(), cur - 2);
      const compacted = await rejectsWith(s.list('/r/', { revision: cur - 3 }), 'Compacted');
      assert.equal(compacted.revision, cur - 2);
      assert.deepEqual((await s.list('/r/', { revision: cur - 2 })).items.map((i) => dataOf(i.value)?.i), ['1']);
      assert.throws(
        () => s.watch('/r/', { fromRevision: cur - 3, onEvent() {} }),
        (e: unknown) => e instanceof StoreError && e.code === 'Compacted' && e.revision === cur - 2,
      );
      const seen: number[] = [];
      const h = s.watch('/r/', { fromRevision: cur - 2, onEvent: (e) => seen.push(e.revision) });
      await eventually(() => assert.deepEqual(seen, [cur - 1, cur]));
      h.stop();
      const future = await rejectsWith(s.list('/r/', { revision: cur + 1 }), 'FutureRevision');
      assert.equal(future.revision, cur);
      await assert.rejects(s.list('/r/', { revision: -1 }), TypeError);
      assert.throws(() => s.watch('/r/', { fromRevision: 1.5, onEvent() {} }), TypeError);
    });

    it('close() ends watches with Closed and refuses further use', async () => {
      const s = await make();
      const reasons: (StoreError | undefined)[] = [];
      s.watch('/r/', { onEvent() {}, onClose: (r) => reasons.push(r) });
      await s.close();
      await s.close();
      assert.deepEqual(reasons.map((r) => r?.code), ['Closed']);
      await rejectsWith(s.get('/r/a'), 'Closed');
      await rejectsWith(s.create('/r/b', cm('b')), 'Closed');
      await rejectsWith(s.list('/r/'), 'Closed');
      await rejectsWith(() => s.watch('/r/', { onEvent() {} }), 'Closed');
    });
  });
}
