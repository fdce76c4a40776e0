// The patch suite catches a server that replaces lists instead of merging them by key, ignores a stale
// resourceVersion in a patch, takes unknown patch types, or answers 500 to a patch that cannot apply; and it
// passes a server that returns merged lists in another order or answers creates with 200.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { contentTypeOf, eachObject, jsonOf, withJson, type ProxiedRequest } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const PATCH_CHECKS = [
  'patch.configmap-merge-and-strategic',
  'patch.configmap-json-patch',
  'patch.deployment-containers',
  'patch.deployment-status-conditions',
  'patch.scale',
  'patch.concurrent-last-write-wins',
  'patch.stale-resource-version-conflict',
  'patch.unsupported-type-415',
  'patch.malformed-4xx',
];

const isPatch = (req: ProxiedRequest, type?: string) => req.method === 'PATCH' && (type === undefined || contentTypeOf(req) === type);
const SMP = 'application/strategic-merge-patch+json';
const MERGE = 'application/merge-patch+json';
const JSONP = 'application/json-patch+json';

test('a server that reads strategic merge patches as merge patches (lists replaced, not merged by key) fails the keyed-list checks', async () => {
  const result = await runThroughProxy(
    { request: (req) => (isPatch(req, SMP) ? { ...req, headers: { ...req.headers, 'content-type': MERGE } } : req) },
    ['patch.deployment-containers', 'patch.deployment-status-conditions'],
  );
  assertFailed(result, 'patch.deployment-containers', /strategic PATCH .*containers in the answer/);
  assertFailed(result, 'patch.deployment-status-conditions', /strategic PATCH .*conditions/);
});

test('a server that drops the resourceVersion of a patch (no conflict on a stale one) fails the stale check', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        if (!isPatch(req)) return req;
        const body = jsonOf(req);
        if (Array.isArray(body)) return withJson(req, body.filter((op: { path?: string }) => op.path !== '/metadata/resourceVersion'));
        if (body?.metadata?.resourceVersion) delete body.metadata.resourceVersion;
        return body ? withJson(req, body) : req;
      },
    },
    ['patch.stale-resource-version-conflict'],
  );
  const o = assertFailed(result, 'patch.stale-resource-version-conflict', /stale resourceVersion.*expected HTTP 409, got 200/);
  assert.ok(o.rows.includes('error.optimistic-lock'), "o.rows.includes('error.optimistic-lock')");
});

test('a server that applies unknown patch types as merge patches fails the 415 check', async () => {
  const known = new Set([SMP, MERGE, JSONP]);
  const result = await runThroughProxy(
    { request: (req) => (isPatch(req) && !known.has(contentTypeOf(req)) ? { ...req, headers: { ...req.headers, 'content-type': MERGE } } : req) },
    ['patch.unsupported-type-415'],
  );
  assertFailed(result, 'patch.unsupported-type-415', /expected HTTP 415, got 200/);
});

test('a server that answers 500 to a JSON patch that cannot apply fails the JSON patch and malformed-patch checks', async () => {
  const result = await runThroughProxy(
    { response: (req, res) => (isPatch(req, JSONP) && res.status === 422 ? { ...res, status: 500 } : res) },
    ['patch.configmap-json-patch', 'patch.malformed-4xx'],
    { runs: 25 },
  );
  assertFailed(result, 'patch.configmap-json-patch', /expected HTTP 422 or 400, got 500/);
  assertFailed(result, 'patch.malformed-4xx', /expected HTTP 400 or 422, got 500/);
});

test('a server that applies a JSON patch even when a test op fails is caught by the model', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        const body = isPatch(req, JSONP) ? jsonOf(req) : undefined;
        return Array.isArray(body) ? withJson(req, body.filter((op: { op?: string }) => op.op !== 'test')) : req;
      },
    },
    ['patch.configmap-json-patch'],
    { runs: 40 },
  );
  assertFailed(result, 'patch.configmap-json-patch', /cannot apply: test of/);
});

test('merged lists in another order, creates answered 200 and PUTs 201 are allowed: every patch check passes', async () => {
  const reverse = (o: any, path: string[]) => {
    let cur = o;
    for (const p of path.slice(0, -1)) cur = cur?.[p];
    const last = path[path.length - 1];
    if (Array.isArray(cur?.[last])) cur[last] = [...cur[last]].reverse();
  };
  const result = await runThroughProxy(
    {
      response(req, res) {
        const body = jsonOf(res);
        if (!body || res.status >= 300) return res;
        eachObject(body, (o) => {
          if (o.kind !== 'Deployment') return;
          reverse(o, ['status', 'conditions']);
          reverse(o, ['spec', 'template', 'spec', 'containers']);
          for (const c of o.spec?.template?.spec?.containers ?? []) for (const list of ['env', 'ports', 'volumeMounts']) reverse(c, [list]);
        });
        const status = req.method === 'POST' && res.status === 201 ? 200 : req.method === 'PUT' && res.status === 200 ? 201 : res.status;
        return withJson({ ...res, status }, body);
      },
    },
    PATCH_CHECKS,
  );
  assertPassed(result, PATCH_CHECKS);
});
