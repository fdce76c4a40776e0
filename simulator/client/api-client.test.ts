import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, ApiError, resourcePath, type ApiClientOptions } from './api-client.ts';
import { DaemonMetrics } from './metrics.ts';
import { writeWatchEventFrame, type ProtobufObjectCodec } from './protobuf-codec.ts';

type Handler = (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void;

async function withServer(handler: Handler, fn: (url: string) => Promise<void>) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await fn(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

const base: ApiClientOptions = { qps: -1, burst: 1, contentType: 'application/json', codec: null, retryBaseMs: 5, retryMaxMs: 20 };

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

test('honours --x-api-qps and --x-api-burst (measured against a local server)', async () => {
  const arrivals: number[] = [];
  await withServer(
    (_req, _b, res) => {
      arrivals.push(performance.now());
      json(res, 200, { kind: 'Namespace', metadata: {} });
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, { ...base, qps: 20, burst: 5 });
      const start = performance.now();
      await Promise.all(Array.from({ length: 25 }, () => client.get('/api/v1/namespaces/default')));
      const elapsed = (performance.now() - start) / 1000;
      await client.close();
      // 5 at once from the burst, then 20 more at 20/s: about one second. Generous bounds for a busy machine.
      assert.ok(elapsed >= 0.9, `25 requests took ${elapsed}s, faster than 20 qps + burst 5 allows`);
      assert.ok(elapsed < 6, `25 requests took ${elapsed}s`);
      // The rate is judged on the client's clock (start to last answer) only: arrival times at a server in the same
      // event loop bunch up whenever that loop is busy, which says nothing about the client's bucket.
      assert.equal(arrivals.length, 25);
    },
  );
});

test('retries 429 (Retry-After) and 5xx, then succeeds; metrics count each attempt', async () => {
  let calls = 0;
  await withServer(
    (_req, _b, res) => {
      calls++;
      if (calls === 1) return json(res, 429, { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429 }, { 'retry-after': '0' });
      if (calls === 2) return json(res, 503, { kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503 });
      json(res, 200, { kind: 'ConfigMap', metadata: { name: 'x' } });
    },
    async (url) => {
      const metrics = new DaemonMetrics({ processMetrics: false });
      const client = await ApiClient.create({ server: url }, { ...base, metrics });
      const cm = await client.get('/api/v1/namespaces/default/configmaps/x');
      assert.equal(cm.metadata.name, 'x');
      assert.equal(calls, 3);
      const text = await metrics.text();
      assert.match(text, /rest_client_requests_total\{verb="GET",code="429"\} 1/);
      assert.match(text, /rest_client_requests_total\{verb="GET",code="503"\} 1/);
      assert.match(text, /rest_client_requests_total\{verb="GET",code="200"\} 1/);
      await client.close();
    },
  );
});

test('gives up after maxRetries and reports the Status', async () => {
  let calls = 0;
  await withServer(
    (_req, _b, res) => {
      calls++;
      json(res, 500, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'boom', reason: 'InternalError', code: 500 });
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, { ...base, maxRetries: 2 });
      await assert.rejects(client.get('/api/v1/namespaces'), (e: unknown) => e instanceof ApiError && e.code === 500 && e.reason === 'InternalError' && /boom/.test(e.message));
      assert.equal(calls, 3);
      await client.close();
    },
  );
});

test('retries a lost connection', async () => {
  let calls = 0;
  await withServer(
    (req, _b, res) => {
      calls++;
      if (calls === 1) return req.socket.destroy();
      json(res, 200, { kind: 'Namespace', metadata: { name: 'default' } });
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, base);
      assert.equal((await client.get('/api/v1/namespaces/default')).metadata.name, 'default');
      assert.equal(calls, 2);
      await client.close();
    },
  );
});

test('a POST whose connection is lost after it was sent is not sent again (it may have created its object)', async () => {
  let calls = 0;
  await withServer(
    (req) => {
      calls++;
      req.socket.destroy();
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, base);
      await assert.rejects(client.create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'p-' } }));
      assert.equal(calls, 1);
      await client.close();
    },
  );
});

test('4xx is not retried; credentials, accept and content type are sent', async () => {
  const seen: http.IncomingHttpHeaders[] = [];
  await withServer(
    (req, body, res) => {
      seen.push(req.headers);
      if (req.method === 'POST') return json(res, 201, JSON.parse(body.toString()));
      json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "x" not found', reason: 'NotFound', code: 404 });
    },
    async (url) => {
      const client = await ApiClient.create({ server: url, token: 'secret' }, base);
      await assert.rejects(client.get('/api/v1/namespaces/default/configmaps/x'), (e: unknown) => e instanceof ApiError && e.code === 404 && e.reason === 'NotFound');
      assert.equal(seen.length, 1);
      const created = await client.create('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } });
      assert.equal(created.metadata.name, 'y');
      assert.equal(seen[1]['authorization'], 'Bearer secret');
      assert.equal(seen[1]['accept'], 'application/json');
      assert.equal(seen[1]['content-type'], 'application/json');
      await client.close();
    },
  );
});

test('JSON watch: events split anywhere, ERROR passed through, abort ends the stream', async () => {
  await withServer(
    (req, _b, res) => {
      assert.match(req.url ?? '', /watch=true/);
      assert.match(req.url ?? '', /resourceVersion=5/);
      res.writeHead(200, { 'content-type': 'application/json' });
      const text = [
        { type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '6' } } },
        { type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Gone', code: 410 } },
      ]
        .map((e) => JSON.stringify(e) + '\n')
        .join('');
      res.write(text.slice(0, 17));
      setTimeout(() => res.write(text.slice(17)), 20);
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, base);
      const ac = new AbortController();
      const got: string[] = [];
      for await (const ev of client.watch('/api/v1/configmaps', { resourceVersion: '5' }, ac.signal)) {
        got.push(ev.type);
        if (ev.type === 'ERROR') ac.abort();
      }
      assert.deepEqual(got, ['ADDED', 'ERROR']);
      await client.close();
    },
  );
});

// A stand-in codec: "k8s\0" + JSON, enough to prove the client's protobuf plumbing and framing.
const fakeCodec: ProtobufObjectCodec = {
  encodeObject: (o) => Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), Buffer.from(JSON.stringify(o))]),
  decodeObject: (b) => JSON.parse(Buffer.from(b).subarray(4).toString()),
  hasProtobuf: (_v, kind) => kind !== 'Unknown',
};

test('protobuf content type: encodes known kinds, JSON for others, decodes protobuf answers and watch frames', async () => {
  const PB = 'application/vnd.kubernetes.protobuf';
  const seen: Array<{ type?: string; body: Buffer }> = [];
  await withServer(
    (req, body, res) => {
      seen.push({ type: req.headers['content-type'], body });
      assert.equal(req.headers.accept, `${PB}, application/json`);
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'content-type': `${PB};stream=watch` });
        const frame = writeWatchEventFrame('MODIFIED', fakeCodec.encodeObject({ kind: 'ConfigMap', metadata: { name: 'w' } }));
        res.write(frame.subarray(0, 3));
        setTimeout(() => res.end(frame.subarray(3)), 10);
        return;
      }
      res.writeHead(201, { 'content-type': PB });
      res.end(fakeCodec.encodeObject({ kind: 'ConfigMap', metadata: { name: 'back' } }));
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, { ...base, contentType: PB, codec: fakeCodec });
      assert.equal(client.wireContentType, PB);
      const back = await client.create('/api/v1/namespaces/d/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
      assert.equal(back.metadata.name, 'back');
      assert.equal(seen[0].type, PB);
      assert.deepEqual([...seen[0].body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0]);
      await client.create('/apis/x/v1/unknowns', { apiVersion: 'x/v1', kind: 'Unknown', metadata: { name: 'u' } });
      assert.equal(seen[1].type, 'application/json');
      const events = [];
      for await (const ev of client.watch('/api/v1/configmaps')) events.push(ev);
      assert.deepEqual(events, [{ type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'w' } } }]);
      await client.close();
    },
  );
});

test('resourcePath builds core, grouped, namespaced and subresource paths', () => {
  assert.equal(resourcePath({ group: '', version: 'v1', resource: 'namespaces' }), '/api/v1/namespaces');
  assert.equal(resourcePath({ group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns', name: 'd', subresource: 'scale' }), '/apis/apps/v1/namespaces/ns/deployments/d/scale');
});

test('with the shared protobuf codec: bodies and watch frames round-trip byte-exactly', async () => {
  const codec = await import('../codec/protobuf.ts');
  const PB = 'application/vnd.kubernetes.protobuf';
  let received: unknown;
  await withServer(
    (req, body, res) => {
      if (req.url?.includes('watch=true')) {
        res.writeHead(200, { 'content-type': `${PB};stream=watch` });
        res.end(codec.watchFrame('DELETED', codec.encodeObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone', resourceVersion: '9' } })));
        return;
      }
      received = codec.decodeObject(body);
      res.writeHead(201, { 'content-type': PB });
      res.end(body);
    },
    async (url) => {
      const client = await ApiClient.create({ server: url }, { ...base, contentType: PB, codec: undefined });
      assert.equal(client.wireContentType, PB, 'the shared codec is found and used');
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd' }, data: { k: 'v' } };
      const back = await client.create('/api/v1/namespaces/d/configmaps', cm);
      assert.deepEqual((received as { data: unknown }).data, { k: 'v' });
      assert.equal(back.metadata.name, 'c');
      const events = [];
      for await (const ev of client.watch('/api/v1/configmaps')) events.push(ev);
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'DELETED');
      assert.equal((events[0].object as { metadata: { name: string } }).metadata.name, 'gone');
      await client.close();
    },
  );
});
