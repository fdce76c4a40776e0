// The HTML report's view of one or more results.json files: a matrix of spec rows (lines) by runs
// (columns, one per target), with per-run totals, coverage and per-section counts, ordered so failures come
// first. Pure data, no markup: html.ts draws it, and the tests check the arithmetic here.
import type { CheckResult, ConformanceResults, FailureEvidence, RowResult } from './results-schema.ts';

/** A row's status as shown: "failed" split into unexpected and expected failures, plus "absent" for a row
 * one run of a matrix does not know (an older or newer spec table). */
export type DisplayStatus =
  | 'failed'
  | 'expected-failure'
  | 'skipped'
  | 'uncovered'
  | 'excluded'
  | 'passed'
  | 'not-selected'
  | 'not-applicable'
  | 'untestable'
  | 'absent';

/** Failures first; the rest from "needs attention" to "nothing to do". */
export const STATUS_ORDER: readonly DisplayStatus[] = [
  'failed', 'expected-failure', 'skipped', 'uncovered', 'excluded', 'passed', 'not-selected', 'not-applicable', 'untestable', 'absent',
];

/**
 * The rows a run answers for: testable, of its profiles, selected. The bar, the headline's percentages and the
 * totals are computed on these alone, so the bar is as full as the headline says.
 */
export const IN_SCOPE: readonly DisplayStatus[] = ['failed', 'expected-failure', 'skipped', 'uncovered', 'excluded', 'passed'];

/** Icon and words for each status: the colour is never the only signal. */
export const STATUS_LABELS: Record<DisplayStatus, { icon: string; text: string }> = {
  failed: { icon: '✗', text: 'failed' },
  'expected-failure': { icon: '⚠', text: 'expected failure' },
  skipped: { icon: '⤼', text: 'not verified' },
  uncovered: { icon: '○', text: 'uncovered' },
  excluded: { icon: '⊘', text: 'excluded' },
  passed: { icon: '✓', text: 'passed' },
  'not-selected': { icon: '·', text: 'not selected' },
  'not-applicable': { icon: '·', text: 'not applicable' },
  untestable: { icon: '–', text: 'untestable' },
  absent: { icon: '·', text: 'not in this run' },
};

export type StatusCounts = Record<DisplayStatus, number>;

export interface Failure {
  check: CheckResult;
  evidence?: FailureEvidence;
}

export interface Cell {
  status: DisplayStatus;
  reason?: string;
  /** Failed or expected-failure checks charged to this row in this run. */
  failures: Failure[];
}

export interface RowView {
  /** Position in the model; the page uses it for element ids (never the row id, which is data). */
  index: number;
  id: string;
  section: string;
  table: string;
  spec: string;
  testable: boolean;
  checks: string[];
  cells: Cell[];
  /** The most urgent status over all runs (sort key). */
  worst: DisplayStatus;
}

export interface SectionView {
  section: string;
  title?: string;
  rows: RowView[];
  /** Per run. */
  counts: StatusCounts[];
  worst: DisplayStatus;
}

export interface RunView {
  index: number;
  label: string;
  results: ConformanceResults;
  rowCounts: StatusCounts;
  /** Rows the run answers for (IN_SCOPE): testable, of its profiles, selected. */
  inScope: number;
  /** Rows in scope with a verdict in this run (passed or failed, expected or not). */
  checked: number;
  /** checked / inScope, in percent with one decimal; 0 when nothing is in scope. */
  coveragePercent: number;
  /** passed / inScope, in percent with one decimal. */
  passPercent: number;
  failedChecks: CheckResult[];
  expectedFailures: CheckResult[];
}

export interface ReportModel {
  runs: RunView[];
  sections: SectionView[];
  rows: RowView[];
  /** Rows failing (unexpectedly) in at least one run, in section order: the report's first answer. */
  failing: RowView[];
  passed: boolean;
}

export function emptyCounts(): StatusCounts {
  return Object.fromEntries(STATUS_ORDER.map((s) => [s, 0])) as StatusCounts;
}

const rank = (s: DisplayStatus) => STATUS_ORDER.indexOf(s);
const worstOf = (statuses: DisplayStatus[]): DisplayStatus =>
  statuses.reduce<DisplayStatus>((w, s) => (rank(s) < rank(w) ? s : w), 'absent');

/** Numeric order of "2.1" < "4.2" < "4.10" < "8.2". */
export function compareSections(a: string, b: string): number {
  const ka = a.split('.').map(Number);
  const kb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
    const d = (ka[i] ?? -1) - (kb[i] ?? -1);
    if (Number.isNaN(d)) return a.localeCompare(b);
    if (d !== 0) return d;
  }
  return 0;
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part / whole) * 1000) / 10;
}

/** Column labels: the target, made unique when two runs share one (e.g. before and after a fix). */
function runLabels(runs: readonly ConformanceResults[]): string[] {
  const labels = runs.map((r) => (r.run.embedded ? `${r.run.target} (embedded simulator)` : r.run.target));
  return labels.map((l, i) => (labels.filter((x) => x === l).length > 1 ? `${l} #${i + 1}` : l));
}

function cellOf(row: RowResult | undefined, checks: Map<string, CheckResult>): Cell {
  if (!row) return { status: 'absent', failures: [] };
  const failures = (row.failedBy ?? [])
    .map((id) => checks.get(id))
    .filter((c): c is CheckResult => c !== undefined)
    .map((check) => ({ check, evidence: check.evidence }));
  let status: DisplayStatus = row.status;
  // A row fails "as expected" only when every check charged to it was expected to fail.
  if (row.status === 'failed' && failures.length > 0 && failures.every((f) => f.check.status === 'expected-failure')) status = 'expected-failure';
  const cell: Cell = { status, failures };
  if (row.reason) cell.reason = row.reason;
  return cell;
}

export function buildReportModel(runs: readonly ConformanceResults[], sectionTitles: Record<string, string> = {}): ReportModel {
  if (runs.length === 0) throw new Error('a report needs at least one results.json');
  const labels = runLabels(runs);
  const rowMaps = runs.map((r) => new Map(r.rows.map((row) => [row.id, row])));
  const checkMaps = runs.map((r) => new Map(r.checks.map((c) => [c.id, c])));

  // The union of row ids, in the first run's order, then rows only later runs know.
  const order: RowResult[] = [];
  const seen = new Set<string>();
  for (const r of runs) for (const row of r.rows) if (!seen.has(row.id)) {
    seen.add(row.id);
    order.push(row);
  }

  const rows: RowView[] = order.map((base, index) => {
    const cells = rowMaps.map((m, i) => cellOf(m.get(base.id), checkMaps[i]));
    const checks = [...new Set(rowMaps.flatMap((m) => m.get(base.id)?.checks ?? []))];
    return {
      index,
      id: base.id,
      section: base.section,
      table: base.table,
      spec: base.spec,
      testable: base.testable,
      checks,
      cells,
      worst: worstOf(cells.map((c) => c.status)),
    };
  });

  const bySection = new Map<string, RowView[]>();
  for (const row of rows) bySection.set(row.section, [...(bySection.get(row.section) ?? []), row]);
  const sections: SectionView[] = [...bySection.entries()].map(([section, list]) => {
    const counts = runs.map((_, i) => {
      const c = emptyCounts();
      for (const row of list) c[row.cells[i].status]++;
      return c;
    });
    // Stable sort: within a status the spec's own order stays.
    const sorted = [...list].sort((a, b) => rank(a.worst) - rank(b.worst));
    const view: SectionView = { section, rows: sorted, counts, worst: worstOf(list.map((r) => r.worst)) };
    if (sectionTitles[section]) view.title = sectionTitles[section];
    return view;
  });
  // Sections with unexpected failures first, each group in the spec's order.
  sections.sort((a, b) => Number(b.worst === 'failed') - Number(a.worst === 'failed') || compareSections(a.section, b.section));

  const runViews: RunView[] = runs.map((results, index) => {
    const rowCounts = emptyCounts();
    for (const row of rows) rowCounts[row.cells[index].status]++;
    const inScope = IN_SCOPE.reduce((n, s) => n + rowCounts[s], 0);
    const checked = rowCounts.passed + rowCounts.failed + rowCounts['expected-failure'];
    return {
      index,
      label: labels[index],
      results,
      rowCounts,
      inScope,
      checked,
      coveragePercent: percent(checked, inScope),
      passPercent: percent(rowCounts.passed, inScope),
      failedChecks: results.checks.filter((c) => c.status === 'failed'),
      expectedFailures: results.checks.filter((c) => c.status === 'expected-failure'),
    };
  });

  const failing = sections.flatMap((s) => s.rows.filter((r) => r.worst === 'failed'));
  return { runs: runViews, sections, rows, failing, passed: runs.every((r) => r.passed) };
}
