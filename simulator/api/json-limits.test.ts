// checkJsonTextDepth skips strings with indexOf (many times faster than a loop over their characters): it must
// answer exactly what a plain scan of every character answers, for any text, well-formed JSON or not.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkJsonTextDepth, DocumentLimitError, MAX_NESTING_DEPTH } from './json-limits.ts';

/** The reference: every character looked at, a backslash inside a string skipping the next one. */
function deeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '"') break;
      }
    } else if (c === '{' || c === '[') {
      if (++depth > max) return true;
    } else if (c === '}' || c === ']') depth--;
  }
  return false;
}

function refused(text: string, max: number): boolean {
  try {
    checkJsonTextDepth(text, max);
    return false;
  } catch (e) {
    assert.ok(e instanceof DocumentLimitError && e.limit === 'depth', `not a depth refusal: ${String(e)}`);
    return true;
  }
}

test('the depth scan agrees with a scan of every character on arbitrary text (quotes, escapes, brackets)', () => {
  const text = fc.array(fc.constantFrom('"', '\\', '{', '}', '[', ']', 'a', ',', ':'), { maxLength: 60 }).map((cs) => cs.join(''));
  fc.assert(fc.property(text, fc.integer({ min: 0, max: 6 }), (t, max) => refused(t, max) === deeperThan(t, max)), { numRuns: 20_000 });
});

test('the depth scan agrees with a scan of every character on JSON documents', () => {
  fc.assert(fc.property(fc.json({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (t, max) => refused(t, max) === deeperThan(t, max)), { numRuns: 5_000 });
});

test('brackets inside strings, escaped quotes and runs of backslashes do not count', () => {
  const deep = '['.repeat(MAX_NESTING_DEPTH + 1) + ']'.repeat(MAX_NESTING_DEPTH + 1);
  assert.equal(refused(deep, MAX_NESTING_DEPTH), true);
  assert.equal(refused(JSON.stringify({ s: deep }), MAX_NESTING_DEPTH), false);
  assert.equal(refused(JSON.stringify({ s: `\\"${deep}\\\\` }), MAX_NESTING_DEPTH), false);
  assert.equal(refused(`{"a":"x\\\\"}` + '[[', 1), true);
  assert.equal(refused(`{"a":"x\\"[["}`, 1), false);
});
