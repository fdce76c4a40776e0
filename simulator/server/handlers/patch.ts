// PATCH (spec 1.8, 4.1). Until the patch engine lands, every PATCH answers 415 listing the types to come.

import { unsupportedMediaType } from '../errors.ts';
import { PATCH_TYPES, essence } from '../media-types.ts';
import { header, type ApiResult, type ResourceRequest, type ServerContext } from '../context.ts';

export async function patch(_ctx: ServerContext, req: ResourceRequest): Promise<ApiResult> {
  throw unsupportedMediaType(essence(header(req, 'content-type')), [...PATCH_TYPES]);
}
