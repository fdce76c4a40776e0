// Query values as the real server's parameter codec converts them (query-params.ts), unit and over HTTP.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goParseBool, queryBool, queryInt } from './query-params.ts';
import { startApiServer, type RunningApiServer } from './start.ts';

test('booleans: false only for 0, f, false in any case; anything else true', () => {
  for (const v of ['0', 'f', 'F', 'false', 'False', 'FALSE', 'fAlSe']) assert.equal(queryBool(v), false, v);
  for (const v of ['1', 't', 'T', 'true', 'True', 'TRUE', 'yes', '', '2']) assert.equal(queryBool(v), true, v);
  assert.equal(queryBool(undefined), undefined);
  assert.equal(goParseBool('True'), true);
  assert.equal(goParseBool('yes'), undefined);
});

test('integers: Go ParseInt within int32 / int64, 400 otherwise', () => {
  assert.equal(queryInt('limit', '+7'), 7);
  assert.equal(queryInt('limit', '-7'), -7);
  assert.equal(queryInt('limit', '9223372036854775807'), 2 ** 63); // the nearest double
  assert.equal(queryInt('limit', ''), undefined);
  assert.equal(queryInt('x', '2147483647', 32), 2147483647);
  for (const [v, bits, re] of [['9223372036854775808', 64, /value out of range/], ['-9223372036854775809', 64, /value out of range/], ['2147483648', 32, /value out of range/], ['1.5', 64, /invalid syntax/], ['0x10', 64, /invalid syntax/], ['ten', 64, /invalid syntax/]] as const) {
    assert.throws(() => queryInt('limit', v, bits), (e: { status?: { code?: number; message?: string } }) => e.status?.code === 400 && re.test(e.status.message ?? ''), v);
  }
});

describe('query values over HTTP', () => {
  let server: RunningApiServer;
  const cms = '/api/v1/namespaces/default/configmaps';
  before(async () => {
    server = await startApiServer();
    for (const name of ['a', 'b', 'c']) {
      const r = await fetch(server.url + cms, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name } }) });
      assert.equal(r.status, 201);
    }
  });
  after(async () => server.close());

  test('watch=True (the Python client) starts a watch, not a list', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${server.url}${cms}?watch=True&timeoutSeconds=1`, { signal: ctl.signal });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text.split('\n')[0], /^\{"type":"ADDED","object":\{"kind":"ConfigMap"/);
  });

  test('orphanDependents=False (the Python client) is a boolean', async () => {
    const res = await fetch(`${server.url}${cms}/c?orphanDependents=False`, { method: 'DELETE' });
    assert.equal(res.status, 200, await res.text());
  });

  test('repeated parameters take the first value; unknown parameters are ignored', async () => {
    const res = await fetch(`${server.url}${cms}?limit=1&limit=5&noSuchParameter=x`);
    const body = (await res.json()) as { items: unknown[]; metadata: { continue?: string } };
    assert.equal(body.items.length, 1);
    assert.ok(body.metadata.continue, 'body.metadata.continue');
  });

  test('an out-of-range or malformed integer is 400, never a 500', async () => {
    // A list decodes its timeoutSeconds too (before it would wait 3 s on a resourceVersion ahead of the store).
    const lists = ['timeoutSeconds=metadata.name%3Da', 'timeoutSeconds=x&resourceVersion=9999999999999999999'];
    for (const q of ['limit=9223372036854775808', 'limit=1e3', 'timeoutSeconds=abc&watch=1', ...lists, 'gracePeriodSeconds=99999999999999999999']) {
      const method = q.startsWith('grace') ? 'DELETE' : 'GET';
      const res = await fetch(`${server.url}${cms}${method === 'DELETE' ? '/a' : ''}?${q}`, { method });
      const body = (await res.json()) as { code: number; reason: string; message: string };
      assert.equal(res.status, 400, q);
      assert.equal(body.reason, 'BadRequest');
      assert.match(body.message, /strconv\.ParseInt/);
    }
  });
});
