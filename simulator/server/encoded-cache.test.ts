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
  for (const o of objs) c.get(o, 'json', () => Buffer.alloc(100));
  assert.ok(c.stats.bytes <= 1000, `${c.stats.bytes} bytes held`);
  assert.equal(c.size, 10);
  // The 10 most recent are held; touching the oldest of them keeps it over a newer one.
  c.get(objs[40], 'json', () => assert.fail('should be cached'));
  c.get({ new: true }, 'json', () => Buffer.alloc(100));
  c.get(objs[40], 'json', () => assert.fail('recently used entry was evicted'));
  let miss = false;
  c.get(objs[41], 'json', () => ((miss = true), Buffer.alloc(100)));
  assert.ok(miss, 'the least recently used entry goes first');
});

test('an encoding bigger than a quarter of the budget is answered but not kept', () => {
  const c = new EncodedCache(1000);
  const o = {};
  c.get(o, 'json', () => Buffer.alloc(600));
  assert.equal(c.size, 0);
  assert.equal(c.stats.bytes, 0);
});
