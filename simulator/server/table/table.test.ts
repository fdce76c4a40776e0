// Server-side printing over HTTP: Table responses for lists, single objects, chunks and watches; includeObject;
// fallbacks where no Table applies; errors stay Status.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import yaml from 'js-yaml';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { httpCall } from '../../testing/http.ts';

const KUBECTL_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const V1BETA1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
const NS = 'table-test';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

let sim: RunningSimulator;

type Json = Record<string, any>;

async function call(
  method: string,
  path: string,
  opts: { accept?: string; body?: object } = {},
): Promise<{ status: number; contentType: string; text: string; json: () => Json }> {
  const r = await httpCall(sim.url, method, path, opts.body, opts.accept ? { accept: opts.accept } : {});
  return { status: r.status, contentType: String(r.contentType), text: r.text, json: () => JSON.parse(r.text) as Json };
}

/** Reads a watch stream's events until `count` arrived (or the stream ends). */
async function watchEvents(path: string, accept: string, count: number, during?: () => Promise<void>): Promise<Json[]> {
  const res = await request(sim.url + path, { headers: { accept } });
  assert.equal(res.statusCode, 200);
  const events: Json[] = [];
  let buf = '';
  // The stream is open (status and headers are in): changes made now are the watch's to report.
  const writes = during?.();
  for await (const chunk of res.body) {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
    if (events.length >= count) break;
  }
  await writes;
  res.body.destroy();
  return events;
}

before(async () => {
  sim = await startSimulator();
  assert.equal((await call('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  for (const n of ['a', 'b', 'c']) {
    const r = await call('POST', CM, { body: { metadata: { name: n, labels: { set: 'one' } }, data: { k: n, l: n } } });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => sim?.close());

describe('Table responses', () => {
  test("a list with kubectl's Accept is a meta.k8s.io/v1 Table of the list", async () => {
    const plain = (await call('GET', CM)).json();
    const r = await call('GET', CM, { accept: KUBECTL_ACCEPT });
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/json');
    const t = r.json();
    assert.equal(t.kind, 'Table');
    assert.equal(t.apiVersion, 'meta.k8s.io/v1');
    assert.equal(t.metadata.resourceVersion, plain.metadata.resourceVersion);
    assert.deepEqual(t.columnDefinitions.map((c: Json) => c.name), ['Name', 'Data', 'Age']);
    for (const c of t.columnDefinitions) assert.deepEqual(Object.keys(c), ['name', 'type', 'format', 'description', 'priority']);
    assert.deepEqual(t.rows.map((row: Json) => row.cells.slice(0, 2)), [['a', 2], ['b', 2], ['c', 2]]);
    assert.match(t.rows[0].cells[2], /^\d+s$/);
    const obj = t.rows[0].object;
    assert.equal(obj.kind, 'PartialObjectMetadata');
    assert.equal(obj.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(obj.metadata, plain.items[0].metadata);
  });

  test('v1beta1 when asked for it (the 1.9 Table version)', async () => {
    const t = (await call('GET', CM, { accept: V1BETA1 })).json();
    assert.equal(t.apiVersion, 'meta.k8s.io/v1beta1');
    assert.equal(t.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');
  });

  test('YAML Tables too', async () => {
    const r = await call('GET', `${CM}/a`, { accept: 'application/yaml;as=Table;v=v1;g=meta.k8s.io' });
    assert.equal(r.contentType, 'application/yaml');
    const t = yaml.load(r.text) as Json;
    assert.equal(t.kind, 'Table');
    assert.equal(t.rows[0].cells[0], 'a');
  });

  test('get by name answers a one-row Table with the object resourceVersion', async () => {
    const plain = (await call('GET', `${CM}/b`)).json();
    const t = (await call('GET', `${CM}/b`, { accept: KUBECTL_ACCEPT })).json();
    assert.equal(t.kind, 'Table');
    assert.equal(t.metadata.resourceVersion, plain.metadata.resourceVersion);
    assert.equal(t.rows.length, 1);
    assert.deepEqual(t.rows[0].cells.slice(0, 2), ['b', 2]);
  });

  test('includeObject=Object embeds the full object, None embeds nothing, anything else is 400', async () => {
    const plain = (await call('GET', CM)).json();
    const full = (await call('GET', `${CM}?includeObject=Object`, { accept: KUBECTL_ACCEPT })).json();
    assert.deepEqual(full.rows[0].object, { kind: 'ConfigMap', apiVersion: 'v1', ...plain.items[0] });
    const none = (await call('GET', `${CM}/a?includeObject=None`, { accept: KUBECTL_ACCEPT })).json();
    assert.equal(none.rows[0].object, null);
    const bad = await call('GET', `${CM}?includeObject=Everything`, { accept: KUBECTL_ACCEPT });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().kind, 'Status');
    assert.equal(bad.json().message, 'unrecognized includeObject value: "Everything"');
    // Without a Table the parameter is not looked at.
    assert.equal((await call('GET', `${CM}?includeObject=Everything`)).status, 200);
  });

  test('chunked lists: limit and continue work with Tables', async () => {
    const first = (await call('GET', `${CM}?limit=2`, { accept: KUBECTL_ACCEPT })).json();
    assert.equal(first.rows.length, 2);
    assert.ok(first.metadata.continue, 'first.metadata.continue');
    const rest = (await call('GET', `${CM}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`, { accept: KUBECTL_ACCEPT })).json();
    assert.equal(rest.kind, 'Table');
    assert.deepEqual(rest.rows.map((r: Json) => r.cells[0]), ['c']);
    assert.equal(rest.metadata.continue, undefined);
    assert.equal(rest.metadata.resourceVersion, first.metadata.resourceVersion);
  });

  test('selectors apply; an empty result is a Table with no rows', async () => {
    const t = (await call('GET', `${CM}?labelSelector=set%3Dnone`, { accept: KUBECTL_ACCEPT })).json();
    assert.equal(t.kind, 'Table');
    assert.deepEqual(t.rows, []);
    assert.equal(t.columnDefinitions.length, 3);
  });

  test('writes answer a Table too when one is asked for', async () => {
    const r = await call('POST', CM, { accept: KUBECTL_ACCEPT, body: { metadata: { name: 'written' }, data: { x: 'y' } } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json().rows[0].cells.slice(0, 2), ['written', 1]);
    assert.equal((await call('DELETE', `${CM}/written`)).status, 200);
  });

  test('every served kind lists as a Table (its own columns, or Name and Created At)', async () => {
    for (const def of sim.ctx.registry.defs) {
      if (!def.verbs.includes('list')) continue;
      const base = def.group === '' ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
      const r = await call('GET', `${base}/${def.resource}`, { accept: KUBECTL_ACCEPT });
      assert.equal(r.status, 200, `${def.resource}: ${r.text}`);
      const t = r.json();
      assert.equal(t.kind, 'Table', def.resource);
      assert.ok(t.columnDefinitions.length >= 2, def.resource);
      for (const row of t.rows) assert.equal(row.cells.length, t.columnDefinitions.length, def.resource);
    }
  });
});

describe('where no Table applies', () => {
  test('no Table asked for: the plain list, byte for byte as before', async () => {
    const a = await call('GET', CM, { accept: 'application/json' });
    const b = await call('GET', CM);
    assert.equal(a.json().kind, 'ConfigMapList');
    assert.equal(a.text, b.text);
  });

  test('discovery documents fall back to the next acceptable type', async () => {
    for (const path of ['/api', '/api/v1', '/apis', '/apis/apps/v1', '/version']) {
      const r = await call('GET', path, { accept: KUBECTL_ACCEPT });
      assert.equal(r.status, 200, path);
      assert.notEqual(r.json().kind, 'Table', path);
    }
  });

  test('a Table-only Accept for a document without a Table is 406', async () => {
    assert.equal((await call('GET', '/api/v1', { accept: V1BETA1 })).status, 406);
  });

  test('errors stay Status: JSON with a fallback in Accept, 406 with a Table-only Accept', async () => {
    const r = await call('GET', `${CM}/missing`, { accept: KUBECTL_ACCEPT });
    assert.equal(r.status, 404);
    assert.equal(r.json().kind, 'Status');
    assert.equal(r.json().reason, 'NotFound');
    assert.equal((await call('GET', `${CM}/missing`, { accept: V1BETA1 })).status, 406);
  });

  test('Table of another group or version, or as protobuf, is not served', async () => {
    for (const accept of [
      'application/json;as=Table;v=v2;g=meta.k8s.io,application/json',
      'application/json;as=Table;v=v1;g=example.com,application/json',
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json',
    ]) {
      const r = await call('GET', CM, { accept });
      assert.equal(r.status, 200, accept);
      assert.equal(r.contentType, 'application/json', accept);
      assert.equal(r.json().kind, 'ConfigMapList', accept);
    }
  });
});

describe('watch with a Table Accept', () => {
  test('events carry one-row Tables; only the first carries column definitions', async () => {
    const events = await watchEvents(`${CM}?watch=true&timeoutSeconds=5`, KUBECTL_ACCEPT, 3);
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED']);
    assert.deepEqual(events.map((e) => e.object.kind), ['Table', 'Table', 'Table']);
    assert.deepEqual(events[0].object.columnDefinitions.map((c: Json) => c.name), ['Name', 'Data', 'Age']);
    assert.equal(events[1].object.columnDefinitions, null);
    assert.equal(events[2].object.columnDefinitions, null);
    assert.deepEqual(events.map((e) => e.object.rows[0].cells[0]), ['a', 'b', 'c']);
    const plain = (await call('GET', `${CM}/a`)).json();
    assert.equal(events[0].object.metadata.resourceVersion, plain.metadata.resourceVersion);
    assert.equal(events[0].object.rows[0].object.kind, 'PartialObjectMetadata');
  });

  test('changes after a resourceVersion arrive as Tables (v1beta1, includeObject=Object)', async () => {
    const rv = (await call('GET', CM)).json().metadata.resourceVersion;
    const events = await watchEvents(`${CM}?watch=true&resourceVersion=${rv}&includeObject=Object&timeoutSeconds=5`, V1BETA1, 2, async () => {
      await call('POST', CM, { body: { metadata: { name: 'w1' } } });
      await call('DELETE', `${CM}/w1`);
    });
    assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
    assert.equal(events[0].object.apiVersion, 'meta.k8s.io/v1beta1');
    assert.ok(Array.isArray(events[0].object.columnDefinitions), 'Array.isArray(events[0].object.columnDefinitions)');
    assert.equal(events[1].object.columnDefinitions, null);
    assert.equal(events[0].object.rows[0].object.kind, 'ConfigMap');
    assert.deepEqual(events[0].object.rows[0].cells.slice(0, 2), ['w1', 0]);
  });

  test('watchers sharing a format share encoded frames (the hub encodes a Table frame once per change)', async () => {
    const rv = (await call('GET', CM)).json().metadata.resourceVersion;
    const path = `${CM}?watch=true&resourceVersion=${rv}&timeoutSeconds=5`;
    const before = { ...sim.ctx.hub.stats };
    let go!: () => void;
    const ready = new Promise<void>((r) => (go = r));
    const results = Promise.all([watchEvents(path, KUBECTL_ACCEPT, 2), watchEvents(path, KUBECTL_ACCEPT, 2)]);
    setTimeout(go, 300);
    await ready;
    await call('POST', CM, { body: { metadata: { name: 'shared1' } } });
    await call('POST', CM, { body: { metadata: { name: 'shared2' } } });
    const [a, b] = await results;
    assert.deepEqual(a, b);
    const deliveries = sim.ctx.hub.stats.deliveries - before.deliveries;
    const encodings = sim.ctx.hub.stats.encodings - before.encodings;
    assert.ok(deliveries >= 4, `deliveries ${deliveries}`);
    assert.ok(encodings < deliveries, `encodings ${encodings} for ${deliveries} deliveries`);
    for (const n of ['shared1', 'shared2']) await call('DELETE', `${CM}/${n}`);
  });

  test('a watch without a Table Accept is unchanged', async () => {
    const events = await watchEvents(`${CM}?watch=true&timeoutSeconds=5`, 'application/json', 1);
    assert.equal(events[0].object.kind, 'ConfigMap');
  });
});
