// The registry's reads and its writes that bypass the kinds' strategies, the way the real registry's REST storage
// owns its storage.Interface: every server file reaches storage through these (or through store.ts's create,
// update and delete paths), naming a kind (a ResourceDef, or a StorageRef for the server's own objects), a
// namespace and a name; the key is made in one place (api/registry.ts storageKey). Only the authentication and
// authorization caches and the service address allocator, which sit below the registry and are handed the store
// at start, read storage themselves.

import type { KubeObject } from '../../api/meta.ts';
import { storageKey, type StorageRef } from '../../api/registry.ts';
import type { ListRequest, ListResult, ReadOptions, Store, StoredObject, WatchHandle, WatchRequest } from '../../storage/store.ts';

export { STORAGE_REFS, type StorageRef } from '../../api/registry.ts';

/** What the registry needs of the server: its store. */
export interface StorageHolder {
  store: Store;
}

/** A change to apply in a read-modify-write: the next object, null to delete, undefined to leave it. */
export type StorageModify = (current: StoredObject | undefined) => KubeObject | null | undefined | Promise<KubeObject | null | undefined>;

export function getStored(
  ctx: StorageHolder,
  ref: StorageRef,
  namespace: string | undefined,
  name: string,
  opts?: ReadOptions,
): Promise<StoredObject | undefined> {
  return ctx.store.get(storageKey(ref, namespace, name), opts);
}

/** Whether the store reads synchronously (the memory store): then `getStoredNow` answers in the same turn. */
export function readsNow(ctx: StorageHolder): boolean {
  return ctx.store.getSync !== undefined;
}

/** `getStored` without a promise; only where `readsNow` holds. */
export function getStoredNow(ctx: StorageHolder, ref: StorageRef, namespace: string | undefined, name: string): StoredObject | undefined {
  return ctx.store.getSync!(storageKey(ref, namespace, name));
}

/** The objects of a collection (every namespace when namespace is undefined). */
export function listStored(ctx: StorageHolder, ref: StorageRef, namespace: string | undefined, req?: ListRequest): Promise<ListResult> {
  return ctx.store.list(storageKey(ref, namespace), req);
}

export function watchStored(ctx: StorageHolder, ref: StorageRef, namespace: string | undefined, req: WatchRequest): WatchHandle {
  return ctx.store.watch(storageKey(ref, namespace), req);
}

/** The key a collection's watch events carry as prefix, for code that keys its own caches the same way. */
export function collectionKey(ref: StorageRef, namespace: string | undefined): string {
  return storageKey(ref, namespace);
}

/**
 * A read-modify-write of storage with no strategy (the real registry's direct storage writes: binding, rollback,
 * status a controller of the server writes, a quota's charge).
 */
export function updateStored(
  ctx: StorageHolder,
  ref: StorageRef,
  namespace: string | undefined,
  name: string,
  fn: StorageModify,
): Promise<{ result?: StoredObject; deleted?: StoredObject }> {
  return ctx.store.guaranteedUpdate(storageKey(ref, namespace, name), fn);
}

/** Stores an object the server makes itself (bootstrap objects), with no strategy. */
export function createStored(ctx: StorageHolder, ref: StorageRef, namespace: string | undefined, name: string, obj: KubeObject): Promise<StoredObject> {
  return ctx.store.create(storageKey(ref, namespace, name), obj);
}

/** Removes an object with no strategy (the instances of a deleted CRD). */
export function deleteStored(
  ctx: StorageHolder,
  ref: StorageRef,
  namespace: string | undefined,
  name: string,
  expectedRevision?: number,
): Promise<StoredObject> {
  return ctx.store.delete(storageKey(ref, namespace, name), expectedRevision === undefined ? undefined : { expectedRevision });
}

export function currentRevision(ctx: StorageHolder): number {
  return ctx.store.currentRevision();
}

export function oldestRevision(ctx: StorageHolder): number {
  return ctx.store.oldestRevision();
}

/** Whether other servers write the same storage (etcd): caches may then be behind. */
export function sharedStorage(ctx: StorageHolder): boolean {
  return !!ctx.store.shared;
}
