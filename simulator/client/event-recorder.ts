// Events as the real components post them (client-go tools/record: EventRecorder + EventCorrelator, 1.9): a
// core/v1 Event in the involved object's namespace (`default` for cluster-scoped objects), named
// `<object name>.<hex nanoseconds>`, with involvedObject, reason, message, type, source, count and
// first/lastTimestamp. An identical event (same source, object, type, reason and message) seen again bumps the
// existing Event's count and lastTimestamp with a strategic-merge PATCH; when that Event is gone (404) a new one
// is created. Writes are asynchronous and best effort: event() never throws and never waits, a failed write is
// only logged, so a control loop never fails because an event could not be written. Writes of one key are
// serialised so that counts go up in order.
//
// Like client-go's EventCorrelator, two more rules keep a control loop that fails over and over from flooding
// the API server: similar events (same source, object, type and reason) with more than 10 different messages
// within 10 minutes collapse into one Event "(combined from similar events): <latest message>" whose count goes
// up; and a spam filter gives every (source, object) a token bucket of 25 that refills one token every 5
// minutes, so an object gets at most 25 event writes in a burst and then one per 5 minutes (the rest are
// dropped, as client-go drops them). The caches keep the last 4,096 keys (client-go's size). At most 1,000 writes
// wait at a time (client-go's broadcaster queue, which drops when full); further events are dropped.

import type { KubeObject } from '../api/meta.ts';
import { ApiError, type ApiClient } from './api-client.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventSource {
  component: string;
  host?: string;
}

/** An ObjectReference to the object an event is about. */
export interface InvolvedObject {
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
  apiVersion: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** The reference to an object read from a list or watch (whose items carry no kind/apiVersion). */
export function refOf(obj: KubeObject, apiVersion: string, kind: string, fieldPath?: string): InvolvedObject {
  const ref: InvolvedObject = { kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '', uid: obj.metadata.uid, apiVersion, resourceVersion: obj.metadata.resourceVersion };
  if (fieldPath) ref.fieldPath = fieldPath;
  if (ref.namespace === undefined) delete ref.namespace;
  return ref;
}

export interface EventRecorderOptions {
  log?: (line: string) => void;
  /** Aborting stops writing (pending writes are dropped quietly). */
  signal?: AbortSignal;
  /** Keys remembered for aggregation (default 4096). */
  cacheSize?: number;
  /** Spam filter per (source, object): burst (default 25) and refill per second (default 1/300). */
  spamBurst?: number;
  spamQps?: number;
  /** Similar events: distinct messages before they are combined (default 10), within this window (default 600 s). */
  maxSimilarEvents?: number;
  similarWindowMs?: number;
  /**
   * Writes waiting at most (default 1000, client-go's broadcaster queue): past it new events are dropped, so a
   * burst of events never builds a backlog that holds the client's rate limit (or memory) for minutes.
   */
  maxQueued?: number;
  /** Clock (tests). */
  now?: () => number;
}

/** The message of an Event standing for several similar ones (client-go's EventAggregatorByReasonMessageFunc). */
export const COMBINED_PREFIX = '(combined from similar events): ';

interface Bucket {
  tokens: number;
  last: number;
}

interface Similar {
  messages: Set<string>;
  last: number;
}

/** Remembers at most `max` keys, dropping the least recently used. */
function lruSet<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

const timestamp = (d = new Date()) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

let lastNanos = 0n;
/** client-go names events `<name>.<UnixNano in hex>`; unique within the process. */
function eventName(objectName: string): string {
  let nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  if (nanos <= lastNanos) nanos = lastNanos + 1n;
  lastNanos = nanos;
  return `${objectName}.${nanos.toString(16)}`;
}

export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly similar = new Map<string, Similar>();
  /** Events dropped by the spam filter (tests, metrics). */
  dropped = 0;
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly client: ApiClient,
    readonly source: EventSource,
    private readonly opts: EventRecorderOptions = {},
  ) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /** Whether the (source, object) spam bucket has a token left; takes it. */
  private allow(ref: InvolvedObject): boolean {
    const key = JSON.stringify([this.source.component, this.source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.apiVersion]);
    const burst = this.opts.spamBurst ?? 25;
    const qps = this.opts.spamQps ?? 1 / 300;
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: burst, last: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.last) / 1000) * qps);
    b.last = now;
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    lruSet(this.buckets, key, b, this.opts.cacheSize ?? 4096);
    return ok;
  }

  /**
   * client-go's EventAggregator: the key identical events share, and the message to write. Past the limit of
   * distinct messages for one (source, object, type, reason), events share the similar-events key and a
   * combined message.
   */
  private aggregate(ref: InvolvedObject, type: EventType, reason: string, message: string): { key: string; message: string } {
    const base = [this.source.component, this.source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.uid ?? '', ref.apiVersion, type, reason];
    const similarKey = JSON.stringify(base);
    const now = this.now();
    let rec = this.similar.get(similarKey);
    if (!rec || now - rec.last > (this.opts.similarWindowMs ?? 600_000)) rec = { messages: new Set(), last: now };
    rec.last = now;
    rec.messages.add(message);
    const max = this.opts.maxSimilarEvents ?? 10;
    let out = { key: JSON.stringify([...base, ref.fieldPath ?? '', message]), message };
    if (rec.messages.size >= max) {
      // Do not let the set grow past the limit; from here on the events are one combined Event.
      rec.messages.delete(rec.messages.values().next().value as string);
      out = { key: similarKey, message: COMBINED_PREFIX + message };
    }
    lruSet(this.similar, similarKey, rec, this.opts.cacheSize ?? 4096);
    return out;
  }

  /** Records an event about `ref`; returns at once. */
  event(ref: InvolvedObject, type: EventType, reason: string, rawMessage: string): void {
    if (this.opts.signal?.aborted) return;
    const { key, message } = this.aggregate(ref, type, reason, rawMessage);
    if (this.inFlight.size >= (this.opts.maxQueued ?? 1000) || !this.allow(ref)) {
      this.dropped++;
      return;
    }
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(() => this.write(key, ref, type, reason, message));
    this.chains.set(key, next);
    this.inFlight.add(next);
    void next.finally(() => {
      this.inFlight.delete(next);
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  /** Waits for the writes started so far (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async write(key: string, ref: InvolvedObject, type: EventType, reason: string, message: string): Promise<void> {
    if (this.opts.signal?.aborted) return;
    const now = timestamp();
    const namespace = ref.namespace || 'default';
    const seen = this.seen.get(key);
    try {
      if (seen) {
        seen.count++;
        try {
          await this.client.patch(`/api/v1/namespaces/${encodeURIComponent(seen.namespace)}/events/${encodeURIComponent(seen.name)}`, { count: seen.count, lastTimestamp: now, message }, 'application/strategic-merge-patch+json', this.opts.signal);
          this.touch(key, seen);
          return;
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 404)) throw err;
          // The Event was deleted (namespace clean-up, TTL): start again with a new one, as client-go does.
        }
      }
      const event: KubeObject = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: eventName(ref.name), namespace },
        involvedObject: { ...ref },
        reason,
        message,
        source: this.source.host ? { component: this.source.component, host: this.source.host } : { component: this.source.component },
        firstTimestamp: seen?.firstTimestamp ?? now,
        lastTimestamp: now,
        count: seen?.count ?? 1,
        type,
      };
      const created = await this.client.create(`/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, event, this.opts.signal);
      this.touch(key, { name: created.metadata.name ?? '', namespace, count: (created as { count?: number }).count ?? 1, firstTimestamp: (created as { firstTimestamp?: string }).firstTimestamp ?? now });
    } catch (err) {
      if (seen) this.seen.delete(key);
      if (this.opts.signal?.aborted) return;
      this.opts.log?.(`event ${reason} for ${ref.kind} ${namespace}/${ref.name} not recorded: ${(err as Error).message}`);
    }
  }

  private touch(key: string, s: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, s);
    const max = this.opts.cacheSize ?? 4096;
    while (this.seen.size > max) this.seen.delete(this.seen.keys().next().value as string);
  }
}
