// The console summary: rows per spec section and status, the failing checks with their reason and replay
// line, expected-failure bookkeeping, and one verdict line.
import type { ConformanceResults, RowStatus } from './results-schema.ts';

const STATUSES: RowStatus[] = ['passed', 'failed', 'skipped', 'uncovered', 'untestable'];

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
    const counts = bySection.get(row.section) ?? { passed: 0, failed: 0, skipped: 0, uncovered: 0, untestable: 0 };
    counts[row.status]++;
    bySection.set(row.section, counts);
  }
  lines.push('Spec rows by section:');
  lines.push(`  ${'section'.padEnd(9)}${STATUSES.map((s) => s.padStart(11)).join('')}`);
  for (const section of [...bySection.keys()].sort(compareSections)) {
    const counts = bySection.get(section)!;
    const cells = STATUSES.map((s) => {
      const cell = String(counts[s] || '.').padStart(11);
      return counts[s] && s === 'failed' ? paint(31, cell) : cell;
    });
    lines.push(`  ${section.padEnd(9)}${cells.join('')}`);
  }
  const r = results.totals.rows;
  lines.push(`  ${'all'.padEnd(9)}${STATUSES.map((s) => String(r[s]).padStart(11)).join('')}`);

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
  const seconds = (results.run.durationMs / 1000).toFixed(1);
  lines.push('');
  if (results.run.interrupted) lines.push(paint(33, 'Interrupted: results are partial.'));
  const verdict = results.passed ? paint(32, 'conformance: PASS') : paint(31, 'conformance: FAIL');
  lines.push(`${verdict} against ${results.run.target} in ${seconds}s (seed ${results.run.seed})`);
  lines.push(`checks: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped, ${t.expectedFailures} expected failures`);
  return lines.join('\n');
}
