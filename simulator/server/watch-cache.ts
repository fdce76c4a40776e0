// The watch cache, after the real API server's: one store watch per resource type feeds every HTTP watcher of
// that type. Each change is taken from the store once, kept in a bounded in-memory window (references to the
// store's frozen objects, never copies), and handed to every subscriber whose key prefix it matches; the
// encoded frame of that change is then shared by all of them through the hub's frame cache. A watcher asking
// for a resourceVersion still inside the window is replayed from it; an older one falls back to the store
// itself, which serves it from its own history or refuses it (410), exactly as before. On a shared store (etcd
// used by several API servers) every replay goes to the store, since another server may have compacted it.
//
// Same contract as Store.watch (storage/store.ts), so the watch handler does not care which one serves it.

import type { Revision, Store, StoreError, StoreEvent, WatchHandle, WatchRequest } from '../storage/store.ts';

interface Subscriber {
  prefix: string;
  /** The revision of the last change handed to this subscriber: nothing at or before it is sent again. */
  last: Revision;
  req: WatchRequest;
}

export interface WatchCacheStats {
  /** Store watches open (one per resource type with watchers since start). */
  storeWatches: number;
  /** HTTP watchers served from a cache window / handed to the store because they asked for older revisions. */
  fromWindow: number;
  fromStore: number;
}

class TypeCache {
  private readonly ring: (StoreEvent | undefined)[];
  private head = 0;
  private count = 0;
  /** Changes at or before this revision are no longer in the window. */
  private droppedUpTo: Revision;
  private lastRevision: Revision;
  readonly subscribers = new Set<Subscriber>();
  private readonly handle: WatchHandle;

  constructor(
    private readonly store: Store,
    readonly root: string,
    capacity: number,
    private readonly onGone: (cache: TypeCache) => void,
  ) {
    this.ring = new Array(capacity);
    this.droppedUpTo = this.lastRevision = store.currentRevision();
    this.handle = store.watch(root, {
      fromRevision: this.lastRevision,
      onEvent: (ev) => this.onEvent(ev),
      onClose: (reason) => this.close(reason),
    });
  }

  private onEvent(ev: StoreEvent): void {
    this.lastRevision = ev.revision;
    const cap = this.ring.length;
    if (this.count === cap) {
      this.droppedUpTo = this.ring[this.head]!.revision;
      this.ring[this.head] = ev;
      this.head = (this.head + 1) % cap;
    } else {
      this.ring[(this.head + this.count) % cap] = ev;
      this.count++;
    }
    for (const s of this.subscribers) deliver(s, ev);
  }

  /** Serves a watch from the window; undefined when it asks for changes the window no longer holds. */
  subscribe(prefix: string, req: WatchRequest): WatchHandle | undefined {
    const from = req.fromRevision ?? this.lastRevision;
    if (from < this.droppedUpTo) return undefined;
    // A shared store may have been compacted by another server since these changes were seen: only the store can
    // say whether a past revision is still servable (or 410).
    if (this.store.shared && from < this.lastRevision) return undefined;
    const sub: Subscriber = { prefix, last: from, req };
    // Replay first, then go live: both run on this tick, so no change can fall between them.
    const cap = this.ring.length;
    for (let i = 0; i < this.count; i++) deliver(sub, this.ring[(this.head + i) % cap]!);
    this.subscribers.add(sub);
    return { stop: () => this.subscribers.delete(sub) };
  }

  close(reason?: StoreError): void {
    this.handle.stop();
    this.onGone(this);
    const subs = [...this.subscribers];
    this.subscribers.clear();
    for (const s of subs) s.req.onClose?.(reason);
  }
}

function deliver(s: Subscriber, ev: StoreEvent): void {
  if (ev.revision <= s.last || !ev.key.startsWith(s.prefix)) return;
  s.last = ev.revision;
  s.req.onEvent(ev);
}

/** `/registry/<resource>/` of any prefix below it: the unit the real server keeps one cache for. */
function rootOf(prefix: string): string {
  const m = /^(\/[^/]+\/[^/]+\/)/.exec(prefix);
  return m ? m[1] : prefix;
}

export class WatchCaches {
  private readonly caches = new Map<string, TypeCache>();
  readonly stats: WatchCacheStats = { storeWatches: 0, fromWindow: 0, fromStore: 0 };

  constructor(
    private readonly store: Store,
    /** Changes kept per resource type for watchers that resume from a resourceVersion. */
    private readonly windowEvents = 1000,
  ) {}

  watch(prefix: string, req: WatchRequest): WatchHandle {
    const root = rootOf(prefix);
    let cache = this.caches.get(root);
    if (!cache) {
      cache = new TypeCache(this.store, root, this.windowEvents, (c) => {
        if (this.caches.get(c.root) === c) this.caches.delete(c.root);
      });
      this.caches.set(root, cache);
      this.stats.storeWatches++;
    }
    const handle = cache.subscribe(prefix, req);
    if (handle) {
      this.stats.fromWindow++;
      return handle;
    }
    this.stats.fromStore++;
    return this.store.watch(prefix, req);
  }

  /** Subscribers now, per resource root (for tests and the bench). */
  subscriberCounts(): Record<string, number> {
    return Object.fromEntries([...this.caches].map(([root, c]) => [root, c.subscribers.size]));
  }

  close(): void {
    for (const c of [...this.caches.values()]) c.close();
  }
}
