// Every spec row a check declares must exist (no typos), and every testable row is covered by some check: a
// row no check can observe from outside is marked testable: false with a reason in spec-tables/*.yaml instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSpecTables } from '../spec-tables/index.ts';
import { loadCatalog } from './harness/catalog.ts';

test('every row id a check declares exists in the spec tables', async () => {
  const tables = loadSpecTables();
  const catalog = await loadCatalog();
  assert.ok(catalog.checks.length > 0, 'no checks were found in suites/*.suite.ts');
  const unknown = catalog.checks.flatMap((c) => c.rows.filter((r) => !tables.byId(r)).map((r) => `${c.id} -> ${r}`));
  assert.deepEqual(unknown, [], `checks declare rows the spec tables do not have:\n${unknown.join('\n')}`);
});

test('checks declare only testable rows, and ids are unique', async () => {
  const tables = loadSpecTables();
  const catalog = await loadCatalog();
  const untestable = catalog.checks.flatMap((c) => c.rows.filter((r) => tables.byId(r)?.testable === false).map((r) => `${c.id} -> ${r}`));
  assert.deepEqual(untestable, [], `checks claim rows marked testable: false:\n${untestable.join('\n')}`);
  const ids = catalog.checks.map((c) => c.id);
  assert.equal(new Set(ids).size, ids.length);
});

test('every testable row is covered by at least one check', async () => {
  const tables = loadSpecTables();
  const catalog = await loadCatalog();
  const covered = new Set(catalog.checks.flatMap((c) => c.rows));
  const uncovered = tables.testableRows().filter((r) => !covered.has(r.id));
  const bySection = new Map<string, string[]>();
  for (const r of uncovered) bySection.set(r.section, [...(bySection.get(r.section) ?? []), r.id]);
  const lines = [...bySection].map(([section, ids]) => `  ${section}: ${ids.join(', ')}`);
  assert.deepEqual(
    uncovered.map((r) => r.id),
    [],
    `${uncovered.length} of ${tables.testableRows().length} testable rows are covered by no check; add a check that declares them, or mark a row no black-box check can observe testable: false with a reason:\n${lines.join('\n')}`,
  );
});
