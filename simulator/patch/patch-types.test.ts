import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PatchError, UnsupportedPatchTypeError } from './errors.ts';
import {
  applyPatch,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  PATCH_CONTENT_TYPES,
  PATCH_CONTENT_TYPES_WITHOUT_STRATEGIC,
  patchContentTypeOf,
  STRATEGIC_MERGE_PATCH_TYPE,
} from './patch-types.ts';
import { schemaFromObject } from './schema-builder.ts';

const schema = schemaFromObject('ConfigMap', {
  metadata: { fields: { finalizers: { type: 'array', elementType: 'string', patchStrategy: 'merge' } } },
  data: { type: 'map', elementType: 'string' },
});
const doc = { metadata: { name: 'c', finalizers: ['a'] }, data: { x: '1' } };

describe('patchContentTypeOf', () => {
  it('ignores parameters, case and surrounding space', () => {
    assert.equal(patchContentTypeOf('application/merge-patch+json; charset=utf-8'), MERGE_PATCH_TYPE);
    assert.equal(patchContentTypeOf(' Application/JSON-Patch+JSON '), JSON_PATCH_TYPE);
  });
  it('rejects other and absent types', () => {
    assert.equal(patchContentTypeOf('application/json'), undefined);
    assert.equal(patchContentTypeOf(undefined), undefined);
    assert.equal(patchContentTypeOf(STRATEGIC_MERGE_PATCH_TYPE, PATCH_CONTENT_TYPES_WITHOUT_STRATEGIC), undefined);
  });
});

describe('applyPatch', () => {
  it('dispatches each content type to its engine', () => {
    const body = '{"metadata":{"finalizers":["b"]}}';
    // Same body, different semantics: merge patch replaces the list, strategic merge unions it (a value new
    // to the list goes first, as the real server orders it).
    assert.deepEqual(applyPatch(MERGE_PATCH_TYPE, doc, body, schema), { ...doc, metadata: { name: 'c', finalizers: ['b'] } });
    assert.deepEqual(applyPatch(STRATEGIC_MERGE_PATCH_TYPE, doc, body, schema), { ...doc, metadata: { name: 'c', finalizers: ['b', 'a'] } });
    assert.deepEqual(applyPatch(`${JSON_PATCH_TYPE}; charset=utf-8`, doc, '[{"op":"replace","path":"/data/x","value":"2"}]', schema), { ...doc, data: { x: '2' } });
  });

  it('accepts a Buffer body', () => {
    assert.deepEqual(applyPatch(MERGE_PATCH_TYPE, doc, Buffer.from('{"data":null}'), schema), { metadata: doc.metadata });
  });

  it('accepts a Uint8Array view into a larger buffer', () => {
    const bytes = new TextEncoder().encode('xx{"data":{"y":"2"}}yy');
    assert.deepEqual(applyPatch(MERGE_PATCH_TYPE, doc, bytes.subarray(2, bytes.length - 2), schema), { ...doc, data: { x: '1', y: '2' } });
  });

  it('answers an unsupported type with the list of supported ones', () => {
    assert.throws(
      () => applyPatch('application/json', doc, '{}', schema),
      (err: unknown) => err instanceof UnsupportedPatchTypeError && err.contentType === 'application/json' && err.supported === PATCH_CONTENT_TYPES &&
        err.message === 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json',
    );
    assert.throws(
      () => applyPatch(STRATEGIC_MERGE_PATCH_TYPE, doc, '{}', undefined, { supported: PATCH_CONTENT_TYPES_WITHOUT_STRATEGIC }),
      (err: unknown) => err instanceof UnsupportedPatchTypeError && err.supported.length === 2,
    );
    assert.throws(() => applyPatch(undefined, doc, '{}', schema), UnsupportedPatchTypeError);
  });

  it('answers a body that is not JSON with 400 and the parser message', () => {
    for (const type of PATCH_CONTENT_TYPES) {
      assert.throws(
        () => applyPatch(type, doc, '{"a":', schema),
        (err: unknown) => err instanceof PatchError && err.code === 400 && err.reason === 'BadRequest' && /JSON/.test(err.message),
      );
      assert.throws(() => applyPatch(type, doc, '', schema), (err: unknown) => err instanceof PatchError && err.code === 400);
    }
  });

  it('passes engine errors through with their codes', () => {
    assert.throws(() => applyPatch(JSON_PATCH_TYPE, doc, '{}', schema), (err: unknown) => err instanceof PatchError && err.code === 400);
    assert.throws(() => applyPatch(JSON_PATCH_TYPE, doc, '[{"op":"test","path":"/data/x","value":"9"}]', schema), (err: unknown) => err instanceof PatchError && err.code === 422);
    assert.throws(() => applyPatch(STRATEGIC_MERGE_PATCH_TYPE, doc, '[]', schema), (err: unknown) => err instanceof PatchError && err.code === 400);
  });

  it('answers a patch nested deeper than the stack with 400, not a crash', () => {
    const depth = 200_000;
    const body = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    for (const type of [MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE]) {
      assert.throws(() => applyPatch(type, doc, body, schema), (err: unknown) => err instanceof PatchError && err.code === 400);
    }
  });

  it('does not modify the document', () => {
    const before = JSON.stringify(doc);
    applyPatch(STRATEGIC_MERGE_PATCH_TYPE, doc, '{"metadata":{"$deleteFromPrimitiveList/finalizers":["a"]},"data":{"x":null}}', schema);
    assert.equal(JSON.stringify(doc), before);
  });
});
