import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildResults } from './results.ts';
import { escapeXml } from './junit.ts';
import type { EngineResult } from '../harness/engine.ts';

const row = (id: string, testable = true) => ({ id, section: '4.1', table: 'rules', spec: id, testable, reason: testable ? null : 'not shown' });

function engine(checks: EngineResult['checks']): EngineResult {
  return { runId: 'r', startedAt: '2020-01-01T00:00:00.000Z', finishedAt: '2020-01-01T00:00:01.000Z', durationMs: 1000, discovery: { groupVersions: {}, problems: [] }, checks, interrupted: false, swept: [] };
}

test('row statuses: failures charge the named rows only; other rows of a stopped check are skipped with why', () => {
  const results = buildResults({
    engine: engine([
      { id: 'c1', suite: 's', rows: ['a', 'b'], status: 'failed', durationMs: 1, message: 'm', evidence: { checkId: 'c1', message: 'm', failedRows: ['b'], exchanges: [], seed: 1, replay: 'c1@1', replayCommand: 'x' } },
      { id: 'c2', suite: 's', rows: ['c'], status: 'passed', durationMs: 1 },
      { id: 'c3', suite: 's', rows: ['d'], status: 'skipped', durationMs: 0, reason: 'target does not serve apps/v1' },
    ]),
    catalog: [{ id: 'c1', rows: ['a', 'b'] }, { id: 'c2', rows: ['c'] }, { id: 'c3', rows: ['d'] }, { id: 'c4', rows: ['e'] }],
    rows: [row('a'), row('b'), row('c'), row('d'), row('e'), row('f'), row('g', false)],
    target: 't', embedded: false, vendor: 'kubernetes', seed: 1, runs: 1, suites: ['s'],
  });
  const status = Object.fromEntries(results.rows.map((r) => [r.id, `${r.status}${r.reason ? `: ${r.reason}` : ''}`]));
  assert.deepEqual(status, {
    a: 'skipped: check c1 stopped at a failure of b before reaching this row',
    b: 'failed',
    c: 'passed',
    d: 'skipped: target does not serve apps/v1',
    e: 'skipped: not selected in this run',
    f: 'uncovered: no check declares this row',
    g: 'untestable: not shown',
  });
  assert.equal(results.passed, false);
  assert.deepEqual(results.totals.checks, { passed: 1, failed: 1, skipped: 1, expectedFailures: 0, unexpectedPasses: 0, total: 3 });
});

test('expected failures by row or check id keep the gate green; unknown ids are reported', () => {
  const results = buildResults({
    engine: engine([{ id: 'c1', suite: 's', rows: ['a'], status: 'failed', durationMs: 1, message: 'm' }, { id: 'c2', suite: 's', rows: ['b'], status: 'passed', durationMs: 1 }]),
    catalog: [{ id: 'c1', rows: ['a'] }, { id: 'c2', rows: ['b'] }],
    rows: [row('a'), row('b')],
    target: 't', embedded: false, vendor: 'kubernetes', seed: 1, runs: 1, suites: ['s'],
    expectedFailures: { ids: ['a', 'c2', 'typo'] },
  });
  assert.equal(results.passed, true);
  assert.equal(results.checks[0].status, 'expected-failure');
  assert.deepEqual(results.expectedFailures.unexpectedPasses, ['c2']);
  assert.deepEqual(results.expectedFailures.unknown, ['typo']);
});

test('junit text escapes markup and control characters', () => {
  assert.equal(escapeXml('<a href="x">&\u0001</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;\\u0001&lt;/a&gt;');
});
