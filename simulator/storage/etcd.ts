// The etcd storage backend: the Store contract mapped one to one onto etcd v3 (see README.md "EtcdStore").
//
// - Revisions are etcd's: an object's resourceVersion is its key's mod_revision, a list's is the revision the
//   range was read at. Several simulators on one etcd therefore agree on every resourceVersion.
// - Writes are single transactions guarded by create_revision / mod_revision compares, so they are atomic across
//   every client of the etcd cluster, not just this process. Reads and writes are the store's own gRPC calls on
//   node:http2 (etcd-kv.ts; half the CPU of the etcd3 package's client, which stays for watches and for options
//   only it implements).
// - Watches are etcd watches (one stream each, see etcd-watch.ts) from fromRevision + 1 with prev_kv.
// - The history window is etcd compaction (etcd-compaction.ts); compactions made by others (another simulator,
//   etcd's --auto-compaction-*, etcdctl) are learned when a read or a watch runs into them.
//
// Differences from MemoryStore, by nature of a remote store: watch events arrive asynchronously (a write's promise
// may resolve before its event reaches a watcher; per watcher, order and completeness are the same), a watch from a
// revision compacted by someone else is refused through onClose (not by a synchronous throw), and
// guaranteedUpdate's "no change" answer is the object as read, without a second check that it is still current.

import { Etcd3, type IKeyValue, type IOptions, type IWatchResponse } from 'etcd3';
import type { KubeObject } from '../api/meta.ts';
import { compactionTarget, RevisionSamples, smallestReadable, type WindowPolicy } from './etcd-compaction.ts';
import { decodeStamped, decodeValue, encodeText, encodeValue, jsonWithResourceVersion, KeyMapper, prefixEnd, resourceVersionOffset, withResourceVersion } from './etcd-values.ts';
import { EtcdWatch } from './etcd-watch.ts';
import { Etcd3Kv, Http2Kv, type Compare, type EtcdKv, type Kv } from './etcd-kv.ts';
import {
  StoreError,
  type ListRequest,
  type ListResult,
  type Revision,
  type Store,
  type StoreEvent,
  type StoredObject,
  type WatchHandle,
  type WatchRequest,
  type WriteOptions,
  type ReadOptions,
} from './store.ts';

export interface EtcdStoreOptions {
  /** etcd client URLs, e.g. ['http://127.0.0.1:2379']. */
  servers: string[];
  /** The root every store key starts with (default "/registry", the simulator's key root). */
  root?: string;
  /** What replaces `root` in etcd keys (default "/registry", like the apiserver's --etcd-prefix). */
  prefix?: string;
  /** History window (as MemoryStore): changes kept by count (default 1000)... */
  historyEvents?: number;
  /** ...or by age (default 5 minutes). */
  historyAgeMs?: number;
  /**
   * How often to compact to the window (default: the window's age, at least 1 s and at most 5 min, like the
   * apiserver's 5-minute compaction). 0 = never: compaction is left to etcd (--auto-compaction-*) or to others.
   */
  compactIntervalMs?: number;
  /** Extra etcd3 client options (credentials, grpcOptions, ...). */
  client?: Omit<IOptions, 'hosts'>;
  /**
   * What carries reads and writes (etcd-kv.ts): 'http2', the store's own gRPC calls on node:http2 (half the CPU per
   * call), or 'etcd3', the etcd3 package's client. Default: 'http2' unless `client` asks for more than
   * `credentials` and `dialTimeout` (auth, deadlines, fault handling, grpc options), which only etcd3 does.
   * Watches always use the etcd3 client's gRPC streams.
   */
  kvClient?: 'http2' | 'etcd3';
  /** Clock in ms, for tests. */
  now?: () => number;
}

/** KV calls made to etcd, by kind (watches are streams, not counted here). */
export interface EtcdCallCounts {
  range: number;
  txn: number;
  compact: number;
}

const DEFAULT_HISTORY_EVENTS = 1000;
const DEFAULT_HISTORY_AGE_MS = 5 * 60 * 1000;
/** Page size cap when a filter forces more ranges than asked for (the apiserver's maxLimit). */
const MAX_BATCH = 10_000;
/** currentRevision() asks etcd for a fresh header at most this often (only while someone keeps asking). */
const REFRESH_EVERY_MS = 20;

interface ActiveWatch {
  /** undefined until the store is ready. */
  etcd: EtcdWatch | undefined;
  req: WatchRequest;
  active: boolean;
}

function isCompactedError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

function isFutureRevisionError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

function nonNegativeInt(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`EtcdStore: ${name} must be an integer >= 0, got ${v}`);
  return v;
}

export class EtcdStore implements Store {
  readonly shared = true;
  readonly client: Etcd3;
  /** Which client carries reads and writes (the `kvClient` option, or what it defaulted to). */
  readonly kvClient: 'http2' | 'etcd3';
  private readonly kv: EtcdKv;
  private readonly calls: EtcdCallCounts = { range: 0, txn: 0, compact: 0 };
  private readonly keys: KeyMapper;
  private readonly policy: WindowPolicy;
  private readonly compactIntervalMs: number;
  private readonly now: () => number;
  private readonly samples = new RevisionSamples();
  private revision = 0;
  private compactRevision = 1;
  private closed = false;
  private readonly watches = new Set<ActiveWatch>();
  private compactTimer: NodeJS.Timeout | undefined;
  private refreshing = false;
  private lastRefresh = 0;
  private learning: Promise<number> | undefined;
  private readonly readyPromise: Promise<void>;

  constructor(opts: EtcdStoreOptions) {
    if (!opts.servers || opts.servers.length === 0) throw new RangeError('EtcdStore: at least one etcd server URL is needed');
    this.keys = new KeyMapper(opts.root ?? '/registry', opts.prefix ?? '/registry');
    this.policy = {
      historyEvents: nonNegativeInt('historyEvents', opts.historyEvents, DEFAULT_HISTORY_EVENTS),
      historyAgeMs: nonNegativeInt('historyAgeMs', opts.historyAgeMs, DEFAULT_HISTORY_AGE_MS),
    };
    this.compactIntervalMs = nonNegativeInt(
      'compactIntervalMs',
      opts.compactIntervalMs,
      Math.min(5 * 60_000, Math.max(1000, this.policy.historyAgeMs)),
    );
    this.now = opts.now ?? Date.now;
    this.client = new Etcd3({ ...opts.client, hosts: opts.servers });
    const http2Enough = Object.keys(opts.client ?? {}).every((k) => k === 'credentials' || k === 'dialTimeout');
    const kvClient = opts.kvClient ?? (http2Enough ? 'http2' : 'etcd3');
    if (kvClient !== 'http2' && kvClient !== 'etcd3') throw new RangeError(`EtcdStore: kvClient must be http2 or etcd3, got ${String(kvClient)}`);
    this.kvClient = kvClient;
    const kv: EtcdKv =
      kvClient === 'etcd3'
        ? new Etcd3Kv(this.client)
        : new Http2Kv({ servers: opts.servers, credentials: opts.client?.credentials, dialTimeout: opts.client?.dialTimeout });
    const calls = this.calls;
    this.kv = {
      range: (req) => (calls.range++, kv.range(req)),
      txn: (compare, success, failure) => (calls.txn++, kv.txn(compare, success, failure)),
      compact: (rev) => (calls.compact++, kv.compact(rev)),
      close: () => kv.close(),
    };
    this.readyPromise = this.init();
    this.readyPromise.catch(() => undefined); // reported by ready() and by every operation, not as unhandled
  }

  /** etcd calls made so far, by kind (for tests and the bench: what one API request costs in round trips). */
  callCounts(): EtcdCallCounts {
    return { ...this.calls };
  }

  /** Resolves once the store knows etcd's revision and compact revision; rejects when etcd cannot be reached. */
  ready(): Promise<void> {
    return this.readyPromise;
  }

  private async init(): Promise<void> {
    await this.refreshRevision();
    this.compactRevision = await this.findCompactRevision(1);
    this.samples.record(this.now(), this.revision);
    if (this.compactIntervalMs > 0) {
      this.compactTimer = setInterval(() => void this.compactNow().catch(() => undefined), this.compactIntervalMs);
      this.compactTimer.unref(); // compaction never keeps the process alive
    }
  }

  // ---- revisions ------------------------------------------------------------------------------------------------

  /**
   * The newest etcd revision this store has seen: from every response header and every watch response and, while
   * callers keep asking (the server polls it to wait for a future resourceVersion), from a background header read
   * at most every 20 ms, which catches writes by others (another simulator, etcdctl) within that time of being
   * asked.
   *
   * There is deliberately no watch over the whole key root to follow others' writes as they happen: etcd would
   * send every write's full value (and previous value) to each store on it, a second gRPC message per write for
   * the server to decode, and one more send per store for etcd (the etcd bench, with its two stores beside the
   * server's, made every HTTP create three sends). Nothing needs the revision between requests: the watch cache
   * and HTTP watches start from a list's revision or a given resourceVersion, and a wait for a future one polls this.
   */
  currentRevision(): Revision {
    const t = Date.now();
    if (!this.refreshing && !this.closed && this.revision > 0 && t - this.lastRefresh >= REFRESH_EVERY_MS) {
      this.lastRefresh = t;
      this.refreshing = true;
      this.refreshRevision()
        .catch(() => undefined)
        .finally(() => {
          this.refreshing = false;
        });
    }
    return this.revision;
  }

  /** The oldest revision a list can be read at (etcd's compact revision as far as this store knows it). */
  oldestRevision(): Revision {
    return this.compactRevision;
  }

  private observeRevision(rev: number): void {
    if (rev > this.revision) this.revision = rev;
  }

  private async refreshRevision(): Promise<void> {
    // A count-only range over nothing: the cheapest request that returns a header.
    const res = await this.kv.range({ key: Buffer.from([0]), countOnly: true });
    this.observeRevision(res.revision);
  }

  /** etcd's compact revision, found from `lo` upward (see smallestReadable); shared by concurrent callers. */
  private findCompactRevision(lo: number): Promise<number> {
    if (!this.learning) {
      this.learning = (async () => {
        await this.refreshRevision();
        const rev = await smallestReadable(lo, this.revision, async (r) => {
          try {
            await this.kv.range({ key: Buffer.from([0]), countOnly: true, revision: r });
            return true;
          } catch (err) {
            if (isCompactedError(err)) return false;
            throw err;
          }
        });
        this.compactRevision = Math.max(this.compactRevision, rev);
        return this.compactRevision;
      })().finally(() => {
        this.learning = undefined;
      });
    }
    return this.learning;
  }

  /** For a read etcd refused as compacted: learn how far the compaction went (someone else may have made it). */
  private async compactedError(requested: number): Promise<StoreError> {
    await this.findCompactRevision(this.compactRevision).catch(() => undefined);
    return this.compactedNow(requested);
  }

  // ---- compaction -----------------------------------------------------------------------------------------------

  /**
   * Compacts to the history window now (the timer calls this every compactIntervalMs). Returns the compact
   * revision afterwards. Compacting to a revision someone else already compacted past is not an error: the store
   * learns the newer compact revision instead.
   */
  async compactNow(): Promise<Revision> {
    await this.ready();
    this.assertOpen();
    await this.refreshRevision();
    const now = this.now();
    this.samples.record(now, this.revision);
    this.samples.dropBefore(now - this.policy.historyAgeMs);
    const target = compactionTarget(this.policy, this.samples, now, this.revision);
    if (target !== undefined && target > this.compactRevision) await this.compactTo(target);
    return this.compactRevision;
  }

  /** Compacts etcd's history up to `rev` (reads at `rev` still work, older ones fail). */
  async compactTo(rev: Revision): Promise<void> {
    await this.ready();
    this.assertOpen();
    try {
      this.observeRevision(await this.kv.compact(rev));
      this.compactRevision = Math.max(this.compactRevision, rev);
    } catch (err) {
      if (!isCompactedError(err)) throw err;
      await this.findCompactRevision(Math.max(this.compactRevision, rev));
    }
  }

  // ---- reads ----------------------------------------------------------------------------------------------------

  private stored(key: string, kv: Kv): StoredObject {
    const modRevision = kv.modRevision;
    return Object.freeze({ key, value: decodeValue(kv.value, modRevision), modRevision, createRevision: kv.createRevision });
  }

  async get(key: string, opts?: ReadOptions): Promise<StoredObject | undefined> {
    await this.begin();
    const res = await this.kv.range({ key: this.keys.toEtcd(key), serializable: opts?.serializable });
    this.observeRevision(res.revision);
    return res.kvs.length ? this.stored(key, res.kvs[0]) : undefined;
  }

  async list(prefix: string, req: ListRequest = {}): Promise<ListResult> {
    await this.begin();
    if (req.revision !== undefined) {
      if (!Number.isInteger(req.revision) || req.revision < 0) {
        throw new TypeError(`store: revision must be a non-negative integer, got ${req.revision}`);
      }
      // Revision 0 means "current" to etcd; to the contract it is a revision before any history.
      if (req.revision < 1) throw await this.compactedError(req.revision);
    }
    const etcdPrefix = this.keys.prefixToEtcd(prefix);
    const end = prefixEnd(etcdPrefix);
    let start = req.startKey !== undefined && req.startKey > prefix ? this.keys.toEtcd(req.startKey) : etcdPrefix;
    const limit = req.limit && req.limit > 0 ? req.limit : 0;
    const filter = req.filter;
    const items: StoredObject[] = [];
    let revision = req.revision;
    let batch = limit;
    for (;;) {
      let res;
      try {
        // Every page after the first reads at the first page's revision: one consistent snapshot.
        res = await this.kv.range({ key: start, rangeEnd: end, revision: revision ?? 0, limit: batch, serializable: req.serializable });
      } catch (err) {
        throw await this.translateReadError(err, revision ?? 0);
      }
      this.observeRevision(res.revision);
      revision ??= res.revision;
      for (let i = 0; i < res.kvs.length; i++) {
        const kv = res.kvs[i];
        const item = this.stored(this.keys.fromEtcd(kv.key), kv);
        if (filter && !filter(item.value)) continue;
        items.push(item);
        if (limit && items.length >= limit) {
          // Another key under the prefix exists (matching or not): the caller has to ask again, as in MemoryStore.
          const more = i < res.kvs.length - 1 || res.more;
          return more ? { items, revision, nextKey: item.key + '\u0000' } : { items, revision };
        }
      }
      if (!limit || !res.more) return { items, revision };
      // The filter dropped items: read on from after the last key, in growing pages (as the apiserver does).
      start = Buffer.concat([res.kvs[res.kvs.length - 1].key, Buffer.from([0])]);
      batch = Math.min(batch * 2, MAX_BATCH);
    }
  }

  private async translateReadError(err: unknown, requested: number): Promise<unknown> {
    if (isCompactedError(err)) return this.compactedError(requested);
    if (isFutureRevisionError(err)) {
      await this.refreshRevision().catch(() => undefined);
      return new StoreError('FutureRevision', `revision ${requested} is newer than the current revision ${this.revision}`, this.revision);
    }
    return err;
  }

  // ---- writes ---------------------------------------------------------------------------------------------------

  async create(key: string, obj: KubeObject): Promise<StoredObject> {
    await this.begin();
    const k = this.keys.toEtcd(key);
    const text = encodeText(obj);
    const value = Buffer.from(text, 'utf8');
    // Measured now: the caller may change obj once this returns to it.
    const rvAt = resourceVersionOffset(obj);
    const res = await this.kv.txn([{ key: k, target: 'create', result: 'equal', revision: 0 }], [{ put: { key: k, value } }]);
    this.observeRevision(res.revision);
    if (!res.succeeded) throw new StoreError('KeyExists', `key ${key} already exists`);
    const rev = res.revision;
    // The answer's JSON (StoredObject.json) is the stored text with resourceVersion spliced in: the server sends it
    // as is instead of encoding the object again, and the object is that text decoded.
    const json = jsonWithResourceVersion(text, rvAt, rev);
    if (json === undefined) return Object.freeze({ key, value: decodeValue(text, rev), modRevision: rev, createRevision: rev });
    return Object.freeze({ key, value: decodeStamped(json), modRevision: rev, createRevision: rev, json });
  }

  async update(key: string, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    await this.begin();
    const k = this.keys.toEtcd(key);
    const text = encodeText(obj);
    const value = Buffer.from(text, 'utf8');
    const res = await this.kv.txn(this.existsAt(k, opts?.expectedRevision), [{ put: { key: k, value, prevKv: true } }], [{ range: { key: k } }]);
    this.observeRevision(res.revision);
    if (!res.succeeded) throw this.writeFailure(key, res.responses[0]?.range ?? [], opts?.expectedRevision);
    const rev = res.revision;
    const prev = res.responses[0].putPrev!;
    return Object.freeze({ key, value: decodeValue(text, rev), modRevision: rev, createRevision: prev.createRevision });
  }

  async delete(key: string, opts?: WriteOptions): Promise<StoredObject> {
    await this.begin();
    const k = this.keys.toEtcd(key);
    const res = await this.kv.txn(this.existsAt(k, opts?.expectedRevision), [{ deleteRange: { key: k, prevKv: true } }], [{ range: { key: k } }]);
    this.observeRevision(res.revision);
    if (!res.succeeded) throw this.writeFailure(key, res.responses[0]?.range ?? [], opts?.expectedRevision);
    return this.deletedFrom(key, res.responses[0].deletedPrev![0], res.revision);
  }

  async guaranteedUpdate(
    key: string,
    fn: (current: StoredObject | undefined) => KubeObject | null | undefined | Promise<KubeObject | null | undefined>,
  ): Promise<{ result?: StoredObject; deleted?: StoredObject }> {
    let current = await this.get(key);
    const k = this.keys.toEtcd(key);
    for (;;) {
      const next = await fn(current);
      this.assertOpen();
      if (next === undefined) return current ? { result: current } : {};
      if (next === null && !current) return {};
      const value = next === null ? undefined : encodeValue(next);
      // Compare-and-swap on what fn saw; on failure the Else branch hands back the fresh state for the retry.
      const res = await this.kv.txn(
        current
          ? [{ key: k, target: 'mod', result: 'equal', revision: current.modRevision }]
          : [{ key: k, target: 'create', result: 'equal', revision: 0 }],
        [value === undefined ? { deleteRange: { key: k, prevKv: true } } : { put: { key: k, value } }],
        [{ range: { key: k } }],
      );
      this.observeRevision(res.revision);
      if (!res.succeeded) {
        const kvs = res.responses[0]?.range ?? [];
        current = kvs.length ? this.stored(key, kvs[0]) : undefined;
        continue;
      }
      const rev = res.revision;
      if (value === undefined) return { deleted: this.deletedFrom(key, res.responses[0].deletedPrev![0], rev) };
      return {
        result: Object.freeze({ key, value: decodeValue(value, rev), modRevision: rev, createRevision: current?.createRevision ?? rev }),
      };
    }
  }

  /** Compares for update/delete: the key exists (and, for compare-and-swap, is at the expected revision). */
  private existsAt(k: Buffer, expected: number | undefined): Compare[] {
    const cmp: Compare[] = [{ key: k, target: 'create', result: 'greater', revision: 0 }];
    if (expected === undefined) return cmp;
    return [...cmp, { key: k, target: 'mod', result: 'equal', revision: expected }];
  }

  private writeFailure(key: string, kvs: Kv[], expected: number | undefined): StoreError {
    if (kvs.length === 0) return new StoreError('NotFound', `key ${key} not found`);
    const at = kvs[0].modRevision;
    return new StoreError('Conflict', `key ${key} is at revision ${at}, not the expected ${expected}`, at);
  }

  private deletedFrom(key: string, prev: Kv, rev: number): StoredObject {
    const value = decodeValue(prev.value, rev);
    return Object.freeze({ key, value, modRevision: rev, createRevision: prev.createRevision });
  }

  // ---- watch ----------------------------------------------------------------------------------------------------

  watch(prefix: string, req: WatchRequest): WatchHandle {
    this.assertOpen();
    let from = this.revision;
    if (req.fromRevision !== undefined) {
      if (!Number.isInteger(req.fromRevision) || req.fromRevision < 0) {
        throw new TypeError(`store: fromRevision must be a non-negative integer, got ${req.fromRevision}`);
      }
      if (req.fromRevision < this.compactRevision) throw this.compactedNow(req.fromRevision);
      from = req.fromRevision;
    }
    const w: ActiveWatch = { req, active: true, etcd: undefined };
    this.watches.add(w);
    if (this.revision > 0) this.startWatch(w, prefix, from);
    else {
      // Not connected yet: "from now" means from the revision etcd reports once it is.
      this.readyPromise.then(
        () => {
          if (!w.active) return;
          const start = req.fromRevision ?? this.revision;
          if (start < this.compactRevision) this.endWatch(w, this.compactedNow(start));
          else this.startWatch(w, prefix, start);
        },
        (err: Error) => this.endWatch(w, new StoreError('Closed', `watch ended: ${err.message}`)),
      );
    }
    return { stop: () => this.stopWatch(w) };
  }

  private compactedNow(requested: number): StoreError {
    const oldest = this.compactRevision;
    return new StoreError('Compacted', `revision ${requested} has been compacted; the oldest retained revision is ${oldest}`, oldest);
  }

  private startWatch(w: ActiveWatch, prefix: string, fromRevision: number): void {
    const etcdPrefix = this.keys.prefixToEtcd(prefix);
    w.etcd = new EtcdWatch({
      client: this.client.watchClient,
      key: etcdPrefix,
      rangeEnd: prefixEnd(etcdPrefix),
      // etcd's watch from revision R includes R; the contract's excludes fromRevision.
      startRevision: fromRevision + 1,
      onHeader: (rev) => this.observeRevision(rev),
      onEvents: (res) => this.deliver(w, res),
      onCompacted: (rev) => {
        this.compactRevision = Math.max(this.compactRevision, rev);
        this.endWatch(w, this.compactedNow(fromRevision));
      },
      onFailed: (err) => this.endWatch(w, err instanceof StoreError ? err : new StoreError('Closed', `watch ended: ${err.message}`)),
    });
  }

  private deliver(w: ActiveWatch, res: IWatchResponse): void {
    for (const ev of res.events) {
      if (!w.active) return;
      const rev = Number(ev.kv.mod_revision);
      this.observeRevision(rev);
      const event = this.toEvent(ev.type, ev.kv, ev.prev_kv ?? undefined, rev);
      try {
        w.req.onEvent(event);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw new StoreError('Closed', `watch ended: its event handler threw: ${message}`);
      }
    }
  }

  private toEvent(type: string, kv: IKeyValue, prevKv: IKeyValue | undefined, rev: number): StoreEvent {
    const key = this.keys.fromEtcd(kv.key);
    const prevObject = prevKv ? decodeValue(prevKv.value, Number(prevKv.mod_revision)) : undefined;
    if (type === 'Put') {
      const object = decodeValue(kv.value, rev);
      // etcd has no "create" event: a put whose create_revision is its own revision made the key.
      if (kv.create_revision === kv.mod_revision) return { type: 'ADDED', key, revision: rev, object };
      return prevObject ? { type: 'MODIFIED', key, revision: rev, object, prevObject } : { type: 'MODIFIED', key, revision: rev, object };
    }
    if (!prevObject) {
      // etcd could not give the deleted value (compacted under the watch): the watcher must relist.
      throw new StoreError('Compacted', `the value deleted at revision ${rev} is no longer available`, this.compactRevision);
    }
    return { type: 'DELETED', key, revision: rev, object: withResourceVersion(prevObject, rev), prevObject };
  }

  private stopWatch(w: ActiveWatch): void {
    if (!w.active) return;
    w.active = false;
    this.watches.delete(w);
    w.etcd?.stop();
  }

  private endWatch(w: ActiveWatch, reason: StoreError): void {
    if (!w.active) return;
    this.stopWatch(w);
    try {
      w.req.onClose?.(reason);
    } catch {
      // A failing onClose must not break the store; there is nobody left to tell.
    }
  }

  // ---- life cycle -----------------------------------------------------------------------------------------------

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.compactTimer);
    for (const w of [...this.watches]) this.endWatch(w, new StoreError('Closed', 'the store was closed'));
    this.kv.close();
    this.client.close();
  }

  /** Every operation waits for init and refuses to run on a closed store. */
  private async begin(): Promise<void> {
    this.assertOpen();
    await this.readyPromise;
    this.assertOpen();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
  }
}
