// Waiting on what the target says, not on sleeps: an Observer lists a collection once and then follows it with a
// watch, keeping the objects by name and a log of every change it saw. Checks ask it to wait until a predicate over
// the current objects holds, and judge invariants (never more than N pods, no new pod while an old one runs) on
// every state the watch showed, not only on a few polls. A watch that ends (the target's timeout) is reopened
// from the last version seen; one refused as too old (410) is replaced by a fresh list.
import type { KubeList, KubeObject, WatchEvent } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import type { WatchStream } from './client.ts';
import { describeResponse, fail } from './expect.ts';
import { busyScaled } from './progress.ts';

export interface Change {
  /** ms since the observer opened. */
  at: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'LISTED';
  name: string;
  object: KubeObject;
}

export class Observer {
  readonly objects = new Map<string, KubeObject>();
  readonly log: Change[] = [];
  private stream?: WatchStream;
  private rv = '';
  private readonly opened = performance.now();
  private closed = false;

  private constructor(
    private readonly ctx: CheckContext,
    readonly path: string,
    private readonly labelSelector?: string,
  ) {}

  /** Lists `path` (a collection) and starts watching it from the list's version. */
  static async open(ctx: CheckContext, path: string, labelSelector?: string): Promise<Observer> {
    const o = new Observer(ctx, path, labelSelector);
    await o.relist();
    return o;
  }

  private async relist(): Promise<void> {
    const res = await this.ctx.client.get<KubeList>(this.path, { query: this.labelSelector ? { labelSelector: this.labelSelector } : {} });
    if (res.status !== 200 || !res.object) fail(`listing ${this.path} to watch it: ${describeResponse(res)}`);
    // Objects gone while the watch was down leave as deletions in the log (their last known state).
    const now = new Set((res.object.items ?? []).map((i) => i.metadata.name!));
    for (const [name, obj] of this.objects) if (!now.has(name)) this.log.push({ at: this.now(), type: 'DELETED', name, object: obj });
    this.objects.clear();
    for (const item of res.object.items ?? []) {
      this.objects.set(item.metadata.name!, item);
      this.log.push({ at: this.now(), type: 'LISTED', name: item.metadata.name!, object: item });
    }
    this.rv = res.object.metadata?.resourceVersion ?? '';
    await this.rewatch();
  }

  private async rewatch(): Promise<void> {
    this.stream?.close();
    const query: Record<string, string> = { watch: 'true', resourceVersion: this.rv };
    if (this.labelSelector) query.labelSelector = this.labelSelector;
    const stream = await this.ctx.client.watch(this.path, { query, timeoutMs: 10 * 60_000 });
    if (stream.status === 410) {
      stream.close();
      return this.relist();
    }
    if (stream.status !== 200) fail(`watching ${this.path}: HTTP ${stream.status}`);
    this.stream = stream;
  }

  private now(): number {
    return Math.round(performance.now() - this.opened);
  }

  /** Current objects (not yet deleted from the API). */
  list(): KubeObject[] {
    return [...this.objects.values()];
  }

  private apply(ev: WatchEvent): 'again' | undefined {
    if (ev.type === 'ERROR') return 'again';
    if (ev.type === 'BOOKMARK') return undefined;
    const obj = ev.object as KubeObject;
    const name = obj.metadata?.name ?? '';
    if (obj.metadata?.resourceVersion) this.rv = obj.metadata.resourceVersion;
    if (ev.type === 'DELETED') this.objects.delete(name);
    else this.objects.set(name, obj);
    this.log.push({ at: this.now(), type: ev.type as Change['type'], name, object: obj });
    return undefined;
  }

  /**
   * Waits until `probe` over the current objects returns a value (not undefined), for at most `ms`; `onChange` sees
   * every change on the way (for invariants). Undefined when the time ran out.
   */
  async until<T>(ms: number, probe: (objects: KubeObject[]) => T | undefined, onChange?: (c: Change, objects: KubeObject[]) => void): Promise<T | undefined> {
    const deadline = performance.now() + ms;
    let seen = this.log.length;
    // First take in what has already arrived: a view left unread while the check waited elsewhere is stale, and
    // a stale view (say, empty before its objects' ADDED events were read) must not satisfy the probe.
    for (let queued = await this.pending(); queued; queued = await this.pending()) if (this.apply(queued) === 'again') await this.relist();
    for (;;) {
      for (; seen < this.log.length; seen++) onChange?.(this.log[seen], this.list());
      const v = probe(this.list());
      if (v !== undefined) return v;
      const left = deadline - performance.now();
      if (left <= 0 || this.closed) {
        // Out of time: still take in what has already arrived, so that the view is as current as the stream.
        const queued = this.stream && !this.closed ? await this.stream.next(0).catch(() => undefined) : undefined;
        if (!queued) return undefined;
        if (this.apply(queued) === 'again') await this.relist();
        continue;
      }
      if (!this.stream || this.stream.isEnded) await this.rewatch();
      let ev;
      try {
        ev = await this.stream!.next(Math.min(left, 5_000));
      } catch {
        // The stream broke (a proxy's or the client's idle limit): follow the collection again from a fresh list.
        await this.relist();
        continue;
      }
      if (ev && this.apply(ev) === 'again') await this.relist();
    }
  }

  private async pending(): Promise<WatchEvent | undefined> {
    return this.stream && !this.stream.isEnded && !this.closed ? this.stream.next(0).catch(() => undefined) : undefined;
  }

  /** Takes in the changes that have already arrived, without waiting. */
  async catchUp(): Promise<void> {
    await this.until(0, () => undefined);
  }

  /** Reads every change that arrives within `ms` (to hold a state: nothing that breaks it may arrive). */
  async hold(ms: number, onChange?: (c: Change, objects: KubeObject[]) => void): Promise<void> {
    await this.until(ms, () => undefined, onChange);
  }

  close(): void {
    this.closed = true;
    this.stream?.close();
  }

  /** The log as short lines, for a failure message. */
  story(describe: (o: KubeObject) => string = () => '', last = 25): string {
    const lines = this.log.map((c) => `  +${c.at} ms ${c.type} ${c.name}${describe(c.object) ? ` ${describe(c.object)}` : ''}`);
    return (lines.length > last ? [`  ... ${lines.length - last} earlier changes`, ...lines.slice(-last)] : lines).join('\n');
  }
}

let measuredFactor: number | undefined;

/**
 * A bound that stretches with how busy this machine is or how slowly the target answers, whichever says more (the
 * median of three reads of /version against 50 ms), from 1 to 4 times. Measured once per process.
 */
export async function targetScaled(ctx: CheckContext, ms: number): Promise<number> {
  if (measuredFactor === undefined) {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      await ctx.client.get('/version');
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    measuredFactor = Math.min(4, Math.max(1, times[1] / 50));
  }
  return Math.max(busyScaled(ms), Math.round(ms * measuredFactor));
}
