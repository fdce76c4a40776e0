// Content negotiation (spec 4.1, the media types table, wire facts 1): JSON by default, each Accept type
// answered in that type with Content-Type set, request bodies read by their Content-Type, 406 with a Status
// body for types the server cannot produce, pretty output, watch stream types, the protobuf envelope.
import fc from 'fast-check';
import yaml from 'js-yaml';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { configMapData, labels } from './harness/arbitraries.ts';
import type { Format } from './harness/client.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath, SPEC_KINDS, hasFixture, apiVersionOf, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, needs } from './harness/objects.ts';
import { decodeProtobuf, hasProtobuf, startsWithMagic } from './harness/protobuf.ts';
import { expectStatusBody } from './harness/status-body.ts';
import { describeWatchRefusal } from './harness/list-watch.ts';

const FORMAT_ROW: Record<Format, string> = { json: 'media.json', yaml: 'media.yaml', protobuf: 'media.protobuf' };
const CM_RW = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update'])];

async function configMapIn(ctx: CheckContext): Promise<{ ns: string; name: string; path: string; object: KubeObject }> {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('cm');
  const object = await createObject(ctx, CONFIGMAPS, name, ns);
  return { ns, name, path: objectPath(CONFIGMAPS, name, ns), object };
}

check('negotiation.default-is-json', { rows: ['negotiation.default', 'media.json'], requires: CM_RW, title: 'no Accept (or */*) is answered in JSON' }, async (ctx) => {
  const { path, name } = await configMapIn(ctx);
  for (const headers of [{}, { Accept: '*/*' }] as Array<Record<string, string>>) {
    const what = `GET ${path} with ${headers.Accept ? `Accept ${headers.Accept}` : 'no Accept'}`;
    const res = await ctx.client.raw({ method: 'GET', path, headers });
    expectStatusCode(res, 200, what);
    expectEqual(res.mediaType, 'application/json', `${what}: Content-Type`);
    let body: KubeObject;
    try {
      body = JSON.parse(res.text()) as KubeObject;
    } catch {
      fail(`${what}: the body is not JSON: ${JSON.stringify(res.text().slice(0, 80))}`);
    }
    expectEqual(body.metadata?.name, name, `${what}: metadata.name`);
  }
});

/** Decodes a body in the format and checks the Content-Type; returns the object. */
async function getAs(ctx: CheckContext, path: string, format: Format): Promise<KubeObject> {
  const type = ctx.client.mediaType(format);
  const what = `GET ${path} with Accept ${type}`;
  const res = await ctx.client.get(path, { accept: format });
  expectStatusCode(res, 200, what);
  expectEqual(res.mediaType, type, `${what}: Content-Type`);
  if (format === 'protobuf') expectTrue(startsWithMagic(res.body), `${what}: the body does not start with the prefix 6b 38 73 00`, 'rule.protobuf.prefix');
  if (!res.object) fail(`${what}: ${res.decodeError ?? 'no body'}`);
  return res.object;
}

// Identity and user-set parts. resourceVersion only for kinds no controller writes: a controller's status write
// (DaemonSet, Deployment, Job, CronJob...) between the create and the read moves it, as it should.
const NO_CONTROLLER_WRITES = new Set(['ConfigMap', 'Secret']);
const SAME_FIELDS = (o: KubeObject) => ({
  kind: o.kind,
  name: o.metadata?.name,
  uid: o.metadata?.uid,
  labels: o.metadata?.labels ?? {},
  ...(NO_CONTROLLER_WRITES.has(o.kind ?? '') ? { rv: o.metadata?.resourceVersion } : {}),
});

check(
  'negotiation.accept-each-type',
  {
    rows: ['negotiation.get-accept', 'media.json', 'media.yaml', 'media.protobuf', 'rule.media.responses-produce-type-json', 'rule.service.representations'],
    requires: [NEEDS_NAMESPACES],
    title: 'every kind, object and list, is answered in JSON, YAML and protobuf as asked',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const served = SPEC_KINDS.filter((k) => k.namespaced && hasFixture(k.kind) && ctx.serves(needs(k, ['create', 'get', 'list'])));
    if (served.length === 0) ctx.skip('the target serves none of the spec kinds');
    const objects = new Map<KindRef, KubeObject>();
    for (const ref of served) objects.set(ref, await createObject(ctx, ref, ctx.uniqueName(ref.kind), ns));
    const formats: Format[] = ['json', 'yaml', 'protobuf'];
    await ctx.forAll(fc.tuple(fc.constantFrom(...served), fc.constantFrom(...formats), fc.boolean()), async ([ref, format, asList]) => {
      if (format === 'protobuf' && !hasProtobuf(apiVersionOf(ref.group, ref.version), ref.kind)) return;
      const created = objects.get(ref)!;
      await forRows(FORMAT_ROW[format], async () => {
        if (asList) {
          const list = (await getAs(ctx, collectionPath(ref, ns), format)) as unknown as { kind?: string; items?: KubeObject[] };
          expectEqual(list.kind, `${ref.kind}List`, `list of ${ref.resource} as ${format}: kind`);
          expectTrue(
            Array.isArray(list.items) && list.items.some((i) => i.metadata?.name === created.metadata.name),
            `list of ${ref.resource} as ${format} lacks ${created.metadata.name}`,
          );
        } else {
          const obj = await getAs(ctx, objectPath(ref, created.metadata.name!, ns), format);
          expectEqual(SAME_FIELDS(obj), SAME_FIELDS(created), `${ref.kind} read as ${format} vs created`);
          expectEqual(obj.apiVersion, apiVersionOf(ref.group, ref.version), `${ref.kind} read as ${format}: apiVersion`);
        }
      });
    });
  },
);

check('negotiation.protobuf-envelope', { rows: ['rule.protobuf.prefix', 'rule.protobuf.unknown-envelope', 'media.protobuf'], requires: CM_RW, title: 'protobuf bodies carry the k8s\\0 prefix and an Unknown envelope with TypeMeta' }, async (ctx) => {
  const { path, object } = await configMapIn(ctx);
  const res = await ctx.client.raw({ method: 'GET', path, headers: { Accept: ctx.client.mediaType('protobuf') } });
  expectStatusCode(res, 200, `GET ${path} as protobuf`);
  await forRows('rule.protobuf.prefix', () => expectEqual([...res.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'first four bytes'));
  await forRows('rule.protobuf.unknown-envelope', () => {
    let decoded: KubeObject;
    try {
      decoded = decodeProtobuf(res.body);
    } catch (err) {
      fail(`the protobuf body does not decode as an Unknown envelope: ${(err as Error).message}`);
    }
    expectEqual({ apiVersion: decoded.apiVersion, kind: decoded.kind }, { apiVersion: 'v1', kind: 'ConfigMap' }, 'envelope typeMeta');
    expectEqual(decoded.metadata?.uid, object.metadata.uid, 'metadata.uid inside the envelope');
  });
});

check('negotiation.accept-protobuf-then-json', { rows: ['rule.media.accept-protobuf-then-json'], requires: CM_RW }, async (ctx) => {
  const { path } = await configMapIn(ctx);
  const accept = `${ctx.client.mediaType('protobuf')}, application/json`;
  const res = await ctx.client.raw({ method: 'GET', path, headers: { Accept: accept } });
  expectStatusCode(res, 200, `GET ${path} with Accept ${accept}`);
  expectEqual(res.mediaType, ctx.client.mediaType('protobuf'), `GET with Accept ${accept}: Content-Type`);
});

check(
  'negotiation.request-body-by-content-type',
  {
    rows: ['negotiation.write-content-type', 'rule.media.request-bodies-any-type', 'media.json', 'media.yaml', 'media.protobuf'],
    requires: CM_RW,
    title: 'POST and PUT bodies in JSON, YAML and protobuf are read by their Content-Type',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const formats: Format[] = ['json', 'yaml', 'protobuf'];
    await ctx.forAll(fc.record({
      create: fc.constantFrom(...formats),
      put: fc.constantFrom(...formats),
      data: configMapData(),
      data2: configMapData(),
      labels: labels(),
    }), async (v) => {
      const name = ctx.uniqueName('body');
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels: v.labels }, data: v.data };
      const created = await forRows(FORMAT_ROW[v.create], async () => {
        const res = await ctx.client.create(collectionPath(CONFIGMAPS, ns), body, { contentType: v.create });
        expectStatusCode(res, [200, 201, 202], `POST a ConfigMap as ${v.create}`);
        return res.object!;
      });
      const read = await ctx.client.get(objectPath(CONFIGMAPS, name, ns));
      expectStatusCode(read, 200, `GET the ConfigMap posted as ${v.create}`);
      await forRows(FORMAT_ROW[v.create], () => {
        expectEqual(read.object?.data ?? {}, v.data, `data of the ConfigMap posted as ${v.create}`);
        expectEqual(read.object?.metadata?.labels ?? {}, v.labels, `labels of the ConfigMap posted as ${v.create}`);
      });
      await forRows(FORMAT_ROW[v.put], async () => {
        const replacement = { ...body, metadata: { ...body.metadata, resourceVersion: created.metadata?.resourceVersion }, data: v.data2 };
        const res = await ctx.client.replace(objectPath(CONFIGMAPS, name, ns), replacement, { contentType: v.put });
        expectStatusCode(res, [200, 201], `PUT a ConfigMap as ${v.put}`);
        const again = await ctx.client.get(objectPath(CONFIGMAPS, name, ns));
        expectEqual(again.object?.data ?? {}, v.data2, `data of the ConfigMap replaced with a ${v.put} body`);
      });
    });
  },
);

const UNSUPPORTED = fc.oneof(
  fc.constantFrom('text/html', 'application/xml', 'image/png', 'text/csv', 'application/x-www-form-urlencoded'),
  fc.stringMatching(/^application\/x-conformance-[a-z]{1,8}$/),
);

check('negotiation.unsupported-accept-406', { rows: ['negotiation.unsupported', 'error.406'], requires: CM_RW, title: 'an Accept the server cannot produce is answered 406 with a Status body' }, async (ctx) => {
  const { path, ns } = await configMapIn(ctx);
  await ctx.forAll(fc.tuple(UNSUPPORTED, fc.boolean()), async ([type, list]) => {
    const target = list ? collectionPath(CONFIGMAPS, ns) : path;
    const what = `GET ${target} with Accept ${type}`;
    const res = await ctx.client.raw({ method: 'GET', path: target, headers: { Accept: type } });
    expectStatusCode(res, 406, what);
    let body: unknown;
    try {
      body = res.mediaType === 'application/json' ? JSON.parse(res.text()) : undefined;
    } catch {
      body = undefined;
    }
    expectStatusBody(Object.assign(res, { object: body }), { status: 'Failure', code: 406 }, what);
  });
});

/**
 * "Output is pretty printed" (query.*.pretty): the JSON object spread over lines with its members indented. The row
 * names no indentation width, character or line ending, so any is accepted (2 or 4 spaces, tabs, CRLF).
 */
function isPretty(text: string): boolean {
  return /^\s*\{[ \t]*\r?\n[ \t]+"/.test(text);
}

check(
  'negotiation.pretty',
  {
    rows: ['query.get.pretty', 'query.list.pretty', 'query.create.pretty', 'query.single.pretty'],
    requires: CM_RW,
    title: '?pretty=true answers indented JSON of the same object',
  },
  async (ctx) => {
    const { ns, path, name } = await configMapIn(ctx);
    const cases: Array<{ row: string; method: string; path: string; body?: unknown }> = [
      { row: 'query.get.pretty', method: 'GET', path },
      { row: 'query.list.pretty', method: 'GET', path: collectionPath(CONFIGMAPS, ns) },
      {
        row: 'query.create.pretty',
        method: 'POST',
        path: collectionPath(CONFIGMAPS, ns),
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-p` } },
      },
      { row: 'query.single.pretty', method: 'PATCH', path },
    ];
    for (const c of cases) {
      await forRows(c.row, async () => {
        const what = `${c.method} ${c.path}?pretty=true`;
        const headers: Record<string, string> = { Accept: 'application/json' };
        let body: string | undefined;
        if (c.method === 'PATCH') {
          headers['Content-Type'] = 'application/merge-patch+json';
          body = JSON.stringify({ metadata: { annotations: { pretty: 'yes' } } });
        } else if (c.body) {
          headers['Content-Type'] = 'application/json';
          body = JSON.stringify(c.body);
        }
        const res = await ctx.client.raw({ method: c.method, path: c.path, query: { pretty: 'true' }, headers, body });
        expectStatusCode(res, c.method === 'POST' ? [200, 201, 202] : 200, what);
        expectTrue(isPretty(res.text()), `${what}: the body is not indented JSON: ${JSON.stringify(res.text().slice(0, 60))}`);
        expectTrue(typeof JSON.parse(res.text()).kind === 'string', `${what}: the pretty body has no kind`);
      });
    }
  },
);

check('negotiation.watch-stream-types', { rows: ['media.json-watch', 'media.protobuf-watch', 'rule.media.list-watch-stream-types', 'bodyType.WatchEvent'], requires: [...CM_RW, needs(CONFIGMAPS, ['watch'])], title: 'watch answers in the JSON and protobuf stream types' }, async (ctx) => {
  const ns = await ctx.namespace();
  const list = await ctx.client.get<{ metadata?: { resourceVersion?: string } }>(collectionPath(CONFIGMAPS, ns));
  expectStatusCode(list, 200, 'list before the watch');
  const rv = list.object?.metadata?.resourceVersion;
  for (const format of ['json', 'protobuf'] as const) {
    await forRows(format === 'json' ? 'media.json-watch' : 'media.protobuf-watch', async () => {
      const watch = await ctx.client.watch(collectionPath(CONFIGMAPS, ns), { query: { watch: 'true', resourceVersion: rv }, format });
      try {
        const what = `watch of configmaps as ${format}`;
        if (watch.status !== 200) fail(`${what}: expected HTTP 200, got ${await describeWatchRefusal(watch)}`);
        const type = ctx.client.mediaType(format);
        const contentType = (watch.headers['content-type'] ?? '').replace(/\s+/g, '').toLowerCase();
        // JSON watches are plain application/json on the real server; the spec also names ;stream=watch.
        const allowed = format === 'json' ? [type, `${type};stream=watch`] : [`${type};stream=watch`];
        expectTrue(allowed.includes(contentType), `${what}: Content-Type ${JSON.stringify(watch.headers['content-type'])}, expected ${allowed.join(' or ')}`);
        const name = ctx.uniqueName(`w${format}`);
        await createObject(ctx, CONFIGMAPS, name, ns);
        const deadline = Date.now() + 10_000;
        for (;;) {
          const event = await watch.next(Math.max(1, deadline - Date.now()));
          if (!event) fail(`${what}: no event for ${name} within 10s`);
          await forRows('bodyType.WatchEvent', () =>
            expectTrue(typeof event.type === 'string' && typeof event.object === 'object', `${what}: an item is not {type, object}`),
          );
          if ((event.object as KubeObject).metadata?.name === name) {
            expectEqual(event.type, 'ADDED', `${what}: event type for the created object`);
            break;
          }
        }
      } finally {
        watch.close();
      }
    });
  }
});

check('negotiation.patch-types', { rows: ['rule.media.patch-types', 'media.json-patch', 'media.merge-patch', 'media.strategic-merge-patch'], requires: [...CM_RW, needs(CONFIGMAPS, ['patch'])], title: 'PATCH reads JSON patch, merge patch and strategic merge patch by Content-Type' }, async (ctx) => {
  const { path } = await configMapIn(ctx);
  const cases = [
    { row: 'media.json-patch', type: 'json' as const, patch: [{ op: 'add', path: '/data/jsonpatch', value: 'one' }], key: 'jsonpatch', value: 'one' },
    { row: 'media.merge-patch', type: 'merge' as const, patch: { data: { mergepatch: 'two' } }, key: 'mergepatch', value: 'two' },
    { row: 'media.strategic-merge-patch', type: 'strategic' as const, patch: { data: { strategic: 'three' } }, key: 'strategic', value: 'three' },
  ];
  for (const c of cases) {
    await forRows(c.row, async () => {
      const res = await ctx.client.patch(path, c.patch, c.type);
      expectStatusCode(res, 200, `PATCH ${path} with a ${c.type} patch`);
      expectEqual(res.object?.data && (res.object.data as Record<string, string>)[c.key], c.value, `data.${c.key} after the ${c.type} patch`);
    });
  }
  const res = await ctx.client.raw({ method: 'PATCH', path, headers: { 'Content-Type': 'text/plain', Accept: 'application/json' }, body: 'data: nope' });
  expectTrue(
    res.status >= 400 && res.status < 500,
    `PATCH with Content-Type text/plain: expected a 4xx refusal, got ${describeResponse(res)}`,
    'rule.media.patch-types',
  );
});

check('negotiation.malformed-body-400', { rows: ['negotiation.write-content-type'], requires: CM_RW, title: 'a body that does not parse in its Content-Type is a 400 Status, never a 500' }, async (ctx) => {
  const ns = await ctx.namespace();
  const path = collectionPath(CONFIGMAPS, ns);
  const broken = fc.oneof(
    fc.constantFrom('{', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}', '[1,2', 'not json at all', '{"metadata": }'),
    fc.string({ maxLength: 30 }).map((s) => `{"apiVersion":"v1",${s}`).filter((s) => {
      try {
        JSON.parse(s);
        return false;
      } catch {
        return true;
      }
    }),
  );
  await ctx.forAll(broken, async (text) => {
    const what = `POST ${path} with a malformed JSON body`;
    const res = await ctx.client.request('POST', path, text, { contentType: 'json' });
    expectStatusCode(res, 400, what);
    expectStatusBody(res, { status: 'Failure', code: 400, reason: 'BadRequest' }, what);
  });
  const yamlText = 'metadata: [unclosed';
  expectTrue((() => { try { yaml.load(yamlText); return false; } catch { return true; } })(), 'the YAML sample must be malformed');
  const res = await ctx.client.request('POST', path, yamlText, { contentType: 'yaml' });
  expectStatusCode(res, 400, `POST ${path} with a malformed YAML body`);
});
