// Error answers over HTTP (wire-facts 2): every error body is a Status in the real key order; unknown paths under
// a served group version are a Status 404, elsewhere the plain 404 page; wrong methods are 405; and nothing a
// client sends makes the server answer 5xx or fall over (a fast-check property throwing random requests at it).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request, Pool } from 'undici';
import fc from 'fast-check';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { httpCall } from '../testing/http.ts';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator();
  const r = await request(sim.url + '/api/v1/namespaces/default/configmaps', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'existing', labels: { a: 'b' } }, data: { k: 'v' } }),
  });
  assert.equal(r.statusCode, 201);
  await r.body.dump();
});
after(async () => {
  await sim.close();
});

const call = (method: string, path: string, body?: string, headers: Record<string, string> = {}) => httpCall(sim.url, method, path, body, headers);

const STATUS_KEYS = ['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code'];
const DETAILS_KEYS = ['name', 'group', 'kind', 'uid', 'causes', 'retryAfterSeconds'];

/** Checks the Status shape: keys in the real order, omitempty fields, code equal to the HTTP status. */
function assertStatus(text: string, httpStatus: number, where: string): Record<string, unknown> {
  let s: Record<string, unknown>;
  try {
    s = JSON.parse(text) as Record<string, unknown>;
  } catch {
    assert.fail(`${where}: body is not JSON: ${text.slice(0, 200)}`);
  }
  const keys = Object.keys(s);
  assert.deepEqual(keys, STATUS_KEYS.filter((k) => keys.includes(k)), `${where}: key order ${keys}`);
  for (const k of ['kind', 'apiVersion', 'metadata', 'status', 'message', 'code']) assert.ok(keys.includes(k), `${where}: ${k} missing in ${text}`);
  assert.equal(s.kind, 'Status');
  assert.equal(s.apiVersion, 'v1');
  assert.deepEqual(s.metadata, {});
  assert.equal(s.status, 'Failure');
  assert.equal(typeof s.message, 'string');
  assert.equal(s.code, httpStatus, where);
  if (s.reason !== undefined) assert.match(s.reason as string, /^[A-Z][A-Za-z]+$/);
  if (s.details !== undefined) {
    const dk = Object.keys(s.details as object);
    assert.deepEqual(dk, DETAILS_KEYS.filter((k) => dk.includes(k)), `${where}: details key order ${dk}`);
  }
  return s;
}

describe('unknown paths', () => {
  test('under a served group version: Status 404 "the server could not find the requested resource"', async () => {
    for (const path of [
      '/api/v1/foos',
      '/apis/apps/v1/foos',
      '/apis/apps/v1/namespaces/default/foos',
      '/apis/extensions/v1beta1/namespaces/default/foos/x',
      '/api/v1/namespaces/default/configmaps/existing/status',
      '/api/v1/namespaces/default/configmaps/existing/a/b/c',
      '/apis/batch/v1/namespaces/default/cronjobs',
    ]) {
      const r = await call('GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.contentType, 'application/json');
      assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n', path);
    }
  });

  test('elsewhere: the plain "404 page not found"', async () => {
    for (const path of ['/foo', '/apis/nosuch/v1/things', '/api/v9/pods', '/apiz', '/metrics/x', '/apis/apps/v1alpha1/deployments']) {
      const r = await call('GET', path);
      assert.equal(r.status, 404, path);
      assert.equal(r.contentType, 'text/plain; charset=utf-8');
      assert.equal(r.text, '404 page not found\n', path);
    }
  });

  test('a malformed %-escape in the path is a 400 Status, not a framework body', async () => {
    const r = await call('GET', '/api/v1/namespaces/%ZZ/configmaps');
    assert.equal(r.status, 400);
    const s = assertStatus(r.text, 400, 'bad escape');
    assert.equal(s.reason, 'BadRequest');
  });
});

describe('methods', () => {
  const notAllowed = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}\n';
  for (const [method, path] of [
    ['POST', '/api/v1/namespaces/default/configmaps/existing'],
    ['PUT', '/api/v1/namespaces/default/configmaps'],
    ['PATCH', '/api/v1/namespaces/default/configmaps'],
    ['POST', '/api/v1/configmaps'],
    ['DELETE', '/apis/apps/v1/deployments'],
    ['PUT', '/apis'],
    ['DELETE', '/api/v1'],
    ['POST', '/api/v1/namespaces/default/finalize'],
    ['OPTIONS', '/api/v1/namespaces/default/configmaps'],
    ['TRACE', '/api/v1/namespaces/default/configmaps'],
    ['POST', '/api/v1/watch/namespaces/default/configmaps'],
  ] as const) {
    test(`${method} ${path} -> 405`, async () => {
      const r = await call(method, path, method === 'TRACE' ? undefined : '{}', { 'content-type': 'application/json' });
      assert.equal(r.status, 405);
      assert.equal(r.text, notAllowed);
    });
  }

  test('a verb the kind does not serve names it: 405 "<verb> is not supported on resources of kind"', async () => {
    const r = await call('DELETE', '/apis/authorization.k8s.io/v1/subjectaccessreviews/x');
    assert.equal(r.status, 405);
    const s = assertStatus(r.text, 405, 'sar');
    assert.equal(s.message, 'delete is not supported on resources of kind "subjectaccessreviews.authorization.k8s.io"');
    assert.deepEqual(s.details, { group: 'authorization.k8s.io', kind: 'subjectaccessreviews' });
  });
});

describe('every error is a Status', () => {
  const cases: Array<[string, string, string | undefined, Record<string, string>, number]> = [
    ['GET', '/api/v1/namespaces/default/configmaps/missing', undefined, {}, 404],
    ['POST', '/api/v1/namespaces/default/configmaps', '{"metadata":{"name":"existing"}}', { 'content-type': 'application/json' }, 409],
    ['POST', '/api/v1/namespaces/default/configmaps', '{"metadata":{}}', { 'content-type': 'application/json' }, 422],
    ['POST', '/api/v1/namespaces/default/configmaps', '{', { 'content-type': 'application/json' }, 400],
    ['POST', '/api/v1/namespaces/default/configmaps', '{}', { 'content-type': 'text/csv' }, 415],
    ['GET', '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(', undefined, {}, 400],
    ['GET', '/api/v1/namespaces/default/configmaps?fieldSelector=spec.x%3Dy', undefined, {}, 400],
    ['GET', '/api/v1/namespaces/default/configmaps?limit=ten', undefined, {}, 400],
    ['GET', '/api/v1/namespaces/default/configmaps?continue=garbage', undefined, {}, 400],
    ['GET', '/api/v1/namespaces/default/configmaps?resourceVersion=abc', undefined, {}, 400],
    ['DELETE', '/api/v1/namespaces/default/configmaps/existing', '{"propagationPolicy":"Sideways"}', { 'content-type': 'application/json' }, 422],
    ['PATCH', '/api/v1/namespaces/default/configmaps/existing', '{}', { 'content-type': 'text/plain' }, 415],
    ['PUT', '/api/v1/namespaces/default/configmaps/existing', '{"metadata":{"name":"other"}}', { 'content-type': 'application/json' }, 400],
  ];
  for (const [method, path, body, headers, code] of cases) {
    test(`${method} ${path} ${body ?? ''} -> ${code}`, async () => {
      const r = await call(method, path, body, headers);
      assert.equal(r.status, code, r.text);
      assert.equal(r.contentType, 'application/json');
      assertStatus(r.text, code, `${method} ${path}`);
    });
  }
});

describe('robustness', () => {
  test('property: random methods, paths, headers and bodies never get a 5xx and the server stays up', async () => {
    const segment = fc.oneof(
      fc.constantFrom('api', 'apis', 'v1', 'v1beta1', 'apps', 'batch', 'extensions', 'authorization.k8s.io', 'namespaces', 'default', 'kube-system',
        'configmaps', 'secrets', 'pods', 'services', 'deployments', 'replicasets', 'daemonsets', 'jobs', 'cronjobs', 'events', 'nodes', 'ingresses',
        'replicationcontrollers', 'endpoints', 'serviceaccounts', 'subjectaccessreviews', 'watch', 'status', 'scale', 'finalize', 'existing', 'x',
        '%2F', '%00', '..', '.', '%zz', '%E2%82', 'a%2Fb', '', 'ns-1', 'Upper', 'a.b'),
      fc.string({ maxLength: 6 }).map(encodeURIComponent),
    );
    const prefix = fc.constantFrom('/api/v1', '/apis/apps/v1', '/apis/extensions/v1beta1', '/apis/batch/v1', '/apis/batch/v1beta1', '/api/v1/namespaces/default',
      '/apis/apps/v1/namespaces/default', '/api/v1/watch/namespaces/default', '', '/apis', '/api');
    const path = fc.tuple(prefix, fc.array(segment, { maxLength: 5 })).map(([p, segs]) => p + (segs.length ? '/' + segs.join('/') : ''));
    const paramValue = fc.oneof(fc.constantFrom('', '0', '1', '-1', 'true', 'false', 'abc', 'a=b', 'a in (b)', '!a', 'metadata.name=x', 'Background', 'x,y', '%', '5s'), fc.string({ maxLength: 8 }));
    const param = fc.tuple(
      fc.constantFrom('labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'pretty', 'export', 'exact', 'gracePeriodSeconds',
        'orphanDependents', 'propagationPolicy', 'fieldManager', 'fieldValidation', 'timeout', 'includeUninitialized', 'dryRun', 'zzz'),
      paramValue,
    );
    // A watch would stream until its timeout: every generated watch carries a short one.
    const query = fc.tuple(fc.array(param, { maxLength: 4 }), fc.boolean()).map(([ps, watch]) => {
      const all = [...ps, ...(watch ? [['watch', 'true'], ['timeoutSeconds', '1']] : [])];
      return all.length ? '?' + all.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&') : '';
    });
    const contentType = fc.constantFrom(undefined, 'application/json', 'application/yaml', 'application/json-patch+json', 'application/merge-patch+json',
      'application/strategic-merge-patch+json', 'application/vnd.kubernetes.protobuf', 'text/plain', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', '*/*', 'garbage');
    const accept = fc.constantFrom(undefined, '*/*', 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'text/html', 'application/json;as=Table;v=v1;g=meta.k8s.io',
      'application/json;stream=watch', 'application/yaml;q=0', ';;;', 'application/vnd.kubernetes.protobuf;stream=watch');
    const objectBody = fc.record({
      apiVersion: fc.option(fc.constantFrom('v1', 'apps/v1', 'extensions/v1beta1', 'batch/v1', 'meta.k8s.io/v1', 'x', 5 as unknown as string), { nil: undefined }),
      kind: fc.option(fc.constantFrom('ConfigMap', 'Deployment', 'Pod', 'DeleteOptions', 'Scale', 'Namespace', 'Nope'), { nil: undefined }),
      metadata: fc.option(
        fc.oneof(
          fc.record({ name: fc.option(fc.constantFrom('existing', 'x', 'fuzz-obj', '', 'Bad Name'), { nil: undefined }), namespace: fc.option(fc.constantFrom('default', 'other'), { nil: undefined }), labels: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })), { nil: undefined }), resourceVersion: fc.option(fc.constantFrom('1', 'x', ''), { nil: undefined }), generateName: fc.option(fc.constantFrom('g-', 5 as unknown as string), { nil: undefined }) }, { requiredKeys: [] }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        { nil: undefined },
      ),
      spec: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
      data: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      status: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
      propagationPolicy: fc.option(fc.constantFrom('Orphan', 'Background', 'x'), { nil: undefined }),
      gracePeriodSeconds: fc.option(fc.oneof(fc.integer(), fc.constant('x')), { nil: undefined }),
    }, { requiredKeys: [] }).map((o) => JSON.stringify(o));
    const body = fc.oneof(
      { weight: 5, arbitrary: objectBody },
      { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify([{ op: 'add', path: '/data/x', value: v }, { op: 'test', path: '/metadata/name', value: v }])) },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a).toString('latin1')) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    );
    const method = fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');
    const pool = new Pool(sim.url, { connections: 4 });
    try {
      await fc.assert(
        fc.asyncProperty(method, path, query, contentType, accept, body, async (m, p, q, ct, acc, b) => {
          const headers: Record<string, string> = {};
          if (ct) headers['content-type'] = ct;
          if (acc) headers.accept = acc;
          const res = await pool.request({ method: m as 'GET', path: p === '' ? '/' : p + q, headers, body: m === 'GET' || m === 'HEAD' ? undefined : b });
          const where = `${m} ${p}${q} ct=${ct} accept=${acc} body=${b?.slice(0, 120)}`;
          if (res.statusCode < 400 || m === 'HEAD') {
            // Successes may be watch streams (a /watch/ path streams for up to an hour): drop them unread.
            res.body.on('error', () => undefined).destroy();
            assert.ok(res.statusCode < 500, where);
            return;
          }
          const text = await res.body.text();
          assert.ok(res.statusCode < 500, `${where} -> ${res.statusCode} ${text}`);
          if (res.headers['content-type'] === 'text/plain; charset=utf-8') assert.equal(text, '404 page not found\n', where);
          else if (res.headers['content-type'] === 'application/json') assertStatus(text, res.statusCode, where);
        }),
        { numRuns: 400 },
      );
    } finally {
      await pool.close();
    }
    const health = await call('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.text, 'ok');
    const list = await call('GET', '/api/v1/namespaces');
    assert.equal(list.status, 200);
  });
});

describe('paths and resource versions the real server cleans or refuses', () => {
  test('a path with empty segments is redirected (301) to its clean form, query kept', async () => {
    // Clients' URL parsers already remove "." and ".." segments, so only empty segments reach the server.
    for (const [dirty, clean] of [['/api/v1//namespaces?limit=1', '/api/v1/namespaces?limit=1'], ['/api/v1/namespaces//configmaps', '/api/v1/namespaces/configmaps'], ['//apis///apps/v1/', '/apis/apps/v1/']]) {
      const res = await request(sim.url + dirty);
      await res.body.text();
      assert.equal(res.statusCode, 301, dirty);
      assert.equal(res.headers.location, clean);
    }
  });

  test('a resourceVersion beyond an unsigned 64-bit integer is 400, not a wait', async () => {
    for (const rv of ['18446744073709551616', '99999999999999999999999', '-1', '1.5']) {
      const r = await call('GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rv}`);
      assert.equal(r.status, 400, rv);
      assert.equal(JSON.parse(r.text).message, `invalid resource version: ${JSON.stringify(rv)}`);
    }
  });
});
