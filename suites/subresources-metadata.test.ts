// The /status and /scale metadata check: a server that also applies the labels and annotations in the body of
// a /status or /scale write is caught; one that answers such writes pretty-printed with keys reordered passes.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { jsonOf, pathOf, type ProxiedResponse } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const KEEP = 'subresources.writes-keep-metadata';

test('a /status or /scale write that also applies the labels and annotations of its body is caught', async () => {
  const result = await runThroughProxy(
    {
      async handle(req, forward): Promise<ProxiedResponse | undefined> {
        const path = pathOf(req);
        if (!['PUT', 'PATCH'].includes(req.method) || !/\/deployments\/[^/]+\/(status|scale)$/.test(path)) return undefined;
        const first = await forward(req);
        const metadata = jsonOf(req)?.metadata;
        if (first.status >= 300 || !metadata) return first;
        // Broken: the labels and annotations of the body are applied to the parent as well.
        const patch = { metadata: { labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} } };
        const main = await forward({ method: 'PATCH', url: path.replace(/\/(status|scale)$/, ''), headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json' }, body: Buffer.from(JSON.stringify(patch)) });
        return path.endsWith('/status') ? main : first;
      },
    },
    [KEEP],
    { runs: 6 },
  );
  assertFailed(result, KEEP, /label conformance\.example\.com\/kept is "x|label conformance\.example\.com\/added was added/);
});

test('allowed: a /status or /scale write answered with the fields in any key order and pretty-printed passes', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (!/\/(status|scale)$/.test(pathOf(req))) return res;
        const body = jsonOf(res);
        if (!body || typeof body !== 'object') return res;
        const reversed = Object.fromEntries(Object.entries(body).reverse());
        return { ...res, body: Buffer.from(JSON.stringify(reversed, null, 3)) };
      },
    },
    [KEEP],
    { runs: 6 },
  );
  assertPassed(result, [KEEP]);
});
