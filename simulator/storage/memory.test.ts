import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { MemoryStore } from './memory.ts';
import { StoreError, type StoreEvent, type StoreErrorCode } from './store.ts';
import { storeContract } from './testing/store-contract.ts';

function cm(name: string, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' }, data };
}

async function rejectsWith(p: Promise<unknown> | (() => unknown), code: StoreErrorCode): Promise<StoreError> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof StoreError, `expected StoreError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

describe('MemoryStore basics', () => {
  it('keeps a transferred object as it is only when it is exactly what its JSON copy would be', async () => {
    const s = new MemoryStore();
    const plain = cm('a', { k: 'v' });
    const kept = await s.create('/r/ns/a', plain, { transfer: true });
    assert.equal(kept.value.data, plain.data, 'the caller\'s tree, frozen in place');
    assert.ok(Object.isFrozen(plain.data), 'frozen');
    assert.equal(kept.value.metadata.resourceVersion, String(kept.modRevision));
    assert.equal(kept.json, JSON.stringify(kept.value));
    const shared = Object.freeze({ k: 'v' });
    const cases: Array<[string, KubeObject]> = [
      ['an undefined member', { ...cm('b'), data: { k: 'v', gone: undefined } as unknown as Record<string, string> }],
      ['a non-finite number', { ...cm('c'), spec: { n: Number.NaN } }],
      ['-0', { ...cm('d'), spec: { n: -0 } }],
      ['a class instance', { ...cm('e'), spec: { at: new Date(0) } }],
      ['a part frozen already (shared)', { ...cm('f'), data: shared }],
      ['a part reached twice', (() => { const d = { k: 'v' }; return { ...cm('g'), data: d, spec: { again: d } }; })()],
      ['an array hole', { ...cm('h'), spec: { list: Object.assign(new Array(3), { 0: 1, 2: 3 }) } }],
    ];
    for (const [what, obj] of cases) {
      const key = `/r/ns/${obj.metadata.name}`;
      const got = await s.create(key, obj, { transfer: true });
      assert.deepEqual(got.value, JSON.parse(JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(got.modRevision) } })), `${what}: copied as JSON`);
      assert.equal(got.json, JSON.stringify(got.value), `${what}: its text`);
      assert.ok(Object.isFrozen(got.value.metadata), what);
    }
    assert.equal(Object.isFrozen(shared), true);
  });

  it('hands a create its copy\'s JSON text, stamped, and keeps only the object', async () => {
    const s = new MemoryStore();
    const a = await s.create('/r/ns/a', { ...cm('a', { k: '<v>' }), metadata: { name: 'a', namespace: 'ns', resourceVersion: '0' } });
    assert.equal(a.json, JSON.stringify(a.value), 'the same text, key order included');
    assert.match(a.json!, /"resourceVersion":"2"/);
    const got = s.getSync('/r/ns/a')!;
    assert.equal(got.value, a.value, 'the stored object itself');
    assert.equal(got.json, undefined, 'the text is not kept');
    const [{ result }] = [await s.guaranteedUpdate('/r/ns/a', (cur) => ({ ...cur!.value, data: { k: 'w' } }))];
    assert.equal(result!.json, undefined, 'updates copy by the sharing walk and make no text');
  });

  it('starts at revision 1 and increments once per write, stamping resourceVersion', async () => {
    const s = new MemoryStore();
    assert.equal(s.currentRevision(), 1);
    assert.equal(s.oldestRevision(), 1);
    const a = await s.create('/r/ns/a', cm('a'));
    assert.equal(a.modRevision, 2);
    assert.equal(a.createRevision, 2);
    assert.equal(a.value.metadata.resourceVersion, '2');
    const a2 = await s.update('/r/ns/a', cm('a', { k: 'v' }));
    assert.equal(a2.modRevision, 3);
    assert.equal(a2.createRevision, 2);
    assert.equal(a2.value.metadata.resourceVersion, '3');
    const d = await s.delete('/r/ns/a');
    assert.equal(d.modRevision, 4);
    assert.equal(d.value.metadata.resourceVersion, '4');
    assert.deepEqual(d.value.data, { k: 'v' });
    assert.equal(s.currentRevision(), 4);
    assert.equal(await s.get('/r/ns/a'), undefined);
  });

  it('copies the input on write and freezes what it hands out', async () => {
    const s = new MemoryStore();
    const input = cm('a', { k: 'v' });
    const stored = await s.create('/r/ns/a', input);
    (input.data as Record<string, string>).k = 'changed';
    input.metadata.name = 'changed';
    const got = await s.get('/r/ns/a');
    assert.deepEqual(got?.value.data, { k: 'v' });
    assert.equal(got?.value.metadata.name, 'a');
    assert.equal(input.metadata.resourceVersion, undefined, 'the caller object is not stamped');
    assert.throws(() => {
      (stored.value.data as Record<string, string>).k = 'x';
    }, TypeError);
    assert.throws(() => {
      stored.value.metadata.name = 'x';
    }, TypeError);
  });

  it('refuses values that are not JSON objects with metadata, cleanly', async () => {
    const s = new MemoryStore();
    await assert.rejects(s.create('/r/x', null as unknown as KubeObject), TypeError);
    await assert.rejects(s.create('/r/x', { kind: 'X' } as unknown as KubeObject), TypeError);
    const cyclic: KubeObject = { metadata: {} };
    cyclic.self = cyclic;
    await assert.rejects(s.create('/r/x', cyclic), TypeError);
    await assert.rejects(s.create('', cm('a')), TypeError);
    assert.equal(s.currentRevision(), 1, 'failed writes do not consume revisions');
  });

  it('keeps an int64 beyond 2^53 (a BigInt) exact, and stores a small BigInt as JSON would read it back (a Number)', async () => {
    const s = new MemoryStore();
    const made = await s.create('/r/x', { metadata: {}, n: 1n, big: 8071137005907523419n, list: [-(2n ** 63n)] } as unknown as KubeObject);
    const v = made.value as unknown as { n: unknown; big: unknown; list: unknown[] };
    assert.deepEqual([v.n, v.big, v.list[0]], [1, 8071137005907523419n, -(2n ** 63n)]);
    assert.match(made.json ?? '', /"big":8071137005907523419,"list":\[-9223372036854775808\]/);
    assert.ok(Object.isFrozen(v.list), 'stored values are frozen');
    const transferred = await s.create('/r/y', { metadata: {}, big: 2n ** 62n } as unknown as KubeObject, { transfer: true });
    assert.equal((transferred.value as unknown as { big: unknown }).big, 2n ** 62n);
    const updated = await s.update('/r/x', { ...made.value, n: 2n, big: 8071137005907523418n } as unknown as KubeObject);
    const u = updated.value as unknown as { n: unknown; big: unknown; list: unknown[] };
    assert.deepEqual([u.n, u.big], [2, 8071137005907523418n]);
    assert.equal(u.list, v.list, 'the unchanged list is the previous version\'s own');
  });

  it('gives each StoreError where the contract says', async () => {
    const s = new MemoryStore({ historyEvents: 2, historyAgeMs: 0 });
    await s.create('/r/ns/a', cm('a'));
    await rejectsWith(s.create('/r/ns/a', cm('a')), 'KeyExists');
    await rejectsWith(s.update('/r/ns/missing', cm('missing')), 'NotFound');
    await rejectsWith(s.delete('/r/ns/missing'), 'NotFound');
    await rejectsWith(s.update('/r/ns/a', cm('a'), { expectedRevision: 99 }), 'Conflict');
    await rejectsWith(s.delete('/r/ns/a', { expectedRevision: 99 }), 'Conflict');
    const ok = await s.update('/r/ns/a', cm('a', { x: '1' }), { expectedRevision: 2 });
    assert.equal(ok.modRevision, 3);
    await s.update('/r/ns/a', cm('a', { x: '2' }));
    await s.update('/r/ns/a', cm('a', { x: '3' }));
    assert.equal(s.currentRevision(), 5);
    assert.equal(s.oldestRevision(), 3);
    const compacted = await rejectsWith(s.list('/r/', { revision: 2 }), 'Compacted');
    assert.equal(compacted.revision, 3);
    assert.throws(
      () => s.watch('/r/', { fromRevision: 2, onEvent() {} }),
      (e: unknown) => e instanceof StoreError && e.code === 'Compacted' && e.revision === 3,
    );
    const future = await rejectsWith(s.list('/r/', { revision: 6 }), 'FutureRevision');
    assert.equal(future.revision, 5);
    const closedReasons: (StoreError | undefined)[] = [];
    s.watch('/r/', { onEvent() {}, onClose: (r) => closedReasons.push(r) });
    await s.close();
    assert.equal(closedReasons.length, 1);
    assert.equal(closedReasons[0]?.code, 'Closed');
    await rejectsWith(s.get('/r/ns/a'), 'Closed');
    await rejectsWith(s.create('/r/ns/b', cm('b')), 'Closed');
    await rejectsWith(() => s.watch('/r/', { onEvent() {} }), 'Closed');
  });

  it('refuses bad options and bad revisions with clean errors', async () => {
    assert.throws(() => new MemoryStore({ historyEvents: -1 }), RangeError);
    assert.throws(() => new MemoryStore({ historyAgeMs: 1.5 }), RangeError);
    assert.throws(() => new MemoryStore({ historyMaxEvents: 0 }), RangeError);
    const s = new MemoryStore();
    await assert.rejects(s.list('/r/', { revision: -1 }), TypeError);
    await assert.rejects(s.list('/r/', { revision: Number.NaN }), TypeError);
    assert.throws(() => s.watch('/r/', { fromRevision: 1.5, onEvent() {} }), TypeError);
  });

  it('recreating a deleted key starts a new createRevision', async () => {
    const s = new MemoryStore();
    await s.create('/r/a', cm('a'));
    await s.delete('/r/a');
    const again = await s.create('/r/a', cm('a'));
    assert.equal(again.createRevision, 4);
    assert.equal((await s.list('/r/', { revision: 3 })).items.length, 0);
    assert.equal((await s.list('/r/', { revision: 2 })).items[0].value.metadata.resourceVersion, '2');
  });
});

describe('MemoryStore list', () => {
  it('pages in key order within the prefix with an inclusive next key', async () => {
    const s = new MemoryStore();
    for (const n of ['c', 'a', 'e', 'b', 'd']) await s.create(`/r/ns1/${n}`, cm(n));
    await s.create('/r/ns10/z', cm('z')); // shares the string prefix "/r/ns1" but not "/r/ns1/"
    await s.create('/r/ns0/y', cm('y'));
    const first = await s.list('/r/ns1/', { limit: 2 });
    assert.deepEqual(first.items.map((i) => i.key), ['/r/ns1/a', '/r/ns1/b']);
    assert.equal(first.nextKey, '/r/ns1/b\u0000');
    const second = await s.list('/r/ns1/', { limit: 2, startKey: first.nextKey, revision: first.revision });
    assert.deepEqual(second.items.map((i) => i.key), ['/r/ns1/c', '/r/ns1/d']);
    const third = await s.list('/r/ns1/', { limit: 2, startKey: second.nextKey, revision: first.revision });
    assert.deepEqual(third.items.map((i) => i.key), ['/r/ns1/e']);
    assert.equal(third.nextKey, undefined);
    const exact = await s.list('/r/ns1/', { limit: 5 });
    assert.equal(exact.items.length, 5);
    assert.equal(exact.nextKey, undefined, 'no continue when nothing is left');
    const all = await s.list('/r/ns1/', {});
    assert.equal(all.items.length, 5);
    assert.equal(all.revision, s.currentRevision());
  });

  it('filters without counting skipped items toward the limit', async () => {
    const s = new MemoryStore();
    for (let i = 0; i < 10; i++) await s.create(`/r/k${i}`, cm(`k${i}`, { even: String(i % 2 === 0) }));
    const page = await s.list('/r/', { limit: 3, filter: (o) => (o.data as Record<string, string>).even === 'true' });
    assert.deepEqual(page.items.map((i) => i.key), ['/r/k0', '/r/k2', '/r/k4']);
    assert.equal(page.nextKey, '/r/k4\u0000');
  });

  it('reads an older snapshot while writes go on', async () => {
    const s = new MemoryStore();
    await s.create('/r/a', cm('a', { v: '1' }));
    await s.create('/r/b', cm('b'));
    const rev = s.currentRevision();
    await s.update('/r/a', cm('a', { v: '2' }));
    await s.delete('/r/b');
    await s.create('/r/c', cm('c'));
    const old = await s.list('/r/', { revision: rev });
    assert.deepEqual(old.items.map((i) => [i.key, i.value.data]), [['/r/a', { v: '1' }], ['/r/b', {}]]);
    const now = await s.list('/r/');
    assert.deepEqual(now.items.map((i) => [i.key, i.value.data]), [['/r/a', { v: '2' }], ['/r/c', {}]]);
  });
});

describe('MemoryStore history window', () => {
  it('keeps the last N changes OR the changes younger than the age, whichever reaches further back', async () => {
    let t = 0;
    const s = new MemoryStore({ historyEvents: 3, historyAgeMs: 1000, now: () => t });
    for (let i = 0; i < 10; i++) await s.create(`/r/k${i}`, cm(`k${i}`)); // revisions 2..11 at t=0
    assert.equal(s.oldestRevision(), 1, 'everything is young');
    t = 1500; // all older than the age: only the last 3 changes (9, 10, 11) are kept
    assert.equal(s.oldestRevision(), 8);
    await rejectsWith(s.list('/r/', { revision: 7 }), 'Compacted');
    assert.equal((await s.list('/r/', { revision: 8 })).items.length, 7);
    for (let i = 0; i < 5; i++) await s.update(`/r/k${i}`, cm(`k${i}`, { v: '2' })); // revisions 12..16 at t=1500
    t = 2000; // 12..16 are young, so they are kept although only 3 would be by count
    assert.equal(s.oldestRevision(), 11);
    t = 2600;
    assert.equal(s.oldestRevision(), 13);
  });

  it('caps history at historyMaxEvents whatever the age', async () => {
    const s = new MemoryStore({ historyEvents: 2, historyMaxEvents: 4, now: () => 0 });
    for (let i = 0; i < 10; i++) await s.create(`/r/k${i}`, cm(`k${i}`));
    assert.equal(s.oldestRevision(), 11 - 4);
  });

  it('compaction drops old versions and tombstones so memory stays bounded', async () => {
    const s = new MemoryStore({ historyEvents: 8, historyAgeMs: 0 });
    for (let round = 0; round < 50; round++) {
      await s.create('/r/tmp', cm('tmp'));
      for (let i = 0; i < 5; i++) await s.guaranteedUpdate('/r/keep', () => cm('keep', { round: String(round), i: String(i) }));
      await s.delete('/r/tmp');
    }
    const st = s.stats();
    assert.ok(st.events <= 8 + 2 * 8, `events ${st.events}`);
    assert.ok(st.versions <= 2 + st.events, `versions ${st.versions}`);
    assert.deepEqual((await s.get('/r/keep'))?.value.data, { round: '49', i: '4' });
    assert.equal((await s.list('/r/')).items.length, 1);
  });
});

describe('MemoryStore watch', () => {
  it('replays history after fromRevision, then streams live events, with DELETED carrying the last state', async () => {
    const s = new MemoryStore();
    await s.create('/r/a', cm('a'));
    const from = s.currentRevision();
    await s.update('/r/a', cm('a', { v: '2' }));
    await s.create('/r/other/x', cm('x'));
    const seen: StoreEvent[] = [];
    s.watch('/r/a', { fromRevision: from, onEvent: (e) => seen.push(e) });
    assert.deepEqual(seen.map((e) => [e.type, e.revision]), [['MODIFIED', 3]]);
    await s.delete('/r/a');
    assert.deepEqual(seen.map((e) => [e.type, e.revision]), [['MODIFIED', 3], ['DELETED', 5]]);
    const del = seen[1];
    assert.equal(del.object.metadata.resourceVersion, '5');
    assert.deepEqual(del.object.data, { v: '2' });
    assert.equal(del.prevObject?.metadata.resourceVersion, '3');
  });

  it('without fromRevision delivers only later changes; stop() is idempotent and ends delivery', async () => {
    const s = new MemoryStore();
    await s.create('/r/a', cm('a'));
    const seen: number[] = [];
    const h = s.watch('/r/', { onEvent: (e) => seen.push(e.revision) });
    await s.create('/r/b', cm('b'));
    h.stop();
    h.stop();
    await s.create('/r/c', cm('c'));
    assert.deepEqual(seen, [3]);
  });

  it('a throwing watcher is ended with onClose and does not disturb the store or other watchers', async () => {
    const s = new MemoryStore();
    const good: number[] = [];
    const reasons: (StoreError | undefined)[] = [];
    s.watch('/r/', {
      onEvent: () => {
        throw new Error('boom');
      },
      onClose: (r) => reasons.push(r),
    });
    s.watch('/r/', { onEvent: (e) => good.push(e.revision) });
    await s.create('/r/a', cm('a'));
    await s.create('/r/b', cm('b'));
    assert.deepEqual(good, [2, 3]);
    assert.equal(reasons.length, 1);
    assert.match(reasons[0]?.message ?? '', /boom/);
    assert.equal(s.stats().watchers, 1);
  });

  it('keeps write order for every watcher when an onEvent writes, and nothing is doubled during replay', async () => {
    const s = new MemoryStore();
    await s.create('/r/a', cm('a'));
    const w1: number[] = [];
    const w2: number[] = [];
    let reacted = false;
    s.watch('/r/', {
      fromRevision: 1,
      onEvent: (e) => {
        w1.push(e.revision);
        if (!reacted) {
          reacted = true;
          void s.create('/r/reaction', cm('reaction')); // runs synchronously, inside the replay
        }
      },
    });
    s.watch('/r/', { fromRevision: 1, onEvent: (e) => w2.push(e.revision) });
    let resolvedBeforeDelivery = false;
    const p = s.create('/r/b', cm('b')).then(() => {
      resolvedBeforeDelivery = !w2.includes(4);
    });
    await p;
    assert.equal(resolvedBeforeDelivery, false, 'the write resolves only after its event reached every watcher');
    assert.deepEqual(w1, [2, 3, 4]);
    assert.deepEqual(w2, [2, 3, 4]);
  });

  it('a watch started from inside onEvent gets its replay in order too', async () => {
    const s = new MemoryStore();
    const inner: number[] = [];
    let started = false;
    s.watch('/r/', {
      onEvent: () => {
        if (started) return;
        started = true;
        s.watch('/r/', { fromRevision: 1, onEvent: (e) => inner.push(e.revision) });
      },
    });
    await s.create('/r/a', cm('a'));
    await s.create('/r/b', cm('b'));
    assert.deepEqual(inner, [2, 3]);
  });

  it('a future fromRevision waits for that revision, as etcd does', async () => {
    const s = new MemoryStore();
    const seen: number[] = [];
    s.watch('/r/', { fromRevision: 3, onEvent: (e) => seen.push(e.revision) });
    await s.create('/r/a', cm('a'));
    await s.create('/r/b', cm('b'));
    await s.create('/r/c', cm('c'));
    assert.deepEqual(seen, [4]);
  });
});

describe('MemoryStore guaranteedUpdate', () => {
  it('creates, updates, leaves alone and deletes', async () => {
    const s = new MemoryStore();
    const created = await s.guaranteedUpdate('/r/a', (cur) => {
      assert.equal(cur, undefined);
      return cm('a', { n: '1' });
    });
    assert.equal(created.result?.modRevision, 2);
    const updated = await s.guaranteedUpdate('/r/a', (cur) => cm('a', { n: String(Number(cur?.value.data && (cur.value.data as Record<string, string>).n) + 1) }));
    assert.deepEqual(updated.result?.value.data, { n: '2' });
    const same = await s.guaranteedUpdate('/r/a', () => undefined);
    assert.equal(same.result?.modRevision, 3);
    assert.equal(s.currentRevision(), 3);
    const gone = await s.guaranteedUpdate('/r/a', () => null);
    assert.equal(gone.deleted?.modRevision, 4);
    assert.equal(await s.get('/r/a'), undefined);
    assert.deepEqual(await s.guaranteedUpdate('/r/a', () => null), {});
    await assert.rejects(
      s.guaranteedUpdate('/r/a', () => {
        throw new Error('validation failed');
      }),
      /validation failed/,
    );
  });

  it('retries when another write lands while an async fn runs', async () => {
    const s = new MemoryStore();
    await s.create('/r/n', cm('n', { n: '0' }));
    const incr = () =>
      s.guaranteedUpdate('/r/n', async (cur) => {
        await new Promise((r) => setImmediate(r));
        const n = Number((cur?.value.data as Record<string, string>).n);
        return cm('n', { n: String(n + 1) });
      });
    await Promise.all(Array.from({ length: 10 }, incr));
    assert.deepEqual((await s.get('/r/n'))?.value.data, { n: '10' });
  });
});

// The behaviour shared with every other backend (testing/store-contract.ts); the tests above cover what is the memory
// store's own (its synchronous delivery, its window rule in detail, its memory bounds).
storeContract('MemoryStore', {
  make: async (opts) => new MemoryStore(opts),
  applyWindow: async () => undefined, // the window is a rule evaluated on every call
});

it('an update shares every unchanged subtree with the previous version (history grows by what changed)', async () => {
  const store = new MemoryStore();
  const big = 'x'.repeat(100_000);
  const a = await store.create('/registry/configmaps/n/c', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'n', labels: { a: '1' } }, data: { big, small: 's' } });
  const b = await store.update('/registry/configmaps/n/c', { ...a.value, metadata: { ...a.value.metadata, labels: { a: '2' } } } as never);
  const da = (a.value as unknown as { data: Record<string, string> }).data;
  const db = (b.value as unknown as { data: Record<string, string> }).data;
  assert.equal(db, da, 'the unchanged data object is the same object');
  assert.notEqual(b.value.metadata, a.value.metadata);
  assert.deepEqual(b.value.metadata.labels, { a: '2' });
  assert.equal(b.value.metadata.resourceVersion, String(b.modRevision));
  assert.equal(a.value.metadata.resourceVersion, String(a.modRevision), 'the previous version is untouched');
  assert.ok(Object.isFrozen(b.value) && Object.isFrozen(b.value.metadata) && Object.isFrozen(b.value.metadata.labels), 'Object.isFrozen(b.value) && Object.isFrozen(b.value.metadata) && Object.isFrozen(b.value.metadata.l…');
  await store.close();
});

it('an update stores what a JSON round trip would, sharing what did not change', async () => {
  const store = new MemoryStore();
  const key = '/registry/configmaps/n/j';
  const a = await store.create(key, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'j', namespace: 'n' }, data: { keep: 'k' }, list: [1, 2] } as never);
  const when = new Date(Date.UTC(2020, 0, 2, 3, 4, 5));
  const next = {
    ...a.value,
    metadata: { ...a.value.metadata },
    gone: undefined,
    fn: () => 1,
    nums: [Number.NaN, Infinity, -0, undefined, 1.5],
    spec: JSON.parse('{"__proto__": {"polluted": true}, "x": null}'),
  };
  const b = await store.update(key, next as never);
  const roundTrip = JSON.parse(JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: String(b.modRevision) } }));
  assert.deepEqual(JSON.parse(JSON.stringify(b.value)), roundTrip);
  assert.ok(!('gone' in b.value) && !('fn' in b.value), "!('gone' in b.value) && !('fn' in b.value)");
  assert.deepEqual((b.value as never as { nums: unknown[] }).nums, [null, null, 0, null, 1.5]);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined, 'a "__proto__" member stays data');
  assert.deepEqual(Object.keys((b.value as never as { spec: object }).spec), ['__proto__', 'x']);
  assert.equal((b.value as never as { data: object }).data, (a.value as never as { data: object }).data, 'unchanged data shared');
  // Changing a list element gives a new list; nothing of the stored versions is mutable.
  const c = await store.update(key, { ...b.value, list: [1, 3] } as never);
  assert.deepEqual((c.value as never as { list: number[] }).list, [1, 3]);
  assert.ok(Object.isFrozen((c.value as never as { list: number[] }).list), 'Object.isFrozen((c.value as never as { list: number[] }).list)');
  const cyclic = { ...c.value, metadata: { ...c.value.metadata } } as Record<string, unknown>;
  cyclic.self = cyclic;
  await assert.rejects(store.update(key, cyclic as never), TypeError);
  const d = await store.update(key, { ...c.value, when } as never);
  assert.equal((d.value as never as { when: unknown }).when, when.toJSON(), 'a Date is stored as its JSON text');
  await store.close();
});

describe('MemoryStore snapshot', () => {
  const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });
  it('a store made from a snapshot has the same objects at the same revisions, and the next write continues the count', async () => {
    const a = new MemoryStore();
    await a.create('/r/ns/one', cm('one'));
    await a.create('/r/ns/two', cm('two'));
    const one = await a.update('/r/ns/one', { ...cm('one'), data: { k: 'v' } } as KubeObject);
    await a.create('/r/ns/gone', cm('gone'));
    await a.delete('/r/ns/gone');
    const snap = JSON.parse(JSON.stringify(a.snapshot())) as ReturnType<MemoryStore['snapshot']>;
    assert.equal(snap.revision, a.currentRevision());
    assert.deepEqual(snap.objects.map((o) => o.key), ['/r/ns/one', '/r/ns/two'], 'live objects only, in key order');
    const b = new MemoryStore({ initial: snap });
    assert.equal(b.currentRevision(), a.currentRevision());
    const got = await b.get('/r/ns/one');
    assert.equal(got?.modRevision, one.modRevision);
    assert.equal(got?.createRevision, 2);
    assert.equal(got?.value.metadata.resourceVersion, String(one.modRevision));
    assert.ok(Object.isFrozen(got?.value), 'restored values are frozen like written ones');
    assert.equal((await b.get('/r/ns/gone')), undefined);
    const next = await b.create('/r/ns/three', cm('three'));
    assert.equal(next.modRevision, snap.revision + 1);
    await assert.rejects(b.list('/r/', { revision: snap.revision - 1 }), (e: unknown) => e instanceof StoreError && e.code === 'Compacted');
  });
  it('refuses a snapshot that cannot be one', () => {
    assert.throws(() => new MemoryStore({ initial: { revision: 3, objects: [{ key: '/r/x', modRevision: 4, createRevision: 2, value: cm('x') }] } }), RangeError);
    const dup = { key: '/r/x', modRevision: 2, createRevision: 2, value: cm('x') };
    assert.throws(() => new MemoryStore({ initial: { revision: 3, objects: [dup, dup] } }), /twice/);
  });
});
