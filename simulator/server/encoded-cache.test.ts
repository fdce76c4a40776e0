import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EncodedCache } from './encoded-cache.ts';

test('encodes once per object and format, and serves the same bytes after', () => {
  const c = new EncodedCache(1024);
  const o = Object.freeze({ a: 1 });
  let calls = 0;
  const enc = () => (calls++, Buffer.from(JSON.stringify(o)));
  const a = c.get(o, 'json', enc);
  const b = c.get(o, 'json', enc);
  assert.equal(a, b);
  assert.equal(calls, 1);
  c.get(o, 'yaml', () => 'a: 1\n');
  assert.equal(c.stats.encodings, 2);
  assert.equal(c.stats.hits, 1);
});

test('stays within its byte budget, least recently used out first', () => {
  const c = new EncodedCache(1000);
  const objs = Array.from({ length: 50 }, (_, i) => ({ i }));
  for (const o of objs) {
    c.get(o, 'json', () => Buffer.alloc(100));
    assert.ok(c.stats.bytes <= 1000, `${c.stats.bytes} bytes held`);
  }
  // Generations of half the budget: between half and all of the budget is held, the newest entries.
  assert.ok(c.size >= 5 && c.size <= 10, `${c.size} entries`);
  c.get(objs[49], 'json', () => assert.fail('the newest entry should be cached'));
  c.get(objs[39], 'json', () => Buffer.alloc(100)); // older than the budget: gone, encoded again
  assert.equal(c.stats.evictions + c.size, 51, 'each of the 51 inserts is held or was evicted');
  // An entry used again survives a budget's worth of newer writes that would otherwise push it out.
  const kept = { kept: true };
  c.get(kept, 'json', () => Buffer.alloc(100));
  for (let i = 0; i < 40; i++) {
    c.get({ i }, 'json', () => Buffer.alloc(100));
    if (i % 4 === 0) c.get(kept, 'json', () => assert.fail('recently used entry was evicted'));
  }
  let miss = false;
  c.get(objs[48], 'json', () => ((miss = true), Buffer.alloc(100)));
  assert.ok(miss, 'an entry not used for a budget of writes is gone');
  assert.ok(c.stats.bytes <= 1000, `${c.stats.bytes} bytes held`);
});

test('a second format of an entry keeps the budget and the entry', () => {
  const c = new EncodedCache(1000);
  const o = { o: 1 };
  for (let i = 0; i < 4; i++) c.get({ i }, 'json', () => Buffer.alloc(100));
  c.get(o, 'json', () => Buffer.alloc(100));
  c.get(o, 'yaml', () => Buffer.alloc(200)); // past half the budget: the generation turns over
  assert.ok(c.stats.bytes <= 1000, `${c.stats.bytes}`);
  c.get(o, 'json', () => assert.fail('json lost'));
  c.get(o, 'yaml', () => assert.fail('yaml lost'));
});

test('inserts stay cheap however many entries are held (no scan per insert)', () => {
  // The exact LRU over one Map scanned the holes its deletions left: cost grew with the entries held. Counted, not
  // timed: a Map's iteration is never called, so the work per insert cannot grow.
  const c = new EncodedCache(12_000 * 100);
  const iterate = Map.prototype[Symbol.iterator];
  let iterations = 0;
  Map.prototype[Symbol.iterator] = function (this: Map<unknown, unknown>) {
    iterations++;
    return iterate.call(this);
  };
  try {
    for (let i = 0; i < 50_000; i++) c.get({ i }, 'json', () => Buffer.alloc(100));
  } finally {
    Map.prototype[Symbol.iterator] = iterate;
  }
  assert.equal(iterations, 0);
  assert.ok(c.stats.bytes <= 12_000 * 100, `${c.stats.bytes} bytes held`);
});

test('an encoding bigger than a quarter of the budget is answered but not kept', () => {
  const c = new EncodedCache(1000);
  const o = {};
  c.get(o, 'json', () => Buffer.alloc(600));
  assert.equal(c.size, 0);
  assert.equal(c.stats.bytes, 0);
});
