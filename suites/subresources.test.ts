// The subresources suite catches a server whose main-resource PUT writes status, whose /status write
// changes spec, whose Scale shows another selector, or whose finalize changes status; it passes a server
// that answers creates with 200 and PUTs with 201.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { jsonOf, pathOf, withJson, type ProxiedResponse } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const CHECKS = ['subresources.status-writes-only-status', 'subresources.main-resource-ignores-status', 'subresources.scale-consistent', 'subresources.namespace-finalize'];
const json = { 'content-type': 'application/json', accept: 'application/json' };

test('status written through the main resource, spec through /status, a wrong Scale selector and status through finalize are each caught', async () => {
  const result = await runThroughProxy(
    {
      async handle(req, forward): Promise<ProxiedResponse | undefined> {
        const path = pathOf(req);
        if (req.method !== 'PUT') return undefined;
        const body = jsonOf(req);
        const first = await forward(req);
        if (first.status >= 300 || !body) return first;
        const stored = jsonOf(first);
        if (/\/deployments\/[^/]+$/.test(path) && !body.status) {
          // Broken: a PUT without status clears the stored status.
          return forward({ method: 'PUT', url: `${path}/status`, headers: json, body: Buffer.from(JSON.stringify({ ...stored, status: {} })) });
        }
        if (/\/deployments\/[^/]+$/.test(path) && body.status) {
          // Broken: the main resource's PUT also writes the status it was given.
          return forward({ method: 'PUT', url: `${path}/status`, headers: json, body: Buffer.from(JSON.stringify({ ...stored, status: body.status })) });
        }
        if (/\/deployments\/[^/]+\/status$/.test(path)) {
          return forward({ method: 'PUT', url: path.replace(/\/status$/, ''), headers: json, body: Buffer.from(JSON.stringify({ ...stored, spec: body.spec })) });
        }
        if (/\/namespaces\/[^/]+\/finalize$/.test(path)) {
          // Broken: finalize also takes the status it was given (answered back; a real server's own status
          // validation would refuse the made-up phase, so the breakage is in the answer).
          return withJson(first, { ...stored, status: body.status });
        }
        return first;
      },
      response(req, res) {
        if (!pathOf(req).endsWith('/scale') || res.status !== 200) return res;
        const body = jsonOf(res);
        if (typeof body?.status?.selector === 'string') body.status.selector = 'app=other';
        else if (body?.status?.selector) body.status.selector = { app: 'other' };
        return withJson(res, body);
      },
    },
    CHECKS,
  );
  assertFailed(result, 'subresources.main-resource-ignores-status', /status\.\w+ became \d+|ConformanceMarker condition set through \/status is gone/);
  assertFailed(result, 'subresources.status-writes-only-status', /PUT .*spec in the answer|PUT .*spec read back/);
  assertFailed(result, 'subresources.scale-consistent', /status\.selector against the parent's selector/);
  assertFailed(result, 'subresources.namespace-finalize', /status\.phase in the (answer|GET after)/);
});

test('creates answered 200 and PUTs answered 201 are allowed', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (req.method === 'POST' && res.status === 201) return { ...res, status: 200 };
        if (req.method === 'PUT' && res.status === 200) return { ...res, status: 201 };
        return res;
      },
    },
    CHECKS,
  );
  assertPassed(result, CHECKS);
});
