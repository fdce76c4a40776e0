// exec, attach and portforward over WebSocket, and the refusals before and at the protocol switch, against an API
// server with the simulated containers (kubectl over SPDY is in simulator/clients/kubectl-streams-*.test.ts).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import WebSocket from 'ws';
import { startApiServer, type RunningApiServer } from '../start.ts';
import { SimulatedContainers } from '../../nodes/containers/runtime.ts';
import { limitsFor } from './serve.ts';

type Json = Record<string, any>;
const PODS = '/api/v1/namespaces/default/pods';

interface Session {
  messages: Array<{ channel: number; data: string; raw: Buffer }>;
  closed: Promise<void>;
  ws: WebSocket;
}

function open(url: string, protocol: string | string[]): Promise<Session | { status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocol);
    const messages: Session['messages'] = [];
    const closed = new Promise<void>((r) => ws.on('close', () => r()));
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) messages.push({ channel: data[0], data: data.subarray(1).toString(), raw: data.subarray(1) });
      else {
        const text = data.toString();
        const raw = Buffer.from(text.slice(1), 'base64');
        messages.push({ channel: text.charCodeAt(0) - 48, data: raw.toString(), raw });
      }
    });
    ws.on('open', () => resolve({ messages, closed, ws }));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => {});
  });
}

const text = (s: Session, channel: number) => s.messages.filter((m) => m.channel === channel).map((m) => m.data).join('');

describe('streams: exec, attach, portforward over WebSocket', () => {
  let server: RunningApiServer;
  let ws: string;
  const call = async (method: string, path: string, body?: unknown, ct = 'application/json') => {
    const res = await fetch(server.url + path, { method, headers: body === undefined ? {} : { 'content-type': ct }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };

  before(async () => {
    server = await startApiServer();
    server.ctx.containers = new SimulatedContainers();
    server.ctx.settings.streamLimits = { total: 2 };
    ws = server.url.replace('http', 'ws');
    const env = [{ name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }];
    const spec = { containers: [{ name: 'main', image: 'busybox', stdin: true, ports: [{ containerPort: 8080 }], env }, { name: 'side', image: 'busybox' }] };
    const annotations = { 'simulator.cluster.local/log-repeat.side': '100ms tick {n}' };
    assert.equal((await call('POST', PODS, { metadata: { name: 'p', annotations }, spec })).status, 201);
    assert.equal((await call('POST', `${PODS}/p/binding`, { target: { kind: 'Node', name: 'n1' } })).status, 201);
    const running = { startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
    const containerStatuses = ['main', 'side'].map((name) => ({ name, ready: true, restartCount: 0, image: 'busybox', imageID: '', containerID: `sim://${name}`, state: { running } }));
    assert.equal((await call('PATCH', `${PODS}/p/status`, { status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses } }, 'application/merge-patch+json')).status, 200);
  });
  after(async () => {
    server.ctx.containers?.close?.();
    await server.close();
  });

  test('v4.channel.k8s.io: output on its channels, then the exit code as a Status on the error channel', async () => {
    const s = (await open(`${ws}${PODS}/p/exec?container=main&command=sh&command=-c&command=echo+$NS;echo+oops>%262;exit+3&stdout=true&stderr=true`, 'v4.channel.k8s.io')) as Session;
    await s.closed;
    assert.equal(text(s, 1), 'default\n');
    assert.equal(text(s, 2), 'oops\n');
    const status = JSON.parse(text(s, 3)) as Json;
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'NonZeroExitCode');
    assert.deepEqual(status.details.causes, [{ reason: 'ExitCode', message: '3' }]);
  });

  test('base64.channel.k8s.io (before v4): text frames, and a success writes nothing on the error channel', async () => {
    const s = (await open(`${ws}${PODS}/p/exec?container=main&command=cat&stdin=true&stdout=true`, 'base64.channel.k8s.io')) as Session;
    s.ws.send(`0${Buffer.from('typed').toString('base64')}`);
    const deadline = Date.now() + 5000;
    while (text(s, 1) !== 'typed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(text(s, 1), 'typed');
    s.ws.close();
    await s.closed;
  });

  test('the files of a container outlive one exec; another container has its own', async () => {
    const run = async (container: string, script: string) => {
      const s = (await open(`${ws}${PODS}/p/exec?container=${container}&command=sh&command=-c&command=${encodeURIComponent(script)}&stdout=true`, 'v4.channel.k8s.io')) as Session;
      await s.closed;
      return text(s, 1);
    };
    await run('main', 'echo kept > /tmp/f');
    assert.equal(await run('main', 'cat /tmp/f'), 'kept\n');
    assert.equal(await run('side', 'cat /tmp/f 2>&1'), 'cat: /tmp/f: No such file or directory\n');
  });

  test('refusals before the switch: the API server\'s Status for container, command, streams and upgrade', async () => {
    const status = async (path: string) => {
      const r = (await open(`${ws}${path}`, 'v4.channel.k8s.io')) as { status: number; body: string };
      return { code: r.status, message: (JSON.parse(r.body) as Json).message as string };
    };
    assert.deepEqual(await status(`${PODS}/p/exec?command=ls&stdout=true`), { code: 400, message: 'a container name must be specified for pod p, choose one of: [main side]' });
    assert.deepEqual(await status(`${PODS}/p/exec?container=nope&command=ls&stdout=true`), { code: 400, message: 'container nope is not valid for pod p' });
    assert.deepEqual(await status(`${PODS}/p/exec?container=main&stdout=true`), { code: 400, message: 'you must specify at least one command for the container' });
    assert.deepEqual(await status(`${PODS}/p/exec?container=main&command=ls`), { code: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' });
    assert.deepEqual(await status(`${PODS}/nope/exec?container=main&command=ls&stdout=true`), { code: 404, message: 'pods "nope" not found' });
    const plain = await call('GET', `${PODS}/p/exec?container=main&command=ls&stdout=true`);
    assert.equal(plain.status, 400);
    assert.equal((JSON.parse(plain.text) as Json).message, 'Upgrade request required');
  });

  test('an unsupported protocol: 400 for WebSocket, 403 with the accepted versions for SPDY', async () => {
    const r = (await open(`${ws}${PODS}/p/exec?container=main&command=ls&stdout=true`, 'v9.channel.k8s.io')) as { status: number; body: string };
    assert.equal(r.status, 400);
    assert.match(r.body, /requested protocol\(s\) are not supported: \[v9\.channel\.k8s\.io\]/);
    const raw = await new Promise<string>((resolve) => {
      const sock = net.connect(server.port, '127.0.0.1', () =>
        sock.write(`POST ${PODS}/p/exec?container=main&command=ls&stdout=true HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v9.channel.k8s.io\r\nContent-Length: 0\r\n\r\n`),
      );
      let out = '';
      sock.on('data', (c: Buffer) => (out += c));
      sock.on('close', () => resolve(out));
    });
    assert.match(raw, /^HTTP\/1\.1 403 Forbidden\r\n/);
    assert.match(raw, /X-Accepted-Stream-Protocol-Versions: v4\.channel\.k8s\.io\r\n/);
    assert.match(raw, /unable to upgrade: unable to negotiate protocol: client supports \[v9\.channel\.k8s\.io\]/);
  });

  test('a client that goes mid-command leaves nothing running; beyond the limit of sessions: 429', async () => {
    const limits = limitsFor(server.ctx);
    const a = (await open(`${ws}${PODS}/p/exec?container=main&command=sleep&command=600&stdout=true`, 'v4.channel.k8s.io')) as Session;
    const b = (await open(`${ws}${PODS}/p/exec?container=main&command=sleep&command=600&stdout=true`, 'v4.channel.k8s.io')) as Session;
    assert.equal(limits.active, 2);
    const c = (await open(`${ws}${PODS}/p/exec?container=main&command=ls&stdout=true`, 'v4.channel.k8s.io')) as { status: number; body: string };
    assert.equal(c.status, 429);
    a.ws.terminate();
    b.ws.terminate();
    const deadline = Date.now() + 5000;
    while (limits.active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(limits.active, 0, 'both sessions ended with their clients');
  });

  test('attach: the main process echoes stdin', async () => {
    const s = (await open(`${ws}${PODS}/p/attach?container=main&stdin=true&stdout=true`, 'v4.channel.k8s.io')) as Session;
    s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('hello')]));
    const deadline = Date.now() + 5000;
    while (text(s, 1) !== 'hello' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(text(s, 1), 'hello');
    s.ws.close();
    await s.closed;
  });

  test('attach: the main process\'s repeated line reaches the client as each comes due; stdin reaches nothing without stdin: true', async () => {
    const s = (await open(`${ws}${PODS}/p/attach?container=side&stdin=true&stdout=true`, 'v4.channel.k8s.io')) as Session;
    s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('not echoed\n')]));
    const ticks = () => [...text(s, 1).matchAll(/^tick (\d+)$/gm)].map((m) => Number(m[1]));
    const deadline = Date.now() + 5000;
    while (ticks().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const seen = ticks();
    assert.ok(seen.length >= 3, text(s, 1));
    assert.deepEqual(seen, seen.map((_, i) => seen[0] + i), 'consecutive numbers, as logs -f shows them');
    assert.ok(seen[0] > 1, 'the lines written before the client attached are not sent');
    assert.doesNotMatch(text(s, 1), /not echoed/);
    s.ws.close();
    await s.closed;
  });

  test('portforward: the port prefix on both channels, an HTTP exchange with the responder, an undeclared port refused', async () => {
    const s = (await open(`${ws}${PODS}/p/portforward?ports=8080,81`, 'v4.channel.k8s.io')) as Session;
    s.ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('GET /x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')]));
    await s.closed;
    const first = (ch: number) => s.messages.find((m) => m.channel === ch)!.raw;
    assert.equal(first(0).readUInt16LE(0), 8080);
    assert.equal(first(1).readUInt16LE(0), 8080);
    assert.equal(first(3).readUInt16LE(0), 81);
    const http = s.messages.filter((m) => m.channel === 0).slice(1).map((m) => m.data).join('');
    assert.match(http, /^HTTP\/1\.1 200 OK/);
    assert.equal((JSON.parse(http.slice(http.indexOf('\r\n\r\n') + 4)) as Json).pod, 'default/p');
    assert.match(s.messages.filter((m) => m.channel === 3).slice(1).map((m) => m.data).join(''), /error forwarding port 81 to pod .*Connection refused/);
    const missing = (await open(`${ws}${PODS}/p/portforward`, 'v4.channel.k8s.io')) as { status: number; body: string };
    assert.equal(missing.status, 400);
    assert.match(missing.body, /query parameter "port" is required/);
  });
});
