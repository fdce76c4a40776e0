// The API server on the etcd backend, over HTTP: two simulators share one etcd (one cluster, two API servers),
// with the list/watch rules of server/list-watch.test.ts checked across them: a write through A is read, listed
// and watched through B with the same resourceVersions, chunks are one snapshot whatever is written between them,
// a watch from a list's resourceVersion replays every change, and compaction gives 410s.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { applyOp, call, cmPath, freshNamespace, opArb, stateOf, watchEvents, type Obj } from '../testing/configmap-ops.ts';
import { EtcdStore } from './etcd.ts';
import { etcdTestSkipReason, startEtcd, type EtcdTestServer } from '../testing/etcd-test-server.ts';

const skip = etcdTestSkipReason();
let etcd: EtcdTestServer;
let a: RunningSimulator;
let b: RunningSimulator;

const freshNs = (base: string) => freshNamespace(base, 'etcd');
const ops = opArb(['a', 'b', 'c', 'd', 'e', 'f']);

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
    const ns = await freshNs(a.url);
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
    const { events } = await watchEvents(
      b.url,
      `${cmPath(ns)}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`,
      (evs) => evs.length >= 2,
      5000,
    );
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.resourceVersion]), [['ADDED', rv], ['MODIFIED', upd.body.metadata.resourceVersion]]);
  });

  it('a create answers the same bytes as a GET of the object (the answer is the stored text with its resourceVersion)', async () => {
    const ns = await freshNs(a.url);
    const body = { metadata: { name: 'bytes', labels: { app: 'x' }, annotations: { note: 'é "quoted" \u2028' } }, data: { k: 'v\n' } };
    const made = await fetch(`${a.url}${cmPath(ns)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(made.status, 201);
    const answer = await made.text();
    for (const server of [a, b]) {
      const got = await fetch(`${server.url}${cmPath(ns)}/bytes`);
      assert.equal(got.status, 200);
      assert.equal(await got.text(), answer, `GET through ${server === a ? 'A' : 'B'}`);
    }
  });

  it('rule.chunking.consistent-snapshot: chunks through B are one snapshot while A writes between them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ops, { maxLength: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(ops, { maxLength: 3 }), { maxLength: 5 }),
        async (setup, limit, between) => {
          const ns = await freshNs(a.url);
          for (const op of setup) await applyOp(a.url, ns, op);
          const full = await call(b.url, 'GET', cmPath(ns));
          const snapshot = stateOf(full.body.items);
          const items: Obj[] = [];
          let cont = '';
          let rv: string | undefined;
          let chunks = 0;
          do {
            const r = await call(b.url, 'GET', `${cmPath(ns)}?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
            assert.equal(r.status, 200, JSON.stringify(r.body));
            assert.ok(r.body.items.length <= limit, 'r.body.items.length <= limit');
            rv ??= r.body.metadata.resourceVersion;
            assert.equal(r.body.metadata.resourceVersion, rv, 'resourceVersion constant across chunks');
            items.push(...r.body.items);
            cont = r.body.metadata.continue ?? '';
            for (const op of between[chunks] ?? []) await applyOp(a.url, ns, op);
            chunks++;
          } while (cont);
          const got = items.map((i) => i.metadata.name);
          assert.equal(new Set(got).size, got.length, 'no duplicates');
          assert.deepEqual(stateOf(items), snapshot);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('rule.watch.from-resource-version: a watch through B from a list resourceVersion replays every change made through A', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(ops, { maxLength: 6 }), fc.array(ops, { minLength: 1, maxLength: 8 }), async (beforeOps, afterOps) => {
        const ns = await freshNs(a.url);
        for (const op of beforeOps) await applyOp(a.url, ns, op);
        const listed = await call(a.url, 'GET', cmPath(ns));
        const state = new Map<string, Obj>(listed.body.items.map((i: Obj) => [i.metadata.name, i]));
        for (const op of afterOps) await applyOp(a.url, ns, op);
        const current = await call(a.url, 'GET', cmPath(ns));
        const changes = Number(current.body.metadata.resourceVersion) - Number(listed.body.metadata.resourceVersion);
        const { status, events } = await watchEvents(
          b.url,
          `${cmPath(ns)}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`,
          (evs) => evs.length >= changes,
          changes === 0 ? 300 : 5000,
        );
        assert.equal(status, 200);
        let lastRv = Number(listed.body.metadata.resourceVersion);
        for (const ev of events) {
          const rv = Number(ev.object.metadata.resourceVersion);
          assert.ok(rv > lastRv, 'events in order, none doubled');
          lastRv = rv;
          if (ev.type === 'ADDED') {
            assert.ok(!state.has(ev.object.metadata.name), '!state.has(ev.object.metadata.name)');
            state.set(ev.object.metadata.name, ev.object);
          } else if (ev.type === 'MODIFIED') {
            assert.ok(state.has(ev.object.metadata.name), 'state.has(ev.object.metadata.name)');
            state.set(ev.object.metadata.name, ev.object);
          } else if (ev.type === 'DELETED') assert.ok(state.delete(ev.object.metadata.name), 'state.delete(ev.object.metadata.name)');
          else assert.fail(`unexpected event ${ev.type}`);
        }
        assert.equal(events.length, changes, 'one event per change in this namespace');
        assert.deepEqual(stateOf([...state.values()]), stateOf(current.body.items));
      }),
      { numRuns: 15 },
    );
  });

  it('error.410: after a compaction, a watch from before it and a continue token from before it get 410 Expired', async () => {
    const ns = await freshNs(a.url);
    for (let i = 0; i < 3; i++) await applyOp(a.url, ns, { kind: 'create', name: `o${i}`, value: '' });
    const first = await call(b.url, 'GET', `${cmPath(ns)}?limit=1`);
    const oldRv = first.body.metadata.resourceVersion;
    assert.ok(first.body.metadata.continue, 'first.body.metadata.continue');
    await applyOp(a.url, ns, { kind: 'update', name: 'o0', value: 'x' });
    await applyOp(a.url, ns, { kind: 'update', name: 'o0', value: 'y' });
    // A compacts all but the last change (etcd still serves a watch that starts at the compact revision); B has
    // not been told.
    await (a.ctx.store as EtcdStore).compactTo(a.ctx.store.currentRevision());
    const res = await watchEvents(b.url, `${cmPath(ns)}?watch=true&resourceVersion=${oldRv}`, (evs) => evs.length >= 1, 5000);
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
    await applyOp(a.url, ns, { kind: 'create', name: 'after', value: '' });
    const { events } = await watchEvents(
      b.url,
      `${cmPath(ns)}?watch=true&resourceVersion=${relisted.body.metadata.resourceVersion}`,
      (evs) => evs.length >= 1,
      5000,
    );
    assert.deepEqual(events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:after']);
  });
});
