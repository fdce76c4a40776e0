// Shared pieces of the chunking, watch, deletion and namespace suites: label selectors the harness can
// evaluate itself, paged lists, watch streams read to a sentinel, 410 detection (HTTP 410 or an ERROR event
// carrying a 410 Status: both are what real servers do), and forcing the history window to move on.
import type { KubeObject, WatchEvent } from '../../simulator/api/meta.ts';
import type { CheckContext } from './check.ts';
import type { DecodedResponse, Query, WatchStream } from './client.ts';
import { describeResponse, fail } from './expect.ts';
import { busyScaled } from './progress.ts';
import { ExchangeRecorder } from './recorder.ts';

// ---------------------------------------------------------------------------------------------------------
// Label selectors: the subset the suites generate, evaluated by the harness (independent of the target).

export type Requirement =
  | { key: string; op: '=' | '!='; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | '!' };

export function selectorString(reqs: Requirement[]): string {
  return reqs
    .map((r) => {
      switch (r.op) {
        case '=':
        case '!=':
          return `${r.key}${r.op}${r.value}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.op} (${r.values.join(',')})`;
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
      }
    })
    .join(',');
}

export function selectorMatches(reqs: Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case '=':
        return has && l[r.key] === r.value;
      case '!=':
        return !has || l[r.key] !== r.value;
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
      case 'exists':
        return has;
      case '!':
        return !has;
    }
  });
}

// ---------------------------------------------------------------------------------------------------------
// Lists.

export type ListBody = { kind?: string; apiVersion?: string; items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };

export interface Page {
  res: DecodedResponse<ListBody>;
  items: KubeObject[];
  resourceVersion: string | undefined;
  continueToken: string;
}

export async function listPage(ctx: CheckContext, path: string, query: Query = {}): Promise<Page> {
  const res = await ctx.client.get<ListBody>(path, { query });
  const items = Array.isArray(res.object?.items) ? res.object.items : [];
  return { res, items, resourceVersion: res.object?.metadata?.resourceVersion, continueToken: res.object?.metadata?.continue ?? '' };
}

/** A full list (no limit) that must succeed; its items by name and its resourceVersion. */
export async function listAll(
  ctx: CheckContext,
  path: string,
  query: Query = {},
  rows?: string | string[],
): Promise<{ items: KubeObject[]; resourceVersion: string }> {
  const page = await listPage(ctx, path, query);
  if (page.res.status !== 200 || !page.res.object)
    fail(`GET ${path} ${JSON.stringify(query)}: expected 200 with a list, got ${describeResponse(page.res)}`, rows);
  if (typeof page.resourceVersion !== 'string' || page.resourceVersion === '') fail(`GET ${path}: the list has no metadata.resourceVersion`, rows);
  return { items: page.items, resourceVersion: page.resourceVersion };
}

/** Compares resourceVersions when both are decimal (etcd-backed servers); undefined when they are opaque. */
export function compareRv(a: string | undefined, b: string | undefined): number | undefined {
  if (!a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined;
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// Watches.

export interface GoneStatus {
  /** 'http' when the watch request itself was answered 410, 'event' for an ERROR event in a 200 stream. */
  via: 'http' | 'event';
  httpStatus: number;
  status: Record<string, unknown> | undefined;
}

export interface OpenedWatch {
  stream: WatchStream;
  /** Set when the target refused the watch as too old (410), whichever way it said so. */
  gone?: GoneStatus;
  /** The first event, already read when the check asked to probe for an ERROR event. */
  first?: WatchEvent;
}

/** Waits for a stream to end (bounded) and returns the text it carried. */
async function drain(stream: WatchStream, ms = 3000): Promise<string> {
  const deadline = Date.now() + ms;
  while (!stream.isEnded && Date.now() < deadline) await stream.next(Math.max(1, deadline - Date.now()));
  return stream.receivedText();
}

/**
 * A watch answered other than 200, for a failure message: its status, media type and body, read to its end
 * (bounded): right after the headers nothing of the body has arrived yet, and the message would end in ": ".
 */
export async function describeWatchRefusal(stream: WatchStream): Promise<string> {
  const text = (await drain(stream, 1000)).slice(0, 300);
  const type = stream.headers['content-type'] ?? '(no Content-Type)';
  return `${stream.status} ${type}${text ? `: ${text}` : ' with an empty body'}`;
}

/**
 * Opens a watch. `probeMs` > 0 reads the first event (up to that long) so an ERROR event with code 410 is
 * recognised as "gone"; the event is kept in `first` otherwise. A non-200, non-410 answer fails the check.
 */
export async function openWatch(
  ctx: CheckContext,
  path: string,
  query: Query,
  options: { format?: 'json' | 'protobuf'; accept?: string; probeMs?: number; rows?: string | string[]; timeoutMs?: number } = {},
): Promise<OpenedWatch> {
  const stream = await ctx.client.watch(path, { query, format: options.format, accept: options.accept, timeoutMs: options.timeoutMs ?? 30_000 });
  if (stream.status === 410) {
    const text = await drain(stream);
    let status: Record<string, unknown> | undefined;
    try {
      status = JSON.parse(text) as Record<string, unknown>;
    } catch {
      status = undefined;
    }
    stream.close();
    return { stream, gone: { via: 'http', httpStatus: 410, status } };
  }
  if (stream.status !== 200) {
    const text = await drain(stream, 1000);
    stream.close();
    fail(`watch GET ${path} ${JSON.stringify(query)}: expected 200 (or 410), got ${stream.status} ${stream.mediaType}: ${text.slice(0, 200)}`, options.rows);
  }
  if (options.probeMs && options.probeMs > 0) {
    const first = await stream.next(options.probeMs);
    if (first && first.type === 'ERROR') {
      const status = first.object as unknown as Record<string, unknown>;
      if (status?.code === 410) {
        stream.close();
        return { stream, gone: { via: 'event', httpStatus: 200, status } };
      }
      stream.close();
      fail(`watch GET ${path}: ERROR event ${JSON.stringify(first.object).slice(0, 200)}`, options.rows);
    }
    return { stream, first };
  }
  return { stream };
}

/** What a 410 must look like: a Status with code 410 (reason Expired or Gone). Returns problems. */
export function goneProblems(gone: GoneStatus): string[] {
  const s = gone.status;
  if (!s || typeof s !== 'object') return [`the 410 answer carries no Status body`];
  const problems: string[] = [];
  if (s.kind !== 'Status') problems.push(`kind ${JSON.stringify(s.kind)} (expected "Status")`);
  if (s.code !== 410) problems.push(`code ${JSON.stringify(s.code)} (expected 410)`);
  if (s.status !== 'Failure') problems.push(`status ${JSON.stringify(s.status)} (expected "Failure")`);
  if (s.reason !== undefined && s.reason !== 'Expired' && s.reason !== 'Gone')
    problems.push(`reason ${JSON.stringify(s.reason)} (expected "Expired" or "Gone")`);
  return problems;
}

/** Reads events until `done` says so or nothing arrives for `quietMs` / the total deadline passes. */
export async function readUntil(
  stream: WatchStream,
  done: (events: WatchEvent[]) => boolean,
  totalMs = 5000,
  initial: WatchEvent[] = [],
): Promise<WatchEvent[]> {
  const events = [...initial];
  const deadline = Date.now() + totalMs;
  while (!done(events)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const ev = await stream.next(left);
    if (!ev) break;
    events.push(ev);
  }
  return events;
}

// ---------------------------------------------------------------------------------------------------------
// Moving the history window: many cheap writes to one object in a check namespace, probing in between.

export interface ForceResult {
  forced: boolean;
  writes: number;
  ms: number;
}

/**
 * How long a history-window check waits, against a target, for a revision to leave the watch history: the spec's
 * window (8.1: changes of the last 5 minutes kept by default; continue tokens live 5 minutes) plus a margin of 60 s
 * for a server that compacts on a timer.
 */
export const HISTORY_WAIT_MS = 360_000;
/** While it waits, how often it asks (a target that keeps history by count may drop the revision sooner). */
const HISTORY_PROBE_EVERY_MS = 15_000;

/**
 * Makes the revision a probe watches or lists from leave the target's history window, and says whether it did.
 * The embedded simulator keeps history by count: writes push it out (forceHistoryPast, in a solo check). Against
 * another target (ctx.historyWaitMs set) the check runs beside the others, so it writes nothing: it waits until
 * `since` + the spec's window and margin, asking every 15 s, and the run goes on meanwhile.
 */
export async function waitOutHistory(ctx: CheckContext, objectPath: string, since: number, probe: () => Promise<boolean>): Promise<ForceResult> {
  if (!ctx.historyWaitMs) return forceHistoryPast(ctx, objectPath, probe);
  const deadline = since + ctx.historyWaitMs;
  for (;;) {
    const left = deadline - Date.now();
    await new Promise((r) => setTimeout(r, Math.max(0, Math.min(left, HISTORY_PROBE_EVERY_MS))));
    if (await probe()) return { forced: true, writes: 0, ms: Date.now() - since };
    if (Date.now() >= deadline) return { forced: false, writes: 0, ms: Date.now() - since };
  }
}

/**
 * Writes up to `maxWrites` changes (merge patches of one ConfigMap) in batches, calling `probe` after each
 * batch; stops as soon as the probe says the old revision is gone. The default budget, 3000 changes, is three
 * times the 1000 changes older storage backends keep (spec 8.1) and takes about 1.5 s on the simulator. The time
 * budget (30 s) stretches with the load of this machine (busyScaled): on 2 busy cores the target may manage a
 * few dozen writes a second, and "could not push" must mean the target keeps more history, not that it was slow.
 */
export async function forceHistoryPast(
  ctx: CheckContext,
  objectPath: string,
  probe: () => Promise<boolean>,
  options: { maxWrites?: number; batch?: number; concurrency?: number; maxMs?: number } = {},
): Promise<ForceResult> {
  const maxWrites = options.maxWrites ?? 3000;
  const batch = options.batch ?? 500;
  const concurrency = options.concurrency ?? 8;
  const maxMs = options.maxMs ?? busyScaled(30_000);
  const started = Date.now();
  let writes = 0;
  // The bulk writes are not evidence; they would drown the exchanges that matter.
  const quiet = ctx.client.withRecorder(new ExchangeRecorder());
  while (writes < maxWrites && Date.now() - started < maxMs) {
    const n = Math.min(batch, maxWrites - writes);
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const i = writes + next++;
          const res = await quiet.patch(objectPath, { data: { churn: String(i) } }, 'merge');
          if (res.status !== 200) fail(`setup: churn write ${i} to ${objectPath} failed: ${describeResponse(res)}`);
        }
      }),
    );
    writes += n;
    if (await probe()) return { forced: true, writes, ms: Date.now() - started };
  }
  return { forced: false, writes, ms: Date.now() - started };
}

/** Plain data for comparisons: what a change must carry, without server-set noise that may legally differ. */
export function essence(obj: KubeObject | undefined): Record<string, unknown> {
  if (!obj) return {};
  const m = obj.metadata ?? {};
  return {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    labels: m.labels ?? {},
    annotations: m.annotations ?? {},
    finalizers: m.finalizers ?? [],
    deletionTimestamp: m.deletionTimestamp ?? null,
    data: (obj as { data?: unknown }).data ?? {},
  };
}

export function short(obj: unknown, max = 300): string {
  const s = JSON.stringify(obj);
  return s && s.length > max ? `${s.slice(0, max)}...` : String(s);
}
