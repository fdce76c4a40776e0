// The daemon's own plain-HTTP endpoints on --address:--port, shaped like the 1.9 daemon's (wire-facts 8):
// /healthz (+ ?verbose, /healthz/<check>), /metrics, /configz, and /debug/pprof/... while --profiling is on.
// node:http rather than fastify: a handful of fixed routes, Go's exact 404 text, and streamed profiles.

import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { getHeapSnapshot } from 'node:v8';
import { pipeline } from 'node:stream/promises';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import type { DaemonMetrics } from '../../client/metrics.ts';

export type HealthCheck = () => void | Promise<void>;

export interface HttpServiceOptions {
  address: string;
  port: number;
  profiling: boolean;
  contentionProfiling: boolean;
  metrics: DaemonMetrics;
  /** Registration name -> config object, rendered by /configz. Called per request so it is always current. */
  configz: () => Record<string, unknown>;
  /** Read-only JSON documents by path (the simulated cloud's /cloud/routes ...); undefined: 404. */
  documents?: (path: string) => unknown;
  log?: (line: string) => void;
}

const TEXT = 'text/plain; charset=utf-8';
const DEFAULT_PROFILE_SECONDS = 30;
const MAX_PROFILE_SECONDS = 600;

function send(res: http.ServerResponse, status: number, body: string | Buffer, contentType = TEXT): void {
  res.writeHead(status, { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Go's http.Error: the text plus a newline. */
function httpError(res: http.ServerResponse, status: number, text: string): void {
  send(res, status, `${text}\n`);
}

function notFound(res: http.ServerResponse): void {
  httpError(res, 404, '404 page not found');
}

export class HttpService {
  private readonly checks: Array<{ name: string; check: HealthCheck }> = [{ name: 'ping', check: () => {} }];
  private readonly server: http.Server;
  private loopDelay: IntervalHistogram | undefined;
  private loopDelaySince = new Date();
  private cpuProfiling = false;

  constructor(private readonly opts: HttpServiceOptions) {
    this.server = http.createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        if (!res.headersSent) httpError(res, 500, `internal error: ${err instanceof Error ? err.message : String(err)}`);
        else res.destroy();
      });
    });
    if (opts.profiling && opts.contentionProfiling) {
      this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
      this.loopDelay.enable();
    }
  }

  /** Adds a named check to /healthz (and /healthz/<name>); a check fails by throwing. */
  addHealthCheck(name: string, check: HealthCheck): void {
    if (this.checks.some((c) => c.name === name)) throw new Error(`health check ${name} already registered`);
    this.checks.push({ name, check });
  }

  async listen(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ host: this.opts.address, port: this.opts.port }, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  get address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  /** Base URL for clients (0.0.0.0 and :: are reached through loopback). */
  get url(): string {
    const a = this.address;
    const host = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '[::1]' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  async close(): Promise<void> {
    this.loopDelay?.disable();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://daemon');
    const path = url.pathname;
    if (path === '/healthz' || path === '/healthz/') return this.healthz(url, res);
    if (path.startsWith('/healthz/')) return this.singleCheck(path.slice('/healthz/'.length), res);
    if (path === '/metrics') return send(res, 200, await this.opts.metrics.text(), this.opts.metrics.contentType);
    if (path === '/configz') return send(res, 200, JSON.stringify(this.opts.configz()), 'application/json');
    if (this.opts.profiling && (path === '/debug/pprof' || path.startsWith('/debug/pprof/'))) return this.pprof(path, url, req, res);
    const doc = this.opts.documents?.(path);
    if (doc !== undefined) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return httpError(res, 405, 'Method Not Allowed: read-only');
      }
      return send(res, 200, JSON.stringify(doc), 'application/json');
    }
    notFound(res);
  }

  private async runChecks(): Promise<Array<{ name: string; error?: unknown }>> {
    const results: Array<{ name: string; error?: unknown }> = [];
    for (const { name, check } of this.checks) {
      try {
        await check();
        results.push({ name });
      } catch (error) {
        results.push({ name, error: error ?? new Error('check failed') });
      }
    }
    return results;
  }

  private async healthz(url: URL, res: http.ServerResponse): Promise<void> {
    const results = await this.runChecks();
    // The aggregate endpoint is public, so failures name the check but withhold the reason (as the real one).
    const verbose = results.map((r) => (r.error === undefined ? `[+]${r.name} ok\n` : `[-]${r.name} failed: reason withheld\n`)).join('');
    if (results.some((r) => r.error !== undefined)) return httpError(res, 500, `${verbose}healthz check failed`);
    if (!url.searchParams.has('verbose')) return send(res, 200, 'ok');
    send(res, 200, `${verbose}healthz check passed\n`);
  }

  private async singleCheck(name: string, res: http.ServerResponse): Promise<void> {
    const entry = this.checks.find((c) => c.name === name);
    if (!entry) return notFound(res);
    try {
      await entry.check();
      send(res, 200, 'ok');
    } catch (err) {
      httpError(res, 500, err instanceof Error ? err.message : String(err));
    }
  }

  private async pprof(path: string, url: URL, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const name = path.replace(/^\/debug\/pprof\/?/, '');
    switch (name) {
      case '':
        return send(res, 200, this.pprofIndex());
      case 'cmdline':
        return send(res, 200, process.argv.join('\x00'));
      case 'profile':
        return this.cpuProfile(url, req, res);
      case 'heap':
        return this.heapSnapshot(res);
      case 'block':
        if (this.loopDelay) return send(res, 200, this.blockReport());
        return httpError(res, 404, 'Unknown profile: block (start the daemon with --contention-profiling to collect it)');
      default:
        return httpError(res, 404, `Unknown profile: ${name}`);
    }
  }

  private pprofIndex(): string {
    const lines = [
      'Profiles of this daemon (Node.js, not Go: formats differ from Go pprof):',
      '  /debug/pprof/profile?seconds=N  V8 CPU profile (.cpuprofile JSON; open in Chrome DevTools), default 30 s',
      '  /debug/pprof/heap               V8 heap snapshot (.heapsnapshot JSON)',
      '  /debug/pprof/cmdline            the command line, NUL-separated',
    ];
    if (this.loopDelay) lines.push('  /debug/pprof/block              event-loop delay histogram (Node has no lock-contention profile)');
    return lines.join('\n') + '\n';
  }

  private async cpuProfile(url: URL, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Go's rule: a missing, bad or non-positive seconds value means 30.
    const asked = /^[0-9]+$/.test(url.searchParams.get('seconds') ?? '') ? Number(url.searchParams.get('seconds')) : 0;
    const seconds = Math.min(asked > 0 ? asked : DEFAULT_PROFILE_SECONDS, MAX_PROFILE_SECONDS);
    if (this.cpuProfiling) return httpError(res, 500, 'Could not enable CPU profiling: cpu profiling already in use');
    this.cpuProfiling = true;
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        // A client that hangs up ends the profile early.
        req.socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const { profile } = await session.post('Profiler.stop');
      if (res.destroyed) return;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Disposition': 'attachment; filename="daemon.cpuprofile"',
        'X-Content-Type-Options': 'nosniff',
        'X-Profile-Format': 'v8-cpuprofile',
      });
      res.end(JSON.stringify(profile));
    } finally {
      session.disconnect();
      this.cpuProfiling = false;
    }
  }

  private async heapSnapshot(res: http.ServerResponse): Promise<void> {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Disposition': 'attachment; filename="daemon.heapsnapshot"',
      'X-Content-Type-Options': 'nosniff',
      'X-Profile-Format': 'v8-heapsnapshot',
    });
    // pipeline destroys the snapshot stream too when the client hangs up early.
    await pipeline(getHeapSnapshot(), res).catch(() => res.destroy());
  }

  private blockReport(): string {
    const h = this.loopDelay!;
    const ms = (ns: number) => (ns / 1e6).toFixed(3);
    const pct = [50, 90, 99, 99.9].map((p) => `  p${p}: ${ms(h.percentile(p))} ms`);
    return [
      'What this is: Node.js has no lock-contention (block) profiler like Go. This is the closest signal Node gives:',
      'a histogram of event-loop delay from perf_hooks.monitorEventLoopDelay (10 ms resolution), i.e. how long',
      'ready callbacks waited because the single JavaScript thread was busy.',
      `Since: ${this.loopDelaySince.toISOString()}`,
      `Samples: ${h.count}`,
      `min: ${ms(h.min)} ms`,
      `max: ${ms(h.max)} ms`,
      `mean: ${ms(h.mean)} ms`,
      `stddev: ${ms(h.stddev)} ms`,
      'Percentiles:',
      ...pct,
      `Exceeded histogram range: ${h.exceeds} times`,
    ].join('\n') + '\n';
  }
}

export async function startHttpService(opts: HttpServiceOptions): Promise<HttpService> {
  const service = new HttpService(opts);
  await service.listen();
  return service;
}
