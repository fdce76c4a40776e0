// Public surface of the patch engines; see README.md.
export { PatchError, UnsupportedPatchTypeError, GENERIC_422_MESSAGE, SMP_MESSAGES, type PatchErrorCode } from './errors.ts';
export { applyJsonPatch, parseJsonPatch, type JsonPatchOperation } from './json-patch.ts';
export { applyMergePatch, applyMergePatchSharing, createMergePatch } from './merge-patch.ts';
export { applyStrategicMergePatch } from './strategic-merge.ts';
export { createStrategicMergePatch } from './strategic-diff.ts';
export {
  applyPatch,
  parsePatchBody,
  patchContentTypeOf,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
  PATCH_CONTENT_TYPES,
  PATCH_CONTENT_TYPES_WITHOUT_STRATEGIC,
  type PatchContentType,
  type ApplyPatchOptions,
} from './patch-types.ts';
export { schemaFromObject, type FieldDescription, type TypeDescription } from './schema-builder.ts';
export type { JsonValue, JsonObject } from '../util/json-value.ts';
