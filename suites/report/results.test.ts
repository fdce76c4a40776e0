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
    target: 't', embedded: false, vendor: 'kubernetes', seed: 1, runs: 1, suites: ['s'], profiles: ['cluster'],
  });
  const status = Object.fromEntries(results.rows.map((r) => [r.id, `${r.status}${r.reason ? `: ${r.reason}` : ''}`]));
  assert.deepEqual(status, {
    a: 'skipped: check c1 stopped at a failure of b before reaching this row',
    b: 'failed',
    c: 'passed',
    d: 'skipped: target does not serve apps/v1',
    e: 'not-selected: not selected in this run (--suite, --grep)',
    f: 'uncovered: no check declares this row',
    g: 'untestable: not shown',
  });
  assert.equal(results.passed, false);
  assert.equal(results.verdict, 'FAIL');
  assert.deepEqual(results.totals.checks, { passed: 1, failed: 1, skipped: 1, excluded: 0, expectedFailures: 0, unexpectedPasses: 0, total: 3 });
});

test('expected failures by row or check id keep the gate green; unknown ids are reported', () => {
  const results = buildResults({
    engine: engine([{ id: 'c1', suite: 's', rows: ['a'], status: 'failed', durationMs: 1, message: 'm' }, { id: 'c2', suite: 's', rows: ['b'], status: 'passed', durationMs: 1 }]),
    catalog: [{ id: 'c1', rows: ['a'] }, { id: 'c2', rows: ['b'] }],
    rows: [row('a'), row('b')],
    target: 't', embedded: false, vendor: 'kubernetes', seed: 1, runs: 1, suites: ['s'], profiles: ['cluster'],
    expectedFailures: { ids: ['a', 'c2', 'typo'] },
  });
  assert.equal(results.passed, true);
  assert.equal(results.verdict, 'PASS');
  assert.equal(results.checks[0].status, 'expected-failure');
  assert.deepEqual(results.expectedFailures.unexpectedPasses, ['c2']);
  assert.deepEqual(results.expectedFailures.unknown, ['typo']);
});

const base = { target: 't', embedded: false, vendor: 'kubernetes', seed: 1, runs: 1, suites: ['s'] };

test('verdicts: a skipped check leaves the run INCOMPLETE; listed in the expected-failures file it is excluded and the run passes', () => {
  const checks: EngineResult['checks'] = [
    { id: 'c1', suite: 's', rows: ['a'], status: 'passed', durationMs: 1 },
    { id: 'auth.x', suite: 'auth', rows: ['b'], status: 'skipped', durationMs: 0, reason: 'needs --as-user' },
  ];
  const catalog = [{ id: 'c1', rows: ['a'] }, { id: 'auth.x', rows: ['b'] }];
  const incomplete = buildResults({ ...base, engine: engine(checks), catalog, rows: [row('a'), row('b')], profiles: ['cluster'] });
  assert.equal(incomplete.verdict, 'INCOMPLETE');
  assert.equal(incomplete.passed, false);
  assert.equal(incomplete.rows[1].status, 'skipped');
  assert.equal(incomplete.rows[1].reason, 'needs --as-user');
  const listed = buildResults({ ...base, engine: engine(checks), catalog, rows: [row('a'), row('b')], profiles: ['cluster'], expectedFailures: { ids: ['auth.x'] } });
  assert.equal(listed.verdict, 'PASS');
  assert.equal(listed.checks[1].status, 'excluded');
  assert.equal(listed.rows[1].status, 'excluded');
  assert.equal(listed.totals.rows.excluded, 1);
});

test('profiles: rows only other profiles verify are not applicable; --skip makes rows excluded, not "not selected"', () => {
  const catalog = [
    { id: 'crud.x', suite: 'crud', rows: ['a'] },
    { id: 'workloads.x', suite: 'workloads', rows: ['b'], needs: { controllers: ['deployment'] } },
    { id: 'daemon-options.x', suite: 'daemon-options', rows: ['c'] },
    { id: 'crud.y', suite: 'crud', rows: ['d'] },
  ];
  const results = buildResults({
    ...base,
    engine: engine([{ id: 'crud.x', suite: 'crud', rows: ['a'], status: 'passed', durationMs: 1 }]),
    catalog,
    rows: [row('a'), row('b'), row('c'), row('d')],
    profiles: ['api'],
    excluded: new Map([['crud.y', 'left out with --skip crud.y']]),
  });
  const status = Object.fromEntries(results.rows.map((r) => [r.id, r.status]));
  assert.deepEqual(status, { a: 'passed', b: 'not-applicable', c: 'not-applicable', d: 'excluded' });
  assert.match(results.rows[1].reason!, /cluster profile/);
  assert.equal(results.verdict, 'PASS');
  assert.equal(results.run.profile, 'api');
  assert.equal(results.checks[0].profile, 'api');
});

test('junit text escapes markup and control characters', () => {
  assert.equal(escapeXml('<a href="x">&\u0001</a>'), '&lt;a href=&quot;x&quot;&gt;&amp;\\u0001&lt;/a&gt;');
});
