// The built-in responder behind each declared containerPort of a simulated pod: an HTTP server (one for all
// pods, on a loopback port) that answers any request with 200 and a JSON document naming the pod, the container
// and the port and echoing the request (method, path, headers, body); `/` of an image with a page of its own
// (images.ts) serves that page. A forwarded connection is a socket to it;
// which pod and port it stands for is looked up by the socket's own local port.

import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface PortTarget {
  namespace: string;
  pod: string;
  container: string;
  port: number;
  /** What GET / answers instead of the echo (the image's own page, images.ts). */
  index?: string;
}

export class Responder {
  private server: http.Server | undefined;
  private listening: Promise<number> | undefined;
  private readonly byClientPort = new Map<number, PortTarget>();

  constructor(private readonly maxBody = 1024 * 1024) {}

  private start(): Promise<number> {
    this.listening ??= new Promise((resolve, reject) => {
      const server = http.createServer((req, res) => this.answer(req, res));
      server.keepAliveTimeout = 5000;
      this.server = server;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
      server.unref();
    });
    return this.listening;
  }

  async connect(target: PortTarget): Promise<Duplex> {
    const port = await this.start();
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => {
        this.byClientPort.set(s.localPort!, target);
        s.once('close', () => this.byClientPort.delete(s.localPort!));
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', reject);
    });
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = this.byClientPort.get(req.socket.remotePort ?? -1);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= this.maxBody) chunks.push(c);
    });
    req.on('end', () => {
      if (target?.index !== undefined && req.method === 'GET' && req.url === '/') {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(target.index) });
        res.end(target.index);
        return;
      }
      const body = JSON.stringify(
        {
          pod: target ? `${target.namespace}/${target.pod}` : undefined,
          container: target?.container,
          port: target?.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        },
        null,
        2,
      );
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) + 1 });
      res.end(`${body}\n`);
    });
  }

  close(): void {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}
