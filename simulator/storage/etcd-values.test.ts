// etcd-values.ts: the answer's JSON a create splices together (resourceVersion put into the stored text) is exactly
// the JSON of the object a read decodes from the stored bytes, whatever the members' order and values.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KubeObject } from '../api/meta.ts';
import { stringifyJson } from '../util/int64-json.ts';
import { decodeStamped, decodeValue, encodeText, jsonWithResourceVersion, resourceVersionOffset } from './etcd-values.ts';

/** The create's two results for obj at revision rev: the spliced JSON (or undefined) and what a read decodes. */
function both(obj: KubeObject, rev: number): { json: string | undefined; read: KubeObject } {
  const text = encodeText(obj);
  return { json: jsonWithResourceVersion(text, resourceVersionOffset(obj), rev), read: decodeValue(text, rev) };
}

test('a canonical object gets its answer JSON spliced, equal to encoding what a read decodes', () => {
  const obj = {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name: 'a', namespace: 'ns', selfLink: '/api/v1/namespaces/ns/configmaps/a', uid: 'u-1', resourceVersion: '0', creationTimestamp: 't', labels: { 'x"y': 'é\u2028' } },
    data: { k: 'v\n"' },
  } as KubeObject;
  const { json, read } = both(obj, 12345678901);
  assert.equal(json, JSON.stringify(read));
  assert.deepEqual(decodeStamped(json!), read);
  assert.ok(Object.isFrozen(decodeStamped(json!).metadata), 'the decoded object is frozen, as every stored one');
});

test('resourceVersion last in metadata, or a toJSON deciding: no splice (the create encodes as before)', () => {
  const last = { kind: 'X', metadata: { name: 'a', uid: 'u' } } as KubeObject;
  assert.equal(both(last, 7).json, undefined);
  const custom = { kind: 'X', metadata: { name: 'a', labels: {} }, toJSON: () => ({ kind: 'Y', metadata: { name: 'b' } }) } as unknown as KubeObject;
  assert.equal(both(custom, 7).json, undefined);
});

test('property: any member order and values, the splice is the JSON of what a read decodes, or nothing', () => {
  const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null), fc.constant(undefined));
  const jsonValue = fc.oneof(scalar, fc.dictionary(fc.string(), fc.string()), fc.array(fc.integer()));
  const metaKey = fc.oneof(fc.constantFrom('name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'labels', 'creationTimestamp', 'annotations'), fc.string());
  const topKey = fc.oneof(fc.constantFrom('kind', 'apiVersion', 'spec', 'status', 'data'), fc.string());
  fc.assert(
    fc.property(
      fc.array(fc.tuple(topKey, jsonValue), { maxLength: 5 }),
      fc.array(fc.tuple(metaKey, jsonValue), { maxLength: 8 }),
      fc.nat({ max: 5 }),
      fc.integer({ min: 1, max: 2 ** 50 }),
      (topMembers, metaMembers, metaAt, rev) => {
        const metadata: Record<string, unknown> = {};
        for (const [k, v] of metaMembers) if (k !== '__proto__') metadata[k] = v;
        const obj: Record<string, unknown> = {};
        topMembers.forEach(([k, v], i) => {
          if (i === metaAt) obj.metadata = metadata;
          if (k !== '__proto__' && k !== 'metadata') obj[k] = v;
        });
        obj.metadata = metadata;
        const { json, read } = both(obj as unknown as KubeObject, rev);
        // stringifyJson: an integer beyond 2^53 reads back as a BigInt (util/int64-json.ts), written with the same digits.
        if (json !== undefined) assert.equal(json, stringifyJson(read));
      },
    ),
    { numRuns: 2000 },
  );
});
