// The robustness suite catches a server that answers a malformed body with a 500, accepts a wrong JSON type by
// coercing it, closes the connection on a method it does not know, or refuses without a Status body; it passes
// a server that refuses with other 4xx codes than the simulator's (422 for 400) and pretty-printed Status
// bodies with their keys in another order.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { contentTypeOf, jsonOf, pathOf, withJson, type ProxiedRequest, type ProxiedResponse } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const CHECKS = ['robustness.malformed-bodies', 'robustness.field-types', 'robustness.paths-and-methods', 'robustness.query-values'];

const parses = (req: ProxiedRequest) => {
  if (contentTypeOf(req) !== 'application/json' || req.body.length === 0) return true;
  try {
    JSON.parse(req.body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
};

test('a 500 for a body that does not parse, a wrong type coerced and stored, a reset on an odd method, and a refusal without a Status are each caught', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        // Broken: "replicas": "12" is read as the number 12.
        const body = contentTypeOf(req) === 'application/json' && req.method === 'POST' ? jsonOf(req) : undefined;
        if (body?.kind === 'Deployment' && typeof body.spec?.replicas === 'string') return withJson(req, { ...body, spec: { ...body.spec, replicas: Number(body.spec.replicas) || 1 } });
        return req;
      },
      async handle(req): Promise<ProxiedResponse | undefined> {
        if (!parses(req)) return { status: 500, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"InternalError","code":500}') };
        if (req.method === 'PROPFIND' || req.method === 'MKCOL') return { status: 0, headers: {}, body: Buffer.alloc(0), reset: true };
        return undefined;
      },
      response(req, res) {
        // Broken: a bad label selector is refused with a plain-text 400.
        if (req.method === 'GET' && res.status === 400 && /labelSelector=/.test(req.url)) return { ...res, headers: { 'content-type': 'text/plain' }, body: Buffer.from('bad selector\n') };
        return res;
      },
    },
    CHECKS,
    { runs: 4 },
  );
  assertFailed(result, 'robustness.malformed-bodies', /answered 500/);
  assertFailed(result, 'robustness.field-types', /spec\.replicas = "12" .*answered 20\d/);
  assertFailed(result, 'robustness.paths-and-methods', /(PROPFIND|MKCOL) .*no answer/);
  assertFailed(result, 'robustness.query-values', /not a Status body/);
});

test('allowed: refusals with 422 instead of 400 and pretty-printed Status bodies with their keys reversed pass', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (res.status < 400 || !pathOf(req).startsWith('/api')) return res;
        const body = jsonOf(res);
        if (!body || body.kind !== 'Status') return res;
        const status = res.status === 400 ? 422 : res.status;
        const reversed = Object.fromEntries(Object.entries({ ...body, code: status }).reverse());
        return { ...res, status, body: Buffer.from(JSON.stringify(reversed, null, 4)) };
      },
    },
    CHECKS,
    { runs: 4 },
  );
  assertPassed(result, CHECKS);
});
