// The storage contract (simulator/storage/README.md, "The Store contract"). It is shaped after etcd's key-value API so that
// an etcd backend maps onto it one to one: one global revision, mod revisions per key, range reads at a
// revision, watch from a revision, compaction.

import type { KubeObject } from '../api/meta.ts';

/** One global, monotonically increasing counter; an object's resourceVersion is the revision of its last write. */
export type Revision = number;

export interface StoredObject {
  key: string;
  /** The object as stored, with metadata.resourceVersion equal to String(modRevision). Never mutate it. */
  value: KubeObject;
  modRevision: Revision;
  createRevision: Revision;
  /**
   * The compact JSON of `value` (JSON.stringify's text, no newline), when the store made it on the way: the
   * memory store's create does, for its copy. Only on what a write returns, never kept beside the stored object
   * (it would double what the store holds); the server answers with it instead of encoding the object again.
   */
  json?: string;
}

export interface ListRequest {
  /** Read the snapshot at this revision; undefined = the current revision. */
  revision?: Revision;
  /** First key to return (inclusive); keys are compared as strings. */
  startKey?: string;
  /** Maximum number of items that pass `filter`; undefined or 0 = no limit. */
  limit?: number;
  /** Items failing the filter are skipped and do not count toward the limit. */
  filter?: (obj: KubeObject) => boolean;
  /** See ReadOptions.serializable. */
  serializable?: boolean;
}

export interface ReadOptions {
  /**
   * The read may be answered by the store's local state without a consensus round (etcd's serializable read:
   * every acknowledged write of a single member, possibly behind on a follower of a cluster). For the checks the
   * real server answers from its informer caches (does the namespace exist, which quotas apply), where waiting
   * behind every write in flight would triple a create's cost. Ignored by the memory store (always current).
   */
  serializable?: boolean;
}

export interface ListResult {
  items: StoredObject[];
  /** The revision the snapshot was read at. */
  revision: Revision;
  /** Set when more matching items may exist after the returned ones: the key to continue from (inclusive). */
  nextKey?: string;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  key: string;
  revision: Revision;
  /** The object after the change; for DELETED the last state with resourceVersion = the deletion revision. */
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  prevObject?: KubeObject;
}

export interface WatchHandle {
  /** Stops delivery; idempotent. */
  stop(): void;
}

export interface WatchRequest {
  /** Deliver every change with revision > fromRevision, in order. undefined = only live changes from now. */
  fromRevision?: Revision;
  onEvent(event: StoreEvent): void;
  /** Called once when the store ends the watch (e.g. the watcher fell too far behind, or the store closed). */
  onClose?(reason: StoreError | undefined): void;
}

export type StoreErrorCode =
  | 'KeyExists' // create of a key that exists
  | 'NotFound' // update/delete/get of a missing key
  | 'Conflict' // compare-and-swap failed
  | 'Compacted' // revision older than the retained history (list at revision, watch from revision)
  | 'FutureRevision' // revision newer than the store's current one
  | 'Closed';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For Compacted: the oldest revision still held. For FutureRevision: the current revision. */
    readonly revision?: Revision,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface WriteOptions {
  /** Compare-and-swap: fail with Conflict unless the key's modRevision equals this. */
  expectedRevision?: Revision;
}

export interface CreateOptions {
  /**
   * The caller gives the object up: nothing else refers to it or any part of it, and the caller never reads or
   * changes it again. A store may then keep it as it is (frozen) instead of a copy, when it is exactly what a
   * copy would be (the memory store checks; anything else is copied as usual). The server's create path does
   * this with the object it decoded from the request. A store that serializes (etcd) ignores it.
   */
  transfer?: boolean;
}

export interface Store {
  /**
   * True when other processes write to and compact the same data (etcd shared by several API servers): this
   * process's view of the oldest revision may then be stale, so a cache in front of the store must ask the store
   * itself for any revision in the past rather than answer from what it saw.
   */
  readonly shared?: boolean;
  /** The store's current revision (the revision of the last write, or the initial revision). */
  currentRevision(): Revision;
  /** The oldest revision a list or watch can still be served from. */
  oldestRevision(): Revision;

  get(key: string, opts?: ReadOptions): Promise<StoredObject | undefined>;
  /**
   * The same read answered at once, by stores that hold their data in this process (the memory store); absent
   * elsewhere. The API server then answers a GET of one object without a promise in between.
   */
  getSync?(key: string): StoredObject | undefined;
  /** Fails with KeyExists. Sets metadata.resourceVersion on the stored copy. */
  create(key: string, obj: KubeObject, opts?: CreateOptions): Promise<StoredObject>;
  /** Fails with NotFound or Conflict. */
  update(key: string, obj: KubeObject, opts?: WriteOptions): Promise<StoredObject>;
  /** Fails with NotFound or Conflict. Returns the deleted object with resourceVersion = the deletion revision. */
  delete(key: string, opts?: WriteOptions): Promise<StoredObject>;
  /**
   * Atomic read-modify-write: calls `fn` with the current object (undefined when missing) and writes what it
   * returns (undefined = no change, null = delete). Retries on concurrent writes; throws what fn throws.
   */
  guaranteedUpdate(
    key: string,
    fn: (current: StoredObject | undefined) => KubeObject | null | undefined | Promise<KubeObject | null | undefined>,
  ): Promise<{ result?: StoredObject; deleted?: StoredObject }>;

  /** Keys starting with prefix, in key order, as of req.revision. Fails with Compacted / FutureRevision. */
  list(prefix: string, req?: ListRequest): Promise<ListResult>;
  /** Fails with Compacted (synchronously thrown) when fromRevision is older than the retained history. */
  watch(prefix: string, req: WatchRequest): WatchHandle;

  close(): Promise<void>;
}
