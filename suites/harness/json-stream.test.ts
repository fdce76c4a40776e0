import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonValueSplitter, JsonStreamError } from './json-stream.ts';

test('splits concatenated documents fed one byte at a time', () => {
  const docs = [{ type: 'ADDED', object: { a: 'x}{"]' } }, { type: 'MODIFIED', object: { b: [1, { c: '\\"' }] } }];
  const bytes = Buffer.from(docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const splitter = new JsonValueSplitter();
  const out: unknown[] = [];
  for (const b of bytes) out.push(...splitter.push(Uint8Array.of(b)));
  assert.deepEqual(out, docs);
  assert.equal(splitter.hasPartial, false);
});

test('does not rely on newlines between documents', () => {
  const splitter = new JsonValueSplitter();
  assert.deepEqual(splitter.push(Buffer.from('{"a":1}{"b":"line\\nbreak"}{"c"')), [{ a: 1 }, { b: 'line\nbreak' }]);
  assert.equal(splitter.hasPartial, true);
  assert.deepEqual(splitter.push(Buffer.from(':2}')), [{ c: 2 }]);
});

test('rejects a stream that is not JSON documents', () => {
  const splitter = new JsonValueSplitter();
  assert.throws(() => splitter.push(Buffer.from('hello')), JsonStreamError);
  assert.throws(() => new JsonValueSplitter().push(Buffer.from('{"a":}')), JsonStreamError);
});
