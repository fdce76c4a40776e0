// pods/portforward, the kubelet's port-forward server of 1.9 over either transport.
// SPDY (`X-Stream-Protocol-Version: portforward.k8s.io`): per forwarded connection the client opens an error
// stream and a data stream with the same `requestID` and a `port` header; the pair is connected to that port of
// the pod, the data stream carrying the bytes both ways and the error stream the text of a failure.
// WebSocket (subprotocols `v4.channel.k8s.io`, `v4.base64.channel.k8s.io`, or none): the ports are the query's
// `ports`; port i has data channel 2i and error channel 2i+1, each of which first carries the port number as two
// little-endian bytes, then the data (or the error text). Each port is connected once the socket opens.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { KubeObject } from '../../api/meta.ts';
import WebSocket from 'ws';
import { SpdySession, type SpdyStream } from './spdy.ts';
import { headerValues, isSpdy, negotiate, openWebSocket, refuseUpgrade } from './channels.ts';
import type { Upgrade } from './upgrade.ts';
import type { StreamLimits } from './limits.ts';
import type { ContainerRuntime } from '../../api/container-runtime.ts';

export const PORTFORWARD_SPDY_PROTOCOLS = ['portforward.k8s.io'];
export const PORTFORWARD_WS_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io'];

/** The query's ports (repeated or comma-separated); undefined with the message of a bad one. */
export function parsePorts(raw: IncomingMessage): number[] | string {
  const url = new URL(raw.url ?? '/', 'http://x');
  const values = url.searchParams.getAll('ports').flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const v of values) {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= 1 && n <= 65535)) return `unable to parse "${v}" as a port: ${Number.isNaN(n) ? 'invalid syntax' : 'port must be > 0 and < 65536'}`;
    ports.push(n);
  }
  return ports;
}

export function servePortForward(raw: IncomingMessage, up: Upgrade, pod: KubeObject, runtime: ContainerRuntime, limits: StreamLimits): void {
  if (isSpdy(raw)) return spdyPortForward(raw, up, pod, runtime, limits);
  const ports = parsePorts(raw);
  if (typeof ports === 'string') return refuseUpgrade(up, 400, ports);
  const offered = headerValues(raw, 'sec-websocket-protocol');
  const protocol = negotiate(offered, PORTFORWARD_WS_PROTOCOLS);
  if (protocol === undefined) return refuseUpgrade(up, 400, `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${PORTFORWARD_WS_PROTOCOLS.join(' ')}]`);
  const release = limits.acquire();
  if (!release) return refuseUpgrade(up, 429, 'Too many requests, please try again later.');
  void openWebSocket(raw, up, protocol).then((ws) => wsPortForward(ws, protocol, ports, pod, runtime, release));
}

function wsPortForward(ws: WebSocket, protocol: string, ports: number[], pod: KubeObject, runtime: ContainerRuntime, release: () => void): void {
  const base64 = protocol.includes('base64');
  const targets: Array<Duplex | undefined> = ports.map(() => undefined);
  const early: Buffer[][] = [];
  const send = (channel: number, data: Buffer, cb?: () => void) => {
    if (ws.readyState !== WebSocket.OPEN) return cb?.();
    const msg = base64 ? Buffer.from(String.fromCharCode(0x30 + channel) + data.toString('base64'), 'latin1') : Buffer.concat([Buffer.from([channel]), data]);
    ws.send(msg, { binary: !base64 }, () => cb?.());
  };
  let open = ports.length;
  const done = () => {
    if (--open === 0 && ws.readyState === WebSocket.OPEN) ws.close(1000);
  };
  ws.on('close', () => {
    release();
    for (const t of targets) t?.destroy();
  });
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const bytes = data;
    if (bytes.length === 0) return;
    const channel = base64 && !isBinary ? bytes[0] - 0x30 : bytes[0];
    const payload = base64 && !isBinary ? Buffer.from(bytes.subarray(1).toString('latin1'), 'base64') : bytes.subarray(1);
    if (channel % 2 !== 0 || !payload.length) return;
    const i = channel / 2;
    // Bytes sent before the port's connection is made wait for it.
    if (targets[i]) targets[i]!.write(payload);
    else if (i < ports.length) (early[i] ??= []).push(payload);
  });
  ports.forEach((port, i) => {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    send(2 * i, prefix);
    send(2 * i + 1, prefix);
    runtime.connect(pod, port).then(
      (t) => {
        if (ws.readyState !== WebSocket.OPEN) return t.destroy();
        targets[i] = t;
        for (const b of early[i] ?? []) t.write(b);
        early[i] = [];
        // Back-pressure: the target pauses while the socket's buffer is full.
        t.on('data', (c: Buffer) => {
          t.pause();
          send(2 * i, c, () => t.resume());
        });
        t.on('end', done);
        t.on('error', (e: Error) => {
          send(2 * i + 1, Buffer.from(e.message));
          done();
        });
      },
      (e: Error) => {
        send(2 * i + 1, Buffer.from(forwardError(pod, port, e)));
        done();
      },
    );
  });
}

export function forwardError(pod: KubeObject, port: number, e: Error): string {
  return `error forwarding port ${port} to pod ${pod.metadata.uid ?? ''}, uid : ${e.message}`;
}

function spdyPortForward(raw: IncomingMessage, up: Upgrade, pod: KubeObject, runtime: ContainerRuntime, limits: StreamLimits): void {
  const client = headerValues(raw, 'x-stream-protocol-version');
  const protocol = negotiate(client, PORTFORWARD_SPDY_PROTOCOLS);
  if (!protocol) {
    return refuseUpgrade(up, 403, `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${PORTFORWARD_SPDY_PROTOCOLS.join(' ')}]`, {
      'X-Accepted-Stream-Protocol-Versions': PORTFORWARD_SPDY_PROTOCOLS,
    });
  }
  const release = limits.acquire();
  if (!release) return refuseUpgrade(up, 429, 'Too many requests, please try again later.');
  up.socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  const session = new SpdySession(up.socket, up.head, {
    maxStreams: limits.perConnection * 2,
    onStream: (s) => {
      const type = s.header('streamtype');
      const portText = s.header('port') ?? '';
      // Without a requestID (old clients) an error stream and the data stream after it pair by stream id.
      const key = s.header('requestid') ?? String(type === 'data' ? s.id - 2 : s.id);
      if (type !== 'error' && type !== 'data') return s.reset();
      void s.reply().catch(() => {});
      const pair = pairs.get(key) ?? {};
      pairs.set(key, pair);
      if (pair[type]) return s.reset();
      pair[type] = s;
      if (type === 'error') s.resume();
      if (!pair.error || !pair.data) return;
      pairs.delete(key);
      const { error, data } = pair as { error: SpdyStream; data: SpdyStream };
      const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
      if (!(port >= 1 && port <= 65535)) {
        error.end(`invalid port header ${JSON.stringify(portText)}`);
        data.end();
        return;
      }
      runtime.connect(pod, port).then(
        (t) => {
          data.pipe(t);
          t.pipe(data);
          t.on('error', (e: Error) => {
            if (!error.writableEnded) error.end(forwardError(pod, port, e));
            data.end();
          });
          data.on('close', () => t.destroy());
          t.on('close', () => {
            if (!error.writableEnded) error.end();
          });
        },
        (e: Error) => {
          error.end(forwardError(pod, port, e));
          data.end();
        },
      );
    },
  });
  session.onClose(release);
}
