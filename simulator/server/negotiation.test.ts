// Content negotiation over HTTP (spec 4.1, wire-facts 1.1 and 2): Accept, Content-Type, 406, 415, 400, pretty.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import yaml from 'js-yaml';
import { startSimulator, type RunningSimulator } from '../cluster.ts';

let sim: RunningSimulator;
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

before(async () => {
  sim = await startSimulator();
  const r = await request(sim.url + CM, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'neg', labels: { app: 'neg' } }, data: { html: '<b>&</b>' } }),
  });
  assert.equal(r.statusCode, 201, await r.body.text());
});
after(async () => {
  await sim.close();
});

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | undefined; text: string }> {
  const res = await request(sim.url + path, { headers });
  return { status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, text: await res.body.text() };
}

async function post(path: string, body: string, contentType: string | undefined, headers: Record<string, string> = {}) {
  const res = await request(sim.url + path, { method: 'POST', headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers }, body });
  return { status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, text: await res.body.text() };
}

/** The offered types, as 406 lists them: protobuf joins when the codec is present. */
function offered(): string {
  return ['application/json', 'application/yaml', ...(sim.ctx.protobuf ? [sim.ctx.protobuf.mediaType] : [])].join(', ');
}

describe('response negotiation', () => {
  test('JSON by default: compact, HTML characters escaped like Go, one trailing newline', async () => {
    const r = await get(`${CM}/neg`);
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/json');
    assert.ok(r.text.endsWith('}\n') && !r.text.endsWith('\n\n'), "r.text.endsWith('}\\n') && !r.text.endsWith('\\n\\n')");
    assert.ok(!r.text.slice(0, -1).includes('\n'), 'compact: one line');
    assert.ok(r.text.includes('"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'), r.text);
    assert.equal(JSON.parse(r.text).data.html, '<b>&</b>');
  });

  test('Accept application/yaml answers YAML of the same object', async () => {
    const json = JSON.parse((await get(`${CM}/neg`)).text);
    const r = await get(`${CM}/neg`, { accept: 'application/yaml' });
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/yaml');
    assert.deepEqual(yaml.load(r.text), json);
    assert.match(r.text, /^apiVersion: v1\n/);
  });

  const cases: Array<[string, 'json' | 'yaml']> = [
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json, */*', 'json'],
    ['text/html, application/yaml', 'yaml'],
    ['application/json;q=0.5, application/yaml', 'yaml'],
    ['application/yaml;q=0.9, application/json;q=0.95', 'json'],
    ['application/yaml;q=0, */*', 'json'],
    // Conversions the server does not serve are skipped (a meta.k8s.io Table is served: simulator/server/table).
    ['application/json;as=Table;v=v2;g=meta.k8s.io, application/yaml', 'yaml'],
    ['application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=example.com,application/json', 'json'],
    ['APPLICATION/YAML', 'yaml'],
    ['application/json; charset=utf-8', 'json'],
  ];
  for (const [accept, want] of cases) {
    test(`Accept: ${accept} -> ${want}`, async () => {
      const r = await get(`${CM}/neg`, { accept });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.contentType, want === 'json' ? 'application/json' : 'application/yaml');
      const obj = want === 'json' ? JSON.parse(r.text) : yaml.load(r.text);
      assert.equal((obj as { metadata: { name: string } }).metadata.name, 'neg');
    });
  }

  test('lists negotiate too', async () => {
    const r = await get(CM, { accept: 'text/plain, application/yaml' });
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/yaml');
    assert.equal((yaml.load(r.text) as { kind: string }).kind, 'ConfigMapList');
  });

  for (const accept of ['text/html', 'application/xml', 'application/json;as=Table;v=v2;g=meta.k8s.io', 'image/*', 'application/yaml;q=0']) {
    test(`nothing acceptable (${accept}) -> 406 with the real pretty body`, async () => {
      for (const path of [`${CM}/neg`, CM, `${CM}/missing`]) {
        const r = await get(path, { accept });
        assert.equal(r.status, 406, path);
        assert.equal(r.contentType, 'application/json');
        assert.equal(
          r.text,
          `{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",\n  "message": "only the following media types are accepted: ${offered()}",\n  "reason": "NotAcceptable",\n  "code": 406\n}`,
        );
      }
    });
  }

  test('a watch offers only stream types: YAML is 406 with the watch list', async () => {
    const r = await get(`${CM}?watch=true&timeoutSeconds=1`, { accept: 'application/yaml' });
    assert.equal(r.status, 406);
    const pb = sim.ctx.protobuf ? `, ${sim.ctx.protobuf.mediaType};stream=watch` : '';
    assert.equal(JSON.parse(r.text).message, `only the following media types are accepted: application/json;stream=watch${pb}`);
  });

  test('error bodies are negotiated: a 404 asked for YAML is a YAML Status', async () => {
    const r = await get(`${CM}/missing`, { accept: 'application/yaml' });
    assert.equal(r.status, 404);
    assert.equal(r.contentType, 'application/yaml');
    assert.deepEqual(yaml.load(r.text), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found', reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404,
    });
  });
});

describe('pretty output', () => {
  test('pretty=true and pretty=1: 2-space indent, no trailing newline', async () => {
    const compact = JSON.parse((await get(`${CM}/neg`)).text);
    for (const q of ['pretty=true', 'pretty=1']) {
      const r = await get(`${CM}/neg?${q}`);
      assert.equal(r.status, 200);
      assert.equal(r.text, JSON.stringify(compact, null, 2).replace(/[<>&]/g, (c) => ({ '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' })[c]!));
    }
  });

  test('browser and curl user agents get pretty output unless pretty=false', async () => {
    for (const ua of ['curl/8.0.1', 'Wget/1.21', 'Mozilla/5.0 (X11)']) {
      const r = await get(`${CM}/neg`, { 'user-agent': ua });
      assert.ok(r.text.startsWith('{\n  "kind": "ConfigMap"'), ua);
      const off = await get(`${CM}/neg?pretty=false`, { 'user-agent': ua });
      assert.ok(off.text.startsWith('{"kind":"ConfigMap"') && off.text.endsWith('}\n'), ua);
    }
    const kubectl = await get(`${CM}/neg`, { 'user-agent': 'kubectl/v1.32.4 (linux/amd64) kubernetes/abc' });
    assert.ok(kubectl.text.startsWith('{"kind"'), 'kubectl.text.startsWith(\'{"kind"\')');
  });
});

describe('request bodies', () => {
  test('YAML bodies are read', async () => {
    const r = await post(CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n', 'application/yaml');
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(JSON.parse(r.text).data, { a: '1' });
  });

  // Files written for `kubectl apply -f` often start or end with `---`; one object with empty documents around it
  // is still one object.
  for (const [name, text] of [
    ['a trailing ---', 'metadata:\n  name: yaml-trailing\ndata:\n  a: "1"\n---\n'],
    ['a leading --- and a trailing one', '---\nmetadata:\n  name: yaml-leading\ndata:\n  a: "1"\n---\n'],
    ['empty documents and a comment-only one', '---\n---\n# nothing here\n---\nmetadata:\n  name: yaml-empties\ndata:\n  a: "1"\n---\n---\n'],
  ] as const) {
    test(`a YAML body of one object with ${name} is accepted`, async () => {
      const r = await post(CM, text, 'application/yaml');
      assert.equal(r.status, 201, r.text);
      const obj = JSON.parse(r.text);
      assert.deepEqual(obj.data, { a: '1' });
      assert.equal((await get(`${CM}/${obj.metadata.name}`)).status, 200);
    });
  }

  test('a YAML body of several non-empty documents is 400 saying so, and creates nothing', async () => {
    const r = await post(CM, 'metadata:\n  name: yaml-one\n---\nmetadata:\n  name: yaml-two\n---\n', 'application/yaml');
    assert.equal(r.status, 400, r.text);
    const s = JSON.parse(r.text);
    assert.equal(s.kind, 'Status');
    assert.equal(s.reason, 'BadRequest');
    assert.match(s.message, /holds 2 documents; send one object per request/);
    for (const name of ['yaml-one', 'yaml-two']) assert.equal((await get(`${CM}/${name}`)).status, 404);
    const onlyEmpty = await post(CM, '---\n---\n', 'application/yaml');
    assert.equal(onlyEmpty.status, 400, onlyEmpty.text);
  });

  test('Content-Type parameters are ignored (application/json; charset=utf-8)', async () => {
    const r = await post(CM, '{"metadata":{"name":"with-charset"}}', 'application/json; charset=utf-8');
    assert.equal(r.status, 201, r.text);
  });

  test('an unsupported Content-Type is 415 with the accepted list', async () => {
    for (const ct of ['text/plain', 'application/xml', 'application/merge-patch+json']) {
      const r = await post(CM, '{"metadata":{"name":"x415"}}', ct);
      assert.equal(r.status, 415, ct);
      assert.equal(r.contentType, 'application/json');
      assert.deepEqual(JSON.parse(r.text), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `the body of the request was in an unknown format - accepted media types include: ${offered()}`,
        reason: 'UnsupportedMediaType',
        code: 415,
      });
    }
  });

  for (const [name, body, ct] of [
    ['truncated JSON', '{"metadata":', 'application/json'],
    ['not JSON at all', 'hello', 'application/json'],
    ['a JSON array', '[{"metadata":{"name":"a"}}]', 'application/json'],
    ['a JSON string', '"x"', 'application/json'],
    ['broken YAML', 'metadata: [name: x', 'application/yaml'],
    ['YAML scalar', 'just text', 'application/yaml'],
    ['tabs in YAML', 'metadata:\n\tname: x', 'application/yaml'],
    ['empty body', '', 'application/json'],
  ] as const) {
    test(`malformed body (${name}) is 400 BadRequest`, async () => {
      const r = await post(CM, body, ct);
      assert.equal(r.status, 400, r.text);
      const s = JSON.parse(r.text);
      assert.equal(s.kind, 'Status');
      assert.equal(s.reason, 'BadRequest');
      assert.equal(s.code, 400);
      assert.equal(typeof s.message, 'string');
    });
  }

  test('the wrong kind or apiVersion in a body is 400 with the real message', async () => {
    const wrongVersion = await post(CM, JSON.stringify({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'v' } }), 'application/json');
    assert.equal(wrongVersion.status, 400);
    assert.equal(JSON.parse(wrongVersion.text).message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');
    const wrongKind = await post(CM, JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'k' } }), 'application/json');
    assert.equal(wrongKind.status, 400);
  });
});
