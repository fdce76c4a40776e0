// PATCH (spec 1.8, 4.1): JSON patch, merge patch and strategic merge patch on the main resource and on the
// status and scale subresources. The patch is applied to the current object inside the update path's
// read-modify-write (../registry/store.ts), so it never fails on optimistic locking unless the patch itself
// carries a stale metadata.resourceVersion (a precondition).

import type { KubeObject } from '../../api/meta.ts';
import { apiVersionOf } from '../../api/meta.ts';
import type { TypeSchema } from '../../api/schema.ts';
import { typeSchemaFor } from '../../codec/protobuf-schema.ts';
import { applyPatch, PatchError, UnsupportedPatchTypeError } from '../../patch/index.ts';
import type { JsonValue } from '../../util/json-value.ts';
import { updateResource } from '../registry/store.ts';
import type { UpdateTarget } from '../admission/attributes.ts';
import type { StoredObject } from '../../storage/store.ts';
import { ApiError, badRequest, unsupportedMediaType } from '../errors.ts';
import { essence } from '../media-types.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';
import { present } from './common.ts';
import { checkPatchedBody } from '../shape-check.ts';
import { checkScaleBody, scaleDefOf, scaleOf } from './scale.ts';
import { writeOptions, writeScale } from './write.ts';

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

function patched(req: ResourceRequest, current: KubeObject, schema: TypeSchema | undefined, shareUnchanged = false): KubeObject {
  let out: JsonValue;
  try {
    out = applyPatch(header(req, 'content-type'), current as unknown as JsonValue, req.body ?? Buffer.alloc(0), schema, { shareUnchanged });
  } catch (e) {
    if (e instanceof UnsupportedPatchTypeError) throw unsupportedMediaType(essence(header(req, 'content-type')), [...e.supported]);
    if (e instanceof PatchError) throw new ApiError(e.code, e.reason, e.message, e.code === 422 ? {} : undefined);
    throw e;
  }
  if (out === null || typeof out !== 'object' || Array.isArray(out)) throw badRequest('the patch produced something that is not an object');
  const obj = out as unknown as KubeObject;
  if (obj.metadata === null || typeof obj.metadata !== 'object') throw badRequest('the patch removed metadata');
  if (obj.apiVersion !== current.apiVersion) throw badRequest(`the API version in the data (${typeof obj.apiVersion === 'string' ? obj.apiVersion : JSON.stringify(obj.apiVersion)}) does not match the expected API version (${current.apiVersion})`);
  if (obj.kind !== current.kind) throw badRequest(`the object provided is unrecognized (must be of type ${current.kind}): kind ${JSON.stringify(obj.kind)}`);
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
  if (!PATCH_TYPES.includes(ct)) throw unsupportedMediaType(ct, PATCH_TYPES);
  // Custom resources have no Go type to carry patch strategies: strategic merge patch is refused (as the real server).
  if (def.customResourceDefinition && ct === 'application/strategic-merge-patch+json') throw unsupportedMediaType(ct, PATCH_TYPES.filter((t) => t !== ct));
  if (req.subresource === 'scale') {
    const schema = typeSchemaFor(scaleDefOf(def).apiVersion, 'Scale');
    return writeScale(ctx, req, (stored) => {
      const view = scaleOf(def, stored);
      const result = patched(req, view, schema);
      // The patch was computed against this revision; unless the patch set one itself, do not turn it into a precondition.
      if (result.metadata.resourceVersion === view.metadata.resourceVersion) delete result.metadata.resourceVersion;
      return checkScaleBody(def, name, result as unknown as Record<string, unknown>);
    });
  }
  const schema = typeSchemaFor(apiVersionOf(def), def.kind);
  const target: UpdateTarget = req.subresource === 'status' ? 'status' : req.subresource === 'approval' ? 'approval' : 'main';
  const out = await updateResource(ctx, {
    def, namespace: req.namespace, name, target,
    // A new object per attempt: the patch is applied to a deep copy of the current object.
    objInfoFresh: true,
    objInfo: patchedObjectOf.bind(undefined, req, schema, target === 'status' && apiVersionOf(def) === def.storageApiVersion),
    opts: writeOptions(req),
  });
  return { code: 200, object: present(def, out.object) };
}

/**
 * The update's objInfo: the current object with the request's patch applied, its shape checked. (Bound per
 * request rather than a closure: under tsx every named closure is wrapped in a naming helper when made.)
 *
 * `shareUnchanged` (a /status patch of a kind stored in the request's version, so that nothing converts the
 * result in place): a merge patch's result keeps the stored object's frozen members the patch does not reach
 * instead of a deep copy of the whole object, and the shape check passes over them (they were checked when
 * stored). The /status path only reads them (registry/store.ts nextForStatus takes the status and copies the top).
 */
function patchedObjectOf(req: ResourceRequest, schema: TypeSchema | undefined, shareUnchanged: boolean, cur: StoredObject): KubeObject {
  const body = patched(req, present(req.def, cur.value), schema, shareUnchanged);
  checkPatchedBody(req.def, body as unknown as Record<string, unknown>);
  return body;
}
