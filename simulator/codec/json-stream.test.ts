import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JsonObjectSplitter, JsonStreamError } from './json-stream.ts';
import { parseJson } from '../util/int64-json.ts';

/** Feeds the bytes cut at the given offsets (any numbers, taken modulo the length) and collects what comes out. */
function feedInPieces(bytes: Buffer, cuts: number[]): { got: unknown[]; incomplete: boolean } {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const splitter = new JsonObjectSplitter();
  const got: unknown[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    got.push(...splitter.push(bytes.subarray(prev, p)));
    prev = p;
  }
  return { got, incomplete: splitter.incomplete };
}

test('splits objects across arbitrary chunk boundaries, braces in strings and multi-byte text included', () => {
  const events = [
    { type: 'ADDED', object: { metadata: { name: 'a{b}"c' }, data: { k: 'ünï}cødé 😀' } } },
    { type: 'MODIFIED', object: { list: [1, { x: '[' }], esc: '\\"}' } },
    { type: 'DELETED', object: {} },
  ];
  const bytes = Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: bytes.length }), { maxLength: 20 }), (cuts) => {
      const { got, incomplete } = feedInPieces(bytes, cuts);
      assert.deepEqual(got, events);
      assert.equal(incomplete, false);
    }),
  );
});

test('objects need no newline between them; a truncated stream is incomplete', () => {
  const s = new JsonObjectSplitter();
  assert.deepEqual(s.push(Buffer.from('{"a":1}{"b":2} {"c"')), [{ a: 1 }, { b: 2 }]);
  assert.equal(s.incomplete, true);
});

test('garbage is a clean error', () => {
  assert.throws(() => new JsonObjectSplitter().push(Buffer.from('nope')), JsonStreamError);
  assert.throws(() => new JsonObjectSplitter().push(Buffer.from('{"a":}')), /malformed watch event/);
  assert.throws(() => new JsonObjectSplitter({ maxObjectBytes: 10 }).push(Buffer.from('{"a":"0123456789"')), /larger than 10 bytes/);
});

test('documents fed one byte at a time come out whole, in order', () => {
  const docs = [{ type: 'ADDED', object: { a: 'x}{"]' } }, { type: 'MODIFIED', object: { b: [1, { c: '\\"' }] } }];
  const bytes = Buffer.from(docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
  const splitter = new JsonObjectSplitter();
  const out: unknown[] = [];
  for (const b of bytes) out.push(...splitter.push(Uint8Array.of(b)));
  assert.deepEqual(out, docs);
  assert.equal(splitter.incomplete, false);
});

test('an escaped newline inside a string does not split a document', () => {
  const s = new JsonObjectSplitter();
  assert.deepEqual(s.push(Buffer.from('{"b":"line\\nbreak"}{"c"')), [{ b: 'line\nbreak' }]);
  assert.deepEqual(s.push(Buffer.from(':2}')), [{ c: 2 }]);
});

test('any framing (a line each, pretty-printed over lines, none, CRLF) at any chunk boundaries gives the same objects', () => {
  const framings = [
    (o: unknown) => `${JSON.stringify(o)}\n`,
    (o: unknown) => `${JSON.stringify(o, null, 2)}\n`,
    (o: unknown) => JSON.stringify(o),
    (o: unknown) => `${JSON.stringify(o)} \r\n`,
  ];
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }), fc.nat(framings.length - 1)), {
        minLength: 1,
        maxLength: 8,
      }),
      fc.array(fc.nat(), { maxLength: 10 }),
      (docs, cuts) => {
        // JSON's own reading of each document is the reference (-0 and the like come back as JSON reads them), with
        // integers beyond 2^53 as BigInts (util/int64-json.ts).
        const expected = docs.map(([o]) => parseJson(JSON.stringify(o)));
        const bytes = Buffer.from(docs.map(([o, f]) => framings[f](o)).join(''));
        const { got, incomplete } = feedInPieces(bytes, cuts);
        assert.deepEqual(got, expected);
        assert.equal(incomplete, false, 'nothing left over');
      },
    ),
    { numRuns: 300 },
  );
});

test('a line that ends in "}" but is not one object is still read (or refused) by the scan', () => {
  assert.deepEqual(new JsonObjectSplitter().push(Buffer.from('{"a":{"b":1}\n}\n')), [{ a: { b: 1 } }]);
  assert.deepEqual(new JsonObjectSplitter().push(Buffer.from('{"a":1}{"b":2}\n')), [{ a: 1 }, { b: 2 }]);
  assert.throws(() => new JsonObjectSplitter().push(Buffer.from('{"a":}\n')), /malformed watch event/);
});
