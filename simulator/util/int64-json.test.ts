import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hasBigInt, approximated, int64Increment, integerOrNumber, isExactBigInt, mayHoldUnsafeInteger, parseJson, stringifyJson } from './int64-json.ts';

const INT64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** What a JSON reader keeping int64 exact makes of an integer: a Number where it is exact, else the BigInt. */
const expected = (b: bigint): number | bigint => (b >= -SAFE && b <= SAFE ? Number(b) : b);

test('parseJson is JSON.parse for any JSON text, but for integers beyond 2^53 (property)', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
      const text = pretty ? JSON.stringify(v, null, 2) : JSON.stringify(v);
      // Doubles written with 16+ digits (1.2345678901234567e+100) go through the lossless reader: still equal. An
      // integer literal beyond 2^53 (JSON.stringify writes 2^60 as 1152921504606847000) is a BigInt of its digits,
      // whose nearest double is JSON.parse's.
      const ours = parseJson(text);
      assert.deepStrictEqual(approximated(ours), JSON.parse(text));
      if (!/\d{16}/.test(text)) assert.deepStrictEqual(ours, JSON.parse(text));
    }),
    { numRuns: 500 },
  );
});

test('an int64 survives stringifyJson and parseJson exactly, anywhere in a document (property)', () => {
  fc.assert(
    fc.property(INT64, fc.jsonValue(), fc.string(), (b, other, s) => {
      const doc = { spec: { n: b, list: [b, other, { deeper: b }] }, s };
      const text = stringifyJson(doc);
      assert.ok(text.includes(`"n":${b}`), text);
      const back = parseJson(text) as { spec: { n: unknown; list: unknown[] }; s: string };
      assert.equal(back.spec.n, expected(b));
      assert.equal(back.spec.list[0], expected(b));
      assert.deepStrictEqual(back.spec.list[2], { deeper: expected(b) });
      assert.deepStrictEqual(approximated(back.spec.list[1]), JSON.parse(JSON.stringify(other)));
      assert.equal(back.s, s);
      // Pretty text too.
      assert.deepStrictEqual(parseJson(stringifyJson(doc, 2)), back);
    }),
    { numRuns: 500 },
  );
});

test('the upstream fixture value and the int64 bounds read exactly; beyond uint64 and non-integers stay doubles', () => {
  assert.equal((parseJson('{"generation": 8071137005907523419}') as { generation: unknown }).generation, 8071137005907523419n);
  assert.deepStrictEqual(parseJson('[9223372036854775807, -9223372036854775808, 18446744073709551615]'), [2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n]);
  assert.deepStrictEqual(parseJson('[18446744073709551616, 8071137005907523419.0, 8071137005907523419e0, 9007199254740991]'), [
    Number('18446744073709551616'), Number('8071137005907523419.0'), Number('8071137005907523419e0'), 9007199254740991,
  ]);
  assert.equal(typeof parseJson('9007199254740993'), 'bigint');
});

test('strings that hold digits or look like the writer marker are left as they are', () => {
  const doc = { a: '12345678901234567890', b: '\u0000int64:abc:123', c: 'x"\\', n: 2n ** 62n };
  const text = stringifyJson(doc);
  assert.deepStrictEqual(parseJson(text), doc);
  assert.equal(text, `{"a":"12345678901234567890","b":"\\u0000int64:abc:123","c":"x\\"\\\\","n":${2n ** 62n}}`);
});

test('"__proto__" stays an own member, as with JSON.parse', () => {
  const v = parseJson('{"__proto__": {"polluted": 12345678901234567890}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepStrictEqual(Object.keys(v), ['__proto__']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('invalid JSON fails with JSON.parse\'s own error', () => {
  for (const text of ['{"a": 12345678901234567890,}', '[12345678901234567890', '{"a": 01234567890123456789}', '"1234567890123456\n"', '{"a": 12345678901234567890} x']) {
    let want: unknown;
    try {
      JSON.parse(text);
    } catch (e) {
      want = e;
    }
    assert.ok(want instanceof SyntaxError, text);
    assert.throws(() => parseJson(text), (e: unknown) => e instanceof SyntaxError && e.message === (want as Error).message);
  }
});

test('stringifyJson is JSON.stringify without BigInts (toJSON, undefined, cycles included)', () => {
  const d = new Date(0);
  assert.equal(stringifyJson({ d, u: undefined, n: 1 }), JSON.stringify({ d, u: undefined, n: 1 }));
  assert.equal(stringifyJson(undefined), undefined);
  const cyclic: Record<string, unknown> = { n: 1n };
  cyclic.self = cyclic;
  assert.throws(() => stringifyJson(cyclic), TypeError);
});

test('helpers: the scan, the exact-BigInt test, increments, approximations', () => {
  assert.equal(mayHoldUnsafeInteger('{"a":123456789012345}'), false);
  assert.equal(mayHoldUnsafeInteger('{"a":1234567890123456}'), true);
  assert.equal(isExactBigInt(2n ** 53n), true);
  assert.equal(isExactBigInt(5n), false, 'a small BigInt reads back as a Number');
  assert.equal(isExactBigInt(2n ** 64n), false);
  assert.equal(integerOrNumber('12'), 12);
  assert.equal(int64Increment(1), 2);
  assert.equal(int64Increment(Number.MAX_SAFE_INTEGER), 2n ** 53n);
  assert.equal(int64Increment(2n ** 60n), 2n ** 60n + 1n);
  assert.equal(hasBigInt({ a: [1, { b: 2n }] }), true);
  assert.equal(hasBigInt({ a: [1, { b: 2 }] }), false);
  assert.deepStrictEqual(approximated({ a: [2n ** 60n] }), { a: [2 ** 60] });
});
