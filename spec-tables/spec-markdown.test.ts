import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numberedItems, sectionText, tableRows } from './spec-markdown.ts';

const sample = [
  '## 1. One', '1. first', '   continued', '2. second', '| A | B |', '|---|---|', '| x | y |',
  '### 1.1 Sub', '| Name | Type |', '|---|---|', '| n | t |', '## 2. Two', 'end',
].join('\n');

test('cuts a section from its heading to the next heading', () => {
  assert.match(sectionText(sample, '1'), /^## 1\. One[\s\S]*\| x \| y \|$/);
  assert.doesNotMatch(sectionText(sample, '1'), /Sub/);
  assert.match(sectionText(sample, '1.1'), /\| n \| t \|$/);
  assert.throws(() => sectionText(sample, '9'), /section 9 not found/);
});

test('reads table body rows and numbered items', () => {
  assert.deepEqual(tableRows(sectionText(sample, '1')), [['x', 'y']]);
  assert.deepEqual(numberedItems(sectionText(sample, '1')), ['first\ncontinued', 'second']);
});
