// Resource guards (issue 17): integers beyond their field's width, nesting depth, YAML aliases, the body limit
// for clients that write before they read, requests that never finish, watch timeouts beyond a timer's range.
// Each test sends what once broke the server (a 500, a stack overflow, a 400 MB object, a hang, a watch that
// closed at once) and checks the Status it now gets and that the server still serves.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { request } from 'undici';
import { startApiServer, type RunningApiServer } from './start.ts';
import { decodeObject } from '../codec/protobuf.ts';
import { httpCall } from '../testing/http.ts';

let server: RunningApiServer;
const PB = 'application/vnd.kubernetes.protobuf';

before(async () => {
  server = await startApiServer({ requestReceiveTimeoutMs: 1500 });
  const r = await call('POST', '/api/v1/namespaces', { metadata: { name: 'guards' } });
  assert.equal(r.status, 201, r.text);
});
after(() => server.close());

interface Reply {
  status: number;
  text: string;
  body: Record<string, any>;
  raw: Buffer;
}

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  httpCall(server.url, method, path, body, headers).then((r) => ({ ...r, body: r.body ?? {} }));

function assertStatus(r: Reply, code: number, reason?: string): void {
  assert.equal(r.status, code, r.text.slice(0, 500));
  assert.equal(r.body.kind, 'Status', r.text.slice(0, 500));
  assert.equal(r.body.code, code);
  if (reason) assert.equal(r.body.reason, reason);
}

const NS = '/api/v1/namespaces/guards';
const template = (spec: Record<string, unknown> = {}) => ({ metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } });

describe('integers beyond their field width are refused at validation (422), never stored', () => {
  const BIG = 2 ** 31; // one above int32's maximum
  const cases: Array<[string, string, unknown, string]> = [
    ['Deployment replicas', '/apis/apps/v1/namespaces/guards/deployments', { metadata: { name: 'd' }, spec: { replicas: BIG, selector: { matchLabels: { a: 'b' } }, template: template() } }, 'spec.replicas'],
    ['Job backoffLimit', '/apis/batch/v1/namespaces/guards/jobs', { metadata: { name: 'j1' }, spec: { backoffLimit: BIG, template: template({ restartPolicy: 'Never' }) } }, 'spec.backoffLimit'],
    ['Job parallelism', '/apis/batch/v1/namespaces/guards/jobs', { metadata: { name: 'j2' }, spec: { parallelism: BIG, template: template({ restartPolicy: 'Never' }) } }, 'spec.parallelism'],
    ['Job completions', '/apis/batch/v1/namespaces/guards/jobs', { metadata: { name: 'j3' }, spec: { completions: BIG, template: template({ restartPolicy: 'Never' }) } }, 'spec.completions'],
    ['CronJob history limit', '/apis/batch/v1beta1/namespaces/guards/cronjobs', { metadata: { name: 'cj' }, spec: { schedule: '* * * * *', successfulJobsHistoryLimit: BIG, jobTemplate: { spec: { template: template({ restartPolicy: 'Never' }) } } } }, 'spec.successfulJobsHistoryLimit'],
    ['probe port (IntOrString)', `${NS}/pods`, { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'x', livenessProbe: { httpGet: { port: BIG } } }] } }, 'spec.containers[0].livenessProbe.httpGet.port'],
    ['volume defaultMode', `${NS}/pods`, { metadata: { name: 'p2' }, spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', secret: { secretName: 's', defaultMode: BIG } }] } }, 'spec.volumes[0].secret.defaultMode'],
  ];
  for (const [what, path, body, field] of cases) {
    test(what, async () => {
      const r = await call('POST', path, body);
      assertStatus(r, 422, 'Invalid');
      assert.ok(r.body.details.causes.some((c: { field: string }) => c.field === field), r.text);
      // Nothing was stored: the list still reads as protobuf.
      const list = await call('GET', path, undefined, { accept: PB });
      assert.equal(list.status, 200, list.text.slice(0, 300));
      decodeObject(list.raw);
    });
  }

  test('the same through a merge patch and through /scale', async () => {
    const d = await call('POST', '/apis/apps/v1/namespaces/guards/deployments', { metadata: { name: 'ok' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: template() } });
    assert.equal(d.status, 201, d.text);
    const p = await call('PATCH', '/apis/apps/v1/namespaces/guards/deployments/ok', { spec: { replicas: BIG } }, { 'content-type': 'application/merge-patch+json' });
    assertStatus(p, 422, 'Invalid');
    const s = await call('PUT', '/apis/apps/v1/namespaces/guards/deployments/ok/scale', { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'ok' }, spec: { replicas: BIG } });
    assertStatus(s, 422, 'Invalid');
    const got = await call('GET', '/apis/apps/v1/namespaces/guards/deployments/ok', undefined, { accept: PB });
    assert.equal(got.status, 200);
  });
});

describe('quantities: the Quantity grammar fails decoding (400), as the real server', () => {
  for (const q of ['abc', '1Zi', '1.2.3', '']) {
    test(JSON.stringify(q), async () => {
      const r = await call('POST', `${NS}/pods`, { metadata: { name: 'q' }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: q } } }] } });
      assertStatus(r, 400, 'BadRequest');
      assert.match(r.body.message, /Pod in version "v1" cannot be handled as a Pod: (quantities must match the regular expression|unable to parse quantity)/);
    });
  }
});

describe('nesting depth', () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  test('JSON nested 2,000 levels deep is 400, not a stack overflow', async () => {
    const body = `{"metadata":{"name":"deep"},"data":${deep(2000)}}`;
    const r = await call('POST', `${NS}/configmaps`, body);
    assertStatus(r, 400, 'BadRequest');
    assert.match(r.body.message, /nested more than \d+ levels/);
  });
  test('JSON arrays 100,000 levels deep: 400', async () => {
    const r = await call('POST', `${NS}/configmaps`, '['.repeat(100_000) + ']'.repeat(100_000));
    assertStatus(r, 400, 'BadRequest');
  });
  test('YAML nested deeply (flow and block): 400', async () => {
    const flow = `metadata: {name: deep}\ndata: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
    assertStatus(await call('POST', `${NS}/configmaps`, flow, { 'content-type': 'application/yaml' }), 400, 'BadRequest');
    let block = 'metadata:\n  name: deep\ndata:\n';
    for (let i = 0; i < 300; i++) block += `${' '.repeat(2 * (i + 1))}k${i}:\n`;
    block += `${' '.repeat(602)}v\n`;
    assertStatus(await call('POST', `${NS}/configmaps`, block, { 'content-type': 'application/yaml' }), 400, 'BadRequest');
  });
  test('inside patches of all three types: 400', async () => {
    const cm = await call('POST', `${NS}/configmaps`, { metadata: { name: 'patched' }, data: { a: 'b' } });
    assert.equal(cm.status, 201, cm.text);
    for (const [type, body] of [
      ['application/merge-patch+json', `{"metadata":{"labels":${deep(3000)}}}`],
      ['application/strategic-merge-patch+json', `{"data":${deep(3000)}}`],
      ['application/json-patch+json', `[{"op":"add","path":"/data/x","value":${deep(3000)}}]`],
    ]) {
      const r = await call('PATCH', `${NS}/configmaps/patched`, body, { 'content-type': type });
      assertStatus(r, 400);
    }
  });
});

describe('YAML aliases', () => {
  test('a small document that expands many times its size through aliases: 400 at once', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: bomb', `x0: &a0 ["${'x'.repeat(100)}"]`];
    for (let i = 1; i < 30; i++) lines.push(`x${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
    const start = performance.now();
    const r = await call('POST', `${NS}/configmaps`, lines.join('\n') + '\n', { 'content-type': 'application/yaml' });
    assertStatus(r, 400, 'BadRequest');
    assert.match(r.body.message, /alias/);
    // 9^29 nodes were never built: the answer comes back in well under a (loaded) second or ten.
    assert.ok(performance.now() - start < 10_000, 'performance.now() - start < 10_000');
    assert.equal((await call('GET', '/healthz')).status, 200);
  });
  test('a document that expands beyond the body limit: 413', async () => {
    // 1 MiB of text used four times: under the ratio, over the 3 MiB limit.
    const text = `metadata: {name: big}\ndata:\n  a: &s "${'y'.repeat(1024 * 1024)}"\n  b: *s\n  c: *s\n  d: *s\n`;
    assertStatus(await call('POST', `${NS}/configmaps`, text, { 'content-type': 'application/yaml' }), 413, 'RequestEntityTooLarge');
  });
  test('a recursive alias: 400', async () => {
    assertStatus(await call('POST', `${NS}/configmaps`, 'metadata: {name: rec}\ndata: &d {a: *d}\n', { 'content-type': 'application/yaml' }), 400);
  });
  test('a few aliases in a normal document still work', async () => {
    const r = await call('POST', `${NS}/configmaps`, 'metadata: {name: anchors, labels: &l {a: b}, annotations: *l}\ndata: {x: "1"}\n', { 'content-type': 'application/yaml' });
    assert.equal(r.status, 201, r.text);
  });
});

/** Writes `head` and `body` on a raw socket (all of it before reading, when eager) and returns what comes back. */
function rawExchange(head: string, body: Buffer | string, opts: { keepOpenMs?: number } = {}): Promise<{ text: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const sock = net.connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', (e) => reject(e));
    sock.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - start }));
    sock.write(head);
    sock.write(body);
    if (opts.keepOpenMs === undefined) sock.end();
    sock.setTimeout(30_000, () => sock.destroy(new Error('no answer within 30 s')));
  });
}

describe('request bodies and headers', () => {
  test('a 5 MiB body written in full before reading gets the 413 Status (content-length and chunked)', async () => {
    const big = Buffer.from(`{"metadata":{"name":"x"},"data":{"a":"${'x'.repeat(5 * 1024 * 1024)}"}}`);
    const fixed = await rawExchange(`POST ${NS}/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`, big);
    assert.match(fixed.text, /^HTTP\/1\.1 413 /);
    assert.match(fixed.text, /"reason":"RequestEntityTooLarge"/);
    const chunked = await rawExchange(`POST ${NS}/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`, Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]));
    assert.match(chunked.text, /^HTTP\/1\.1 413 /);
    assert.match(chunked.text, /"kind":"Status"/);
  });
  test('a body that never finishes is cut with 408 and a Status', async () => {
    const r = await rawExchange(`POST ${NS}/configmaps HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`, '{"metadata"', { keepOpenMs: 1 });
    assert.match(r.text, /^HTTP\/1\.1 408 /);
    assert.match(r.text, /"kind":"Status".*"code":408/s);
  });
  test('headers that never finish are cut with 408', async () => {
    const r = await rawExchange(`GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n`, 'X-Slow: 1\r\n', { keepOpenMs: 1 });
    assert.match(r.text, /^HTTP\/1\.1 408 /);
  });
});

describe('watch timeoutSeconds', () => {
  test('2147484 (beyond what a timer holds) keeps the watch open instead of closing it at once', async () => {
    const ac = new AbortController();
    const res = await request(`${server.url}${NS}/configmaps?watch=true&timeoutSeconds=2147484`, { signal: ac.signal });
    assert.equal(res.statusCode, 200);
    let ended = false;
    const reading = (async () => {
      try {
        for await (const chunk of res.body) void chunk;
        ended = true;
      } catch {
        /* aborted */
      }
    })();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(ended, false, 'the watch ended by itself');
    ac.abort();
    await reading;
  });
  test('timeoutSeconds=0 means the default, not an immediate close', async () => {
    const ac = new AbortController();
    const res = await request(`${server.url}${NS}/configmaps?watch=true&timeoutSeconds=0`, { signal: ac.signal });
    let ended = false;
    const reading = (async () => {
      try {
        for await (const chunk of res.body) void chunk;
        ended = true;
      } catch {
        /* aborted */
      }
    })();
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(ended, false);
    ac.abort();
    await reading;
  });
});

test('close() is held neither by a connection that never sent a request nor by a request whose body never ends', async () => {
  // Default timeouts (60 s): before, close() waited for each of these until the server's own timers cut them.
  const own = await startApiServer();
  const port = Number(new URL(own.url).port);
  const open = (first?: string) =>
    new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => {
        if (first) s.write(first);
        resolve(s);
      });
      s.on('error', reject);
    });
  const silent = await open();
  const halfHeaders = await open('GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n');
  const halfBody = await open('POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"metadata":');
  await new Promise((r) => setTimeout(r, 200));
  const ended = (s: net.Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));
  const t0 = performance.now();
  await own.close();
  const took = performance.now() - t0;
  assert.ok(took < 10_000, `close() took ${Math.round(took)} ms`);
  await Promise.all([silent, halfHeaders, halfBody].map(ended));
});
