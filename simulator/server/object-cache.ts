// Informer-style caches of the few objects every write looks at: namespaces (does the namespace of a create exist,
// is it terminating) and resource quotas (which quotas judge a create). The real API server's admission plugins
// (NamespaceLifecycle, ResourceQuota) read these from informer listers fed by a watch, never from etcd per request;
// here a reflector lists the prefix once, then follows a store watch from the list's revision, relisting when the
// watch ends. On etcd that turns a create from three round trips (namespace read, quota read, transaction) into one.
//
// How fresh: on the memory store a watch event is delivered before the write that made it returns, so the cache is
// exact. On etcd it trails the store by a watch delivery (milliseconds), as the real listers do, and the readers
// below cover the same gaps the real plugins cover: a namespace the cache does not know (just created through
// another server) is read from the store before a create is refused; a namespace the cache saw deleted is read from
// the store for a while after (forceLiveLookup); a namespace without cached quotas has its quotas read from the
// store at most once per interval (the quota plugin's live-lookup LRU).

import type { KubeObject } from '../api/meta.ts';
import type { Store, StoreEvent, WatchHandle } from '../storage/store.ts';
import { STORAGE_REFS, storageKey } from '../api/registry.ts';

/** What the real NamespaceLifecycle plugin and quota accessor use for their live lookups (30 s each). */
export const LIVE_LOOKUP_TTL_MS = 30_000;
/** Wait before relisting after a watch ended (the reflector's backoff, short). */
const RELIST_DELAY_MS = 100;

export class ObjectCache {
  private readonly objects = new Map<string, KubeObject>();
  private handle: WatchHandle | undefined;
  private synced = false;
  private closed = false;
  private starting: Promise<void> | undefined;
  /** Keys whose DELETED event was seen, with when: read from the store for a while after. */
  private readonly deletedAt = new Map<string, number>();
  /** Counters for tests and the bench. */
  readonly stats = { lists: 0, events: 0 };

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Lists and starts following; resolves when the first list is in (the cache answers before that: `undefined`). */
  start(): Promise<void> {
    this.starting ??= this.relist();
    return this.starting;
  }

  /** Whether the first list is in. Until then every read answers undefined (ask the store). */
  get isSynced(): boolean {
    return this.synced;
  }

  /** The cached object, `null` when the cache knows it does not exist, undefined when it cannot say (not synced). */
  get(key: string): KubeObject | null | undefined {
    if (!this.synced) return undefined;
    return this.objects.get(key) ?? null;
  }

  /** Whether the cache saw this key deleted within `ttlMs`. */
  recentlyDeleted(key: string, ttlMs = LIVE_LOOKUP_TTL_MS): boolean {
    const t = this.deletedAt.get(key);
    if (t === undefined) return false;
    if (this.now() - t < ttlMs) return true;
    this.deletedAt.delete(key);
    return false;
  }

  /** Cached objects under a prefix of this cache's prefix (unordered), or undefined when not synced. */
  list(prefix: string): KubeObject[] | undefined {
    if (!this.synced) return undefined;
    const out: KubeObject[] = [];
    for (const [k, v] of this.objects) if (k.startsWith(prefix)) out.push(v);
    return out;
  }

  close(): void {
    this.closed = true;
    this.handle?.stop();
    this.handle = undefined;
  }

  private async relist(): Promise<void> {
    if (this.closed) return;
    this.handle?.stop();
    this.handle = undefined;
    this.synced = false;
    try {
      const { items, revision } = await this.store.list(this.prefix);
      if (this.closed) return;
      this.stats.lists++;
      this.objects.clear();
      for (const it of items) this.objects.set(it.key, it.value);
      this.handle = this.store.watch(this.prefix, {
        fromRevision: revision,
        onEvent: (ev) => this.apply(ev),
        onClose: () => this.scheduleRelist(),
      });
      this.synced = true;
    } catch {
      this.scheduleRelist();
    }
  }

  private apply(ev: StoreEvent): void {
    this.stats.events++;
    if (ev.type === 'DELETED') {
      this.objects.delete(ev.key);
      this.deletedAt.set(ev.key, this.now());
      if (this.deletedAt.size > 10_000) this.deletedAt.delete(this.deletedAt.keys().next().value!);
    } else {
      this.objects.set(ev.key, ev.object);
      this.deletedAt.delete(ev.key);
    }
  }

  private scheduleRelist(): void {
    this.synced = false;
    this.handle = undefined;
    if (this.closed) return;
    setTimeout(() => void this.relist(), RELIST_DELAY_MS).unref();
  }
}

/** The caches the write path reads (ServerContext.listers). */
export interface Listers {
  namespaces: ObjectCache;
  resourceQuotas: ObjectCache;
  /** Namespace → when its quotas were last read from the store because the cache held none. */
  quotaLiveLookups: Map<string, number>;
}

export function startListers(store: Store, now: () => number = Date.now): Listers {
  const listers: Listers = {
    namespaces: new ObjectCache(store, storageKey(STORAGE_REFS.namespaces, undefined), now),
    resourceQuotas: new ObjectCache(store, storageKey(STORAGE_REFS.resourceQuotas, undefined), now),
    quotaLiveLookups: new Map(),
  };
  void listers.namespaces.start();
  void listers.resourceQuotas.start();
  return listers;
}

export function closeListers(listers: Listers | undefined): void {
  listers?.namespaces.close();
  listers?.resourceQuotas.close();
}
