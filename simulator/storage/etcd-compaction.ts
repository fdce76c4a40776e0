// The simulator's history window (README.md, "History window"; spec 8.1) expressed as etcd compaction.
//
// The memory store retains a change while it is one of the last `historyEvents` changes OR younger than
// `historyAgeMs`. etcd keeps everything after its compact revision, so the same promise is kept by compacting,
// now and then, to the newest revision that both rules allow to drop:
//   target = min(current - historyEvents, the revision that was current historyAgeMs ago)
// "The revision current at time T" comes from samples (time, revision) taken at every tick; using the newest
// sample at or before T errs on the side of keeping more. Between ticks history grows past the window by at most
// one interval, which the contract allows (it promises a minimum, as etcd and the real apiserver do).

export interface WindowPolicy {
  historyEvents: number;
  historyAgeMs: number;
}

export class RevisionSamples {
  private samples: Array<{ t: number; rev: number }> = [];

  record(t: number, rev: number): void {
    const last = this.samples[this.samples.length - 1];
    if (last && last.t >= t) {
      last.rev = Math.max(last.rev, rev);
      return;
    }
    this.samples.push({ t, rev });
  }

  /** The revision that was current at `t` or earlier (a lower bound), or undefined when no sample is that old. */
  revisionAtOrBefore(t: number): number | undefined {
    let found: number | undefined;
    for (const s of this.samples) {
      if (s.t > t) break;
      found = s.rev;
    }
    return found;
  }

  /** Forgets samples that can no longer be the answer for any time >= t (keeps the newest one at or before t). */
  dropBefore(t: number): void {
    let i = 0;
    while (i + 1 < this.samples.length && this.samples[i + 1].t <= t) i++;
    if (i > 0) this.samples = this.samples.slice(i);
  }
}

/** The revision to compact to, or undefined when nothing may be dropped yet. */
export function compactionTarget(policy: WindowPolicy, samples: RevisionSamples, now: number, current: number): number | undefined {
  const byCount = current - policy.historyEvents;
  const byAge = samples.revisionAtOrBefore(now - policy.historyAgeMs);
  if (byAge === undefined) return undefined;
  const target = Math.min(byCount, byAge);
  return target > 1 ? target : undefined;
}

/**
 * The smallest revision in [lo, hi] that etcd can still read, given `readable(rev)` (false = compacted).
 * Compaction is the only etcd fact with no query of its own: a range at a compacted revision just fails, so a
 * binary search over ranges finds it in about log2(hi - lo) requests. `hi` must be readable (the current revision).
 */
export async function smallestReadable(lo: number, hi: number, readable: (rev: number) => Promise<boolean>): Promise<number> {
  lo = Math.max(1, Math.min(lo, hi));
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await readable(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
