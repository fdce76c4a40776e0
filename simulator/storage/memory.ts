// The embedded storage backend: an in-process MVCC key-value store shaped after etcd (see README.md).
//
// Layout:
// - `index`: an ordered B+ tree (sorted-btree) from key to that key's recent versions (oldest first). A version is
//   either a StoredObject or a tombstone. Reading "key at revision R" = the newest version with modRevision <= R.
//   A range read starts with one O(log n) descent and then walks keys in order, so a chunk costs O(limit + log n).
// - `log`: one event per revision (every write is exactly one event), for watch replay and the history window.
//   Events reference the same frozen objects as the index, so history costs a small record per change, not a copy.
//
// Values are deep-frozen JSON copies: get/list/watch hand out the stored objects themselves (cheap reads) and
// callers must not mutate them (in strict-mode code an attempt throws a TypeError).

import sortedBtree from 'sorted-btree';
import type { KubeObject } from '../api/meta.ts';
import { integerOrNumber, isExactBigInt, parseJson, stringifyJson } from '../util/int64-json.ts';
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
  type CreateOptions,
} from './store.ts';

export interface MemoryStoreOptions {
  /** A revision stays servable while it is within the last `historyEvents` changes (default 1000)... */
  historyEvents?: number;
  /** ...or while the changes after it are younger than `historyAgeMs` (default 5 minutes). */
  historyAgeMs?: number;
  /**
   * Hard cap on retained changes, whatever their age, so a write burst cannot grow history without bound
   * (default max(historyEvents, 100000)).
   */
  historyMaxEvents?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
  /**
   * Start from this snapshot (snapshot()): its objects at their own revisions and its revision counter, so that
   * resourceVersions continue where the saved store stopped. History starts empty: a watch from a revision before
   * the snapshot's is Compacted (410), as after an etcd restore.
   */
  initial?: MemoryStoreSnapshot;
}

/** Every live object of a MemoryStore and its revision counter (`--snapshot-save`/`--snapshot-load`). */
export interface MemoryStoreSnapshot {
  revision: Revision;
  objects: { key: string; modRevision: Revision; createRevision: Revision; value: KubeObject }[];
}

interface Tombstone {
  readonly tombstone: true;
  readonly modRevision: Revision;
}

type Version = StoredObject | Tombstone;
/** One version is by far the common case; keep it unwrapped to save an array per key. */
type KeyVersions = Version | Version[];

interface Watcher {
  readonly prefix: string;
  readonly req: WatchRequest;
  /** The last revision this watcher has been shown (or skipped as not matching). */
  cursor: Revision;
  active: boolean;
}

// sorted-btree is CommonJS with an ES-style default export (`exports.default` beside `__esModule`). Node's ESM
// interop gives module.exports as the default import, so the class sits on `.default`; a CommonJS build of this
// file (the package's dist/*.cjs, or tsx in a "type": "commonjs" project) honours `__esModule` and gives the class
// itself. Both are taken, so that neither consumer gets "BTree is not a constructor".
const BTree = (typeof sortedBtree === 'function' ? sortedBtree : sortedBtree.default) as typeof sortedBtree.default;
type BTree<K, V> = InstanceType<typeof BTree<K, V>>;

const INITIAL_REVISION = 1; // etcd's empty store is at revision 1
const DEFAULT_HISTORY_EVENTS = 1000;
const DEFAULT_HISTORY_AGE_MS = 5 * 60 * 1000;
const DEFAULT_HISTORY_MAX_EVENTS = 100_000;

function isTombstone(v: Version): v is Tombstone {
  return (v as Tombstone).tombstone === true;
}

function newestOf(h: KeyVersions): Version {
  return Array.isArray(h) ? h[h.length - 1] : h;
}

/** The newest version with modRevision <= rev, if any. Version lists are short (bounded by the window). */
function versionAt(h: KeyVersions, rev: Revision): Version | undefined {
  if (!Array.isArray(h)) return h.modRevision <= rev ? h : undefined;
  for (let i = h.length - 1; i >= 0; i--) if (h[i].modRevision <= rev) return h[i];
  return undefined;
}

function liveAt(h: KeyVersions, rev: Revision): StoredObject | undefined {
  const v = versionAt(h, rev);
  return v === undefined || isTombstone(v) ? undefined : v;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    // Indexes and keys rather than Object.values: no array allocated per node of every stored object.
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) deepFreeze(v[i]);
    else for (const k in v) if (Object.hasOwn(v, k)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/**
 * The stored copy of a new object and its compact JSON. A JSON round trip (rather than structuredClone or a
 * hand-written walk) gives exactly what a byte-storing backend like etcd would give back, drops references into
 * the caller's memory, and V8's JSON.parse builds compact objects. (Measured: the one-walk copy below, used for
 * new objects too, saved about 5% of a create's CPU but cost 10% more RSS per stored object in a run under load:
 * an object built key by key keeps its properties out of line.)
 *
 * The revision is stamped before the text is made, so the text is the stored object's own JSON: the create hands
 * it back (StoredObject.json) and the server answers with it instead of encoding the object a second time.
 */
function newStoredCopy(obj: KubeObject, resourceVersion: Revision, transfer: boolean): { value: KubeObject; json: string } {
  checkStorable(obj);
  const meta = obj.metadata;
  // Copies by Object.assign, not spread: a transferred object keeps these two, and an object made by spread took
  // 400-650 bytes more on the heap than the same one made by Object.assign (measured: 100k ConfigMaps kept).
  const metadata = Object.assign({}, meta);
  metadata.resourceVersion = String(resourceVersion);
  const stamped: KubeObject = Object.assign({}, obj);
  stamped.metadata = metadata;
  let json: string;
  let copy: unknown;
  try {
    // int64 beyond 2^53 is a BigInt (util/int64-json.ts): JSON.stringify throws at the first one, and only such
    // an object pays for the lossless writer and reader; every other one is JSON.stringify and JSON.parse alone.
    let exact = false;
    try {
      json = JSON.stringify(stamped);
    } catch (err) {
      if (!(err instanceof TypeError)) throw err;
      json = stringifyJson(stamped);
      exact = true;
    }
    // A transferred object that is exactly what the copy would be is kept as it is: no second tree to build and
    // collect (about a fifth of a memory-store create's CPU).
    if (transfer && freezeOwned(stamped, 0)) return { value: stamped, json };
    copy = exact ? parseJson(json) : JSON.parse(json);
  } catch (err) {
    throw new TypeError(`store: the value is not representable as JSON: ${(err as Error).message}`);
  }
  // A toJSON member can turn metadata into anything.
  checkStorable(copy);
  return { value: deepFreeze(copy as KubeObject), json };
}

/** What every write stores: a JSON object with a metadata object. */
function checkStorable(v: unknown): asserts v is KubeObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new TypeError('store: the value must be a JSON object');
  const m = (v as KubeObject).metadata;
  if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new TypeError('store: the value must have a metadata object');
}

/**
 * Freezes a tree its caller gave up (CreateOptions.transfer) where it stands, if it is exactly what JSON.parse of
 * its text would build: plain objects and arrays, strings, finite numbers (not -0), booleans and null, no member
 * undefined, no hole, nothing reached twice and nothing frozen already (a frozen part is shared with something
 * else, a default constant or a stored object). Objects are frozen on the way in, so a second path to one is seen.
 * False when not: the caller gave the tree up, so the part frozen so far does not matter, and the store copies it.
 */
function freezeOwned(v: unknown, depth: number): boolean {
  if (typeof v !== 'object') return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) || isExactBigInt(v);
  if (v === null) return true;
  if (depth > MAX_SHARED_DEPTH || Object.isFrozen(v)) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    Object.freeze(v);
    for (let i = 0; i < v.length; i++) if (!freezeOwned(v[i], depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  Object.freeze(v);
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || !freezeOwned(x, depth + 1)) return false;
  }
  return true;
}

/**
 * The stored copy of a new version of a stored object, made by one walk beside the previous version
 * (`copyShared`): the same JSON values, every subtree equal to the previous version's taken from it, only what
 * changed allocated. An update then costs what it changed, not two passes over the whole object and a second
 * tree for the collector. Values a JSON walk would not reproduce exactly (toJSON, class instances, cycles) take
 * the round trip.
 */
function storedCopy(obj: KubeObject, resourceVersion: Revision, previous: KubeObject): KubeObject {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new TypeError('store: the value must be a JSON object');
  }
  if (typeof obj.metadata === 'object' && obj.metadata !== null && !Array.isArray(obj.metadata)) {
    try {
      const stamped = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(resourceVersion) } };
      return copyShared(stamped, previous, 0) as KubeObject;
    } catch (err) {
      if (!(err instanceof NotPlainJson)) throw err;
    }
  }
  let copy: unknown;
  try {
    copy = parseJson(stringifyJson(obj));
  } catch (err) {
    throw new TypeError(`store: the value is not representable as JSON: ${(err as Error).message}`);
  }
  checkStorable(copy);
  copy.metadata.resourceVersion = String(resourceVersion);
  return shareUnchanged(copy, previous) as KubeObject;
}

/** A value the sharing walk leaves to the JSON round trip. */
class NotPlainJson extends Error {}

const MAX_SHARED_DEPTH = 512;

/**
 * `v` as JSON would store it, frozen, sharing with `p` (the previous version at the same place) every part that
 * is equal: strings, and whole subtrees. undefined, functions and symbols are left out of objects and become null
 * in arrays, non-finite numbers become null and -0 becomes 0, as JSON.stringify writes them.
 */
function copyShared(v: unknown, p: unknown, depth: number): unknown {
  switch (typeof v) {
    case 'string':
      return v === p ? p : v;
    case 'number':
      if (!Number.isFinite(v)) return null;
      return v === 0 ? 0 : v;
    case 'boolean':
      return v;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      // As the JSON round trip reads it back: the same BigInt where a double cannot hold it, else a Number.
      return integerOrNumber(v.toString());
  }
  if (v === null) return null;
  // Only a stored (deep-frozen, already copied) subtree can be the previous version's own.
  if (v === p) return p;
  if (depth > MAX_SHARED_DEPTH) throw new NotPlainJson();
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) throw new NotPlainJson();
    const pa = Array.isArray(p) ? (p as unknown[]) : undefined;
    let same = pa !== undefined && pa.length === v.length;
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const c = copyShared(v[i], pa?.[i], depth + 1) ?? null;
      out[i] = c;
      if (same && c !== pa![i]) same = false;
    }
    return same ? pa : Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(v);
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw new NotPlainJson();
  const src = v as Record<string, unknown>;
  const po = typeof p === 'object' && p !== null && !Array.isArray(p) ? (p as Record<string, unknown>) : undefined;
  const out: Record<string, unknown> = {};
  let same = po !== undefined;
  let n = 0;
  for (const k of Object.keys(src)) {
    const had = po !== undefined && Object.hasOwn(po, k);
    const c = copyShared(src[k], had ? po[k] : undefined, depth + 1);
    if (c === undefined) continue;
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
    n++;
    if (same && (!had || c !== po[k])) same = false;
  }
  if (same && n !== Object.keys(po!).length) same = false;
  return same ? po : Object.freeze(out);
}

/**
 * Structural sharing between versions of one key (after the JSON round trip): every subtree of the new version
 * that equals the previous version's is replaced by the previous (frozen) one, and the result frozen. One pass,
 * O(size).
 */
function shareUnchanged(next: unknown, prev: unknown): unknown {
  // Equal strings are separate allocations: answering with the previous one lets the new one be collected.
  if (typeof next !== 'object' || next === null) return next === prev ? prev : next;
  if (typeof prev !== 'object' || prev === null || Array.isArray(next) !== Array.isArray(prev)) return deepFreeze(next);
  const n = next as Record<string, unknown>;
  const p = prev as Record<string, unknown>;
  const keys = Object.keys(n);
  let same = keys.length === Object.keys(p).length;
  for (const k of keys) {
    const v = shareUnchanged(n[k], p[k]);
    n[k] = v;
    if (v !== p[k]) same = false;
  }
  return same ? prev : Object.freeze(next);
}

/** A shallow re-stamp of a frozen object: only the top level and metadata are new; the rest is shared. */
function withResourceVersion(obj: KubeObject, rev: Revision): KubeObject {
  const metadata = Object.freeze({ ...obj.metadata, resourceVersion: String(rev) });
  return Object.freeze({ ...obj, metadata });
}

/** What a forRange callback answers to stop the walk. */
const STOP_RANGE = { break: true } as const;

/**
 * The least string greater than every string that starts with prefix (the prefix with its last code unit raised by
 * one), so that the keys under prefix are exactly those in [prefix, prefixEnd(prefix)); undefined when there is
 * none to make (an empty prefix, or one ending in U+FFFF).
 */
export function prefixEnd(prefix: string): string | undefined {
  if (prefix === '') return undefined;
  const last = prefix.charCodeAt(prefix.length - 1);
  return last === 0xffff ? undefined : prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

function restoredRevision(snapshot: MemoryStoreSnapshot): Revision {
  if (!Number.isInteger(snapshot.revision) || snapshot.revision < INITIAL_REVISION)
    throw new RangeError(`MemoryStore: snapshot revision must be an integer >= ${INITIAL_REVISION}, got ${snapshot.revision}`);
  if (!Array.isArray(snapshot.objects)) throw new RangeError('MemoryStore: snapshot objects must be a list');
  return snapshot.revision;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isPromiseLike<T>(v: unknown): v is PromiseLike<T> {
  return typeof v === 'object' && v !== null && typeof (v as PromiseLike<T>).then === 'function';
}

function positiveIntOption(name: string, v: number | undefined, dflt: number, allowZero: boolean): number {
  if (v === undefined) return dflt;
  if (!Number.isInteger(v) || v < (allowZero ? 0 : 1)) {
    throw new RangeError(`MemoryStore: ${name} must be an integer >= ${allowZero ? 0 : 1}, got ${v}`);
  }
  return v;
}

/**
 * Events by revision. Every revision after the floor has exactly one event, so lookup is an index computation.
 * Dropping from the front moves a head offset and reallocates only now and then (amortised O(1)).
 */
class EventLog {
  private events: (StoreEvent | undefined)[] = [];
  private times: number[] = [];
  private head = 0;
  /** Revision of the event at `head`. */
  firstRevision: Revision;

  constructor(firstRevision: Revision) {
    this.firstRevision = firstRevision;
  }

  get length(): number {
    return this.events.length - this.head;
  }

  push(ev: StoreEvent, time: number): void {
    this.events.push(ev);
    this.times.push(time);
  }

  at(rev: Revision): StoreEvent | undefined {
    const i = rev - this.firstRevision;
    return i < 0 || i >= this.length ? undefined : this.events[this.head + i];
  }

  /** The first revision whose event time is > t, or firstRevision + length when none. Times never decrease. */
  firstRevisionAfter(t: number): Revision {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return this.firstRevision + (lo - this.head);
  }

  /** Removes and returns the events with revision < rev. */
  dropBefore(rev: Revision): StoreEvent[] {
    const n = Math.min(Math.max(rev - this.firstRevision, 0), this.length);
    const dropped = this.events.slice(this.head, this.head + n) as StoreEvent[];
    for (let i = this.head; i < this.head + n; i++) this.events[i] = undefined;
    this.head += n;
    this.firstRevision += n;
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }
}

export class MemoryStore implements Store {
  private readonly index = new BTree<string, KeyVersions>(undefined, compareKeys);
  private revision: Revision;
  private readonly log: EventLog;
  private lastTime = -Infinity;
  private readonly watchers = new Set<Watcher>();
  private dispatching = false;
  private closed = false;

  private readonly historyEvents: number;
  private readonly historyAgeMs: number;
  private readonly historyMaxEvents: number;
  private readonly now: () => number;
  /** Physical compaction runs once this many revisions have fallen out of the window (amortises the pruning). */
  private readonly compactBatch: number;

  constructor(opts: MemoryStoreOptions = {}) {
    this.historyEvents = positiveIntOption('historyEvents', opts.historyEvents, DEFAULT_HISTORY_EVENTS, true);
    this.historyAgeMs = positiveIntOption('historyAgeMs', opts.historyAgeMs, DEFAULT_HISTORY_AGE_MS, true);
    this.historyMaxEvents = positiveIntOption(
      'historyMaxEvents',
      opts.historyMaxEvents,
      Math.max(this.historyEvents, DEFAULT_HISTORY_MAX_EVENTS),
      false,
    );
    this.now = opts.now ?? Date.now;
    this.compactBatch = Math.max(1, Math.min(1024, this.historyEvents >>> 2));
    this.revision = opts.initial ? restoredRevision(opts.initial) : INITIAL_REVISION;
    this.log = new EventLog(this.revision + 1);
    for (const o of opts.initial?.objects ?? []) {
      this.assertKey(o.key);
      if (this.index.get(o.key) !== undefined) throw new RangeError(`MemoryStore: snapshot holds key ${o.key} twice`);
      if (!(Number.isInteger(o.modRevision) && o.modRevision > INITIAL_REVISION && o.modRevision <= this.revision))
        throw new RangeError(`MemoryStore: snapshot key ${o.key} has modRevision ${o.modRevision} outside (1, ${this.revision}]`);
      if (!(Number.isInteger(o.createRevision) && o.createRevision > INITIAL_REVISION && o.createRevision <= o.modRevision))
        throw new RangeError(`MemoryStore: snapshot key ${o.key} has createRevision ${o.createRevision} outside (1, ${o.modRevision}]`);
      const { value } = newStoredCopy(o.value, o.modRevision, false);
      this.index.set(o.key, Object.freeze({ key: o.key, value, modRevision: o.modRevision, createRevision: o.createRevision }));
    }
  }

  /** Every live object at the current revision, and the revision counter (MemoryStoreOptions.initial takes it back). */
  snapshot(): MemoryStoreSnapshot {
    this.assertOpen();
    const objects: MemoryStoreSnapshot['objects'] = [];
    this.index.forEachPair((key, h) => {
      const v = newestOf(h);
      if (!isTombstone(v)) objects.push({ key, modRevision: v.modRevision, createRevision: v.createRevision, value: v.value });
    });
    return { revision: this.revision, objects };
  }

  currentRevision(): Revision {
    return this.revision;
  }

  /**
   * The oldest revision a list or watch can be served from: every change after it is still retained.
   * A change is retained while it is one of the last `historyEvents` changes OR younger than `historyAgeMs`
   * (and always at most `historyMaxEvents`). Computed from the rule, so it is exact even when no write has
   * triggered physical compaction yet.
   */
  oldestRevision(): Revision {
    const physicalFloor = this.log.firstRevision - 1;
    const byCount = this.revision - this.historyEvents;
    // A change is young while now - time < historyAgeMs.
    const byAge = this.log.firstRevisionAfter(this.clock() - this.historyAgeMs) - 1;
    const byCap = this.revision - this.historyMaxEvents;
    return Math.max(physicalFloor, Math.max(byCap, Math.min(byCount, byAge)));
  }

  async get(key: string, _opts?: ReadOptions): Promise<StoredObject | undefined> {
    return this.getSync(key);
  }

  getSync(key: string): StoredObject | undefined {
    this.assertOpen();
    const h = this.index.get(key);
    if (h === undefined) return undefined;
    const v = newestOf(h);
    return isTombstone(v) ? undefined : v;
  }

  async create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<StoredObject> {
    return this.createSync(key, obj, opts?.transfer === true);
  }

  async update(key: string, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject> {
    return this.updateSync(key, obj, opts);
  }

  async delete(key: string, opts?: WriteOptions): Promise<StoredObject> {
    return this.deleteSync(key, opts);
  }

  async guaranteedUpdate(
    key: string,
    fn: (current: StoredObject | undefined) => KubeObject | null | undefined | Promise<KubeObject | null | undefined>,
  ): Promise<{ result?: StoredObject; deleted?: StoredObject }> {
    for (;;) {
      this.assertOpen();
      const current = this.liveNow(key);
      const out = fn(current);
      // A synchronous fn leaves no gap for another write, so the common case never retries.
      const next = isPromiseLike<KubeObject | null | undefined>(out) ? await out : out;
      this.assertOpen();
      if (this.liveNow(key) !== current) continue; // someone wrote in between: read again and retry
      if (next === undefined) return current ? { result: current } : {};
      if (next === null) return current ? { deleted: this.deleteSync(key) } : {};
      const result = current
        ? this.updateSync(key, next, { expectedRevision: current.modRevision })
        : this.createSync(key, next);
      return { result };
    }
  }

  async list(prefix: string, req: ListRequest = {}): Promise<ListResult> {
    this.assertOpen();
    const rev = this.readableRevision(req.revision);
    const limit = req.limit && req.limit > 0 ? req.limit : Infinity;
    const filter = req.filter;
    const start = req.startKey !== undefined && req.startKey > prefix ? req.startKey : prefix;
    const items: StoredObject[] = [];
    let lastKey: string | undefined;
    let full = false;
    let more = false;
    // Called for each key from start on, in order; true: stop.
    const visit = (key: string, h: KeyVersions): boolean => {
      const live = liveAt(h, rev);
      if (live === undefined) return false;
      if (full) {
        // One more live key exists: the caller has to ask again. (It may not pass the filter; the spec allows a
        // final empty chunk, and checking it here could cost a scan of the rest.)
        more = true;
        return true;
      }
      if (filter && !filter(live.value)) return false;
      items.push(live);
      lastKey = key;
      if (items.length >= limit) full = true;
      return false;
    };
    const end = prefixEnd(prefix);
    if (end !== undefined) {
      // The keys under prefix are those in [prefix, end): the tree finds where they stop by a binary search per
      // leaf, so the walk reads no key's text, only each key's versions (at 100k objects a chunk's keys are
      // scattered in memory, and each one read is a cache miss).
      this.index.forRange(start, end, false, (key, h) => (visit(key, h) ? STOP_RANGE : undefined));
    } else {
      for (const [key, h] of this.index.entries(start)) if (!key.startsWith(prefix) || visit(key, h)) break;
    }
    return more ? { items, revision: rev, nextKey: lastKey + '\u0000' } : { items, revision: rev };
  }

  watch(prefix: string, req: WatchRequest): WatchHandle {
    this.assertOpen();
    let cursor = this.revision;
    if (req.fromRevision !== undefined) {
      if (!Number.isInteger(req.fromRevision) || req.fromRevision < 0) {
        throw new TypeError(`store: fromRevision must be a non-negative integer, got ${req.fromRevision}`);
      }
      const oldest = this.oldestRevision();
      if (req.fromRevision < oldest) {
        throw new StoreError(
          'Compacted',
          `revision ${req.fromRevision} has been compacted; the oldest retained revision is ${oldest}`,
          oldest,
        );
      }
      // A future fromRevision is allowed, as in etcd: the watcher simply waits for that revision.
      cursor = req.fromRevision;
    }
    const w: Watcher = { prefix, req, cursor, active: true };
    this.watchers.add(w);
    this.dispatch(); // replays history synchronously (or, if called from inside an onEvent, as part of that loop)
    return { stop: () => this.stopWatcher(w, undefined, false) };
  }

  /** Diagnostics for tests and benchmarks: walks the whole index, so not for hot paths. */
  stats(): { keys: number; versions: number; events: number; watchers: number } {
    let versions = 0;
    this.index.forEach((h) => {
      versions += Array.isArray(h) ? h.length : 1;
    });
    return { keys: this.index.size, versions, events: this.log.length, watchers: this.watchers.size };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.watchers]) this.stopWatcher(w, new StoreError('Closed', 'the store was closed'), true);
  }

  // ---- writes -------------------------------------------------------------------------------------------------

  private createSync(key: string, obj: KubeObject, transfer = false): StoredObject {
    this.assertOpen();
    this.assertKey(key);
    const h = this.index.get(key);
    if (h !== undefined && !isTombstone(newestOf(h))) {
      throw new StoreError('KeyExists', `key ${key} already exists`);
    }
    const rev = this.revision + 1;
    const { value, json } = newStoredCopy(obj, rev, transfer);
    const stored: StoredObject = Object.freeze({ key, value, modRevision: rev, createRevision: rev });
    this.commit(key, h, stored, { type: 'ADDED', key, revision: rev, object: value });
    // The text goes back to the writer only: the index keeps the object alone.
    return Object.freeze({ key, value, modRevision: rev, createRevision: rev, json });
  }

  private updateSync(key: string, obj: KubeObject, opts?: WriteOptions): StoredObject {
    this.assertOpen();
    const h = this.index.get(key);
    const prev = h === undefined ? undefined : newestOf(h);
    if (prev === undefined || isTombstone(prev)) throw new StoreError('NotFound', `key ${key} not found`);
    this.checkExpected(key, prev, opts);
    const rev = this.revision + 1;
    const stored: StoredObject = Object.freeze({
      key,
      value: storedCopy(obj, rev, prev.value),
      modRevision: rev,
      createRevision: prev.createRevision,
    });
    this.commit(key, h, stored, { type: 'MODIFIED', key, revision: rev, object: stored.value, prevObject: prev.value });
    return stored;
  }

  private deleteSync(key: string, opts?: WriteOptions): StoredObject {
    this.assertOpen();
    const h = this.index.get(key);
    const prev = h === undefined ? undefined : newestOf(h);
    if (prev === undefined || isTombstone(prev)) throw new StoreError('NotFound', `key ${key} not found`);
    this.checkExpected(key, prev, opts);
    const rev = this.revision + 1;
    const last = withResourceVersion(prev.value, rev);
    const tomb: Tombstone = Object.freeze({ tombstone: true, modRevision: rev });
    this.commit(key, h, tomb, { type: 'DELETED', key, revision: rev, object: last, prevObject: prev.value });
    return Object.freeze({ key, value: last, modRevision: rev, createRevision: prev.createRevision });
  }

  /** Appends the version and the event at the next revision, notifies watchers, then compacts if due. */
  private commit(key: string, h: KeyVersions | undefined, v: Version, ev: StoreEvent): void {
    this.revision = ev.revision;
    Object.freeze(ev);
    this.log.push(ev, this.clock());
    if (h === undefined) this.index.set(key, v);
    else if (Array.isArray(h)) h.push(v);
    else this.index.set(key, [h, v]);
    this.dispatch();
    this.maybeCompact();
  }

  private checkExpected(key: string, prev: StoredObject, opts?: WriteOptions): void {
    if (opts?.expectedRevision !== undefined && opts.expectedRevision !== prev.modRevision) {
      throw new StoreError(
        'Conflict',
        `key ${key} is at revision ${prev.modRevision}, not the expected ${opts.expectedRevision}`,
        prev.modRevision,
      );
    }
  }

  // ---- reads --------------------------------------------------------------------------------------------------

  private liveNow(key: string): StoredObject | undefined {
    const h = this.index.get(key);
    if (h === undefined) return undefined;
    const v = newestOf(h);
    return isTombstone(v) ? undefined : v;
  }

  private readableRevision(requested: Revision | undefined): Revision {
    if (requested === undefined) return this.revision;
    if (!Number.isInteger(requested) || requested < 0) {
      throw new TypeError(`store: revision must be a non-negative integer, got ${requested}`);
    }
    if (requested > this.revision) {
      throw new StoreError(
        'FutureRevision',
        `revision ${requested} is newer than the current revision ${this.revision}`,
        this.revision,
      );
    }
    const oldest = this.oldestRevision();
    if (requested < oldest) {
      throw new StoreError(
        'Compacted',
        `revision ${requested} has been compacted; the oldest retained revision is ${oldest}`,
        oldest,
      );
    }
    return requested;
  }

  // ---- history window -----------------------------------------------------------------------------------------

  /** Never decreases, so event times stay sorted even if the wall clock steps back. */
  private clock(): number {
    const t = this.now();
    if (t > this.lastTime) this.lastTime = t;
    return this.lastTime;
  }

  private maybeCompact(): void {
    // Replay and delivery read the log by revision; never drop events under a running dispatch loop.
    if (this.dispatching) return;
    const floor = this.log.firstRevision - 1;
    let upTo = this.oldestRevision();
    if (upTo - floor < this.compactBatch) return;
    // Every watcher is caught up after a dispatch; this guard only keeps that an invariant rather than a hope.
    for (const w of this.watchers) if (w.cursor < upTo) upTo = w.cursor;
    if (upTo > floor) this.compactTo(upTo);
  }

  /**
   * Drops the events up to `oldest` and, for each key they touched, the versions nobody can read any more:
   * everything older than the newest version at `oldest`, and that one too if it is a tombstone.
   */
  private compactTo(oldest: Revision): void {
    const dropped = this.log.dropBefore(oldest + 1);
    const touched = new Set<string>();
    for (const ev of dropped) touched.add(ev.key);
    for (const key of touched) {
      const h = this.index.get(key);
      if (h === undefined) continue;
      const versions = Array.isArray(h) ? h : [h];
      let keepFrom = 0;
      for (let i = versions.length - 1; i >= 0; i--) {
        if (versions[i].modRevision <= oldest) {
          keepFrom = isTombstone(versions[i]) ? i + 1 : i;
          break;
        }
      }
      const kept = keepFrom === 0 ? versions : versions.slice(keepFrom);
      if (kept.length === 0) this.index.delete(key);
      else if (kept.length === 1) this.index.set(key, kept[0]);
      else if (kept !== h) this.index.set(key, kept);
    }
  }

  // ---- watch delivery -----------------------------------------------------------------------------------------

  /**
   * Brings every watcher up to the current revision, in revision order. Re-entrant calls (a write or a new watch
   * made from inside an onEvent) return at once; the running loop picks up their events, so every watcher sees
   * every event exactly once and in order, and all of a write's events are out before its promise resolves.
   */
  private dispatch(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      let behind = true;
      while (behind) {
        behind = false;
        for (const w of this.watchers) {
          this.pump(w);
          if (w.active && w.cursor < this.revision) behind = true;
        }
      }
    } finally {
      this.dispatching = false;
    }
  }

  private pump(w: Watcher): void {
    while (w.active && w.cursor < this.revision) {
      const rev = w.cursor + 1;
      const ev = this.log.at(rev);
      w.cursor = rev;
      if (ev === undefined || !ev.key.startsWith(w.prefix)) continue;
      try {
        w.req.onEvent(ev);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.stopWatcher(w, new StoreError('Closed', `watch ended: its event handler threw: ${message}`), true);
      }
    }
  }

  private stopWatcher(w: Watcher, reason: StoreError | undefined, notify: boolean): void {
    if (!w.active) return;
    w.active = false;
    this.watchers.delete(w);
    if (notify && w.req.onClose) {
      try {
        w.req.onClose(reason);
      } catch {
        // A failing onClose must not break the store or the other watchers; there is nobody left to tell.
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreError('Closed', 'the store is closed');
  }

  private assertKey(key: string): void {
    if (typeof key !== 'string' || key === '') throw new TypeError('store: key must be a non-empty string');
  }
}
