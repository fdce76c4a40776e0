import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { answerJsonOf, compactJsonOf, compactJsonStats, encodeJson, jsonWatchFrame, listJsonOf } from './serializers.ts';

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

test('a watch frame built around a stored object\'s cached JSON is byte for byte encodeJson({ type, object })', () => {
  fc.assert(
    fc.property(
      fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
      // Strings with the characters Go escapes (<, >, &, U+2028, U+2029) and multi-byte text among others.
      fc.dictionary(fc.string({ unit: fc.constantFrom('a', '<', '>', '&', '\u2028', '\u2029', 'ü', '😀', '"', '\\') }), fc.jsonValue({ maxDepth: 3 })),
      (type, fields) => {
        const obj = deepFreeze({ kind: 'ConfigMap', metadata: { name: 'x<y>&z' }, ...fields });
        const expected = Buffer.from(encodeJson({ type, object: obj }, false));
        assert.deepEqual(jsonWatchFrame(type, obj), expected, 'first, encoding the object');
        assert.deepEqual(jsonWatchFrame(type, obj), expected, 'again, from the cache');
        assert.deepEqual(compactJsonOf(obj), Buffer.from(encodeJson(obj, false)), 'the object alone');
      },
    ),
    { numRuns: 200 },
  );
});

test('a write\'s answer from the store\'s own text of the object is byte for byte encodeJson(object)', () => {
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ unit: fc.constantFrom('a', '<', '>', '&', '\u2028', '\u2029', 'ü', '😀', '"', '\\') }), fc.jsonValue({ maxDepth: 3 })),
      (fields) => {
        const obj = deepFreeze({ kind: 'ConfigMap', metadata: { name: 'x<y>&z' }, ...fields });
        const expected = Buffer.from(encodeJson(obj, false));
        assert.deepEqual(Buffer.from(answerJsonOf(obj, JSON.stringify(obj))), expected, 'from the given text');
        assert.deepEqual(Buffer.from(answerJsonOf(obj)), expected, 'encoded here');
      },
    ),
    { numRuns: 200 },
  );
});

test('an object that is not frozen (an ERROR event\'s Status) is encoded as it is, never cached', () => {
  const status: Record<string, unknown> = { kind: 'Status', code: 410 };
  assert.deepEqual(jsonWatchFrame('ERROR', status), Buffer.from(encodeJson({ type: 'ERROR', object: status }, false)));
  status.code = 500;
  assert.match(jsonWatchFrame('ERROR', status).toString(), /"code":500/);
});

test('a change answered to its writer and sent to a JSON watcher is encoded once', async () => {
  const { startApiServer } = await import('./start.ts');
  const server = await startApiServer({});
  const ac = new AbortController();
  try {
    const watch = await fetch(`${server.url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1`, { signal: ac.signal });
    const reader = watch.body!.getReader();
    const before = compactJsonStats();
    const creates = 20;
    for (let i = 0; i < creates; i++) {
      const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: `shared-${i}` }, data: { k: 'v' } }),
      });
      assert.equal(res.status, 201, await res.text());
    }
    // Read the watch until every create has come through (its frames are written once the changes are).
    let seen = '';
    const deadline = Date.now() + 30_000;
    while ((seen.match(/"ADDED"/g) ?? []).length < creates && Date.now() < deadline) seen += Buffer.from((await reader.read()).value ?? []).toString();
    assert.equal((seen.match(/"ADDED"/g) ?? []).length, creates, 'every create watched');
    const after = compactJsonStats();
    assert.equal(after.encodings - before.encodings, creates, 'one encoding of each object');
    assert.ok(after.hits - before.hits >= creates, `the answer or the frame reused it (${after.hits - before.hits} hits)`);
  } finally {
    ac.abort();
    await server.close();
  }
});

test('a write nobody watches keeps no encoding of its answer; a read keeps one', async () => {
  const { startApiServer } = await import('./start.ts');
  const server = await startApiServer({});
  try {
    const before = compactJsonStats();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: `unwatched-${i}` }, data: { k: 'v'.repeat(1000) } }),
      });
      assert.equal(res.status, 201, await res.text());
    }
    const afterWrites = compactJsonStats();
    assert.equal(afterWrites.bytes, before.bytes, 'no bytes kept for unwatched writes');
    const get = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/unwatched-0`);
    const body = await get.text();
    assert.equal(get.status, 200, body);
    const afterRead = compactJsonStats();
    assert.equal(afterRead.bytes - afterWrites.bytes, Buffer.byteLength(body), 'the read is kept, at its size');
  } finally {
    await server.close();
  }
});

test('listJsonOf: the same text as encoding the list whole, whichever items are cached (property)', () => {
  const text = fc.oneof(fc.string(), fc.constantFrom('<a&b>', '\u2028', 'ü€😀', '"\\'));
  const item = fc.record({
    kind: fc.constantFrom('Pod', 'ConfigMap'),
    apiVersion: fc.constantFrom('v1', 'apps/v1'),
    metadata: fc.record({ name: text, resourceVersion: fc.nat().map(String) }),
    data: fc.dictionary(text, text),
  });
  fc.assert(
    fc.property(fc.array(fc.tuple(item, fc.boolean(), fc.boolean())), fc.option(text, { nil: undefined }), (specs, cont) => {
      const sources = specs.map(([o, frozen, cached]) => {
        const obj = frozen ? deepFreeze(structuredClone(o)) : structuredClone(o);
        if (frozen && cached) compactJsonOf(obj);
        return obj;
      });
      const items = sources.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
      const list = { kind: 'PodList', apiVersion: 'v1', metadata: { selfLink: '/api/v1/pods', resourceVersion: '7', ...(cont === undefined ? {} : { continue: cont }) }, items };
      assert.equal(listJsonOf(list, sources).toString(), encodeJson(list, false));
      assert.equal(listJsonOf(list, sources).toString(), encodeJson(list, false), 'again: items listed twice come from the cache');
    }),
  );
});

test('listJsonOf: an item whose cached text does not open with its kind and apiVersion is encoded as it is', () => {
  // Not canonical (apiVersion before kind): the cut would be wrong, so the cache is not used for it.
  const odd = deepFreeze({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' } });
  compactJsonOf(odd);
  const { kind: _k, apiVersion: _a, ...rest } = odd;
  const list = { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [rest] };
  assert.equal(listJsonOf(list, [odd]).toString(), encodeJson(list, false));
});

test('listJsonOf: a stored object is encoded by the first list and kept by the second; the third only copies it', () => {
  const pods = Array.from({ length: 20 }, (_, i) => deepFreeze({ kind: 'Pod', apiVersion: 'v1', metadata: { name: `p${i}` }, spec: { nodeName: 'n<1>' } }));
  const items = pods.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  const list = { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '9' }, items };
  const expected = encodeJson(list, false);
  const encodings = () => compactJsonStats().encodings;
  const e0 = encodings();
  assert.equal(listJsonOf(list, pods).toString(), expected);
  assert.equal(encodings() - e0, 0, 'the first list keeps nothing');
  assert.equal(listJsonOf(list, pods).toString(), expected);
  assert.equal(encodings() - e0, 20, 'the second keeps each item');
  const h0 = compactJsonStats().hits;
  assert.equal(listJsonOf(list, pods).toString(), expected);
  assert.equal(encodings() - e0, 20, 'the third encodes nothing');
  assert.equal(compactJsonStats().hits - h0, 20);
});
