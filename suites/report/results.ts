// Builds results.json from a run: each check's outcome (with expected failures applied) and the status of
// every spec-table row, measured from the checks that declare it.
import type { EngineResult } from '../harness/engine.ts';
import type { CheckDefinition } from '../harness/check.ts';
import { profileLabel, profileOf, runsCheck, type Profile } from '../harness/profile.ts';
import {
  RESULTS_FORMAT_VERSION, type CheckResult, type ConformanceResults, type RowResult, type RowStatus, type Verdict,
} from './results-schema.ts';

export interface SpecRowLike {
  id: string;
  section: string;
  table: string;
  spec: string;
  testable: boolean;
  reason: string | null;
}

export interface ResultsInput {
  engine: EngineResult;
  /** Every check of the catalog (selected or not), to tell "not selected" and "not applicable" from "uncovered". */
  catalog: readonly (Pick<CheckDefinition, 'id' | 'rows'> & Partial<Pick<CheckDefinition, 'suite' | 'profile' | 'needs'>>)[];
  /** The profiles the run certifies; checks of other profiles make their rows "not applicable". */
  profiles: readonly Profile[];
  /** Checks left out on purpose, with why (--skip, --quick): their rows are "excluded", not "not selected". */
  excluded?: ReadonlyMap<string, string>;
  quick?: boolean;
  rows: readonly SpecRowLike[];
  target: string;
  embedded: boolean;
  vendor: string;
  seed: number;
  runs: number;
  suites: string[];
  grep?: string;
  skip?: string;
  expectedFailures?: { file?: string; ids: string[] };
}

/** Rows a failed check counts against: the ones its failure names, else all it declares. */
function chargedRows(check: { rows: string[]; evidence?: { failedRows?: string[] } }): string[] {
  const named = check.evidence?.failedRows;
  return named && named.length > 0 ? named : check.rows;
}

export function buildResults(input: ResultsInput): ConformanceResults {
  const expected = new Set(input.expectedFailures?.ids ?? []);
  const catalogById = new Map(input.catalog.map((c) => [c.id, c]));
  const profileOfId = (id: string, suite = catalogById.get(id)?.suite ?? ''): Profile => profileOf({ ...catalogById.get(id), suite });
  const checks: CheckResult[] = input.engine.checks.map((c) => {
    const listed = expected.has(c.id) || (c.rows.length > 0 && c.rows.every((r) => expected.has(r)));
    const result: CheckResult = { id: c.id, suite: c.suite, profile: profileOfId(c.id, c.suite), rows: c.rows, status: c.status, durationMs: c.durationMs };
    if (c.title) result.title = c.title;
    if (c.reason) result.reason = c.reason;
    if (c.message) result.message = c.message;
    if (c.evidence) result.evidence = c.evidence;
    if (c.status === 'failed') {
      const charged = chargedRows(c);
      if (expected.has(c.id) || charged.every((r) => expected.has(r))) {
        result.status = 'expected-failure';
        result.expectedToFail = true;
      }
    } else if (listed) {
      result.expectedToFail = true;
      // A skipped check the expected-failures file lists is excluded: it does not leave the run INCOMPLETE.
      if (c.status === 'skipped') result.status = 'excluded';
    }
    return result;
  });

  const declaredBy = new Map<string, string[]>();
  for (const c of input.catalog) for (const r of c.rows) declaredBy.set(r, [...(declaredBy.get(r) ?? []), c.id]);
  const outcomeById = new Map(checks.map((c) => [c.id, c]));
  const applicable = (id: string) => runsCheck(input.profiles, profileOfId(id));
  const label = profileLabel(input.profiles);

  const rows: RowResult[] = input.rows.map((row) => {
    const declaring = declaredBy.get(row.id) ?? [];
    const base: RowResult = { id: row.id, section: row.section, table: row.table, spec: row.spec, testable: row.testable, status: 'uncovered', checks: declaring };
    if (expected.has(row.id)) base.expectedToFail = true;
    if (!row.testable) return { ...base, status: 'untestable', reason: row.reason ?? 'not observable from outside' };
    if (declaring.length === 0) return { ...base, status: 'uncovered', reason: 'no check declares this row' };
    const inProfile = declaring.filter(applicable);
    if (inProfile.length === 0) {
      const of = [...new Set(declaring.map((id) => profileOfId(id)))].join(', ');
      return { ...base, status: 'not-applicable', reason: `verified by the ${of} profile, not by this run's (${label})` };
    }
    const ran = inProfile.map((id) => outcomeById.get(id)).filter((c): c is CheckResult => c !== undefined);
    if (ran.length === 0) {
      const why = inProfile.map((id) => input.excluded?.get(id)).find((w) => w !== undefined);
      return why ? { ...base, status: 'excluded', reason: why } : { ...base, status: 'not-selected', reason: 'not selected in this run (--suite, --grep)' };
    }
    const failedBy = ran.filter((c) => (c.status === 'failed' || c.status === 'expected-failure') && chargedRows(c).includes(row.id)).map((c) => c.id);
    if (failedBy.length > 0) return { ...base, status: 'failed', failedBy };
    if (ran.some((c) => c.status === 'passed')) return { ...base, status: 'passed' };
    const stopped = ran.find((c) => c.status === 'failed' || c.status === 'expected-failure');
    const reason = stopped
      ? `check ${stopped.id} stopped at a failure of ${chargedRows(stopped).join(', ')} before reaching this row`
      : (ran.find((c) => c.reason)?.reason ?? 'skipped');
    // Not verified; excluded when the expected-failures file lists the row, every check that would verify it, or
    // the failure that stopped its check before it.
    const excluded = expected.has(row.id) || (stopped ? stopped.status === 'expected-failure' : ran.every((c) => c.status === 'excluded'));
    return { ...base, status: (excluded ? 'excluded' : 'skipped') as RowStatus, reason: excluded ? `${reason} (listed in the expected-failures file)` : reason };
  });

  const knownIds = new Set([...input.catalog.map((c) => c.id), ...input.rows.map((r) => r.id)]);
  const rowById = new Map(rows.map((r) => [r.id, r]));
  const unexpectedPasses = [...expected].filter((id) => {
    const check = outcomeById.get(id);
    if (check) return check.status === 'passed';
    return rowById.get(id)?.status === 'passed';
  });
  const unknown = [...expected].filter((id) => !knownIds.has(id));

  const count = <T extends { status: string }>(list: T[], status: string) => list.filter((x) => x.status === status).length;
  const checkTotals = {
    passed: count(checks, 'passed'),
    failed: count(checks, 'failed'),
    skipped: count(checks, 'skipped'),
    excluded: count(checks, 'excluded'),
    expectedFailures: count(checks, 'expected-failure'),
    unexpectedPasses: unexpectedPasses.length,
    total: checks.length,
  };
  const rowTotals = {
    passed: count(rows, 'passed'),
    failed: count(rows, 'failed'),
    skipped: count(rows, 'skipped'),
    excluded: count(rows, 'excluded'),
    notSelected: count(rows, 'not-selected'),
    notApplicable: count(rows, 'not-applicable'),
    uncovered: count(rows, 'uncovered'),
    untestable: count(rows, 'untestable'),
    total: rows.length,
  };
  const { engine } = input;
  // FAIL: a check failed (not listed as expected to). INCOMPLETE: none failed, but a selected check or row of the
  // profile was not verified (skipped) and not excluded, or the run was interrupted. PASS: everything verified.
  const verdict: Verdict =
    checkTotals.failed > 0 ? 'FAIL' : engine.interrupted || checkTotals.skipped > 0 || rowTotals.skipped > 0 ? 'INCOMPLETE' : 'PASS';
  return {
    formatVersion: RESULTS_FORMAT_VERSION,
    run: {
      id: engine.runId,
      target: input.target,
      embedded: input.embedded,
      vendor: input.vendor,
      startedAt: engine.startedAt,
      finishedAt: engine.finishedAt,
      durationMs: engine.durationMs,
      seed: input.seed,
      runs: input.runs,
      suites: input.suites,
      profiles: [...input.profiles],
      profile: label,
      ...(input.quick ? { quick: true } : {}),
      ...(input.grep ? { grep: input.grep } : {}),
      ...(input.skip ? { skip: input.skip } : {}),
      interrupted: engine.interrupted,
      node: process.version,
      served: Object.keys(engine.discovery.groupVersions).sort(),
    },
    verdict,
    passed: verdict === 'PASS',
    totals: { checks: checkTotals, rows: rowTotals },
    expectedFailures: {
      ...(input.expectedFailures?.file ? { file: input.expectedFailures.file } : {}),
      ids: [...expected],
      unexpectedPasses,
      unknown,
    },
    checks,
    rows,
  };
}
