import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { dumpYaml, loadAllYaml, loadYaml } from './yaml.ts';

const INT64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

test('an int64 survives dumpYaml and loadYaml exactly, written as a plain integer (property)', () => {
  fc.assert(
    fc.property(INT64, (b) => {
      const text = dumpYaml({ spec: { value: b, list: [b] } }, { sortKeys: true, lineWidth: -1, noRefs: true });
      assert.match(text, new RegExp(`^  value: ${b}$`, 'm'));
      const want = b >= -SAFE && b <= SAFE ? Number(b) : b;
      assert.deepStrictEqual(loadYaml(text), { spec: { value: want, list: [want] } });
      // Any YAML reader sees an integer there (js-yaml's own, rounding it).
      assert.equal((yaml.load(text) as { spec: { value: unknown } }).spec.value, Number(b));
    }),
    { numRuns: 300 },
  );
});

test('YAML integer forms beyond 2^53: decimal, signed, hex, octal, binary, underscores; floats and strings stay', () => {
  const v = loadYaml(
    ['a: 8071137005907523419', 'b: -9223372036854775808', 'c: +9223372036854775807', 'd: 0x7fffffffffffffff', 'e: 0o777777777777777777777',
      'f: 0b11111111111111111111111111111111111111111111111111111111', 'g: 8_071_137_005_907_523_419', 'h: "8071137005907523419"',
      'i: 8071137005907523419.0', 'j: 18446744073709551616', 'k: 12'].join('\n'),
  );
  assert.deepStrictEqual(v, {
    a: 8071137005907523419n, b: -(2n ** 63n), c: 2n ** 63n - 1n, d: 2n ** 63n - 1n, e: 0o777777777777777777777n, f: 2n ** 56n - 1n,
    g: 8071137005907523419n, h: '8071137005907523419', i: Number('8071137005907523419.0'), j: Number('18446744073709551616'), k: 12,
  });
});

test('loadAllYaml reads every document with the same schema', () => {
  assert.deepStrictEqual(loadAllYaml('a: 1\n---\nb: 9223372036854775807\n'), [{ a: 1 }, { b: 2n ** 63n - 1n }]);
});

test('numbers other than BigInts are written as js-yaml writes them', () => {
  const v = { a: 1, b: -0, c: 1.5, d: 1e300, e: NaN, f: '12', g: 2 ** 60 };
  assert.equal(dumpYaml(v), yaml.dump(v));
});
