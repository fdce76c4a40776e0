// The crd suite catches a server that answers custom resources in protobuf (spec 4.1), and one whose custom
// resources cannot be chunked or patched; it passes the simulator, which serves them as JSON.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { pathOf } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const CHECKS = ['crd.no-protobuf', 'crd.generic-behaviour'];
const custom = (path: string) => /^\/apis\/[^/]+\.conformance\.example\.com\//.test(path);

test('passes a server that serves custom resources as JSON only', async () => {
  const result = await runThroughProxy({}, CHECKS, { runs: 2 });
  assertPassed(result, CHECKS);
});

test('a server that answers custom resources in protobuf when asked for protobuf is caught', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        const accept = String(req.headers.accept ?? '');
        if (!custom(pathOf(req)) || !accept.includes('protobuf') || req.method !== 'GET') return res;
        // The body stays JSON; the status and type claim protobuf, as a server spanning every type with protobuf would.
        return { ...res, status: 200, headers: { ...res.headers, 'content-type': 'application/vnd.kubernetes.protobuf' } };
      },
    },
    CHECKS,
    { runs: 2 },
  );
  assertFailed(result, 'crd.no-protobuf', /expected HTTP 406, got 200|Content-Type/);
});

test('a server whose custom resources ignore merge patches is caught', async () => {
  const result = await runThroughProxy(
    {
      async handle(req) {
        if (!custom(pathOf(req)) || req.method !== 'PATCH') return undefined;
        const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'patch not supported', reason: 'MethodNotAllowed', code: 405 };
        return { status: 405, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(status)) };
      },
    },
    CHECKS,
    { runs: 2 },
  );
  assertFailed(result, 'crd.generic-behaviour', /merge patch of a custom resource: expected HTTP 200, got 405/);
  assertPassed(result, ['crd.no-protobuf']);
});
