// The versions suite catches a server that refuses apps/v1beta1 bodies at the apps/v1 path, answers
// extensions/v1beta1 reads in apps/v1, or answers 500 to an unrecognised apiVersion; it passes a server that
// answers a v1beta1 body as apps/v1beta1 (the spec's "returned as such") or accepts unknown apiVersions.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { eachObject, jsonOf, pathOf, withJson, type ProxiedRequest } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const CHECKS = ['versions.group-version-paths', 'versions.body-apiversion-may-differ', 'versions.unrecognised-apiversion', 'versions.shared-deployments'];
const KNOWN = new Set(['apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'extensions/v1beta1']);
const bodyVersion = (req: ProxiedRequest) => (req.method === 'POST' && pathOf(req).endsWith('/deployments') ? jsonOf(req)?.apiVersion : undefined);

test('apps/v1beta1 bodies refused, extensions reads answered as apps/v1 and 500 for unknown versions are each caught', async () => {
  const result = await runThroughProxy(
    {
      async handle(req) {
        if (bodyVersion(req) !== 'apps/v1beta1') return undefined;
        const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'apps/v1beta1 is not accepted here', reason: 'BadRequest', code: 400 };
        return { status: 400, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(status)) };
      },
      response(req, res) {
        const v = bodyVersion(req);
        if (v && !KNOWN.has(v) && res.status === 400) return { ...res, status: 500 };
        if (!pathOf(req).startsWith('/apis/extensions/') || req.method !== 'GET') return res;
        const body = jsonOf(res);
        eachObject(body, (o) => {
          if (o.apiVersion === 'extensions/v1beta1' && o.kind === 'Deployment') o.apiVersion = 'apps/v1';
        });
        return body ? withJson(res, body) : res;
      },
    },
    CHECKS,
    { runs: 8 },
  );
  assertFailed(result, 'versions.body-apiversion-may-differ', /apps\/v1beta1: expected HTTP 200 or 201 or 202, got 400/);
  assertFailed(result, 'versions.unrecognised-apiversion', /expected HTTP 400, got 500/);
  assertFailed(result, 'versions.shared-deployments', /apiVersion of the GET through extensions\/v1beta1: expected "extensions\/v1beta1", got "apps\/v1"|created through extensions\/v1beta1: apiVersion through extensions/);
  assertPassed(result, ['versions.group-version-paths']);
});

test('a v1beta1 body answered as apps/v1beta1 and unknown apiVersions accepted are allowed', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        const v = bodyVersion(req);
        if (!v || KNOWN.has(v)) return req;
        return withJson(req, { ...jsonOf(req), apiVersion: 'apps/v1' });
      },
      response(req, res) {
        if (bodyVersion(req) !== 'apps/v1beta1' || res.status >= 300) return res;
        return withJson(res, { ...jsonOf(res), apiVersion: 'apps/v1beta1' });
      },
    },
    CHECKS,
    { runs: 8 },
  );
  assertPassed(result, CHECKS);
});
