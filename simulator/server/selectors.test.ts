// labelSelector and fieldSelector on lists over HTTP (spec 4.2), checked against an independent matcher.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { httpCall } from '../testing/http.ts';

let sim: RunningSimulator;
const NS = 'sel';

async function call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const r = await httpCall(sim.url, method, path, body);
  return {
    status: r.status,
    text: r.text,
    body: JSON.parse(r.text) as { items?: Array<{ metadata: { name: string; namespace?: string } }>; message?: string; reason?: string },
  };
}

const KEYS = ['a', 'b', 'app', 'example.com/tier'];
const VALUES = ['x', 'y', 'z-1', ''];
type Labels = Record<string, string>;

/** A fixed population of ConfigMaps whose label sets cover every combination the selectors can tell apart. */
const population: Array<{ name: string; labels: Labels }> = [];

before(async () => {
  sim = await startSimulator();
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status, 201);
  const rnd = fc.sample(fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 4 }), { numRuns: 60, seed: 7 });
  const sets: Labels[] = [{}, { a: 'x' }, { a: '' }, { a: 'y', b: 'x' }, ...rnd];
  for (const [i, labels] of sets.entries()) {
    const name = `cm-${i}`;
    population.push({ name, labels });
    const r = await call('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name, labels } });
    assert.equal(r.status, 201, r.text);
  }
});
after(async () => {
  await sim.close();
});

// ---- an independent model of selector requirements ----

type Req =
  | { op: 'eq' | 'deq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

function modelMatches(reqs: Req[], labels: Labels): boolean {
  return reqs.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'eq':
      case 'deq':
        return has && labels[r.key] === r.value;
      case 'neq':
        return !has || labels[r.key] !== r.value;
      case 'in':
        return has && r.values.includes(labels[r.key]);
      case 'notin':
        return !has || !r.values.includes(labels[r.key]);
      case 'exists':
        return has;
      case 'notexists':
        return !has;
    }
  });
}

const sp = fc.constantFrom('', ' ');
const key = fc.constantFrom(...KEYS, 'missing');
const value = fc.constantFrom(...VALUES.filter((v) => v !== ''), 'w');
const req: fc.Arbitrary<[Req, string]> = fc.oneof(
  fc.tuple(fc.constantFrom('eq', 'deq', 'neq') as fc.Arbitrary<'eq' | 'deq' | 'neq'>, key, fc.constantFrom(...VALUES, 'w'), sp, sp).map(([op, k, v, s1, s2]): [Req, string] => [
    { op, key: k, value: v },
    `${k}${s1}${op === 'eq' ? '=' : op === 'deq' ? '==' : '!='}${s2}${v}`,
  ]),
  fc.tuple(fc.constantFrom('in', 'notin') as fc.Arbitrary<'in' | 'notin'>, key, fc.uniqueArray(value, { minLength: 1, maxLength: 3 }), sp).map(([op, k, vs, s]): [Req, string] => [
    { op, key: k, values: vs },
    `${k} ${op}${s}(${vs.join(`,${s}`)})`,
  ]),
  key.map((k): [Req, string] => [{ op: 'exists', key: k }, k]),
  fc.tuple(key, sp).map(([k, s]): [Req, string] => [{ op: 'notexists', key: k }, `!${s}${k}`]),
);

describe('labelSelector', () => {
  test('property: the listed names are exactly those the model selects', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(req, { minLength: 1, maxLength: 3 }), async (reqs) => {
        const selector = reqs.map(([, s]) => s).join(',');
        const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=${encodeURIComponent(selector)}`);
        assert.equal(r.status, 200, `${selector}: ${r.text}`);
        const got = r.body.items!.map((i) => i.metadata.name).sort();
        const want = population.filter((p) => modelMatches(reqs.map(([m]) => m), p.labels)).map((p) => p.name).sort();
        assert.deepEqual(got, want, selector);
      }),
      { numRuns: 150 },
    );
  });

  test('examples of each operator', async () => {
    const names = async (sel: string) =>
      (await call('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=${encodeURIComponent(sel)}`)).body.items!.map((i) => i.metadata.name);
    assert.ok((await names('a=x')).includes('cm-1'), "(await names('a=x')).includes('cm-1')");
    assert.ok(!(await names('a=x')).includes('cm-2'), "!(await names('a=x')).includes('cm-2')");
    assert.ok((await names('a==')).includes('cm-2'), 'an empty value matches a label set to ""');
    assert.ok(!(await names('a!=x')).includes('cm-1'), "!(await names('a!=x')).includes('cm-1')");
    assert.ok((await names('a!=x')).includes('cm-0'), '!= matches objects without the key');
    assert.ok((await names('a in (x,y)')).includes('cm-3'), "(await names('a in (x,y)')).includes('cm-3')");
    assert.ok((await names('a notin (x)')).includes('cm-0'), "(await names('a notin (x)')).includes('cm-0')");
    assert.ok((await names('b')).includes('cm-3'), "(await names('b')).includes('cm-3')");
    assert.ok(!(await names('!b')).includes('cm-3'), "!(await names('!b')).includes('cm-3')");
    const all = await names('');
    assert.equal(all.length, population.length, 'an empty selector selects everything');
  });

  for (const bad of [
    'a in (',
    'a in ()',
    '!!a',
    'a=b=c',
    'a b',
    '=x',
    'a in x',
    'a,,b',
    'Bad Key=x',
    'a=' + 'v'.repeat(64),
    'k'.repeat(64),
    'a=b c',
    'a notin (x',
    '/a=b',
    'a/=b',
    'a>x',
  ]) {
    test(`invalid label selector ${JSON.stringify(bad)} is 400 BadRequest`, async () => {
      const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps?labelSelector=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.reason, 'BadRequest');
      assert.match(r.body.message!, /unable to parse requirement|found|invalid/);
    });
  }

  test('labelSelector also restricts watch and deletecollection', async () => {
    const ns = 'sel-dc';
    assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    for (const [n, labels] of [['keep', { k: 'keep' }], ['drop-1', { k: 'drop' }], ['drop-2', { k: 'drop' }]] as const) {
      assert.equal((await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: n, labels } })).status, 201);
    }
    const dc = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=k%3Ddrop`);
    assert.equal(dc.status, 200, dc.text);
    const left = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(left.body.items!.map((i) => i.metadata.name), ['keep']);
  });
});

describe('fieldSelector', () => {
  test('metadata.name with =, == and !=', async () => {
    const names = async (sel: string) =>
      (await call('GET', `/api/v1/namespaces/${NS}/configmaps?fieldSelector=${encodeURIComponent(sel)}`)).body.items!.map((i) => i.metadata.name);
    assert.deepEqual(await names('metadata.name=cm-1'), ['cm-1']);
    assert.deepEqual(await names('metadata.name==cm-2'), ['cm-2']);
    assert.equal((await names('metadata.name!=cm-1')).length, population.length - 1);
    assert.deepEqual(await names('metadata.name=cm-1,metadata.name!=cm-1'), []);
    assert.deepEqual(await names('metadata.name=nope'), []);
  });

  test('property: metadata.name requirements select like the model', async () => {
    const names = population.map((p) => p.name);
    const fr = fc.tuple(fc.constantFrom('=', '==', '!='), fc.constantFrom(...names.slice(0, 6), 'other'));
    await fc.assert(
      fc.asyncProperty(fc.array(fr, { minLength: 1, maxLength: 3 }), async (reqs) => {
        const sel = reqs.map(([op, v]) => `metadata.name${op}${v}`).join(',');
        const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps?fieldSelector=${encodeURIComponent(sel)}`);
        assert.equal(r.status, 200, r.text);
        const want = names.filter((n) => reqs.every(([op, v]) => (op === '!=' ? n !== v : n === v))).sort();
        assert.deepEqual(r.body.items!.map((i) => i.metadata.name).sort(), want, sel);
      }),
      { numRuns: 60 },
    );
  });

  test('metadata.namespace on a cluster-wide list', async () => {
    const r = await call('GET', `/api/v1/configmaps?fieldSelector=${encodeURIComponent(`metadata.namespace=${NS}`)}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.items!.length, population.length);
    assert.ok(r.body.items!.every((i) => i.metadata.namespace === NS), 'r.body.items!.every((i) => i.metadata.namespace === NS)');
    const not = await call('GET', `/api/v1/configmaps?fieldSelector=${encodeURIComponent(`metadata.namespace!=${NS}`)}`);
    assert.ok(not.body.items!.every((i) => i.metadata.namespace !== NS), 'not.body.items!.every((i) => i.metadata.namespace !== NS)');
    const ns = await call('GET', `/api/v1/namespaces?fieldSelector=${encodeURIComponent('metadata.name=default')}`);
    assert.deepEqual(ns.body.items!.map((i) => i.metadata.name), ['default']);
  });

  test('per-kind fields: type for secrets, status.phase for pods', async () => {
    for (const [name, type] of [['opaque', 'Opaque'], ['tls', 'kubernetes.io/tls']] as const) {
      const data = type === 'Opaque' ? { k: 'dg==' } : { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' };
      const r = await call('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name }, type, data });
      assert.equal(r.status, 201, r.text);
    }
    const tls = await call('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=${encodeURIComponent('type=kubernetes.io/tls')}`);
    assert.equal(tls.status, 200, tls.text);
    assert.deepEqual(tls.body.items!.map((i) => i.metadata.name), ['tls']);
    const notTls = await call('GET', `/api/v1/namespaces/${NS}/secrets?fieldSelector=${encodeURIComponent('type!=kubernetes.io/tls')}`);
    assert.deepEqual(notTls.body.items!.map((i) => i.metadata.name), ['opaque']);

    const pod = await call('POST', `/api/v1/namespaces/${NS}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    assert.equal(pod.status, 201, pod.text);
    const pending = await call('GET', `/api/v1/namespaces/${NS}/pods?fieldSelector=${encodeURIComponent('status.phase=Pending')}`);
    assert.deepEqual(pending.body.items!.map((i) => i.metadata.name), ['p']);
    const running = await call('GET', `/api/v1/namespaces/${NS}/pods?fieldSelector=${encodeURIComponent('status.phase=Running')}`);
    assert.deepEqual(running.body.items, []);
    const both = await call('GET', `/api/v1/namespaces/${NS}/pods?fieldSelector=${encodeURIComponent('status.phase!=Running,metadata.name=p')}`);
    assert.deepEqual(both.body.items!.map((i) => i.metadata.name), ['p']);
  });

  for (const [path, sel] of [
    [`/api/v1/namespaces/${NS}/configmaps`, 'spec.foo=x'],
    [`/api/v1/namespaces/${NS}/configmaps`, 'type=Opaque'],
    [`/api/v1/namespaces/${NS}/configmaps`, 'status.phase=Running'],
    [`/api/v1/namespaces/${NS}/secrets`, 'status.phase=Running'],
  ] as const) {
    test(`unknown field ${sel} on ${path.split('/').pop()} is 400 "field label not supported"`, async () => {
      const r = await call('GET', `${path}?fieldSelector=${encodeURIComponent(sel)}`);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.reason, 'BadRequest');
      assert.equal(r.body.message, `field label not supported: ${sel.split('=')[0]}`);
    });
  }

  for (const bad of ['metadata.name', 'metadata.name<x', '=x', 'metadata.name=a,,metadata.name=b']) {
    test(`malformed field selector ${JSON.stringify(bad)} is 400`, async () => {
      const r = await call('GET', `/api/v1/namespaces/${NS}/configmaps?fieldSelector=${encodeURIComponent(bad)}`);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.reason, 'BadRequest');
    });
  }
});
