// The generic resource store: ONE create path, ONE update path and ONE delete path for every kind, the way the
// real API server's generic registry store (k8s.io/apiserver registry/generic/registry/store.go) runs each
// kind's strategy. The handlers decode the request (body, patch, Scale, DeleteOptions) and call these; what
// differs between kinds is in the kinds' strategies (simulator/api/strategy.ts, simulator/api/kinds/), never
// in a branch here. simulator/server/README.md draws the request flow.
//
// Update targets: the main resource (PUT, PATCH), /status (only status changes, spec 4.10.1), /scale (only
// spec.replicas changes) and /finalize (only spec.finalizers changes). All four run the same read-modify-write:
// precondition, the target's preparation, validation, admission, then `settle` (no-op writes are skipped, an
// object that nothing holds any more after its deletion was requested goes).
//
// Seams: `WriteOptions.dryRun` reaches every path and the admission attributes (the write points that honour it
// are marked "dryRun:"); `ServerContext.admission` hooks run before every write (quota, authorization...).

import type { DeleteOptions, KubeObject } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { objectKey, storageKey } from '../../api/registry.ts';
import { getStored, STORAGE_REFS } from './storage.ts';
import { generateName } from '../../api/names.ts';
import { canonicalObject } from '../../api/conversion.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/object-meta.ts';
import '../../api/kinds/index.ts';
import {
  type StrategyEnv, afterCreate, applyDefaults, beforeCreate, gracePeriodSeconds, holdingFinalizers, nothingHolds, prepareForCreate, prepareForDelete,
  prepareForStatusUpdate, prepareForUpdate, validateKind, validateKindUpdate, type Requester,
} from '../../api/strategy.ts';
import { StoreError, type StoredObject } from '../../storage/store.ts';
import { conflict, forbidden, invalid, invalidValue, notFound, type FieldError } from '../errors.ts';
import type { ServerContext } from '../context.ts';
import type { AdmissionAttributes, UpdateTarget } from '../admission/attributes.ts';
import { groupResource, initSystemMeta, selfLinkOf, toStored } from './system-meta.ts';
import { storeErrorToApi } from './store-errors.ts';
import { copyJson } from '../../util/json-value.ts';
import { int64Increment } from '../../util/int64-json.ts';

/** Options every write path takes. */
export interface WriteOptions {
  /** dryRun=All: run every step but the store write. Carried through; the write points are marked "dryRun:". */
  dryRun?: boolean;
  /** Who asks; strategies that record the requester (CertificateSigningRequest) read it on create. */
  user?: Requester;
}


type Modify = (current: StoredObject | undefined) => KubeObject | null | undefined | Promise<KubeObject | null | undefined>;

/**
 * The store's read-modify-write, or under dryRun the same decision taken on the current object without writing:
 * no revision is used and no watch event is sent. What a dry run answers carries the current resourceVersion (an
 * update) or none (a create), as the real dry-run storage answers.
 */
async function readModifyWrite(ctx: ServerContext, key: string, fn: Modify, dryRun: boolean): Promise<{ result?: StoredObject; deleted?: StoredObject }> {
  if (!dryRun) return ctx.store.guaranteedUpdate(key, fn);
  const cur = await ctx.store.get(key);
  const next = await fn(cur);
  if (next === undefined) return { result: cur };
  if (next === null) return { deleted: cur };
  return { result: dryRunStored(key, next, cur?.value.metadata.resourceVersion) };
}

/** An object a dry run would have stored, shaped like a stored one. */
function dryRunStored(key: string, obj: KubeObject, resourceVersion: string | undefined): StoredObject {
  const metadata = { ...obj.metadata, resourceVersion };
  if (resourceVersion === undefined) delete metadata.resourceVersion;
  return { key, value: canonicalObject({ ...obj, metadata }), modRevision: 0, createRevision: 0 };
}

/** What the kinds' create hooks use: under dryRun, service addresses are chosen but not taken. */
function strategyEnv(ctx: ServerContext, dryRun: boolean): StrategyEnv {
  return dryRun ? { serviceAddresses: ctx.serviceAddresses.dryRun() } : ctx;
}

async function admit(ctx: ServerContext, attrs: AdmissionAttributes): Promise<void> {
  // The mutating phase (LimitRanger's defaults, mutating webhooks) changes the object about to be stored in place;
  // 1.9 validates after it, so a changed object is validated again before the validating phase.
  if (attrs.object && ctx.mutatingAdmission?.length) {
    for (const hook of ctx.mutatingAdmission) {
      const pending = hook(attrs);
      if (pending) await pending;
    }
    if (attrs.mutated) throwIfInvalid(attrs.def, attrs.name, validateNew(attrs.def, attrs.object));
  }
  // Most hooks decide at once (undefined): a promise is awaited only when one is given.
  for (const hook of ctx.admission ?? []) {
    const pending = hook(attrs);
    if (pending) await pending;
  }
}

function throwIfInvalid(def: ResourceDef, name: string, errs: FieldError[]): void {
  if (errs.length > 0) throw invalid(def.kind, def.group, name, errs);
}

function validateNew(def: ResourceDef, obj: KubeObject): FieldError[] {
  return [...validateKind(obj, def), ...validateObjectMeta(def, obj.metadata)];
}

/** Writes into a namespace need it to exist and not be terminating. */
export async function checkNamespaceWritable(ctx: ServerContext, def: ResourceDef, namespace: string, name: string): Promise<void> {
  const ns = await namespaceOf(ctx, namespace);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if (ns.metadata.deletionTimestamp) {
    throw forbidden(groupResource(def), name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}

/**
 * The namespace as the real NamespaceLifecycle plugin finds it: from the namespace informer's cache
 * (object-cache.ts); from the store (a serializable read) when the cache does not have it (it may just have been
 * created through another server), is not synced yet, or saw it deleted lately (forceLiveLookup).
 */
async function namespaceOf(ctx: ServerContext, namespace: string): Promise<KubeObject | undefined> {
  const key = storageKey(STORAGE_REFS.namespaces, undefined, namespace);
  const cache = ctx.listers?.namespaces;
  const cached = cache?.get(key);
  if (cached && !cache!.recentlyDeleted(key)) return cached;
  return (await getStored(ctx, STORAGE_REFS.namespaces, undefined, namespace, { serializable: true }))?.value;
}

/** A new object, up to the point of storing it: system metadata, defaults, the kind's create preparation, validation. */
async function prepareNew(ctx: ServerContext, def: ResourceDef, namespace: string | undefined, obj: KubeObject, user?: Requester): Promise<void> {
  const name = obj.metadata.name ?? '';
  if (def.namespaced && namespace) await checkNamespaceWritable(ctx, def, namespace, name);
  initSystemMeta(ctx, def, obj);
  applyDefaults(obj, def);
  prepareForCreate(obj, def, user);
  throwIfInvalid(def, name, validateNew(def, obj));
}

// ---- create ----

/**
 * The create path (POST, and PUT of a missing object for kinds that allow it goes through `prepareNew` too).
 * `obj` is a private copy in the request's version with its namespace settled. Answers the stored object.
 */
export async function createResource(
  ctx: ServerContext,
  def: ResourceDef,
  namespace: string | undefined,
  obj: KubeObject,
  opts: WriteOptions = {},
): Promise<StoredObject> {
  const meta = obj.metadata;
  const explicitName = !!meta.name;
  if (!meta.name && meta.generateName && typeof meta.generateName === 'string') meta.name = generateName(meta.generateName);
  const dryRun = !!opts.dryRun;
  const env = strategyEnv(ctx, dryRun);
  await prepareNew(ctx, def, namespace, obj, opts.user);
  const hooks = beforeCreate(obj, def, env);
  if (hooks) await hooks;
  // generateName collisions are retried with a new suffix, as clients expect a unique name.
  for (let attempt = 0; ; attempt++) {
    try {
      const candidate = toStored(def, obj);
      await admit(ctx, { operation: 'CREATE', def, namespace, name: obj.metadata.name!, object: candidate, dryRun, user: opts.user });
      const key = objectKey(def, namespace, obj.metadata.name!);
      if (dryRun) {
        // dryRun: the create stops here, after the name was found free.
        if (await ctx.store.get(key)) throw new StoreError('KeyExists', `${key} exists`);
        return dryRunStored(key, candidate, undefined);
      }
      // The candidate is this request's own (decoded from its body, ordered by toStored): the store may keep it.
      return await ctx.store.create(key, candidate, { transfer: true });
    } catch (e) {
      if (e instanceof StoreError && e.code === 'KeyExists' && !explicitName && attempt < 5) {
        obj.metadata.name = generateName(obj.metadata.generateName!);
        obj.metadata.selfLink = selfLinkOf(def, obj.metadata.namespace, obj.metadata.name);
        continue;
      }
      await afterCreate(obj, def, false, env);
      storeErrorToApi(e, def, obj.metadata.name!);
    }
  }
}

// ---- update ----

export interface UpdateRequest {
  def: ResourceDef;
  namespace?: string;
  name: string;
  target: UpdateTarget;
  /**
   * The object the client asks for, given the current one (the real rest.UpdatedObjectInfo): a PUT answers its
   * body, a PATCH the patched current object. For the main resource and /status: the kind in the request's
   * version. For /scale: a Scale whose spec.replicas has been checked. For /finalize: the Namespace.
   * `current` is the stored object; present it in the request's version first if the caller needs to.
   */
  objInfo: (current: StoredObject) => KubeObject;
  /**
   * objInfo answers a new object of its own on every call, sharing nothing with `current` (a patch result): the
   * update path may then change it in place instead of copying it first.
   */
  objInfoFresh?: boolean;
  /** PUT of a missing object creates it from this body (kinds with allowCreateOnUpdate). */
  createIfMissing?: KubeObject;
  opts?: WriteOptions;
}

export interface UpdateOutcome {
  /** The object after the write (the stored one when nothing changed), in storage version. */
  object: KubeObject;
  created: boolean;
  /** The write removed the object (its finalizers were emptied after its deletion was requested). */
  deleted: boolean;
}

function checkPrecondition(def: ResourceDef, name: string, given: string | undefined, current: StoredObject): void {
  if (given !== undefined && given !== '' && given !== current.value.metadata.resourceVersion) throw conflict(groupResource(def), name);
}

/** Keeps system metadata from the stored object and bumps generation on spec changes. */
function carrySystemMeta(def: ResourceDef, next: KubeObject, old: KubeObject): void {
  const m = next.metadata;
  const o = old.metadata;
  m.uid = o.uid;
  m.creationTimestamp = o.creationTimestamp;
  m.selfLink = o.selfLink;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  delete m.resourceVersion;
  if (def.tracksGeneration) {
    const changed = !jsonEqual(next.spec, old.spec);
    const generation = o.generation ?? 1;
    // A BigInt beyond 2^53 (util/int64-json.ts), typed as the number it stands for.
    m.generation = changed ? (int64Increment(generation) as number) : generation;
  } else if (o.generation !== undefined) m.generation = o.generation;
  else delete m.generation;
}

/** Decides what an update writes: the new object, null (finalizers emptied on a deleting object) or no change. */
function settle(next: KubeObject, old: KubeObject, mayRemove: boolean): KubeObject | null | undefined {
  if (mayRemove && old.metadata.deletionTimestamp && !old.metadata.deletionGracePeriodSeconds && nothingHolds(next)) return null;
  if (sameStoredJson(next, old)) return undefined;
  return canonicalObject(next, '0');
}

/**
 * Whether two objects would store the same JSON apart from metadata.resourceVersion (as the real storage skips
 * a write whose bytes equal the stored ones): members whose value is undefined are absent, key order does not
 * matter. Subtrees the next object shares with the stored one compare by identity, without a walk.
 */
function sameStoredJson(next: KubeObject, old: KubeObject): boolean {
  const a = next as unknown as Record<string, unknown>;
  const b = old as unknown as Record<string, unknown>;
  return sameMembers(a, b, 'metadata') && sameMembers(next.metadata as Record<string, unknown>, old.metadata as Record<string, unknown>, 'resourceVersion');
}

/** Equal objects, not looking at member `skip`. */
function sameMembers(a: Record<string, unknown>, b: Record<string, unknown>, skip?: string): boolean {
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k) || k === skip || a[k] === undefined) continue;
    if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
    n++;
  }
  for (const k in b) if (Object.hasOwn(b, k) && k !== skip && b[k] !== undefined) n--;
  return n === 0;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // JSON writes an undefined element as null.
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  return sameMembers(a as Record<string, unknown>, b as Record<string, unknown>);
}

/**
 * Server-owned metadata of an update comes from the stored object, as the real validation's repair of
 * "malformed" updates does (RepairMalformedUpdates, on by default): creationTimestamp always (so a client's
 * "...:34.000Z" or "+00:00" form of it is never compared as text), an empty uid, a deletionTimestamp and a
 * deletionGracePeriodSeconds the stored object has, selfLink and generation. A different non-empty uid, or a
 * deletion timestamp the stored object lacks, is still refused by the update validation.
 */
function repairServerOwnedMeta(meta: KubeObject['metadata'], old: KubeObject['metadata']): void {
  if (old.creationTimestamp) meta.creationTimestamp = old.creationTimestamp;
  if (!meta.uid) meta.uid = old.uid;
  if (old.deletionTimestamp) meta.deletionTimestamp = old.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined && (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null))
    meta.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  if (old.selfLink !== undefined) meta.selfLink = old.selfLink;
  if (old.generation !== undefined) meta.generation = old.generation;
}

/** The main resource: defaults in the request's version, status kept (owned by /status), the kind's update rules. */
function nextForMain(def: ResourceDef, incoming: KubeObject, cur: StoredObject, fresh: boolean): KubeObject {
  const name = incoming.metadata.name ?? '';
  const old = cur.value;
  const body: KubeObject = { ...incoming, metadata: { ...incoming.metadata } };
  repairServerOwnedMeta(body.metadata, old.metadata);
  const metaErrs = validateObjectMetaUpdate(body.metadata, old.metadata);
  // Defaults and conversion change the object in place: a copy unless the caller made this one for this attempt.
  const inRequestVersion = fresh ? body : copyJson(body);
  applyDefaults(inRequestVersion, def);
  const next = toStored(def, inRequestVersion);
  prepareForUpdate(next, old, def);
  carrySystemMeta(def, next, old);
  throwIfInvalid(def, name, [...metaErrs, ...validateNew(def, next), ...validateKindUpdate(next, old, def)]);
  return next;
}

/** /status (spec 4.10.1): only status changes; metadata and spec come from the stored object. */
function nextForStatus(def: ResourceDef, body: KubeObject, cur: StoredObject, fresh: boolean): KubeObject {
  // Conversion changes the object in place: a copy unless the caller made this one for this attempt (a patch).
  const next = prepareForStatusUpdate(toStored(def, fresh ? body : copyJson(body)), cur.value, def);
  next.metadata.resourceVersion = '0';
  throwIfInvalid(def, body.metadata.name ?? '', validateNew(def, next));
  return next;
}

/** /scale: only spec.replicas changes (the Scale's replicas were checked by the caller). */
function nextForScale(def: ResourceDef, scale: KubeObject, cur: StoredObject): KubeObject {
  const old = cur.value;
  const next = copyJson(old) as KubeObject;
  // A stored spec that is not an object (nothing validated it yet) must not turn a scale write into a 500.
  const spec = next.spec !== null && typeof next.spec === 'object' && !Array.isArray(next.spec) ? (next.spec as Record<string, unknown>) : {};
  spec.replicas = (scale.spec as { replicas?: number } | undefined)?.replicas ?? 0;
  next.spec = spec;
  carrySystemMeta(def, next, old);
  return next;
}

const FINALIZER_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?(\/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

/** /finalize: only spec.finalizers changes. */
function nextForFinalize(def: ResourceDef, body: KubeObject, cur: StoredObject): KubeObject {
  const old = cur.value;
  const spec = (body.spec ?? {}) as { finalizers?: string[] };
  const next: KubeObject = { ...old, metadata: { ...old.metadata }, spec: { ...(old.spec as object), finalizers: spec.finalizers ?? [] } };
  delete next.metadata.resourceVersion;
  const fins = (next.spec as { finalizers?: unknown }).finalizers;
  const errs: FieldError[] = [];
  if (!Array.isArray(fins)) errs.push(invalidValue('spec.finalizers', fins, 'must be a list of strings'));
  else fins.forEach((f, i) => {
    if (typeof f !== 'string' || !FINALIZER_NAME.test(f))
      errs.push(invalidValue(`spec.finalizers[${i}]`, f, 'a qualified name must be a valid finalizer name'));
  });
  throwIfInvalid(def, body.metadata.name ?? '', errs);
  return next;
}

/**
 * /approval (certificatesigningrequests): only status.conditions changes — the approval is a decision about the
 * request, kept apart from issuing (status.certificate, written through /status) and from the request itself.
 */
function nextForApproval(def: ResourceDef, body: KubeObject, cur: StoredObject): KubeObject {
  const old = cur.value;
  const incoming = toStored(def, copyJson(body));
  const conditions = (incoming.status as { conditions?: unknown } | undefined)?.conditions;
  const status: Record<string, unknown> = { ...((old.status as object | undefined) ?? {}) };
  if (conditions === undefined || conditions === null) delete status.conditions;
  else status.conditions = conditions;
  const next: KubeObject = { ...old, metadata: { ...old.metadata }, status };
  delete next.metadata.resourceVersion;
  throwIfInvalid(def, body.metadata.name ?? '', [...validateNew(def, next), ...validateKindUpdate(next, old, def)]);
  return next;
}

const NEXT: Record<UpdateTarget, (def: ResourceDef, incoming: KubeObject, cur: StoredObject, fresh: boolean) => KubeObject> = {
  main: nextForMain,
  status: nextForStatus,
  scale: nextForScale,
  finalize: nextForFinalize,
  approval: nextForApproval,
};

/** The update path: PUT, PATCH, /status, /scale and /finalize. */
export async function updateResource(ctx: ServerContext, u: UpdateRequest): Promise<UpdateOutcome> {
  const { def, name, target } = u;
  const key = objectKey(def, u.namespace, name);
  const dryRun = !!u.opts?.dryRun;
  let created = false;
  try {
    const out = await readModifyWrite(ctx, key, async (cur) => {
      created = false;
      if (!cur) {
        if (!u.createIfMissing) throw notFound(groupResource(def), name);
        const obj = copyJson(u.createIfMissing);
        await prepareNew(ctx, def, u.namespace, obj, u.opts?.user);
        await beforeCreate(obj, def, strategyEnv(ctx, dryRun));
        const candidate = toStored(def, obj);
        await admit(ctx, { operation: 'CREATE', def, namespace: u.namespace, name, object: candidate, dryRun, user: u.opts?.user });
        created = true;
        // dryRun: the create-on-update stops here.
        return candidate;
      }
      const incoming = u.objInfo(cur);
      checkPrecondition(def, name, incoming.metadata.resourceVersion ?? undefined, cur);
      const next = NEXT[target](def, incoming, cur, !!u.objInfoFresh);
      // /finalize leaves the removal of a freed object to the delete below, so watchers see the change first.
      const settled = settle(next, cur.value, target !== 'finalize');
      if (settled !== undefined) {
        await admit(ctx, {
          operation: settled === null ? 'DELETE' : 'UPDATE',
          def,
          namespace: u.namespace,
          name,
          subresource: target === 'main' ? undefined : target,
          object: settled ?? undefined,
          oldObject: cur.value,
          dryRun,
          user: u.opts?.user,
        });
      }
      // dryRun: the update stops here (readModifyWrite does not write).
      return settled;
    }, dryRun);
    if (out.deleted) return { object: out.deleted.value, created: false, deleted: true };
    const result = out.result ?? (await ctx.store.get(key));
    if (!result) throw notFound(groupResource(def), name);
    const obj = result.value;
    // A terminating object that nothing holds any more goes, as the namespace controller's final delete would
    // make it: watchers see the finalize (MODIFIED), then DELETED.
    if (!dryRun && target === 'finalize' && obj.metadata.deletionTimestamp && nothingHolds(obj)) {
      await ctx.store.delete(key, { expectedRevision: Number(obj.metadata.resourceVersion) }).catch(() => undefined);
    }
    return { object: obj, created, deleted: false };
  } catch (e) {
    storeErrorToApi(e, def, name);
  }
}

// ---- delete ----

/** The finalizers an object gets from the delete options (spec 4.2: orphan; Foreground: foregroundDeletion). */
function finalizersAfter(def: ResourceDef, current: string[], opts: DeleteOptions): string[] {
  const set = new Set(current);
  let orphan: boolean | undefined;
  let foreground = false;
  if (opts.orphanDependents !== undefined && opts.orphanDependents !== null) orphan = opts.orphanDependents;
  else if (opts.propagationPolicy) {
    orphan = opts.propagationPolicy === 'Orphan';
    foreground = opts.propagationPolicy === 'Foreground';
  } else if (!set.has('orphan') && !set.has('foregroundDeletion') && def.defaultOrphan) orphan = true;
  if (orphan === true) {
    set.add('orphan');
    set.delete('foregroundDeletion');
  } else if (orphan === false) set.delete('orphan');
  if (foreground) {
    set.add('foregroundDeletion');
    set.delete('orphan');
  }
  if (opts.propagationPolicy === 'Background') set.delete('foregroundDeletion');
  return [...set];
}

export interface DeleteOutcome {
  /** The object removed from storage. */
  deleted?: StoredObject;
  /** The object kept, marked for deletion (finalizers or a grace period hold it). */
  pending?: StoredObject;
}

/** The delete path: preconditions, finalizers from the options, the kind's grace period, removal or marking. */
export async function deleteResource(
  ctx: ServerContext,
  def: ResourceDef,
  namespace: string | undefined,
  name: string,
  opts: DeleteOptions,
  wopts: WriteOptions = {},
): Promise<DeleteOutcome> {
  const key = objectKey(def, namespace, name);
  const dryRun = !!wopts.dryRun;
  let graceSeconds = 0;
  const out = await readModifyWrite(ctx, key, async (cur) => {
    if (!cur) throw notFound(groupResource(def), name);
    const obj = cur.value;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(groupResource(def), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(
        groupResource(def),
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`,
      );
    }
    await admit(ctx, { operation: 'DELETE', def, namespace, name, oldObject: obj, dryRun, user: wopts.user });
    const finalizers = finalizersAfter(def, obj.metadata.finalizers ?? [], opts);
    // A Number: an int64 grace period beyond 2^53 seconds (a BigInt, util/int64-json.ts) is rounded here, and the
    // deletion time is bounded by the last date a Date holds (Go's time.Duration would overflow long before).
    graceSeconds = Number(gracePeriodSeconds(obj, opts));
    const existingGrace = obj.metadata.deletionGracePeriodSeconds === undefined ? undefined : Number(obj.metadata.deletionGracePeriodSeconds);
    // A second delete may shorten the grace period, never lengthen it.
    if (existingGrace !== undefined && obj.metadata.deletionTimestamp) graceSeconds = Math.min(graceSeconds, existingGrace);
    // dryRun: the delete stops at the decision (readModifyWrite does not write).
    if (finalizers.length === 0 && holdingFinalizers(obj).length === 0 && graceSeconds === 0) return null;
    const next: KubeObject = { ...obj, metadata: { ...obj.metadata } };
    const m = next.metadata;
    m.resourceVersion = '0';
    m.finalizers = finalizers.length ? finalizers : undefined;
    if (!finalizers.length) delete m.finalizers;
    const now = ctx.now();
    if (!m.deletionTimestamp || (existingGrace !== undefined && graceSeconds < existingGrace)) {
      m.deletionTimestamp = new Date(Math.min(now.getTime() + graceSeconds * 1000, LAST_DATE_MS)).toISOString().replace(/\.\d{3}Z$/, 'Z');
      m.deletionGracePeriodSeconds = graceSeconds;
    }
    prepareForDelete(next, obj);
    return canonicalObject(next);
  }, dryRun);
  if (out.deleted) return { deleted: out.deleted };
  const pending = out.result ?? (await ctx.store.get(key));
  if (pending && graceSeconds > 0 && !dryRun) scheduleGracefulRemoval(ctx, key, pending, graceSeconds);
  return { pending: pending ?? undefined };
}

/** The last time a Date holds (8.64e15 ms after the epoch). */
const LAST_DATE_MS = 8.64e15;
/** The longest delay setTimeout keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Removes a gracefully deleted object when its grace period ends, unless something else already did. */
function scheduleGracefulRemoval(ctx: ServerContext, key: string, obj: StoredObject, seconds: number): void {
  // setTimeout fires at once beyond 2^31-1 ms (24.8 days): a longer grace period outlasts the process instead.
  if (seconds * 1000 > MAX_TIMER_MS) return;
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    void ctx.store
      .guaranteedUpdate(key, (cur) => {
        if (!cur || cur.value.metadata.uid !== obj.value.metadata.uid || !cur.value.metadata.deletionTimestamp) return undefined;
        if ((cur.value.metadata.finalizers ?? []).length > 0) {
          const next = { ...cur.value, metadata: { ...cur.value.metadata, deletionGracePeriodSeconds: 0 } };
          next.metadata.resourceVersion = '0';
          return next;
        }
        return null;
      })
      .catch(() => undefined);
  }, seconds * 1000);
  timer.unref();
  ctx.timers.add(timer);
}
