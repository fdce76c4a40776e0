// DELETE of one object and of a collection (spec 4.2, 7): the handlers read DeleteOptions and call the one delete
// path of the generic store (../registry/store.ts: finalizers, the kind's grace period, removal or marking).

import type { DeleteOptions, PropagationPolicy } from '../../api/meta.ts';
import { deleteResource } from '../registry/store.ts';
import { conflict, invalid, invalidValue, notSupported, type FieldError } from '../errors.ts';
import { decodeBody } from '../serializers.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { boolParam, checkBodyType, intParam, present, successStatus } from './common.ts';
import { groupResource, nowTimestamp } from '../registry/system-meta.ts';
import { storeErrorToApi } from '../registry/store-errors.ts';
import { writeOptions } from './write.ts';
import { compileSelectors } from './read.ts';
import { listStored } from '../registry/storage.ts';
import { isJsonInteger } from '../../util/int64-json.ts';

const POLICIES: PropagationPolicy[] = ['Orphan', 'Background', 'Foreground'];

/** DeleteOptions from the body (JSON, YAML or protobuf; empty allowed) combined with the query parameters. */
export function readDeleteOptions(ctx: ServerContext, req: ResourceRequest): DeleteOptions {
  let opts: DeleteOptions = {};
  if (req.body && req.body.length > 0 && req.body.toString('utf8').trim() !== '') {
    const raw = decodeBody(req.body, header(req, 'content-type'), { protobuf: ctx.protobuf }) as Record<string, unknown>;
    checkBodyType(raw, 'DeleteOptions');
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
    // An int64: beyond 2^53 a BigInt (util/int64-json.ts), which compares with 0 by value.
    if (!isJsonInteger(opts.gracePeriodSeconds)) errs.push(invalidValue('gracePeriodSeconds', opts.gracePeriodSeconds, 'must be an integer'));
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

export async function deleteObject(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const name = req.name!;
  const opts = readDeleteOptions(ctx, req);
  try {
    const outcome = await deleteResource(ctx, def, req.namespace, name, opts, writeOptions(req, opts.dryRun));
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
  const wopts = writeOptions(req, opts.dryRun);
  const { items } = await listStored(ctx, def, req.namespace, { filter });
  // The options apply to each item, preconditions included; a precondition that does not hold for one of them
  // fails the request before anything is deleted (409), rather than half-way through.
  const pre = opts.preconditions;
  for (const item of items) {
    const m = item.value.metadata;
    if ((pre?.uid && pre.uid !== m.uid) || (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion)) {
      const what = pre?.uid && pre.uid !== m.uid ? `UID in precondition: ${pre.uid}, UID in object meta: ${m.uid}` : `ResourceVersion in precondition: ${pre?.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`;
      throw conflict(groupResource(def), m.name ?? '', `Precondition failed: ${what}`);
    }
  }
  for (const item of items) {
    const name = item.value.metadata.name!;
    try {
      await deleteResource(ctx, def, item.value.metadata.namespace, name, opts, wopts);
    } catch (e) {
      // An object deleted concurrently is simply gone already.
      if ((e as { status?: { code?: number } }).status?.code !== 404) throw e;
    }
  }
  return { code: 200, object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { ...(def.group ? { group: def.group } : {}), kind: def.resource }, code: 200 } };
}

export { nowTimestamp };
