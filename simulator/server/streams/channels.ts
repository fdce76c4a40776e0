// The channels of a remote command (exec, attach) over either transport, as the kubelet's streaming server of 1.9
// offers them: SPDY/3.1 with the protocols of `X-Stream-Protocol-Version` (v4, v3, v2 and v1 `channel.k8s.io`), one
// stream per channel named by its `streamType` header; or WebSocket with the subprotocols `v4.channel.k8s.io`,
// `v4.base64.channel.k8s.io`, `channel.k8s.io`, `base64.channel.k8s.io` (or none), one channel per first byte of a
// message: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize (base64: the digit as text, the data base64-encoded).
// From v4 on the error channel carries a JSON Status (with the exit code); before, the error's text.

import { PassThrough, type Readable, Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import * as wsModule from 'ws';
import { SpdySession, type SpdyStream } from './spdy.ts';
import type { Upgrade } from './upgrade.ts';
import type { StreamLimits } from './limits.ts';

export const REMOTECOMMAND_SPDY_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
export const REMOTECOMMAND_WS_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io'];
/** How long the client has to open the streams it asked for (the kubelet's stream creation timeout). */
export const STREAM_CREATION_TIMEOUT_MS = 30_000;

export interface Wanted {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

export interface Channels {
  protocol: string;
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  resize?: Readable;
  /** Aborted when the client goes. */
  signal: AbortSignal;
  /** Writes the outcome on the error channel (Status JSON from v4, text before), closes every channel and the connection. */
  finish(status: ExecStatus): Promise<void>;
  /** Cuts the connection at once. */
  abort(): void;
}

export type ExecStatus = { status: 'Success' } | { status: 'Failure'; message: string; reason?: string; exitCode?: number };

/** The header's values, whether sent as repeated headers (node joins them with ", ") or comma-separated. */
export function headerValues(raw: IncomingMessage, name: string): string[] {
  const v = raw.headers[name.toLowerCase()];
  const all = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return all.flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
}

export function isWebSocket(raw: IncomingMessage): boolean {
  return headerValues(raw, 'upgrade').some((u) => u.toLowerCase() === 'websocket');
}
export function isSpdy(raw: IncomingMessage): boolean {
  return headerValues(raw, 'upgrade').some((u) => u.toLowerCase() === 'spdy/3.1');
}

/** A refusal before the protocol switch, as the kubelet's handshake writes it: plain text, then the connection ends. */
export function refuseUpgrade(up: Upgrade, code: number, message: string, extraHeaders: Record<string, string[]> = {}): void {
  const reason = code === 403 ? 'Forbidden' : code === 429 ? 'Too Many Requests' : 'Bad Request';
  const body = `${message}\n`;
  let head = `HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n`;
  for (const [k, vs] of Object.entries(extraHeaders)) for (const v of vs) head += `${k}: ${v}\r\n`;
  up.socket.end(`${head}\r\n${body}`);
}

/** The first client protocol the server supports, '' when the client named none, undefined when none matches. */
export function negotiate(client: string[], server: string[]): string | undefined {
  if (client.length === 0) return '';
  return client.find((p) => server.includes(p));
}

export function statusJson(s: ExecStatus): string {
  if (s.status === 'Success') return JSON.stringify({ metadata: {}, status: 'Success' });
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message: s.message,
    ...(s.reason ? { reason: s.reason } : {}),
    ...(s.exitCode !== undefined ? { details: { causes: [{ reason: 'ExitCode', message: String(s.exitCode) }] } } : {}),
  });
}

function errorPayload(protocol: string, s: ExecStatus): string | undefined {
  if (protocol.startsWith('v4.')) return statusJson(s);
  return s.status === 'Success' ? undefined : s.message;
}

/** SPDY: switches protocols, then waits (bounded) for the streams the request asked for. */
export function spdyChannels(raw: IncomingMessage, up: Upgrade, wanted: Wanted, limits: StreamLimits): Promise<Channels> | undefined {
  const protocol = negotiate(headerValues(raw, 'x-stream-protocol-version'), REMOTECOMMAND_SPDY_PROTOCOLS);
  if (protocol === undefined) {
    const client = headerValues(raw, 'x-stream-protocol-version');
    refuseUpgrade(up, 403, `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${REMOTECOMMAND_SPDY_PROTOCOLS.join(' ')}]`, {
      'X-Accepted-Stream-Protocol-Versions': REMOTECOMMAND_SPDY_PROTOCOLS,
    });
    return undefined;
  }
  const release = limits.acquire();
  if (!release) {
    refuseUpgrade(up, 429, 'Too many requests, please try again later.');
    return undefined;
  }
  up.socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${protocol ? `X-Stream-Protocol-Version: ${protocol}\r\n` : ''}\r\n`,
  );
  const v1 = protocol === '' || protocol === 'channel.k8s.io';
  const expected = new Set(['error']);
  if (wanted.stdin) expected.add('stdin');
  if (wanted.stdout) expected.add('stdout');
  if (wanted.stderr && !wanted.tty) expected.add('stderr');
  if (wanted.tty && !v1 && protocol !== 'v2.channel.k8s.io') expected.add('resize');
  const got = new Map<string, SpdyStream>();
  const replies: Array<Promise<void>> = [];
  const ac = new AbortController();
  return new Promise<Channels>((resolve, reject) => {
    const session = new SpdySession(up.socket, up.head, {
      maxStreams: limits.perConnection,
      onStream: (s) => {
        const type = s.header('streamtype') ?? '';
        if (!expected.has(type) || got.has(type)) {
          s.reset();
          return;
        }
        got.set(type, s);
        replies.push(s.reply());
        // Streams the server only reads are half-closed on its side at once.
        if (type === 'stdin' || type === 'resize') s.end();
        if (got.size === expected.size) {
          clearTimeout(timer);
          // Every stream is accepted before anything is written on one (a DATA frame before its SYN_REPLY).
          Promise.all(replies).then(() => resolve(make()), reject);
        }
      },
    });
    session.onClose(() => {
      release();
      ac.abort();
      clearTimeout(timer);
      reject(new Error('connection closed before the streams were created'));
    });
    const timer = setTimeout(() => {
      session.goAway();
      reject(new Error('timed out waiting for client to create streams'));
    }, STREAM_CREATION_TIMEOUT_MS);
    const make = (): Channels => ({
      protocol,
      stdin: got.get('stdin'),
      stdout: got.get('stdout'),
      stderr: got.get('stderr'),
      resize: got.get('resize'),
      signal: ac.signal,
      abort: () => session.close(),
      async finish(status) {
        const text = errorPayload(protocol, status);
        const ends = [...got.entries()].filter(([t]) => t !== 'stdin' && t !== 'resize').map(([t, s]) =>
          new Promise<void>((r) => {
            if (s.destroyed || s.writableEnded) return r();
            s.once('finish', r).once('close', r);
            if (t === 'error' && text !== undefined) s.write(text);
            s.end();
          }),
        );
        await Promise.all(ends);
        session.goAway();
      },
    });
  });
}

/** WebSocket: checks the subprotocol, switches, and maps the channels onto messages. */
export function webSocketChannels(raw: IncomingMessage, up: Upgrade, wanted: Wanted, limits: StreamLimits): Promise<Channels> | undefined {
  const offered = headerValues(raw, 'sec-websocket-protocol');
  const protocol = negotiate(offered, REMOTECOMMAND_WS_PROTOCOLS);
  if (protocol === undefined) {
    refuseUpgrade(up, 400, `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${REMOTECOMMAND_WS_PROTOCOLS.join(' ')}]`);
    return undefined;
  }
  const release = limits.acquire();
  if (!release) {
    refuseUpgrade(up, 429, 'Too many requests, please try again later.');
    return undefined;
  }
  return openWebSocket(raw, up, protocol).then((ws) => {
    const base64 = protocol.includes('base64');
    const ac = new AbortController();
    ws.on('close', () => {
      release();
      ac.abort();
    });
    const readers = new Map<number, PassThrough>();
    if (wanted.stdin) readers.set(0, new PassThrough());
    if (wanted.tty) readers.set(4, new PassThrough());
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const bytes = base64 && !isBinary ? Buffer.from(data.toString('latin1'), 'latin1') : data;
      if (bytes.length === 0) return;
      const channel = base64 ? bytes[0] - 0x30 : bytes[0];
      const payload = base64 ? Buffer.from(bytes.subarray(1).toString('latin1'), 'base64') : bytes.subarray(1);
      readers.get(channel)?.write(payload);
    });
    ws.on('close', () => {
      for (const r of readers.values()) r.end();
    });
    const send = (channel: number, chunk: Buffer, cb: (err?: Error | null) => void) => {
      if (ws.readyState !== WebSocket.OPEN) return cb(new Error('connection closed'));
      const msg = base64 ? Buffer.from(String.fromCharCode(0x30 + channel) + chunk.toString('base64'), 'latin1') : Buffer.concat([Buffer.from([channel]), chunk]);
      ws.send(msg, { binary: !base64 }, (err) => cb(err ?? null));
    };
    const writer = (channel: number) =>
      new Writable({
        write: (chunk: Buffer, _e, cb) => send(channel, chunk, cb),
      });
    const stdout = wanted.stdout ? writer(1) : undefined;
    const stderr = wanted.stderr && !wanted.tty ? writer(2) : undefined;
    // The kubelet tells the client the streams are ready with an empty message on the lowest output channel.
    send(wanted.stdout ? 1 : wanted.stderr && !wanted.tty ? 2 : 3, Buffer.alloc(0), () => {});
    return {
      protocol,
      stdin: readers.get(0),
      stdout,
      stderr,
      resize: readers.get(4),
      signal: ac.signal,
      abort: () => ws.terminate(),
      async finish(status) {
        const text = errorPayload(protocol, status);
        // The status and the close frame go out in the same turn: a client that polls briefly between reads (the
        // Python client 22.6 waits `timeout` milliseconds where its callers mean seconds) finds both at once.
        if (text !== undefined && ws.readyState === WebSocket.OPEN) send(3, Buffer.from(text), () => {});
        await new Promise<void>((r) => {
          if (ws.readyState !== WebSocket.OPEN) return r();
          ws.once('close', () => r());
          ws.close(1000);
          setTimeout(() => {
            ws.terminate();
            r();
          }, 2000).unref();
        });
      },
    } satisfies Channels;
  });
}

const CHOSEN = Symbol('chosen protocol');
// ws 8 names the server class WebSocketServer (the installed @types/ws still describes it as WebSocket.Server).
const WebSocketServer = (wsModule as unknown as { WebSocketServer: typeof WebSocket.Server }).WebSocketServer;
const wss = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  maxPayload: 16 * 1024 * 1024,
  handleProtocols: (_offered: unknown, req: IncomingMessage & { [CHOSEN]?: string }) => req[CHOSEN] || false,
});

/** The WebSocket handshake (the protocol is already chosen: ws echoes it). */
export function openWebSocket(raw: IncomingMessage, up: Upgrade, protocol: string): Promise<WebSocket> {
  (raw as IncomingMessage & { [CHOSEN]?: string })[CHOSEN] = protocol;
  return new Promise((resolve) => wss.handleUpgrade(raw, up.socket, up.head, (ws: WebSocket) => resolve(ws)));
}

/** Splits a stream of concatenated JSON objects (the resize channel) into objects. */
export function jsonObjects(onObject: (v: unknown) => void): (chunk: Buffer) => void {
  let buf = '';
  return (chunk) => {
    buf += chunk.toString('utf8');
    for (;;) {
      const start = buf.indexOf('{');
      if (start < 0) {
        buf = '';
        return;
      }
      let depth = 0;
      let inString = false;
      let end = -1;
      for (let i = start; i < buf.length; i++) {
        const ch = buf[i];
        if (inString) {
          if (ch === '\\') i++;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) {
          end = i;
          break;
        }
      }
      if (end < 0) {
        buf = buf.slice(start);
        return;
      }
      const text = buf.slice(start, end + 1);
      buf = buf.slice(end + 1);
      try {
        onObject(JSON.parse(text));
      } catch {
        // not JSON: ignored, as the kubelet logs and ignores a bad resize message
      }
    }
  };
}
