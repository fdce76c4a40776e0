// Events as the real components post them (client-go tools/record: EventRecorder + EventCorrelator, 1.9): a
// core/v1 Event in the involved object's namespace (`default` for cluster-scoped objects), named
// `<object name>.<hex nanoseconds>`, with involvedObject, reason, message, type, source, count and
// first/lastTimestamp. An identical event (same source, object, type, reason and message) seen again bumps the
// existing Event's count and lastTimestamp with a strategic-merge PATCH; when that Event is gone (404) a new one
// is created. Writes are asynchronous and best effort: event() never throws and never waits, a failed write is
// only logged, so a control loop never fails because an event could not be written. Writes of one key are
// serialised so that counts go up in order.
//
// Not done: client-go's spam filter (a token bucket per source and object) and the aggregation of similar
// events into "(combined from similar events)"; the cache keeps the last 4,096 keys (client-go's size).

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
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly client: ApiClient,
    readonly source: EventSource,
    private readonly opts: EventRecorderOptions = {},
  ) {}

  /** Records an event about `ref`; returns at once. */
  event(ref: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (this.opts.signal?.aborted) return;
    const key = JSON.stringify([this.source.component, this.source.host ?? '', ref.kind, ref.namespace ?? '', ref.name, ref.fieldPath ?? '', ref.uid ?? '', ref.apiVersion, type, reason, message]);
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
          await this.client.patch(`/api/v1/namespaces/${encodeURIComponent(seen.namespace)}/events/${encodeURIComponent(seen.name)}`, { count: seen.count, lastTimestamp: now }, 'application/strategic-merge-patch+json', this.opts.signal);
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
