// Durations in the tables are Go duration strings ("1m0s", "8760h0m0s"), exactly as the daemon
// prints them in --help; consumers that need a number convert with this.

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, ns: 0.000001 };
const PART = /([0-9]+(?:\.[0-9]+)?)(h|ms|us|ns|m|s)/g;

/** Milliseconds of a Go duration string; throws on anything that is not one. */
export function parseDurationMs(text: string): number {
  if (text === '0') return 0;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(PART)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * UNIT_MS[m[2]];
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== text.length) throw new Error(`not a duration: "${text}" (expected a Go duration such as 1m0s)`);
  return total;
}

/** Go's time.Duration.String() for whole milliseconds: "0s", "500ms", "15s", "1m0s", "8760h0m0s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) throw new Error(`not a non-negative duration: ${ms}`);
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
