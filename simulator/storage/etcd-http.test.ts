// The API server on the etcd backend, over HTTP: two simulators share one etcd (one cluster, two API servers),
// with the list/watch rules of server/list-watch.test.ts checked across them: a write through A is read, listed
// and watched through B with the same resourceVersions, chunks are one snapshot whatever is written between them,
// a watch from a list's resourceVersion replays every change, and compaction gives 410s.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../server/start.ts';
import { EtcdStore } from './etcd.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from './etcd-test-server.ts';

const skip = etcdTestSkipReason();
let etcd: EtcdTestServer;
let a: RunningSimulator;
let b: RunningSimulator;

type Obj = { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> };
type Ev = { type: string; object: Obj & { code?: number; reason?: string; message?: string } };

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await request(base + path, {
    method: method as 'GET',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

let nsCounter = 0;
async function freshNamespace(base: string): Promise<string> {
  const name = `etcd-${process.pid}-${++nsCounter}`;
  const r = await call(base, 'POST', '/api/v1/namespaces', { metadata: { name } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return name;
}

const cmPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

type Op = { kind: 'create' | 'update'; name: string; value: string } | { kind: 'delete'; name: string };
const names = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), name: names, value: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant('update' as const), name: names, value: fc.string({ maxLength: 4 }) }),
  fc.record({ kind: fc.constant('delete' as const), name: names }),
);

/** Applies an op over HTTP; ops on missing/existing names may fail (404/409) and change nothing. */
async function apply(base: string, ns: string, op: Op): Promise<void> {
  if (op.kind === 'create') {
    const r = await call(base, 'POST', cmPath(ns), { metadata: { name: op.name }, data: { v: op.value } });
    assert.ok(r.status === 201 || r.status === 409, `create ${r.status}`);
  } else if (op.kind === 'update') {
    const r = await call(base, 'PUT', `${cmPath(ns)}/${op.name}`, { metadata: { name: op.name }, data: { v: op.value } });
    assert.ok(r.status === 200 || r.status === 404, `update ${r.status}`);
  } else {
    const r = await call(base, 'DELETE', `${cmPath(ns)}/${op.name}`);
    assert.ok(r.status === 200 || r.status === 404, `delete ${r.status}`);
  }
}

function stateOf(items: Obj[]): Map<string, string> {
  return new Map(items.map((i) => [i.metadata.name, JSON.stringify(i.data ?? {}) + i.metadata.resourceVersion]));
}

/** Reads a JSON watch stream until `until` says stop or the timeout ends it. */
async function watchEvents(base: string, path: string, until: (evs: Ev[]) => boolean, ms = 5000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const res = await request(base + path, { signal: ac.signal });
  const events: Ev[] = [];
  let buf = '';
  try {
    for await (const chunk of res.body) {
      buf += chunk.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) events.push(JSON.parse(line));
      }
      if (until(events)) break;
    }
  } catch (e) {
    if ((e as Error).name !== 'AbortError') throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { status: res.statusCode, events, text: buf };
}

describe('API server on etcd', { skip }, () => {
  before(async () => {
    etcd = await startEtcd();
    // Both on the default prefix (/registry): one cluster, two API servers, started together on an empty etcd
    // (both try to create the system namespaces; one finds them made by the other).
    [a, b] = await Promise.all([0, 1].map(() => startSimulator({ store: new EtcdStore({ servers: [etcd.url] }) })));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await etcd?.stop();
  });

  it('an object created through A is read, listed and watched through B with the same resourceVersion', async () => {
    const ns = await freshNamespace(a.url);
    const listed = await call(b.url, 'GET', cmPath(ns));
    assert.equal(listed.status, 200, 'B sees the namespace A created');
    const created = await call(a.url, 'POST', cmPath(ns), { metadata: { name: 'x' }, data: { k: 'v' } });
    assert.equal(created.status, 201);
    const rv = created.body.metadata.resourceVersion;
    const got = await call(b.url, 'GET', `${cmPath(ns)}/x`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, created.body);
    // B waits for a resourceVersion it may not have seen yet (A's write) instead of answering 504.
    const fresh = await call(b.url, 'GET', `${cmPath(ns)}?resourceVersion=${rv}`);
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.deepEqual(fresh.body.items.map((i: Obj) => i.metadata.resourceVersion), [rv]);
    const upd = await call(a.url, 'PUT', `${cmPath(ns)}/x`, { metadata: { name: 'x', resourceVersion: rv }, data: { k: 'w' } });
    assert.equal(upd.status, 200);
    const stale = await call(b.url, 'PUT', `${cmPath(ns)}/x`, { metadata: { name: 'x', resourceVersion: rv }, data: { k: 'stale' } });
    assert.equal(stale.status, 409, 'compare-and-swap holds across API servers');
    const { events } = await watchEvents(b.url, `${cmPath(ns)}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`, (evs) => evs.length >= 2);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.resourceVersion]), [['ADDED', rv], ['MODIFIED', upd.body.metadata.resourceVersion]]);
  });

  it('rule.chunking.consistent-snapshot: chunks through B are one snapshot while A writes between them', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 10 }), fc.integer({ min: 1, max: 4 }), fc.array(fc.array(opArb, { maxLength: 3 }), { maxLength: 5 }), async (setup, limit, between) => {
        const ns = await freshNamespace(a.url);
        for (const op of setup) await apply(a.url, ns, op);
        const full = await call(b.url, 'GET', cmPath(ns));
        const snapshot = stateOf(full.body.items);
        const items: Obj[] = [];
        let cont = '';
        let rv: string | undefined;
        let chunks = 0;
        do {
          const r = await call(b.url, 'GET', `${cmPath(ns)}?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.ok(r.body.items.length <= limit);
          rv ??= r.body.metadata.resourceVersion;
          assert.equal(r.body.metadata.resourceVersion, rv, 'resourceVersion constant across chunks');
          items.push(...r.body.items);
          cont = r.body.metadata.continue ?? '';
          for (const op of between[chunks] ?? []) await apply(a.url, ns, op);
          chunks++;
        } while (cont);
        const got = items.map((i) => i.metadata.name);
        assert.equal(new Set(got).size, got.length, 'no duplicates');
        assert.deepEqual(stateOf(items), snapshot);
      }),
      { numRuns: 15 },
    );
  });

  it('rule.watch.from-resource-version: a watch through B from a list resourceVersion replays every change made through A', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 6 }), fc.array(opArb, { minLength: 1, maxLength: 8 }), async (beforeOps, afterOps) => {
        const ns = await freshNamespace(a.url);
        for (const op of beforeOps) await apply(a.url, ns, op);
        const listed = await call(a.url, 'GET', cmPath(ns));
        const state = new Map<string, Obj>(listed.body.items.map((i: Obj) => [i.metadata.name, i]));
        for (const op of afterOps) await apply(a.url, ns, op);
        const current = await call(a.url, 'GET', cmPath(ns));
        const changes = Number(current.body.metadata.resourceVersion) - Number(listed.body.metadata.resourceVersion);
        const { status, events } = await watchEvents(b.url, `${cmPath(ns)}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`, (evs) => evs.length >= changes, changes === 0 ? 300 : 5000);
        assert.equal(status, 200);
        let lastRv = Number(listed.body.metadata.resourceVersion);
        for (const ev of events) {
          const rv = Number(ev.object.metadata.resourceVersion);
          assert.ok(rv > lastRv, 'events in order, none doubled');
          lastRv = rv;
          if (ev.type === 'ADDED') {
            assert.ok(!state.has(ev.object.metadata.name));
            state.set(ev.object.metadata.name, ev.object);
          } else if (ev.type === 'MODIFIED') {
            assert.ok(state.has(ev.object.metadata.name));
            state.set(ev.object.metadata.name, ev.object);
          } else if (ev.type === 'DELETED') assert.ok(state.delete(ev.object.metadata.name));
          else assert.fail(`unexpected event ${ev.type}`);
        }
        assert.equal(events.length, changes, 'one event per change in this namespace');
        assert.deepEqual(stateOf([...state.values()]), stateOf(current.body.items));
      }),
      { numRuns: 15 },
    );
  });

  it('error.410: after a compaction, a watch from before it and a continue token from before it get 410 Expired', async () => {
    const ns = await freshNamespace(a.url);
    for (let i = 0; i < 3; i++) await apply(a.url, ns, { kind: 'create', name: `o${i}`, value: '' });
    const first = await call(b.url, 'GET', `${cmPath(ns)}?limit=1`);
    const oldRv = first.body.metadata.resourceVersion;
    assert.ok(first.body.metadata.continue);
    await apply(a.url, ns, { kind: 'update', name: 'o0', value: 'x' });
    await apply(a.url, ns, { kind: 'update', name: 'o0', value: 'y' });
    // A compacts all but the last change (etcd still serves a watch that starts at the compact revision); B has
    // not been told.
    await (a.ctx.store as EtcdStore).compactTo(a.ctx.store.currentRevision());
    const res = await watchEvents(b.url, `${cmPath(ns)}?watch=true&resourceVersion=${oldRv}`, (evs) => evs.length >= 1);
    assert.equal(res.status, 200);
    assert.equal(res.events[0]?.type, 'ERROR');
    assert.equal(res.events[0].object.code, 410);
    assert.equal(res.events[0].object.reason, 'Expired');
    assert.match(res.events[0].object.message ?? '', new RegExp(`^too old resource version: ${oldRv} \\(\\d+\\)$`));
    const next = await call(b.url, 'GET', `${cmPath(ns)}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    assert.equal(next.status, 410);
    assert.equal(next.body.reason, 'Expired');
    // Relist and rewatch recovers (4.3.5).
    const relisted = await call(b.url, 'GET', cmPath(ns));
    assert.equal(relisted.body.items.length, 3);
    await apply(a.url, ns, { kind: 'create', name: 'after', value: '' });
    const { events } = await watchEvents(b.url, `${cmPath(ns)}?watch=true&resourceVersion=${relisted.body.metadata.resourceVersion}`, (evs) => evs.length >= 1);
    assert.deepEqual(events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:after']);
  });
});
