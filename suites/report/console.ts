// The console summary: rows per spec section and status, the failing checks with their reason and replay
// line, expected-failure bookkeeping, and one verdict line.
import { ROW_STATUSES, type ConformanceResults, type RowStatus } from './results-schema.ts';

const STATUSES = ROW_STATUSES;
const HEADERS: Record<RowStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  excluded: 'excluded',
  'not-selected': 'not sel.',
  'not-applicable': 'n/a',
  uncovered: 'uncovered',
  untestable: 'untestable',
};
const zero = (): Record<RowStatus, number> => Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<RowStatus, number>;

function sectionKey(section: string): number[] {
  return section.split('.').map((p) => (Number.isNaN(Number(p)) ? 0 : Number(p)));
}

function compareSections(a: string, b: string): number {
  const ka = sectionKey(a);
  const kb = sectionKey(b);
  for (let i = 0; i < Math.max(ka.length, kb.length); i++) {
    const d = (ka[i] ?? -1) - (kb[i] ?? -1);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

export function renderSummary(results: ConformanceResults, options: { color?: boolean } = {}): string {
  const paint = (code: number, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const lines: string[] = [];
  const bySection = new Map<string, Record<RowStatus, number>>();
  for (const row of results.rows) {
    const counts = bySection.get(row.section) ?? zero();
    counts[row.status]++;
    bySection.set(row.section, counts);
  }
  lines.push('Spec rows by section:');
  lines.push(`  ${'section'.padEnd(9)}${STATUSES.map((s) => HEADERS[s].padStart(11)).join('')}`);
  for (const section of [...bySection.keys()].sort(compareSections)) {
    const counts = bySection.get(section)!;
    const cells = STATUSES.map((s) => {
      const cell = String(counts[s] || '.').padStart(11);
      return counts[s] && s === 'failed' ? paint(31, cell) : cell;
    });
    lines.push(`  ${section.padEnd(9)}${cells.join('')}`);
  }
  const all = zero();
  for (const row of results.rows) all[row.status]++;
  lines.push(`  ${'all'.padEnd(9)}${STATUSES.map((s) => String(all[s]).padStart(11)).join('')}`);

  const failed = results.checks.filter((c) => c.status === 'failed');
  if (failed.length > 0) {
    lines.push('', paint(31, `Failed checks (${failed.length}):`));
    for (const c of failed) {
      lines.push(`  ✗ ${c.id}  [${(c.evidence?.failedRows ?? c.rows).join(', ')}]`);
      for (const l of (c.message ?? '').split('\n').slice(0, 4)) lines.push(`      ${l}`);
      if (c.evidence) lines.push(`      replay: ${c.evidence.replayCommand}`);
    }
  }
  const expected = results.checks.filter((c) => c.status === 'expected-failure');
  if (expected.length > 0) {
    lines.push('', `Expected failures (${expected.length}): ${expected.map((c) => c.id).join(', ')}`);
  }
  if (results.expectedFailures.unexpectedPasses.length > 0) {
    lines.push('', paint(33, `Unexpected passes (listed as expected to fail, but passed): ${results.expectedFailures.unexpectedPasses.join(', ')}`));
  }
  if (results.expectedFailures.unknown.length > 0) {
    lines.push('', paint(33, `Expected-failure ids that name no check or row: ${results.expectedFailures.unknown.join(', ')}`));
  }
  const t = results.totals.checks;
  const r = results.totals.rows;
  const notVerified = results.checks.filter((c) => c.status === 'skipped');
  if (notVerified.length > 0) {
    lines.push('', paint(33, `Not verified (${r.skipped} rows, ${notVerified.length} checks): the reason, and what would make it verifiable`));
    for (const c of notVerified) lines.push(`  ↷ ${c.id}  [${c.rows.join(', ')}]`, `      ${c.reason ?? 'skipped'}`);
  }
  const seconds = (results.run.durationMs / 1000).toFixed(1);
  lines.push('');
  if (results.run.interrupted) lines.push(paint(33, 'Interrupted: results are partial.'));
  lines.push(`${verdictLine(results, paint)} against ${results.run.target} in ${seconds}s (seed ${results.run.seed})`);
  lines.push(
    `checks: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped, ${t.excluded} excluded, ${t.expectedFailures} expected failures; ` +
      `rows: ${r.passed} passed, ${r.failed} failed, ${r.skipped} not verified, ${r.excluded} excluded, ${r.notSelected} not selected, ${r.notApplicable} not applicable to profile ${results.run.profile}`,
  );
  return lines.join('\n');
}

/** `conformance: PASS|INCOMPLETE: N rows not verified|FAIL (profile P[, quick: ...])`, coloured on a terminal. */
export function verdictLine(results: ConformanceResults, paint: (code: number, text: string) => string = (_c, t) => t): string {
  const quick = results.run.quick ? ', --quick: the history-window checks left out' : '';
  const profile = `(profile ${results.run.profile}${quick})`;
  const r = results.totals.rows;
  const t = results.totals.checks;
  if (results.verdict === 'PASS') return `${paint(32, 'conformance: PASS')} ${profile}`;
  if (results.verdict === 'FAIL') return `${paint(31, 'conformance: FAIL')} ${profile}`;
  const what = results.run.interrupted && t.skipped === 0 ? 'interrupted' : `${r.skipped} rows not verified (${t.skipped} checks skipped)`;
  return `${paint(33, `conformance: INCOMPLETE: ${what}`)} ${profile}`;
}
