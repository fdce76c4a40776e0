// An HTTP proxy in front of an API server that holds the requests a predicate picks for a while before
// forwarding them, and records the most held at once: how tests see a daemon's worker count through the API
// (N workers → at most N such writes in flight).

import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';

export interface HoldingProxy {
  proxy: Server;
  url: string;
  /** The most picked requests that were in flight (held or forwarded and unanswered) at once. */
  maxInFlight(): number;
  /** How many picked requests went through. */
  count(): number;
  close(): Promise<void>;
}

export async function holdingProxy(target: string, holdMs: number, pick: (req: IncomingMessage) => boolean): Promise<HoldingProxy> {
  let inFlight = 0;
  let max = 0;
  let seen = 0;
  const t = new URL(target);
  const proxy = createServer((req, res) => {
    const held = pick(req);
    const forward = () => {
      const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
        upRes.on('end', () => {
          if (held) inFlight--;
        });
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    };
    if (!held) return forward();
    inFlight++;
    seen++;
    max = Math.max(max, inFlight);
    setTimeout(forward, holdMs);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as { port: number }).port;
  proxy.on('connection', (s) => proxy.once('close', () => s.destroy()));
  return {
    proxy,
    url: `http://127.0.0.1:${port}`,
    maxInFlight: () => max,
    count: () => seen,
    close: () => new Promise<void>((r) => proxy.close(() => r())),
  };
}
