// Checks demand no more than their rows (issue 18 item 2): behind a proxy that changes every JSON answer only in
// ways the spec leaves open, the checks that read JSON bodies still pass. The proxy reverses the key order of
// every object, writes pretty=true answers with tab indentation and CRLF line ends and every other answer with
// blanks after ':' and ',', reverses the items of every list (the spec gives lists no order), answers creates with
// 200 instead of 201 (any of 200, 201, 202), and adds a field no check knows to every object's metadata-free top level.
// A check that compared raw text, assumed 2-space indentation, key or list order, a 201, or no extra fields fails.
import { after, test } from 'node:test';
import { assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { jsonOf, type ProxiedRequest, type ProxiedResponse } from './harness/testdata/proxy-server.ts';

after(closeTargets);

function reversedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversedKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).reverse().map(([k, x]) => [k, reversedKeys(x)]));
}

/** JSON with a blank after every ':' and ',' outside strings (insignificant whitespace, JSON RFC 8259 section 2). */
function spaced(value: unknown): string {
  return JSON.stringify(value).replace(/("(?:[^"\\]|\\.)*")|([:,])/g, (_m, str: string | undefined, punct: string | undefined) => str ?? `${punct} `);
}

function vary(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
  if (!(res.headers['content-type'] ?? '').startsWith('application/json')) return res;
  const body = jsonOf(res);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return res;
  if (Array.isArray(body.items) && /List$/.test(String(body.kind ?? ''))) body.items = [...body.items].reverse();
  // An extra top-level field of a later API version: clients must ignore fields they do not know.
  if (body.kind !== 'Status' && res.status < 300) body.zzFutureField = { note: 'added by the allowed-variations proxy' };
  const status = req.method === 'POST' && res.status === 201 ? 200 : res.status;
  const out = reversedKeys(body);
  const pretty = new URL(req.url, 'http://x').searchParams.get('pretty') === 'true';
  const text = pretty ? JSON.stringify(out, null, '\t').replace(/\n/g, '\r\n') : spaced(out);
  return { ...res, status, body: Buffer.from(text) };
}

// Checks that read JSON answers field by field, across the suites whose rows fix shapes, codes and formats.
const CHECKS = [
  'negotiation.pretty',
  'negotiation.default-is-json',
  'crud.create-then-get',
  'crud.lifecycle.core.v1.configmaps',
  'crud.lifecycle.apps.v1.deployments',
  'crud.list-label-selector',
  'crud.list-all-namespaces',
  'crud.delete-success-status',
  'deletion.status-body-and-options',
  'deletion.collection-selector',
  'chunking.snapshot-under-writes',
  'chunking.token-with-other-query',
  'subresources.status-writes-only-status',
  'subresources.scale-consistent',
  'patch.configmap-merge-and-strategic',
  'patch.deployment-containers',
  'fields.object-shapes',
];

test('allowed variations (key order, whitespace, indentation, list order, 200 for create, extra fields): the checks pass', async () => {
  const result = await runThroughProxy({ response: vary }, CHECKS, { runs: 4 });
  const ran = result.checks.map((c) => c.id);
  assertPassed(result, ran);
  // Every name above must be a real check (a renamed check would silently drop out).
  if (ran.length < CHECKS.length) throw new Error(`only ${ran.length} of the selected checks exist: ${ran.join(', ')}`);
});
