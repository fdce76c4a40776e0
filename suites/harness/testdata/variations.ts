// Proxy rules for variations the spec allows, shared by the harness's verdict tests (suites/verdicts.test.ts,
// suites/verify/): a conformant server may answer them, so every check must pass through them.
import { jsonOf, withJson, type ProxiedRequest, type ProxiedResponse, type ProxyRules } from './proxy-server.ts';

/** Where the proxy's own annotation goes: a key a mutating admission step of a real cluster could add. */
export const ADDED_ANNOTATION = 'admission.example.com/seen';

function annotated(o: unknown): void {
  if (!o || typeof o !== 'object') return;
  const meta = (o as { metadata?: Record<string, unknown> }).metadata;
  if (!meta || (o as { kind?: string }).kind === 'Status' || typeof meta.name !== 'string') return;
  meta.annotations = { ...((meta.annotations as Record<string, string> | undefined) ?? {}), [ADDED_ANNOTATION]: 'true' };
}

/**
 * 4.10.3: a create may be answered 200, 201 or 202: this answers every successful create 202. A server may add
 * annotations on write (a mutating admission step): this adds one to every object a write returns and to every
 * object read back (as if stored).
 */
export const acceptedAndAnnotated: ProxyRules = {
  response(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
    if (!(res.headers['content-type'] ?? '').startsWith('application/json') || res.status >= 300) return res;
    const body = jsonOf(res);
    if (!body || typeof body !== 'object') return res;
    if (Array.isArray(body.items)) body.items.forEach(annotated);
    else annotated(body);
    const status = req.method === 'POST' && res.status === 201 ? 202 : res.status;
    return { ...withJson(res, body), status };
  },
};
