// Model-based properties of MemoryStore: random interleavings of writes, clock ticks and chunked reads are checked
// against an independent model that simply copies the whole key -> value map at every revision.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MemoryStore, prefixEnd } from './memory.ts';
import { StoreError, type StoreEvent, type StoredObject } from './store.ts';

const NAMESPACES = ['ns1', 'ns2', 'ns10'];
const NAMES = ['a', 'b', 'c', 'd'];
const LIST_PREFIXES = ['/r/', '/r/ns1/'];

type Snapshot = Map<string, { v: string; modRevision: number; createRevision: number }>;

type Op =
  | { op: 'create' | 'update' | 'delete'; key: string; v: string; cas: 'none' | 'right' | 'wrong' }
  | { op: 'tick'; ms: number }
  | { op: 'startPaging'; prefix: string; back: number; limit: number }
  | { op: 'page'; which: number };

const keyArb = fc.tuple(fc.constantFrom(...NAMESPACES), fc.constantFrom(...NAMES)).map(([ns, n]) => `/r/${ns}/${n}`);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constantFrom('create', 'update', 'delete') as fc.Arbitrary<'create' | 'update' | 'delete'>,
      key: keyArb,
      v: fc.string({ maxLength: 4 }),
      cas: fc.constantFrom('none', 'right', 'wrong') as fc.Arbitrary<'none' | 'right' | 'wrong'>,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 400 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('startPaging' as const),
      prefix: fc.constantFrom(...LIST_PREFIXES),
      back: fc.nat(12),
      limit: fc.integer({ min: 1, max: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('page' as const), which: fc.nat(5) }) },
);

const configArb = fc.record({
  historyEvents: fc.integer({ min: 0, max: 10 }),
  historyAgeMs: fc.constantFrom(0, 50, 1000),
  historyMaxEvents: fc.constantFrom(undefined, 6, 12),
});

/** The model: every revision's full map, and the time of every change. */
class Model {
  readonly snapshots: Snapshot[] = [];
  readonly times: number[] = [];
  constructor(readonly cfg: { historyEvents: number; historyAgeMs: number; historyMaxEvents?: number }) {
    this.snapshots[1] = new Map();
  }
  get current(): number {
    return this.snapshots.length - 1;
  }
  state(): Snapshot {
    return this.snapshots[this.current];
  }
  write(next: Snapshot, time: number): void {
    this.times[this.snapshots.length] = time;
    this.snapshots.push(next);
  }
  /** Retention straight from its definition, one revision at a time. */
  oldest(now: number): number {
    const cap = this.cfg.historyMaxEvents ?? Math.max(this.cfg.historyEvents, 100_000);
    const retained = (r: number) =>
      r > this.current - cap && (r > this.current - this.cfg.historyEvents || now - this.times[r] < this.cfg.historyAgeMs);
    let first = this.current + 1;
    while (first - 1 >= 2 && retained(first - 1)) first--;
    return first - 1;
  }
}

function view(items: StoredObject[]): [string, string, string | undefined, number][] {
  return items.map((i) => [i.key, (i.value.data as { v: string }).v, i.value.metadata.resourceVersion, i.createRevision]);
}

function modelView(s: Snapshot, prefix: string): [string, string, string, number][] {
  return [...s.entries()]
    .filter(([k]) => k.startsWith(prefix))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, e]) => [k, e.v, String(e.modRevision), e.createRevision]);
}

function applyEvents(start: Snapshot, events: StoreEvent[]): Snapshot {
  const s: Snapshot = new Map(start);
  for (const e of events) {
    if (e.type === 'DELETED') s.delete(e.key);
    else {
      const createRevision = e.type === 'ADDED' ? e.revision : s.get(e.key)!.createRevision;
      s.set(e.key, { v: (e.object.data as { v: string }).v, modRevision: e.revision, createRevision });
    }
  }
  return s;
}

function only(s: Snapshot, prefix: string): Snapshot {
  return new Map([...s].filter(([k]) => k.startsWith(prefix)));
}

function assertCompacted(err: unknown, oldest: number): void {
  assert.ok(err instanceof StoreError && err.code === 'Compacted', `expected Compacted, got ${String(err)}`);
  assert.equal(err.revision, oldest);
}

async function readAll(store: MemoryStore, prefix: string, revision: number, limit: number): Promise<StoredObject[]> {
  const out: StoredObject[] = [];
  let startKey: string | undefined;
  for (;;) {
    const page = await store.list(prefix, { revision, limit, startKey });
    assert.equal(page.revision, revision);
    assert.ok(page.items.length <= limit, 'page.items.length <= limit');
    out.push(...page.items);
    if (page.nextKey === undefined) return out;
    startKey = page.nextKey;
  }
}

async function runScenario(cfg: { historyEvents: number; historyAgeMs: number; historyMaxEvents?: number }, ops: Op[], finalLimit: number) {
  let now = 1_000;
  const store = new MemoryStore({ ...cfg, now: () => now });
  const model = new Model(cfg);
  const everything: StoreEvent[] = [];
  const ns1: StoreEvent[] = [];
  store.watch('/r/', { fromRevision: 1, onEvent: (e) => everything.push(e) });
  store.watch('/r/ns1/', { onEvent: (e) => ns1.push(e) });
  const cursors: { prefix: string; rev: number; limit: number; next?: string; got: StoredObject[]; done: boolean }[] = [];

  for (const o of ops) {
    if (o.op === 'tick') {
      now += o.ms;
    } else if (o.op === 'startPaging') {
      const rev = Math.max(1, model.current - o.back);
      cursors.push({ prefix: o.prefix, rev, limit: o.limit, got: [], done: false });
    } else if (o.op === 'page') {
      const c = cursors.filter((x) => !x.done)[o.which];
      if (!c) continue;
      const oldest = model.oldest(now);
      try {
        const page = await store.list(c.prefix, { revision: c.rev, limit: c.limit, startKey: c.next });
        assert.ok(c.rev >= oldest, `read at ${c.rev} succeeded though the model's oldest is ${oldest}`);
        c.got.push(...page.items);
        c.next = page.nextKey;
        if (page.nextKey === undefined) {
          c.done = true;
          assert.deepEqual(view(c.got), modelView(model.snapshots[c.rev], c.prefix), 'union of chunks = snapshot');
        }
      } catch (err) {
        assert.ok(c.rev < oldest, `read at ${c.rev} failed though retained (oldest ${oldest}): ${String(err)}`);
        assertCompacted(err, oldest);
        c.done = true;
      }
    } else {
      const cur = model.state();
      const existing = cur.get(o.key);
      const rev = model.current + 1;
      const expectedRevision =
        o.cas === 'none' ? undefined : o.cas === 'right' ? (existing?.modRevision ?? 1) : (existing?.modRevision ?? 1) + 1000;
      const obj = { metadata: { name: o.key }, data: { v: o.v } };
      let expectedError: string | undefined;
      if (o.op === 'create' && existing) expectedError = 'KeyExists';
      else if (o.op !== 'create' && !existing) expectedError = 'NotFound';
      else if (o.op !== 'create' && o.cas === 'wrong') expectedError = 'Conflict';
      try {
        if (o.op === 'create') await store.create(o.key, obj);
        else if (o.op === 'update') await store.update(o.key, obj, { expectedRevision });
        else await store.delete(o.key, { expectedRevision });
        assert.equal(expectedError, undefined, `${o.op} ${o.key} should have failed`);
        const next: Snapshot = new Map(cur);
        if (o.op === 'delete') next.delete(o.key);
        else next.set(o.key, { v: o.v, modRevision: rev, createRevision: existing?.createRevision ?? rev });
        model.write(next, now);
      } catch (err) {
        assert.ok(err instanceof StoreError, String(err));
        assert.equal(err.code, expectedError);
      }
    }
    assert.equal(store.currentRevision(), model.current);
    assert.equal(store.oldestRevision(), model.oldest(now));
  }

  // Live watchers saw exactly the model's history, in order.
  assert.deepEqual(applyEvents(new Map(), everything), model.state());
  assert.deepEqual(everything.map((e) => e.revision), Array.from({ length: model.current - 1 }, (_, i) => i + 2));
  assert.deepEqual(applyEvents(new Map(), ns1), only(model.state(), '/r/ns1/'));

  // Every retained revision: a chunked list there + a watch from there = the current state.
  const oldest = model.oldest(now);
  for (let r = 1; r <= model.current; r++) {
    for (const prefix of LIST_PREFIXES) {
      if (r < oldest) {
        await assert.rejects(store.list(prefix, { revision: r }), (e) => (assertCompacted(e, oldest), true));
        assert.throws(() => store.watch(prefix, { fromRevision: r, onEvent() {} }), (e) => (assertCompacted(e, oldest), true));
        continue;
      }
      const items = await readAll(store, prefix, r, finalLimit);
      assert.deepEqual(view(items), modelView(model.snapshots[r], prefix));
      const replay: StoreEvent[] = [];
      const h = store.watch(prefix, { fromRevision: r, onEvent: (e) => replay.push(e) });
      h.stop();
      assert.ok(replay.every((e, i) => e.revision > r && (i === 0 || e.revision > replay[i - 1].revision)), 'replay.every((e, i) => e.revision > r && (i === 0 || e.revision > replay[i - 1].revision))');
      const base: Snapshot = new Map(
        items.map((i) => [i.key, { v: (i.value.data as { v: string }).v, modRevision: i.modRevision, createRevision: i.createRevision }]),
      );
      assert.deepEqual(applyEvents(base, replay), only(model.state(), prefix));
    }
  }
  await assert.rejects(store.list('/r/', { revision: model.current + 1 }), (e) => e instanceof StoreError && e.code === 'FutureRevision');
  await store.close();
}

describe('MemoryStore against a snapshot-per-revision model', () => {
  it('chunked reads, watches and the history window agree with the model', async () => {
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { maxLength: 60 }), fc.integer({ min: 1, max: 5 }), (cfg, ops, limit) =>
        runScenario(cfg, ops, limit),
      ),
      { numRuns: 200 },
    );
  });
});

describe('MemoryStore list: the keys under a prefix', () => {
  // Code units near the ends of the range, so that prefixes ending in U+FFFF (no end to make) and keys just past a
  // prefix's end are drawn often.
  const unit = fc.constantFrom('a', 'b', '/', '0', '\u0000', '\uffff', '\ufffe', 'é');
  const text = (maxLength: number) => fc.array(unit, { maxLength }).map((a) => a.join(''));

  it('prefixEnd bounds exactly the strings that start with the prefix', () => {
    fc.assert(
      fc.property(text(4), text(6), (prefix, s) => {
        const end = prefixEnd(prefix);
        if (end === undefined) return prefix === '' || prefix.endsWith('\uffff');
        return s.startsWith(prefix) === (s >= prefix && s < end);
      }),
      { numRuns: 2000 },
    );
  });

  it('a list, whole or in chunks from any start key, answers exactly the live keys under the prefix, in order', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(text(5).filter((k) => k !== ''), { maxLength: 30 }), text(3), fc.option(text(4), { nil: undefined }), fc.integer({ min: 1, max: 5 }), async (keys, prefix, startKey, limit) => {
        const store = new MemoryStore();
        // (The store refuses an empty key.)
        for (const k of keys) await store.create(k, { metadata: { name: 'x' }, k });
        const expected = keys.filter((k) => k.startsWith(prefix) && (startKey === undefined || k >= startKey)).sort();
        const whole = await store.list(prefix, { startKey });
        assert.deepEqual(whole.items.map((i) => i.key), expected);
        assert.equal(whole.nextKey, undefined);
        const paged: string[] = [];
        let next = startKey;
        for (let guard = 0; guard <= keys.length + 1; guard++) {
          const page = await store.list(prefix, { startKey: next, limit });
          assert.ok(page.items.length <= limit, `a page of ${page.items.length} items for limit ${limit}`);
          paged.push(...page.items.map((i) => i.key));
          if (page.nextKey === undefined) break;
          next = page.nextKey;
        }
        assert.deepEqual(paged, expected);
        await store.close();
      }),
      { numRuns: 300 },
    );
  });
});
