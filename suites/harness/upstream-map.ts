// The map of the upstream conformance registry onto this surface (suites/UPSTREAM-CONFORMANCE.md): its in-scope
// entries, read from the table between the markers, and the same table drawn again from the checks' own `upstream`
// declarations (`npx tsx suites --list --upstream`). suites/upstream-map.test.ts keeps the two equal and fails when
// an entry the 1.9 server has (column "1.9" yes or ver) has no check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUITES_DIR } from './catalog.ts';

export const UPSTREAM_MAP_FILE = join(SUITES_DIR, 'UPSTREAM-CONFORMANCE.md');
export const TABLE_START = '<!-- upstream-table:start (npx tsx suites --list --upstream draws it; upstream-map.test.ts compares) -->';
export const TABLE_END = '<!-- upstream-table:end -->';

export interface UpstreamEntry {
  no: number;
  title: string;
  release: string;
  /** yes: a 1.9 server has it; ver: it has it, upstream checks it through a newer group version; new: newer than 1.9; ?: not verified. */
  v19: 'yes' | 'ver' | 'new' | '?';
  must: string;
  /** The last column as written: check ids, or "out of scope: <reason>". */
  checks: string;
}

export const inScope = (e: UpstreamEntry) => e.v19 === 'yes' || e.v19 === 'ver';

const HEADER = ['| No. | Upstream entry (short) | Rel. | 1.9 | What the MUST asks (own words) | Check(s) |', '|---|---|---|---|---|---|'];

/** The entries of the table between the markers of `text`. */
export function parseUpstreamTable(text: string): UpstreamEntry[] {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('the map has no table between its markers');
  const out: UpstreamEntry[] = [];
  for (const line of text.slice(start + TABLE_START.length, end).split('\n')) {
    const m = /^\| (\d+) \|(.*)\|$/.exec(line.trim());
    if (!m) continue;
    const cells = m[2].split(' | ').map((c) => c.trim());
    if (cells.length !== 5) throw new Error(`map row ${m[1]} has ${cells.length + 1} cells, expected 6`);
    const [title, release, v19, must, checks] = cells;
    if (!['yes', 'ver', 'new', '?'].includes(v19)) throw new Error(`map row ${m[1]}: 1.9 column "${v19}"`);
    out.push({ no: Number(m[1]), title, release, v19: v19 as UpstreamEntry['v19'], must, checks });
  }
  return out;
}

export function readUpstreamMap(file = UPSTREAM_MAP_FILE): UpstreamEntry[] {
  return parseUpstreamTable(readFileSync(file, 'utf8'));
}

/** Why an entry is out of scope, for its last column. */
function outOfScope(e: UpstreamEntry): string {
  if (e.v19 === 'new') return 'out of scope: the behaviour is newer than 1.9';
  return e.checks.startsWith('out of scope') ? e.checks : 'out of scope: not verified for 1.9';
}

/** The table (header, rows, markers excluded) with each in-scope row's checks as the checks declare them. */
export function renderUpstreamTable(entries: UpstreamEntry[], checks: ReadonlyArray<{ id: string; upstream?: number[] }>): string {
  const by = new Map<number, string[]>();
  for (const c of checks) for (const n of c.upstream ?? []) by.set(n, [...(by.get(n) ?? []), c.id]);
  const rows = entries.map((e) => {
    const last = inScope(e) ? (by.get(e.no) ?? []).sort().join(', ') || 'NONE' : outOfScope(e);
    return `| ${e.no} | ${e.title} | ${e.release} | ${e.v19} | ${e.must} | ${last} |`;
  });
  return [...HEADER, ...rows].join('\n');
}

/** Problems between the map and the declarations: in-scope rows without a check, declarations of unknown or out-of-scope rows. */
export function upstreamProblems(entries: UpstreamEntry[], checks: ReadonlyArray<{ id: string; upstream?: number[] }>): string[] {
  const problems: string[] = [];
  const known = new Map(entries.map((e) => [e.no, e]));
  for (const c of checks)
    for (const n of c.upstream ?? []) {
      const e = known.get(n);
      if (!e) problems.push(`${c.id} declares upstream entry ${n}, which is not in the map`);
      else if (!inScope(e)) problems.push(`${c.id} declares upstream entry ${n}, which is out of scope (${e.v19})`);
    }
  for (const e of entries.filter(inScope)) if (!checks.some((c) => c.upstream?.includes(e.no))) problems.push(`upstream entry ${e.no} (${e.title}) is in scope and has no check`);
  return problems;
}
