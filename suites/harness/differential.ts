// The differential mode (`--target A --reference B`): the same checks with the same seed against both, then
// per check a comparison of what the two answered: the verdicts, and request by request (normalised, see
// transcript.ts) the status code, the Status reason and the shape of the JSON answer. Requests that only one
// side sent are left alone (a poll that took more turns on one side); a request sent several times is judged
// by its last answer (the settled one). Checks that mostly wait for controllers, nodes or a daemon process
// are compared by verdict only: when their requests are answered depends on timing, not on the target.
import type { CheckOutcome, EngineResult } from './engine.ts';
import type { TranscriptEntry } from './transcript.ts';

export type DivergenceKind = 'verdict' | 'status' | 'reason' | 'shape';

export interface Divergence {
  checkId: string;
  suite: string;
  /** The spec rows of the check: the rows where the two targets differ. */
  rows: string[];
  kind: DivergenceKind;
  /** The normalised request, for status/reason/shape divergences. */
  request?: string;
  /** What the target answered, and what the reference answered. */
  target: string;
  reference: string;
  /** Listed in the expected-failures file (by check id or by all its rows). */
  expected: boolean;
}

export interface DifferentialOptions {
  /** Check ids compared by verdict only. */
  verdictOnly: ReadonlySet<string>;
  /** Ids (checks or rows) of the expected-failures file. */
  expected?: ReadonlySet<string>;
  /** At most this many request-level divergences per check (default 5). */
  perCheck?: number;
}

function verdictText(o: CheckOutcome): string {
  const why = (o.message ?? o.reason ?? '').split('\n')[0];
  return `${o.status}${why ? `: ${why.slice(0, 300)}` : ''}`;
}

function lastByRequest(entries: TranscriptEntry[] | undefined): Map<string, TranscriptEntry> {
  const out = new Map<string, TranscriptEntry>();
  for (const e of entries ?? []) out.set(e.request, e);
  return out;
}

function answerText(e: TranscriptEntry): string {
  return `${e.status === 0 ? 'no answer' : e.status}${e.reason ? ` ${e.reason}` : ''}`;
}

export function compareRuns(target: EngineResult, reference: EngineResult, options: DifferentialOptions): Divergence[] {
  const out: Divergence[] = [];
  const refById = new Map(reference.checks.map((c) => [c.id, c]));
  const perCheck = options.perCheck ?? 5;
  for (const a of target.checks) {
    const b = refById.get(a.id);
    if (!b) continue;
    const expected = Boolean(options.expected && (options.expected.has(a.id) || (a.rows.length > 0 && a.rows.every((r) => options.expected!.has(r)))));
    const base = { checkId: a.id, suite: a.suite, rows: a.rows, expected };
    if (a.status !== b.status) {
      out.push({ ...base, kind: 'verdict', target: verdictText(a), reference: verdictText(b) });
      continue;
    }
    if (options.verdictOnly.has(a.id) || a.status === 'skipped') continue;
    const ta = lastByRequest(a.transcript);
    const tb = lastByRequest(b.transcript);
    let n = 0;
    for (const [request, ea] of ta) {
      const eb = tb.get(request);
      if (!eb || n >= perCheck) continue;
      if (ea.status !== eb.status) {
        out.push({ ...base, kind: 'status', request, target: answerText(ea), reference: answerText(eb) });
        n++;
      } else if ((ea.reason ?? '') !== (eb.reason ?? '')) {
        out.push({ ...base, kind: 'reason', request, target: answerText(ea), reference: answerText(eb) });
        n++;
      } else if (ea.shape && eb.shape) {
        const sa = new Set(ea.shape);
        const sb = new Set(eb.shape);
        // A field of an object controllers write that only one answer has (no other type of it on the other side) is
        // no difference: the controller's own writes, through any served version and with that version's defaults
        // (a Deployment read through extensions/v1beta1 after the controller wrote it through apps/v1), change
        // the object at the controller's pace. A field of another type still is.
        const controlled = CONTROLLER_KINDS.has(kindIn(ea.shape) ?? '') || CONTROLLER_KINDS.has(kindIn(eb.shape) ?? '');
        const pathsA = new Set(ea.shape.map(pathOfShape));
        const pathsB = new Set(eb.shape.map(pathOfShape));
        const onlyA = ea.shape.filter((s) => !sb.has(s) && !(controlled && !pathsB.has(pathOfShape(s))));
        const onlyB = eb.shape.filter((s) => !sa.has(s) && !(controlled && !pathsA.has(pathOfShape(s))));
        if (onlyA.length || onlyB.length) {
          out.push({ ...base, kind: 'shape', request, target: `${ea.status}; only here: ${onlyA.slice(0, 8).join(', ') || '-'}`, reference: `${eb.status}; only here: ${onlyB.slice(0, 8).join(', ') || '-'}` });
          n++;
        }
      }
    }
  }
  return out;
}

/** Kinds that controllers write besides the client (spec and metadata fields, not only status). */
const CONTROLLER_KINDS = new Set(['Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'ReplicationController', 'Job', 'CronJob']);
const kindIn = (shape: readonly string[]) => shape.find((s) => s.startsWith('kind='))?.slice(5);
const pathOfShape = (s: string) => (s.includes('=') && !s.includes(':') ? s : s.slice(0, s.lastIndexOf(':')));

/** Divergences grouped by spec row, rows in id order. */
export function divergencesByRow(divergences: readonly Divergence[]): Map<string, Divergence[]> {
  const byRow = new Map<string, Divergence[]>();
  for (const d of divergences) for (const r of d.rows) byRow.set(r, [...(byRow.get(r) ?? []), d]);
  return new Map([...byRow].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Console lines: per divergent row, its checks and what differs. */
export function renderDivergences(divergences: readonly Divergence[], targetUrl: string, referenceUrl: string): string {
  if (divergences.length === 0) return `differential: ${targetUrl} and the reference ${referenceUrl} agree on every check`;
  const unexpected = divergences.filter((d) => !d.expected);
  const checks = new Set(divergences.map((d) => d.checkId));
  const byRow = divergencesByRow(divergences);
  const lines = [`differential: ${checks.size} check(s) answer differently on ${targetUrl} (target) and ${referenceUrl} (reference), over ${byRow.size} spec row(s); ${unexpected.length} divergence(s) not expected`];
  const byCheck = new Map<string, Divergence[]>();
  for (const d of divergences) byCheck.set(d.checkId, [...(byCheck.get(d.checkId) ?? []), d]);
  for (const [id, ds] of byCheck) {
    lines.push(`  ${id}${ds[0].expected ? ' (expected)' : ''}  rows: ${ds[0].rows.join(', ')}`);
    for (const d of ds.slice(0, 3)) {
      lines.push(`    ${d.kind}${d.request ? ` ${d.request}` : ''}`);
      lines.push(`      target:    ${d.target}`);
      lines.push(`      reference: ${d.reference}`);
    }
  }
  return lines.join('\n');
}
