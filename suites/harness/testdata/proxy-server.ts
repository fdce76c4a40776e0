// A rewriting proxy in front of the embedded simulator, for the harness's own tests: each test bends one
// behaviour of a correct server (lists replaced instead of merged, a default dropped, an invalid enum
// accepted, status written through PUT...) or changes it in a way the spec allows (create answering 200,
// merged lists in another order), and shows the area's checks fail, or pass, accordingly.
// Watch streams are passed through untouched.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startSimulator, type SimulatorOptions } from '../../../simulator/cluster.ts';

export interface ProxiedRequest {
  method: string;
  /** Path with query string. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Broken: close the connection without answering. */
  reset?: boolean;
}

export type Forward = (req: ProxiedRequest) => Promise<ProxiedResponse>;

export interface ProxyRules {
  /** Rewrites a request before it is forwarded. */
  request?(req: ProxiedRequest): ProxiedRequest;
  /** Replaces the forwarding of one request (may call forward any number of times); undefined: default. */
  handle?(req: ProxiedRequest, forward: Forward): Promise<ProxiedResponse | undefined>;
  /** Rewrites a response. */
  response?(req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse;
  /**
   * Broken: hold each watch's whole answer and send it, with a Content-Length, only when the upstream watch ends
   * (a server that does not stream watches, 4.3.2).
   */
  bufferWatches?: boolean;
}

export interface RunningTarget {
  url: string;
  close(): Promise<void>;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function plainHeaders(h: IncomingMessage['headers'] | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k.toLowerCase())) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function isWatch(url: string): boolean {
  const u = new URL(url, 'http://x');
  return u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1' || /\/watch\//.test(u.pathname);
}

export async function startProxy(upstream: string, rules: ProxyRules): Promise<RunningTarget> {
  const forward: Forward = async (req) => {
    const res = await request(upstream + req.url, { method: req.method as 'GET', headers: req.headers, body: req.body.length > 0 ? req.body : undefined });
    const body = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, headers: plainHeaders(res.headers), body };
  };
  const server = createServer(async (inc: IncomingMessage, out: ServerResponse) => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of inc) chunks.push(c as Buffer);
      let req: ProxiedRequest = { method: inc.method ?? 'GET', url: inc.url ?? '/', headers: plainHeaders(inc.headers), body: Buffer.concat(chunks) };
      if (isWatch(req.url) && rules.bufferWatches) {
        const ac = new AbortController();
        out.on('close', () => ac.abort());
        const res = await request(upstream + req.url, { method: 'GET', headers: req.headers, signal: ac.signal });
        const body = Buffer.from(await res.body.arrayBuffer());
        out.writeHead(res.statusCode, { ...plainHeaders(res.headers), 'content-length': String(body.length) });
        out.end(body);
        return;
      }
      if (isWatch(req.url)) {
        const res = await request(upstream + req.url, { method: 'GET', headers: req.headers });
        out.writeHead(res.statusCode, plainHeaders(res.headers));
        out.flushHeaders();
        out.on('close', () => res.body.destroy());
        for await (const c of res.body) out.write(c);
        out.end();
        return;
      }
      if (rules.request) req = rules.request(req);
      let res = (rules.handle ? await rules.handle(req, forward) : undefined) ?? (await forward(req));
      if (rules.response) res = rules.response(req, res);
      if (res.reset) {
        out.socket?.destroy();
        return;
      }
      out.writeHead(res.status, { ...res.headers, 'content-length': String(res.body.length) });
      out.end(res.body);
    } catch (err) {
      if (!out.headersSent) out.writeHead(502, { 'content-type': 'text/plain' });
      out.end(`proxy error: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The simulator (the API server alone, unless `simulator` says otherwise) with a rewriting proxy in front of it; close() stops both. */
export async function startProxiedSimulator(rules: ProxyRules, simulator: SimulatorOptions = {}): Promise<RunningTarget> {
  const sim = await startSimulator({ port: 0, host: '127.0.0.1', ...simulator });
  const proxy = await startProxy(sim.url, rules);
  return {
    url: proxy.url,
    async close() {
      await proxy.close();
      await sim.close();
    },
  };
}

// ---- helpers for rules ------------------------------------------------------------------------------------

/** The JSON body of a request or response, or undefined when it is not JSON. */
export function jsonOf(x: { body: Buffer; headers: Record<string, string> }): any {
  if (x.body.length === 0) return undefined;
  try {
    return JSON.parse(x.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function withJson<T extends { body: Buffer; headers: Record<string, string> }>(x: T, value: unknown): T {
  return { ...x, body: Buffer.from(JSON.stringify(value)) };
}

export function pathOf(req: ProxiedRequest): string {
  return new URL(req.url, 'http://x').pathname;
}

export function contentTypeOf(req: ProxiedRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/** Calls fn on every object of a JSON body: the body itself and each list item. */
export function eachObject(body: any, fn: (o: any) => void): void {
  if (!body || typeof body !== 'object') return;
  if (Array.isArray(body.items)) body.items.forEach((i: unknown) => eachObject(i, fn));
  fn(body);
}
