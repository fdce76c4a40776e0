// DELETE of one object (DeleteOptions, finalizers, graceful pod deletion) and of a collection (spec 4.2, 7).

import type { DeleteOptions, KubeObject, PropagationPolicy } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { collectionPrefix, objectKey } from '../../api/registry.ts';
import { canonicalObject } from '../../api/conversion.ts';
import type { StoredObject } from '../../storage/store.ts';
import { badRequest, conflict, invalid, invalidValue, notFound, notSupported, type FieldError } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { boolParam, groupResource, intParam, keyOf, nowTimestamp, present, storeErrorToApi, successStatus } from './common.ts';
import { compileSelectors } from './read.ts';

const POLICIES: PropagationPolicy[] = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body (JSON, YAML or protobuf; empty allowed) combined with the query parameters. */
export function readDeleteOptions(ctx: ServerContext, req: ResourceRequest): DeleteOptions {
  let opts: DeleteOptions = {};
  if (req.body && req.body.length > 0 && req.body.toString('utf8').trim() !== '') {
    const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf }) as Record<string, unknown>;
    if (raw.kind !== undefined && raw.kind !== 'DeleteOptions') throw badRequest(`the object provided is unrecognized (must be of type DeleteOptions): kind "${String(raw.kind)}"`);
    opts = raw as DeleteOptions;
  }
  const grace = intParam(req, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const orphan = boolParam(req, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const policy = req.query.propagationPolicy;
  if (policy !== undefined && policy !== '') opts.propagationPolicy = policy as PropagationPolicy;
  const errs: FieldError[] = [];
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds !== null) {
    if (typeof opts.gracePeriodSeconds !== 'number' || !Number.isInteger(opts.gracePeriodSeconds)) errs.push(invalidValue('gracePeriodSeconds', opts.gracePeriodSeconds, 'must be an integer'));
    else if (opts.gracePeriodSeconds < 0) errs.push(invalidValue('gracePeriodSeconds', opts.gracePeriodSeconds, 'must be greater than or equal to 0'));
  }
  if (opts.orphanDependents !== undefined && opts.orphanDependents !== null && opts.propagationPolicy !== undefined && opts.propagationPolicy !== null) {
    errs.push(invalidValue('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (opts.propagationPolicy !== undefined && opts.propagationPolicy !== null && !POLICIES.includes(opts.propagationPolicy)) {
    errs.push(notSupported('propagationPolicy', opts.propagationPolicy, POLICIES));
  }
  if (errs.length) throw invalid('DeleteOptions', '', '', errs);
  return opts;
}

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

/** Pods on a node go through graceful termination; unscheduled or finished pods go at once (real pod strategy). */
function gracePeriodFor(def: ResourceDef, obj: KubeObject, opts: DeleteOptions): number {
  if (def.kind !== 'Pod') return 0;
  const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  return opts.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
}

interface DeleteOutcome {
  deleted?: StoredObject;
  pending?: StoredObject;
}

async function deleteOne(ctx: ServerContext, def: ResourceDef, key: string, name: string, opts: DeleteOptions): Promise<DeleteOutcome> {
  let graceSeconds = 0;
  const out = await ctx.store.guaranteedUpdate(key, (cur) => {
    if (!cur) throw notFound(groupResource(def), name);
    const obj = cur.value;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== obj.metadata.uid) {
      throw conflict(groupResource(def), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid}`);
    }
    if (pre?.resourceVersion && pre.resourceVersion !== obj.metadata.resourceVersion) {
      throw conflict(groupResource(def), name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion}`);
    }
    const finalizers = finalizersAfter(def, obj.metadata.finalizers ?? [], opts);
    const nsFinalizers = def.kind === 'Namespace' ? ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []) : [];
    graceSeconds = gracePeriodFor(def, obj, opts);
    const existingGrace = obj.metadata.deletionGracePeriodSeconds;
    // A second delete may shorten the grace period, never lengthen it.
    if (existingGrace !== undefined && obj.metadata.deletionTimestamp) graceSeconds = Math.min(graceSeconds, existingGrace);
    if (finalizers.length === 0 && nsFinalizers.length === 0 && graceSeconds === 0) return null;
    const next: KubeObject = { ...obj, metadata: { ...obj.metadata } };
    const m = next.metadata;
    m.resourceVersion = '0';
    m.finalizers = finalizers.length ? finalizers : undefined;
    if (!finalizers.length) delete m.finalizers;
    const now = ctx.now();
    if (!m.deletionTimestamp || (existingGrace !== undefined && graceSeconds < existingGrace)) {
      m.deletionTimestamp = new Date(now.getTime() + graceSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      m.deletionGracePeriodSeconds = graceSeconds;
    }
    if (def.kind === 'Namespace') next.status = { ...(obj.status as object), phase: 'Terminating' };
    return canonicalObject(next);
  });
  if (out.deleted) return { deleted: out.deleted };
  const pending = out.result ?? (await ctx.store.get(key));
  if (pending && graceSeconds > 0) scheduleGracefulRemoval(ctx, def, key, pending, graceSeconds);
  return { pending };
}

/** Removes a gracefully deleted pod when its grace period ends, unless something else already did. */
function scheduleGracefulRemoval(ctx: ServerContext, def: ResourceDef, key: string, obj: StoredObject, seconds: number): void {
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
  void def;
}

export async function deleteObject(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const name = req.name!;
  const opts = readDeleteOptions(ctx, req);
  try {
    const outcome = await deleteOne(ctx, def, keyOf(req, name), name, opts);
    if (outcome.deleted) return { code: 200, object: successStatus(def, name, outcome.deleted.value.metadata.uid) };
    const code = opts.orphanDependents === false ? 202 : 200;
    return { code, object: present(def, outcome.pending!.value) };
  } catch (e) {
    storeErrorToApi(e, def, name);
  }
}

/** DELETE of a collection: every object of the namespace that matches the selectors. */
export async function deleteCollection(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const filter = compileSelectors(req);
  const opts = readDeleteOptions(ctx, req);
  const { items } = await ctx.store.list(collectionPrefix(def, req.namespace), { filter });
  for (const item of items) {
    const name = item.value.metadata.name!;
    try {
      await deleteOne(ctx, def, objectKey(def, item.value.metadata.namespace, name), name, { ...opts, preconditions: undefined });
    } catch (e) {
      // An object deleted concurrently is simply gone already.
      if ((e as { status?: { code?: number } }).status?.code !== 404) throw e;
    }
  }
  return { code: 200, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { ...(def.group ? { group: def.group } : {}), kind: def.resource }, code: 200 } };
}

export { nowTimestamp };
