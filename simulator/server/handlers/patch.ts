// PATCH (spec 1.8, 4.1): JSON patch, merge patch and strategic merge patch on the main resource and on the
// status and scale subresources. A patch is applied to the current object inside the store's
// read-modify-write, so it never fails on optimistic locking unless the patch itself carries a stale
// metadata.resourceVersion (a precondition).

import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import type { TypeSchema } from '../../api/schema.ts';
import { typeSchemaFor } from '../../codec/protobuf-schema.ts';
import { applyPatch, PatchError, UnsupportedPatchTypeError } from '../../patch/index.ts';
import type { JsonValue } from '../../patch/json-value.ts';
import { ApiError, badRequest, notFound, unsupportedMediaType } from '../errors.ts';
import { essence } from '../media-types.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { groupResource, keyOf, present } from './common.ts';
import { checkPatchedBody } from '../shape-check.ts';
import { nextForStatus, nextForUpdate, scaleDefOf, scaleOf, writeScale, writeThroughParent } from './write.ts';

function patched(req: ResourceRequest, current: KubeObject, schema: TypeSchema | undefined): KubeObject {
  let out: JsonValue;
  try {
    out = applyPatch(header(req, 'content-type'), current as unknown as JsonValue, req.body ?? Buffer.alloc(0), schema);
  } catch (e) {
    if (e instanceof UnsupportedPatchTypeError) throw unsupportedMediaType(essence(header(req, 'content-type')), [...e.supported]);
    if (e instanceof PatchError) throw new ApiError(e.code, e.reason, e.message, e.code === 422 ? {} : undefined);
    throw e;
  }
  if (out === null || typeof out !== 'object' || Array.isArray(out)) throw badRequest('the patch produced something that is not an object');
  const obj = out as unknown as KubeObject;
  if (obj.metadata === null || typeof obj.metadata !== 'object') throw badRequest('the patch removed metadata');
  if (obj.apiVersion !== current.apiVersion) throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${current.apiVersion})`);
  if (obj.kind !== current.kind) throw badRequest(`the object provided is unrecognized (must be of type ${current.kind}): kind "${String(obj.kind)}"`);
  if (obj.metadata.name !== current.metadata.name) throw badRequest(`the name of the object (${String(obj.metadata.name ?? '')}) does not match the name on the URL (${current.metadata.name})`);
  if ((obj.metadata.namespace ?? '') !== (current.metadata.namespace ?? '')) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  return obj;
}

export async function patch(ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  const def = req.def;
  const name = req.name!;
  if (!req.body || req.body.length === 0) throw badRequest('the patch body is empty');
  // An unsupported type is refused before the object is read.
  const ct = essence(header(req, 'content-type'));
  if (!['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'].includes(ct)) {
    throw unsupportedMediaType(ct, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  }
  if (req.subresource === 'scale') {
    const scaleDef = scaleDefOf(def);
    const cur = await ctx.store.get(keyOf(req, name));
    if (!cur) throw notFound(groupResource(def), name);
    const view = scaleOf(def, cur.value);
    const result = patched(req, view, typeSchemaFor(scaleDef.apiVersion, 'Scale'));
    // The patch was computed against this revision; unless the patch set one itself, do not turn it into a precondition.
    if (result.metadata.resourceVersion === view.metadata.resourceVersion) delete result.metadata.resourceVersion;
    return writeScale(ctx, req, result as unknown as Record<string, unknown>, scaleDef);
  }
  const schema = typeSchemaFor(apiVersionOf(def), def.kind);
  return writeThroughParent(ctx, req, name, (cur) => {
    const current = present(def, cur.value);
    const body = patched(req, current, schema);
    checkPatchedBody(def, body as unknown as Record<string, unknown>);
    if (req.subresource === 'status') return nextForStatus(def, body, cur);
    return nextForUpdate(def, body, cur);
  });
}
