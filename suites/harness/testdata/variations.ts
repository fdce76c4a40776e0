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

/** 2.6: protobuf envelopes with contentType (field 4) set to the protobuf media type, which unset means anyway. */
export const envelopeContentTypeSet: ProxyRules = {
  response(_req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
    const type = (res.headers['content-type'] ?? '').split(';')[0];
    if (!type.endsWith('.protobuf') || !res.body.subarray(0, 4).equals(Buffer.from('k8s\0', 'latin1'))) return res;
    const value = Buffer.from(type);
    // Field 4, wire type 2 (length-delimited): appended to the envelope message (a field may come in any order).
    return { ...res, body: Buffer.concat([res.body, Buffer.from([0x22, value.length]), value]) };
  },
};

// ---- broken servers ---------------------------------------------------------------------------------------------

function containersOf(o: any): any[] {
  const spec = o?.spec?.template?.spec ?? o?.spec?.jobTemplate?.spec?.template?.spec ?? o?.spec;
  return Array.isArray(spec?.containers) ? spec.containers : [];
}

/** Defaults imagePullPolicy to IfNotPresent for images tagged :latest (2.2: Always), in every answer. */
export const latestPullsIfNotPresent: ProxyRules = {
  response(_req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
    const body = jsonOf(res);
    if (!body || typeof body !== 'object') return res;
    const objects = Array.isArray(body.items) ? body.items : [body];
    for (const o of objects) for (const c of containersOf(o)) if (/:latest$/.test(c.image ?? '') && c.imagePullPolicy === 'Always') c.imagePullPolicy = 'IfNotPresent';
    return withJson(res, body);
  },
};

/** GET /api/v1 (the core group's discovery document) without configmaps. */
export const discoveryWithoutConfigmaps: ProxyRules = {
  response(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
    if (new URL(req.url, 'http://x').pathname !== '/api/v1') return res;
    const body = jsonOf(res);
    if (!Array.isArray(body?.resources)) return res;
    body.resources = body.resources.filter((r: { name?: string }) => !String(r.name).startsWith('configmaps'));
    return withJson(res, body);
  },
};

/** Keeps a creationTimestamp sent with another offset in an update and shows it back in every later answer. */
export function keepsOffsetTimestamps(): ProxyRules {
  const sent = new Map<string, string>();
  const key = (req: ProxiedRequest) => new URL(req.url, 'http://x').pathname;
  return {
    request(req: ProxiedRequest): ProxiedRequest {
      const ts = (jsonOf(req) as { metadata?: { creationTimestamp?: string } } | undefined)?.metadata?.creationTimestamp;
      if ((req.method === 'PUT' || req.method === 'PATCH') && typeof ts === 'string' && !ts.endsWith('Z')) sent.set(key(req), ts);
      return req;
    },
    response(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse {
      const body = jsonOf(res);
      if (!body || typeof body !== 'object') return res;
      const path = key(req);
      const objects = Array.isArray(body.items) ? body.items.map((o: any) => [`${path}/${o?.metadata?.name}`, o]) : [[path, body]];
      for (const [p, o] of objects) if (sent.has(p) && o?.metadata) o.metadata.creationTimestamp = sent.get(p);
      return withJson(res, body);
    },
  };
}
