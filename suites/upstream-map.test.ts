// The map of the upstream conformance registry (suites/UPSTREAM-CONFORMANCE.md) against the checks' declarations:
// every entry a 1.9 server has must have a check, every declared entry must be an in-scope row, and the table in the
// file must be the one `npx tsx suites --list --upstream` draws.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadCatalog } from './harness/catalog.ts';
import { TABLE_END, TABLE_START, UPSTREAM_MAP_FILE, parseUpstreamTable, readUpstreamMap, renderUpstreamTable, upstreamProblems } from './harness/upstream-map.ts';

test('every in-scope entry of the upstream map has a check, and every declared entry is in scope', async () => {
  const { checks } = await loadCatalog();
  assert.deepEqual(upstreamProblems(readUpstreamMap(), checks), []);
});

test('the table in suites/UPSTREAM-CONFORMANCE.md is the one drawn from the declarations', async () => {
  const { checks } = await loadCatalog();
  const text = readFileSync(UPSTREAM_MAP_FILE, 'utf8');
  const inFile = text.slice(text.indexOf(TABLE_START) + TABLE_START.length, text.indexOf(TABLE_END)).trim();
  assert.equal(inFile, renderUpstreamTable(readUpstreamMap(), checks), 'paste the table of `npx tsx suites --list --upstream` between the markers');
});

test('a row that loses its check is reported', () => {
  const entries = parseUpstreamTable(`${TABLE_START}\n| 1 | A | v1.9 | yes | must | x |\n| 2 | B | v1.9 | new | must | out of scope: newer |\n| 3 | C | v1.9 | ver | must | y |\n${TABLE_END}`);
  assert.deepEqual(upstreamProblems(entries, [{ id: 'x', upstream: [1] }]), ['upstream entry 3 (C) is in scope and has no check']);
  assert.deepEqual(upstreamProblems(entries, [{ id: 'x', upstream: [1, 2, 3, 9] }]), ['x declares upstream entry 2, which is out of scope (new)', 'x declares upstream entry 9, which is not in the map']);
  assert.match(renderUpstreamTable(entries, []), /\| 1 \| A \| v1\.9 \| yes \| must \| NONE \|/);
});
