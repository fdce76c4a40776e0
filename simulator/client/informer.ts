// Shared informers in the manner of client-go's reflector + indexer: list a collection (in chunks), then watch
// from the list's resourceVersion, keeping a local cache and telling handlers about adds, updates and deletes.
// A watch that ends is resumed from the last seen resourceVersion; "410 Gone" (too old resource version) or
// any other failure leads to a fresh list after a backoff. Every resync period the cached objects are handed
// to onUpdate(obj, obj) again so controllers re-check them; the period is random between --min-resync-period
// and twice it, as the real daemon picks it.

import type { KubeObject, Status, WatchEvent } from '../api/meta.ts';
import { ApiError, type ApiClient } from './api-client.ts';
import { sleep } from './timers.ts';

export interface EventHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

export interface InformerOptions {
  /** Resync period in ms (0 = never). */
  resyncMs?: number;
  /** Page size of the list (default 500). */
  pageSize?: number;
  /** Server-side watch timeout range in seconds (default 300..600, as client-go). */
  watchTimeoutSeconds?: [number, number];
  /** Backoff after a failure: starts here, doubles, capped at maxBackoffMs (default 200 ms .. 30 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  log?: (line: string) => void;
}

export const keyOf = (obj: KubeObject): string => (obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : `${obj.metadata.name}`);

class GoneError extends Error {}

export class Informer {
  private readonly cache = new Map<string, KubeObject>();
  /** The namespace index of client-go's indexer: namespace -> key -> object. */
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  private readonly handlers: EventHandler[] = [];
  private synced = false;
  private readonly syncWaiters: Array<() => void> = [];
  private lastResourceVersion = '';
  private running = false;
  /** Counts of lists and watches started (observability and tests). */
  readonly stats = { lists: 0, watches: 0, relistsAfterGone: 0, resyncs: 0 };

  constructor(
    private readonly client: ApiClient,
    /** Collection path, e.g. /api/v1/namespaces or /apis/apps/v1/deployments (all namespaces). */
    readonly path: string,
    private readonly opts: InformerOptions = {},
  ) {}

  /** Adds a handler; if the cache is already filled it first receives every cached object as an add. */
  addEventHandler(h: EventHandler): void {
    this.handlers.push(h);
    if (this.synced) for (const obj of this.cache.values()) this.safely(() => h.onAdd?.(obj));
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  list(): KubeObject[] {
    return [...this.cache.values()];
  }

  get(key: string): KubeObject | undefined {
    return this.cache.get(key);
  }

  /** The cached objects of one namespace (a lister's Namespace(ns).List()), without walking the others. */
  listIn(namespace: string): KubeObject[] {
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  private put(key: string, obj: KubeObject): void {
    this.cache.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    let m = this.byNamespace.get(ns);
    if (!m) this.byNamespace.set(ns, (m = new Map()));
    m.set(key, obj);
  }

  private remove(key: string, obj: KubeObject): void {
    this.cache.delete(key);
    const ns = obj.metadata.namespace ?? '';
    const m = this.byNamespace.get(ns);
    m?.delete(key);
    if (m?.size === 0) this.byNamespace.delete(ns);
  }

  get resourceVersion(): string {
    return this.lastResourceVersion;
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.opts.log?.(`informer ${this.path}: handler failed: ${(err as Error).message}`);
    }
  }

  private emit(kind: 'add' | 'update' | 'delete', a: KubeObject, b?: KubeObject): void {
    for (const h of this.handlers) {
      if (kind === 'add') this.safely(() => h.onAdd?.(a));
      else if (kind === 'update') this.safely(() => h.onUpdate?.(a, b!));
      else this.safely(() => h.onDelete?.(a));
    }
  }

  /** Runs until the signal aborts. Calling it twice is a no-op. */
  run(signal: AbortSignal): Promise<void> {
    if (this.running) return Promise.resolve();
    this.running = true;
    const resync = this.opts.resyncMs && this.opts.resyncMs > 0 ? setInterval(() => this.resync(), this.opts.resyncMs) : undefined;
    signal.addEventListener('abort', () => clearInterval(resync), { once: true });
    return this.loop(signal).finally(() => {
      clearInterval(resync);
      this.running = false;
    });
  }

  private resync(): void {
    if (!this.synced) return;
    this.stats.resyncs++;
    for (const obj of this.cache.values()) this.emit('update', obj, obj);
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const base = this.opts.backoffMs ?? 200;
    const max = this.opts.maxBackoffMs ?? 30_000;
    let backoff = base;
    let needList = true;
    let consecutiveGone = 0;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          needList = false;
        }
        await this.watch(signal);
        backoff = base;
        consecutiveGone = 0; // a watch that ran and ended normally: resume from the last resourceVersion
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof GoneError || (err instanceof ApiError && err.code === 410)) {
          this.stats.relistsAfterGone++;
          this.opts.log?.(`informer ${this.path}: resource version too old, listing again`);
          needList = true;
          // A fresh list is the cure for 410; if the watch after it is refused again, back off before the next.
          if (++consecutiveGone > 1) {
            await sleep(backoff, signal);
            backoff = Math.min(max, backoff * 2);
          }
          continue;
        }
        this.opts.log?.(`informer ${this.path}: ${(err as Error).message}; retrying in ${Math.round(backoff)} ms`);
        needList = true;
        await sleep(backoff, signal);
        backoff = Math.min(max, backoff * 2);
      }
    }
  }

  private async relist(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.client.list(this.path, { limit: this.opts.pageSize ?? 500, continue: cont }, signal);
      items.push(...page.items);
      if (!rv) rv = page.metadata.resourceVersion ?? '';
      cont = page.metadata.continue || undefined;
    } while (cont);
    // Replace the cache: new objects are adds, changed ones updates, vanished ones deletes.
    const seen = new Set<string>();
    for (const obj of items) {
      const key = keyOf(obj);
      seen.add(key);
      const old = this.cache.get(key);
      this.put(key, obj);
      if (!old) this.emit('add', obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) this.emit('update', old, obj);
    }
    for (const [key, old] of [...this.cache]) {
      if (!seen.has(key)) {
        this.remove(key, old);
        this.emit('delete', old);
      }
    }
    this.lastResourceVersion = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    this.stats.watches++;
    const [lo, hi] = this.opts.watchTimeoutSeconds ?? [300, 600];
    const timeoutSeconds = Math.floor(lo + Math.random() * (hi - lo));
    const stream = this.client.watch(this.path, { resourceVersion: this.lastResourceVersion, timeoutSeconds, allowWatchBookmarks: 'true' }, signal);
    for await (const ev of stream as AsyncIterable<WatchEvent>) {
      if (signal.aborted) return;
      this.apply(ev);
    }
  }

  private apply(ev: WatchEvent): void {
    if (ev.type === 'ERROR') {
      const status = ev.object as Status;
      if (status.code === 410) throw new GoneError(status.message ?? 'Gone');
      throw new Error(`watch error: ${status.code ?? ''} ${status.reason ?? ''} ${status.message ?? ''}`.trim());
    }
    const obj = ev.object as KubeObject;
    if (!obj?.metadata) throw new Error(`watch event ${ev.type} without an object`);
    if (obj.metadata.resourceVersion) this.lastResourceVersion = obj.metadata.resourceVersion;
    if (ev.type === 'BOOKMARK') return;
    const key = keyOf(obj);
    const old = this.cache.get(key);
    if (ev.type === 'DELETED') {
      this.remove(key, old ?? obj);
      this.emit('delete', old ?? obj);
      return;
    }
    this.put(key, obj);
    if (old) this.emit('update', old, obj);
    else this.emit('add', obj);
  }
}

/** One informer per collection path, shared by every controller; started together. */
export class InformerFactory {
  private readonly informers = new Map<string, Informer>();
  private signal: AbortSignal | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly opts: InformerOptions = {},
  ) {}

  informerFor(path: string): Informer {
    let inf = this.informers.get(path);
    if (!inf) {
      inf = new Informer(this.client, path, this.opts);
      this.informers.set(path, inf);
      // Informers asked for after start() run at once.
      if (this.signal && !this.signal.aborted) void inf.run(this.signal);
    }
    return inf;
  }

  start(signal: AbortSignal): void {
    this.signal = signal;
    for (const inf of this.informers.values()) void inf.run(signal);
  }

  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const results = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(signal)));
    return results.every(Boolean);
  }

  get paths(): string[] {
    return [...this.informers.keys()];
  }
}

/** The real daemon's resync choice: uniformly random between min and twice min. */
export function resyncPeriodMs(minMs: number, random: () => number = Math.random): number {
  return Math.round(minMs * (1 + random()));
}
