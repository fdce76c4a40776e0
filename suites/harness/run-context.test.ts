import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkSeed, formatReplay, parseReplay } from './run-context.ts';

test('replay tokens round-trip', () => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[a-z][a-z0-9.-]{0,30}$/),
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      fc.option(fc.tuple(fc.nat(5), fc.array(fc.nat(20), { minLength: 1, maxLength: 6 })), { nil: undefined }),
      (checkId, seed, prop) => {
        const spec = prop ? { checkId, seed, property: prop[0], path: prop[1].join(':') } : { checkId, seed };
        assert.deepEqual(parseReplay(formatReplay(spec)), spec);
      },
    ),
  );
});

test('malformed replay tokens are refused with a reason', () => {
  assert.throws(() => parseReplay('no-seed'), /expects <check id>@<seed>/);
  assert.throws(() => parseReplay('x@abc'), /not an integer/);
  assert.throws(() => parseReplay('x@1:0:'), /property index/);
});

test('per-check seeds differ between checks and are stable', () => {
  assert.equal(checkSeed(42, 'a.b'), checkSeed(42, 'a.b'));
  assert.notEqual(checkSeed(42, 'a.b'), checkSeed(42, 'a.c'));
  assert.notEqual(checkSeed(42, 'a.b'), checkSeed(43, 'a.b'));
});
