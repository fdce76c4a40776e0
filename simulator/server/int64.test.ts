// int64 exact through the server (issue 38): integers up to 2^63-1 and down to -2^63 come back as sent from create,
// get, list, watch and patch, in JSON, YAML and protobuf, on the memory and the etcd store; int32 fields still refuse
// what they cannot hold (422 with the field's path). A Pod's spec.activeDeadlineSeconds is a typed int64 field the
// client sets (at least 1, and a patch may only lower it); a custom resource holds arbitrary JSON, negative too.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startApiServer, type RunningApiServer } from './start.ts';
import { decodeObject, encodeObject, PROTOBUF_MEDIA_TYPE, WatchFrameDecoder } from '../codec/protobuf.ts';
import { JsonObjectSplitter } from '../codec/json-stream.ts';
import { dumpYaml, loadYaml } from '../codec/yaml.ts';
import { parseJson, stringifyJson } from '../util/int64-json.ts';
import { EtcdStore } from '../storage/etcd.ts';
import { MemoryStore } from '../storage/memory.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';

type Json = Record<string, any>;
type Format = 'json' | 'yaml' | 'protobuf';

const MEDIA: Record<Format, string> = { json: 'application/json', yaml: 'application/yaml', protobuf: PROTOBUF_MEDIA_TYPE };
const PODS = '/api/v1/namespaces/default/pods';
const WIDGETS = '/apis/int64.example.com/v1/namespaces/default/widgets';
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** How a reader keeping int64 exact holds an integer: a Number where a double is exact, else a BigInt. */
const exact = (b: bigint): number | bigint => (b >= -SAFE && b <= SAFE ? Number(b) : b);

/** Positive int64 (activeDeadlineSeconds >= 1), weighted to the ends and to beyond 2^53. */
const POSITIVE = fc.oneof(
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }),
  fc.constantFrom(2n ** 63n - 1n, 2n ** 53n + 1n, 8071137005907523419n, 1n),
  fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }),
);
const ANY_INT64 = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, -(2n ** 53n) - 1n, 8071137005907523419n),
);

function encode(format: Format, obj: object): string | Buffer {
  return format === 'json' ? stringifyJson(obj) : format === 'yaml' ? dumpYaml(obj) : encodeObject(obj);
}

function decode(contentType: string | null, bytes: Buffer): Json {
  if (contentType?.startsWith(PROTOBUF_MEDIA_TYPE)) return decodeObject(bytes) as Json;
  if (contentType?.startsWith('application/yaml')) return loadYaml(bytes.toString('utf8')) as Json;
  // A path not served (yet: a CRD's group before it is established) answers plain text.
  if (!contentType?.startsWith('application/json')) return { text: bytes.toString('utf8') };
  return parseJson(bytes.toString('utf8')) as Json;
}

function harness(url: () => string) {
  type CallOptions = { body?: object; format?: Format; contentType?: string; accept?: Format };
  async function call(method: string, path: string, opts: CallOptions = {}): Promise<{ status: number; body: Json }> {
    const format = opts.format ?? 'json';
    const res = await fetch(url() + path, {
      method,
      headers: { 'content-type': opts.contentType ?? MEDIA[format], accept: MEDIA[opts.accept ?? 'json'] },
      body: opts.body === undefined ? undefined : opts.contentType ? stringifyJson(opts.body) : encode(format, opts.body),
    });
    return { status: res.status, body: decode(res.headers.get('content-type'), Buffer.from(await res.arrayBuffer())) };
  }

  /** The first `count` events of a watch from `rv`, in JSON or protobuf frames. */
  async function watch(path: string, rv: string, accept: 'json' | 'protobuf', count: number): Promise<Array<{ type: string; object: Json }>> {
    const ac = new AbortController();
    const res = await fetch(`${url()}${path}?watch=1&resourceVersion=${rv}`, { headers: { accept: MEDIA[accept] }, signal: ac.signal });
    assert.equal(res.status, 200);
    const events: Array<{ type: string; object: Json }> = [];
    const json = new JsonObjectSplitter();
    const pb = new WatchFrameDecoder();
    const timer = setTimeout(() => ac.abort(), 10_000);
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        const got = accept === 'json' ? (json.push(Buffer.from(chunk)) as Array<{ type: string; object: Json }>) : (pb.push(chunk) as Array<{ type: string; object: Json }>);
        events.push(...got);
        if (events.length >= count) break;
      }
    } finally {
      clearTimeout(timer);
      ac.abort();
    }
    return events.slice(0, count);
  }

  const rvOf = async (path: string) => (await call('GET', path)).body.metadata.resourceVersion as string;

  /** Creates, reads, lists, watches and patches Pods and Widgets carrying `big` and `any`; asserts every answer. */
  async function roundTrips(n: number, big: bigint, any: bigint): Promise<void> {
    const podRv = await rvOf(PODS);
    const widgetRv = await rvOf(WIDGETS);
    const names: string[] = [];
    for (const format of ['json', 'yaml', 'protobuf'] as const) {
      const name = `p${n}-${format}`;
      names.push(name);
      const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }], activeDeadlineSeconds: big } };
      const made = await call('POST', PODS, { body: pod, format, accept: format });
      assert.equal(made.status, 201, `${format}: ${stringifyJson(made.body)}`);
      assert.equal(made.body.spec.activeDeadlineSeconds, exact(big), `create answer in ${format}`);
      for (const accept of ['json', 'yaml', 'protobuf'] as const) {
        const got = await call('GET', `${PODS}/${name}`, { accept });
        assert.equal(got.body.spec.activeDeadlineSeconds, exact(big), `sent as ${format}, read as ${accept}`);
      }
    }
    for (const accept of ['json', 'yaml', 'protobuf'] as const) {
      const list = await call('GET', PODS, { accept });
      for (const name of names) assert.equal(list.body.items.find((p: Json) => p.metadata.name === name)?.spec.activeDeadlineSeconds, exact(big), `list as ${accept}`);
    }
    for (const accept of ['json', 'protobuf'] as const) {
      const events = await watch(PODS, podRv, accept, names.length);
      assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name, e.object.spec.activeDeadlineSeconds]), names.map((name) => ['ADDED', name, exact(big)]), `watch as ${accept}`);
    }
    // Patches may only lower the deadline: big - 1 (or 1), then big - 2 ...
    const lower = (d: bigint) => (big - d >= 1n ? big - d : 1n);
    const patches: Array<[string, object, bigint]> = [
      ['application/merge-patch+json', { spec: { activeDeadlineSeconds: lower(1n) } }, lower(1n)],
      ['application/strategic-merge-patch+json', { spec: { activeDeadlineSeconds: lower(2n) } }, lower(2n)],
      ['application/json-patch+json', [{ op: 'test', path: '/spec/activeDeadlineSeconds', value: lower(2n) }, { op: 'replace', path: '/spec/activeDeadlineSeconds', value: lower(3n) }], lower(3n)],
    ];
    for (const [contentType, body, want] of patches) {
      const patched = await call('PATCH', `${PODS}/${names[0]}`, { body, contentType });
      assert.equal(patched.status, 200, `${contentType}: ${stringifyJson(patched.body)}`);
      assert.equal(patched.body.spec.activeDeadlineSeconds, exact(want), contentType);
      assert.equal((await call('GET', `${PODS}/${names[0]}`, { accept: 'protobuf' })).body.spec.activeDeadlineSeconds, exact(want));
    }

    // A custom resource: arbitrary JSON, any int64, in JSON and YAML (custom resources have no protobuf form).
    const widgets: string[] = [];
    for (const format of ['json', 'yaml'] as const) {
      const name = `w${n}-${format}`;
      widgets.push(name);
      const w = { apiVersion: 'int64.example.com/v1', kind: 'Widget', metadata: { name }, spec: { n: any, list: [any, big, 1.5], nested: { m: any } } };
      const made = await call('POST', WIDGETS, { body: w, format, accept: format });
      assert.equal(made.status, 201, `${format}: ${stringifyJson(made.body)}`);
      assert.deepEqual(made.body.spec, { n: exact(any), list: [exact(any), exact(big), 1.5], nested: { m: exact(any) } });
      for (const accept of ['json', 'yaml'] as const) assert.equal((await call('GET', `${WIDGETS}/${name}`, { accept })).body.spec.n, exact(any));
    }
    const list = await call('GET', WIDGETS, { accept: 'yaml' });
    for (const name of widgets) assert.equal(list.body.items.find((w: Json) => w.metadata.name === name)?.spec.nested.m, exact(any));
    const events = await watch(WIDGETS, widgetRv, 'json', widgets.length);
    assert.deepEqual(events.map((e) => e.object.spec.n), widgets.map(() => exact(any)));
    const merged = await call('PATCH', `${WIDGETS}/${widgets[0]}`, { body: { spec: { m2: big, n: -big } }, contentType: 'application/merge-patch+json' });
    assert.equal(merged.status, 200, stringifyJson(merged.body));
    assert.deepEqual([merged.body.spec.n, merged.body.spec.m2, merged.body.spec.nested.m], [exact(-big), exact(big), exact(any)]);
    const jp = await call('PATCH', `${WIDGETS}/${widgets[0]}`, { body: [{ op: 'test', path: '/spec/m2', value: big }, { op: 'add', path: '/spec/list/-', value: any }], contentType: 'application/json-patch+json' });
    assert.equal(jp.status, 200, stringifyJson(jp.body));
    assert.deepEqual(jp.body.spec.list, [exact(any), exact(big), 1.5, exact(any)]);
  }

  async function setUp(): Promise<void> {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', {
      body: { metadata: { name: 'widgets.int64.example.com' }, spec: { group: 'int64.example.com', version: 'v1', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' } } },
    });
    assert.equal(crd.status, 201, stringifyJson(crd.body));
    const end = Date.now() + 10_000;
    while ((await call('GET', WIDGETS)).status !== 200) {
      assert.ok(Date.now() < end, 'the CRD is served');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return { call, roundTrips, setUp };
}

function suite(name: string, start: () => Promise<RunningApiServer>, stop: () => Promise<void> = async () => {}, skip: string | false = false): void {
  describe(name, { skip }, () => {
    let server: RunningApiServer;
    const h = harness(() => server.url);
    before(async () => {
      server = await start();
      await h.setUp();
    });
    after(async () => {
      await server?.close();
      await stop();
    });

    it('int64 values survive create, get, list, watch and patch in JSON, YAML and protobuf (property)', async () => {
      let n = 0;
      await fc.assert(fc.asyncProperty(POSITIVE, ANY_INT64, (big, any) => h.roundTrips(n++, big, any)), { numRuns: 6 });
    });

    it('int32 fields still refuse an integer beyond their range with 422 and the field path, in every body format', async () => {
      const deployment = (replicas: bigint) => ({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `d-${replicas % 1000n}` },
        spec: { replicas, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
      });
      for (const format of ['json', 'yaml'] as const) {
        for (const replicas of [2n ** 31n, 8071137005907523419n]) {
          const r = await h.call('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment(replicas), format });
          assert.equal(r.status, 422, `${format} ${replicas}: ${stringifyJson(r.body)}`);
          assert.deepEqual(r.body.details.causes.map((c: Json) => c.field), ['spec.replicas']);
        }
        const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'port' }, spec: { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 2n ** 62n }] }] } };
        const r = await h.call('POST', PODS, { body: pod, format });
        assert.equal(r.status, 422, stringifyJson(r.body));
        assert.ok(r.body.details.causes.some((c: Json) => c.field === 'spec.containers[0].ports[0].containerPort'), stringifyJson(r.body));
      }
      // int64 beyond its range is refused as well (it is no int64 in Go either).
      const over = await h.call('POST', PODS, {
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'over' }, spec: { containers: [{ name: 'c', image: 'x' }], activeDeadlineSeconds: 2n ** 63n } },
      });
      assert.equal(over.status, 422, stringifyJson(over.body));
      assert.deepEqual(over.body.details.causes.map((c: Json) => c.field), ['spec.activeDeadlineSeconds']);
    });

    it('a Table of Pods and a field-selected list answer with the big values in place', async () => {
      const made = await h.call('POST', PODS, {
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tabled' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }], activeDeadlineSeconds: 2n ** 62n } },
      });
      assert.equal(made.status, 201, stringifyJson(made.body));
      const res = await fetch(`${server.url}${PODS}?fieldSelector=spec.nodeName%3Dn1&includeObject=Object`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1beta1' } });
      assert.equal(res.status, 200);
      const table = parseJson(await res.text()) as Json;
      assert.deepEqual(table.rows.map((r: Json) => [r.cells[0], r.object.spec.activeDeadlineSeconds]), [['tabled', 2n ** 62n]]);
    });
  });
}

suite('int64 on the memory store', () => startApiServer({ store: new MemoryStore() }));

let etcd: EtcdTestServer | undefined;
suite(
  'int64 on the etcd store',
  async () => {
    etcd = await startEtcd();
    return startApiServer({ store: new EtcdStore({ servers: [etcd.url] }) });
  },
  async () => etcd?.stop(),
  etcdTestSkipReason(),
);
