// The client-side proxy (spec 5.4), like `kubectl proxy`: plain HTTP on loopback, every request under the API
// prefix forwarded to the API server with the credentials of a client config (bearer token or client
// certificate, the CA to verify the server), responses streamed back as they come (watch streams included).
// Callers therefore need no credentials; the proxy refuses clients that are not on this machine (unless
// acceptRemote), Host headers outside acceptHosts, and the paths and methods kubectl proxy rejects by default.

import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ClientConfig } from '../client/kubeconfig.ts';

export interface ProxyOptions {
  port?: number;
  address?: string;
  /** Path prefix the API is served under (default "/"). */
  apiPrefix?: string;
  /** Regexps a request's Host (without port) must match one of (kubectl proxy's --accept-hosts). */
  acceptHosts?: RegExp[];
  /** Regexps of paths refused (kubectl proxy's --reject-paths: exec and attach by default). */
  rejectPaths?: RegExp[];
  /** Regexps of methods refused (--reject-methods; default none). */
  rejectMethods?: RegExp[];
  /** Serve clients from other machines too (default: loopback clients only). */
  acceptRemote?: boolean;
  log?: (line: string) => void;
}

export const DEFAULT_ACCEPT_HOSTS = ['^localhost$', '^127\\.0\\.0\\.1$', '^\\[::1\\]$'];
export const DEFAULT_REJECT_PATHS = ['^/api/.*/pods/.*/exec', '^/api/.*/pods/.*/attach'];

export interface RunningProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'authorization']);

function isLoopback(addr: string | undefined): boolean {
  if (!addr) return false;
  return addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.');
}

function hostOnly(host: string | undefined): string {
  if (!host) return '';
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const i = host.lastIndexOf(':');
  return i >= 0 ? host.slice(0, i) : host;
}

function refuse(res: http.ServerResponse, why: string, log?: (line: string) => void): void {
  log?.(`refused: ${why}`);
  res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('Forbidden\n');
}

export async function startProxy(cfg: ClientConfig, opts: ProxyOptions = {}): Promise<RunningProxy> {
  const upstream = new URL(cfg.server);
  const secure = upstream.protocol === 'https:';
  const basePath = upstream.pathname.replace(/\/+$/, '');
  let prefix = opts.apiPrefix ?? '/';
  if (!prefix.startsWith('/')) prefix = `/${prefix}`;
  if (!prefix.endsWith('/')) prefix += '/';
  const acceptHosts = opts.acceptHosts ?? DEFAULT_ACCEPT_HOSTS.map((r) => new RegExp(r));
  const rejectPaths = opts.rejectPaths ?? DEFAULT_REJECT_PATHS.map((r) => new RegExp(r));
  const rejectMethods = opts.rejectMethods ?? [];
  const agent = secure
    ? new https.Agent({ keepAlive: true, ca: cfg.ca, cert: cfg.cert, key: cfg.key, rejectUnauthorized: !cfg.insecureSkipTLSVerify })
    : new http.Agent({ keepAlive: true });
  const credentials: Record<string, string> = {};
  if (cfg.token) credentials.authorization = `Bearer ${cfg.token}`;
  else if (cfg.username !== undefined) credentials.authorization = `Basic ${Buffer.from(`${cfg.username}:${cfg.password ?? ''}`).toString('base64')}`;

  const server = http.createServer((req, res) => {
    if (!opts.acceptRemote && !isLoopback(req.socket.remoteAddress)) return refuse(res, `client ${req.socket.remoteAddress} is not on this machine`, opts.log);
    const host = hostOnly(req.headers.host);
    if (!acceptHosts.some((r) => r.test(host))) return refuse(res, `host ${JSON.stringify(host)} not accepted`, opts.log);
    const url = req.url ?? '/';
    if (!url.startsWith(prefix) && `${url}/` !== prefix) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('404 page not found\n');
      return;
    }
    const rest = '/' + url.slice(prefix.length);
    const path = rest.split('?')[0];
    if (rejectPaths.some((r) => r.test(path))) return refuse(res, `path ${path} rejected`, opts.log);
    if (rejectMethods.some((r) => r.test(req.method ?? ''))) return refuse(res, `method ${req.method} rejected`, opts.log);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) headers[k] = v;
    Object.assign(headers, credentials);
    const forward = (secure ? https : http).request(
      { protocol: upstream.protocol, hostname: upstream.hostname.replace(/^\[|\]$/g, ''), port: upstream.port || (secure ? 443 : 80), method: req.method, path: basePath + rest, headers, agent },
      (up) => {
        const out: http.OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
        res.writeHead(up.statusCode ?? 502, out);
        // Headers go out now, not with the first body chunk: a watch client waits for them before any event.
        res.flushHeaders();
        // Flush each chunk as it arrives: a watch is an endless response of one event per chunk.
        up.on('data', (chunk: Buffer) => res.write(chunk));
        up.on('end', () => res.end());
        up.on('error', () => res.destroy());
      },
    );
    forward.on('error', (err) => {
      opts.log?.(`error forwarding ${req.method} ${rest}: ${err.message}`);
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`proxy error: ${err.message}\n`);
      } else res.destroy();
    });
    // A client that goes away (a watch it stopped reading) ends the upstream request too.
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8001, opts.address ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${shown}:${port}${prefix === '/' ? '' : prefix.replace(/\/$/, '')}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
