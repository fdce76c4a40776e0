// The PATCH content types and the dispatcher the server calls: parse the body, pick the engine, apply.
import type { TypeSchema } from '../api/schema.ts';
import { badRequest, PatchError, UnsupportedPatchTypeError } from './errors.ts';
import { applyJsonPatch } from './json-patch.ts';
import type { JsonValue } from '../util/json-value.ts';
import { parseJson } from '../util/int64-json.ts';
import { applyMergePatch, applyMergePatchSharing } from './merge-patch.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

export const JSON_PATCH_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_TYPE = 'application/strategic-merge-patch+json';

export type PatchContentType = typeof JSON_PATCH_TYPE | typeof MERGE_PATCH_TYPE | typeof STRATEGIC_MERGE_PATCH_TYPE;

/** In the order the real server lists them in its 415 message. */
export const PATCH_CONTENT_TYPES: readonly PatchContentType[] = [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE];

/** What custom resources accept: strategic merge needs Go struct metadata they do not have. */
export const PATCH_CONTENT_TYPES_WITHOUT_STRATEGIC: readonly PatchContentType[] = [JSON_PATCH_TYPE, MERGE_PATCH_TYPE];

/** The media type of a Content-Type header without parameters, lower-cased; undefined when absent. */
export function patchContentTypeOf(header: string | undefined, supported: readonly PatchContentType[] = PATCH_CONTENT_TYPES): PatchContentType | undefined {
  if (header === undefined) return undefined;
  const mediaType = header.split(';')[0].trim().toLowerCase();
  return (supported as readonly string[]).includes(mediaType) ? (mediaType as PatchContentType) : undefined;
}

export interface ApplyPatchOptions {
  /** The patch types this resource accepts (default: all three). */
  supported?: readonly PatchContentType[];
  /**
   * A merge patch's result may share with `doc` the members the patch does not reach (applyMergePatchSharing):
   * for callers that never change those parts in place. The other types always answer a copy.
   */
  shareUnchanged?: boolean;
}

/**
 * Parses `patchBody` as the given Content-Type and applies it to `doc`. Throws UnsupportedPatchTypeError
 * (-> 415) for another type, PatchError (-> 400/422) for a body that does not parse or does not apply.
 */
export function applyPatch(
  contentType: string | undefined,
  doc: JsonValue,
  patchBody: Buffer | Uint8Array | string,
  schema: TypeSchema | undefined,
  options: ApplyPatchOptions = {},
): JsonValue {
  const supported = options.supported ?? PATCH_CONTENT_TYPES;
  const type = patchContentTypeOf(contentType, supported);
  if (type === undefined) throw new UnsupportedPatchTypeError(contentType ?? '', supported);
  const patch = parsePatchBody(patchBody);
  return withStackGuard((): JsonValue => {
    switch (type) {
      case JSON_PATCH_TYPE:
        return applyJsonPatch(doc, patch);
      case MERGE_PATCH_TYPE:
        return options.shareUnchanged ? applyMergePatchSharing(doc, patch) : applyMergePatch(doc, patch);
      case STRATEGIC_MERGE_PATCH_TYPE:
        return applyStrategicMergePatch(doc, patch, schema);
    }
  });
}

export function parsePatchBody(body: Buffer | Uint8Array | string): JsonValue {
  const text = typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    // int64 exact: an integer beyond 2^53 in a patch is a bigint, as in a body (util/int64-json.ts).
    return withStackGuard(() => parseJson(text) as JsonValue);
  } catch (err) {
    if (err instanceof PatchError) throw err;
    throw badRequest((err as Error).message);
  }
}

// The engines recurse over the document; a body nested deeply enough to exhaust the stack is the
// client's fault and must come back as 400, not crash the request.
function withStackGuard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof RangeError) throw badRequest('the patch is nested too deeply to be applied');
    throw err;
  }
}
