// get (one object) and list (collections, with selectors and chunking: spec 4.2, 4.3).

import type { KubeObject, KubeList } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import type { ResourceDef } from '../../api/registry.ts';
import { parseLabelSelector, matchesRequirements, SelectorParseError } from '../../api/labels.ts';
import { parseFieldSelector, bindFieldSelector, matchesFields } from '../../api/fields.ts';
import { selectableFieldsOf } from '../../api/kinds/field-selectors.ts';
import { StoreError, type StoredObject } from '../../storage/store.ts';
import { ContinueTokenError, decodeContinueToken, encodeContinueToken, queryHashOf } from '../../storage/continue-token.ts';
import { ApiError, badRequest, expired, notFound, timeout } from '../errors.ts';
import type { ApiResult, ResourceRequest, ServerContext } from '../context.ts';
import { boolParam, intParam, present } from './common.ts';
import { groupResource } from '../registry/system-meta.ts';
import { copyJson } from '../../util/json-value.ts';
import { collectionKey, currentRevision, getStored, getStoredNow, listStored, oldestRevision, readsNow } from '../registry/storage.ts';

export async function get(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  return answerGet(req, await getStored(ctx, req.def, req.namespace, req.name!));
}

/**
 * GET of one object from a store that reads synchronously (the memory store): the same answer as `get` with no
 * promise in between, so the response is written in the same turn as the request was read. undefined when the
 * store has no synchronous read.
 */
export function getNow(ctx: ServerContext, req: ResourceRequest): ApiResult | undefined {
  if (!readsNow(ctx)) return undefined;
  return answerGet(req, getStoredNow(ctx, req.def, req.namespace, req.name!));
}

function answerGet(req: ResourceRequest, cur: StoredObject | undefined): ApiResult {
  if (!cur) throw notFound(groupResource(req.def), req.name!);
  const obj = present(req.def, cur.value);
  const exportParam = boolParam(req, 'export');
  const exact = boolParam(req, 'exact');
  if (exportParam) return { code: 200, object: exported(req.def, obj, exact === true) };
  return { code: 200, object: obj };
}

/** export=true: strip what a user cannot set, keeping the namespace only for an exact export (spec 4.2). */
function exported(def: ResourceDef, obj: KubeObject, exact: boolean): KubeObject {
  const out = copyJson(obj) as KubeObject;
  const m = out.metadata;
  delete m.uid;
  delete m.selfLink;
  delete m.resourceVersion;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  delete m.generation;
  m.creationTimestamp = null;
  if (!exact) delete m.namespace;
  if (def.subresources.status && !exact) delete out.status;
  return out;
}

/** A compiled selector for one request: label and field requirements (400 when they do not parse). */
/** The matcher of a request without selectors (compileSelectors returns this very function, so callers can skip it). */
export const matchAll = (_obj: KubeObject): boolean => true;

export function compileSelectors(req: ResourceRequest): (obj: KubeObject) => boolean {
  try {
    const labels = parseLabelSelector(req.query.labelSelector);
    const fields = bindFieldSelector(parseFieldSelector(req.query.fieldSelector), selectableFieldsOf(req.def));
    if (labels.length === 0 && fields.length === 0) return matchAll;
    return (obj) => matchesRequirements(labels, obj.metadata.labels) && matchesFields(fields, obj);
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(e.message);
    throw e;
  }
}

/** resourceVersion query values are decimal revisions; anything else is 400 like the real server. */
export function parseResourceVersion(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  // Revisions are unsigned 64-bit integers on the wire; anything else is not a resource version.
  if (!/^\d{1,20}$/.test(v) || BigInt(v) > 0xffffffffffffffffn) throw badRequest(`invalid resource version: ${JSON.stringify(v)}`);
  return Number(v);
}

function listQueryHash(req: ResourceRequest): string {
  return queryHashOf({
    labelSelector: req.query.labelSelector,
    fieldSelector: req.query.fieldSelector,
    includeUninitialized: req.query.includeUninitialized,
    namespace: req.namespace,
    path: req.def.storageResource,
  });
}

async function waitForRevision(ctx: ServerContext, rv: number): Promise<void> {
  const deadline = Date.now() + ctx.settings.futureRevisionWaitMs;
  while (currentRevision(ctx) < rv) {
    if (Date.now() >= deadline) throw timeout(`Too large resource version: ${rv}, current: ${currentRevision(ctx)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function list(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const filter = compileSelectors(req);
  const limit = intParam(req, 'limit');
  // ListOptions is decoded whole before anything is read, as the real parameter codec does: a timeoutSeconds
  // that is no int64 is a 400 on a list too, not something to ignore (or to wait on a resourceVersion first).
  intParam(req, 'timeoutSeconds');
  const rvParam = req.query.resourceVersion;
  const requestedRv = parseResourceVersion(rvParam);
  const cont = req.query.continue;
  const prefix = collectionKey(def, req.namespace);
  let revision: number | undefined;
  let startKey: string | undefined;
  if (cont) {
    if (rvParam !== undefined && rvParam !== '' && rvParam !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    try {
      const decoded = decodeContinueToken(cont, { prefix, queryHash: listQueryHash(req), ttlMs: ctx.settings.continueTtlMs });
      revision = decoded.revision;
      startKey = decoded.startKey;
    } catch (e) {
      if (e instanceof ContinueTokenError) throw new ApiError(e.code, e.reason, e.message);
      throw e;
    }
    if (revision < oldestRevision(ctx)) {
      throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
  } else if (requestedRv !== undefined && requestedRv > 0) {
    // "At least as fresh as": the newest state serves it once the store has caught up.
    await waitForRevision(ctx, requestedRv);
  }
  let result;
  try {
    result = await listStored(ctx, def, req.namespace, { revision, startKey, limit: limit && limit > 0 ? limit : undefined, filter });
  } catch (e) {
    if (e instanceof StoreError && e.code === 'Compacted') {
      throw expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    throw e;
  }
  const sources = result.items.map((s) => present(def, s.value));
  const items = sources.map((o) => {
    // Items of a typed list carry no kind/apiVersion on the wire.
    const { kind: _k, apiVersion: _a, ...rest } = o;
    return rest as KubeObject;
  });
  const listObj: KubeList = {
    kind: `${def.kind}List`,
    apiVersion: apiVersionOf(def),
    metadata: { selfLink: req.path, resourceVersion: String(result.revision) },
    items,
  };
  if (result.nextKey !== undefined) {
    listObj.metadata.continue = encodeContinueToken({
      revision: result.revision,
      startKey: result.nextKey,
      prefix,
      issuedAt: Date.now(),
      queryHash: listQueryHash(req),
    });
  }
  return { code: 200, object: listObj, listSources: sources };
}
