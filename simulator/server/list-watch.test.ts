// Spec 4.3, 4.9, 6, 7, 8.1 over HTTP: consistent chunked lists, watch completeness and order, the history
// window and 410 recovery. Properties interleave writes between chunk requests and between watch reads.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { applyOp, call, cmPath, freshNamespace, opArb, stateOf, watchEvents, type Obj } from '../testing/configmap-ops.ts';

let sim: RunningSimulator;
let small: RunningSimulator; // a tiny history window and short token lifetime

before(async () => {
  sim = await startSimulator();
  small = await startSimulator({ watchHistoryEvents: 5, watchHistoryAgeMs: 1, continueTtlMs: 150 });
});
after(async () => {
  await sim.close();
  await small.close();
});

const freshNs = (base: string) => freshNamespace(base, 'lw');
const ops = opArb(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);

test('rule.chunking.consistent-snapshot: the union of chunks is the snapshot at the first chunk, whatever is written between chunks', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(ops, { maxLength: 12 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(fc.array(ops, { maxLength: 3 }), { maxLength: 6 }),
      async (setup, limit, between) => {
        const ns = await freshNs(sim.url);
        for (const op of setup) await applyOp(sim.url, ns, op);
        const full = await call(sim.url, 'GET', cmPath(ns));
        const snapshot = stateOf(full.body.items);
        const items: Obj[] = [];
        let cont = '';
        let rv: string | undefined;
        let chunks = 0;
        do {
          const r = await call(sim.url, 'GET', `${cmPath(ns)}?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.ok(r.body.items.length <= limit, 'r.body.items.length <= limit');
          if (rv === undefined) rv = r.body.metadata.resourceVersion;
          assert.equal(r.body.metadata.resourceVersion, rv, 'resourceVersion constant across chunks');
          items.push(...r.body.items);
          cont = r.body.metadata.continue ?? '';
          for (const op of between[chunks] ?? []) await applyOp(sim.url, ns, op);
          chunks++;
        } while (cont);
        // The first chunk was read right after `full`, with no write in between, so both show one revision.
        assert.equal(rv, full.body.metadata.resourceVersion);
        const names = items.map((i) => i.metadata.name);
        assert.equal(new Set(names).size, names.length, 'no duplicates');
        assert.deepEqual(stateOf(items), snapshot);
      },
    ),
    { numRuns: 25 },
  );
});


test('rule.watch.from-resource-version: a watch from a list resourceVersion plus that list reproduces the current state', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(ops, { maxLength: 8 }), fc.array(ops, { minLength: 1, maxLength: 10 }), async (before, afterOps) => {
      const ns = await freshNs(sim.url);
      for (const op of before) await applyOp(sim.url, ns, op);
      const listed = await call(sim.url, 'GET', cmPath(ns));
      const state = new Map<string, Obj>(listed.body.items.map((i: Obj) => [i.metadata.name, i]));
      for (const op of afterOps) await applyOp(sim.url, ns, op);
      const current = await call(sim.url, 'GET', cmPath(ns));
      const target = current.body.metadata.resourceVersion;
      const changes = Number(target) - Number(listed.body.metadata.resourceVersion);
      const { status, events } = await watchEvents(
        sim.url,
        `${cmPath(ns)}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`,
        (evs) => evs.length >= changes,
        2000,
      );
      assert.equal(status, 200);
      let lastRv = Number(listed.body.metadata.resourceVersion);
      for (const ev of events) {
        const rv = Number(ev.object.metadata.resourceVersion);
        assert.ok(rv > lastRv, 'events in order, none doubled');
        lastRv = rv;
        if (ev.type === 'ADDED') {
          assert.ok(!state.has(ev.object.metadata.name), 'ADDED for a new object');
          state.set(ev.object.metadata.name, ev.object);
        } else if (ev.type === 'MODIFIED') {
          assert.ok(state.has(ev.object.metadata.name), 'MODIFIED for a known object');
          state.set(ev.object.metadata.name, ev.object);
        } else if (ev.type === 'DELETED') {
          assert.ok(state.delete(ev.object.metadata.name), 'DELETED for a known object');
        } else assert.fail(`unexpected event ${ev.type}`);
      }
      assert.equal(events.length, changes, 'one event per change in this namespace');
      assert.deepEqual(stateOf([...state.values()]), stateOf(current.body.items));
    }),
    { numRuns: 20 },
  );
});

test('rule.watch.initial-state: a watch without resourceVersion starts with ADDED for every current object', async () => {
  const ns = await freshNs(sim.url);
  for (const n of ['x', 'y', 'z']) await applyOp(sim.url, ns, { kind: 'create', name: n, value: n });
  const { events, headers } = await watchEvents(sim.url, `/api/v1/watch/namespaces/${ns}/configmaps`, (evs) => evs.length >= 3, 3000);
  assert.deepEqual(events.map((e) => `${e.type}:${e.object.metadata.name}`).sort(), ['ADDED:x', 'ADDED:y', 'ADDED:z']);
  assert.equal(headers['content-type'], 'application/json');
  assert.equal(headers['transfer-encoding'], 'chunked');
  for (const e of events) assert.equal((e.object as unknown as { kind: string }).kind, 'ConfigMap');
});

test('rule.watch.label-selector: an object that stops matching the selector is seen as DELETED', async () => {
  const ns = await freshNs(sim.url);
  const listed = await call(sim.url, 'GET', cmPath(ns));
  await call(sim.url, 'POST', cmPath(ns), { metadata: { name: 'm', labels: { team: 'a' } } });
  await call(sim.url, 'PATCH', `${cmPath(ns)}/m`, { metadata: { labels: { team: 'b' } } }, 'application/merge-patch+json');
  await call(sim.url, 'PATCH', `${cmPath(ns)}/m`, { metadata: { labels: { team: 'a' } } }, 'application/merge-patch+json');
  const { events } = await watchEvents(
    sim.url,
    `${cmPath(ns)}?watch=1&labelSelector=team%3Da&resourceVersion=${listed.body.metadata.resourceVersion}`,
    (evs) => evs.length >= 3,
    3000,
  );
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED', 'ADDED']);
});

test('rule.watch.single-object: watch by name path and by fieldSelector see only that object', async () => {
  const ns = await freshNs(sim.url);
  const listed = await call(sim.url, 'GET', cmPath(ns));
  const rv = listed.body.metadata.resourceVersion;
  for (const n of ['one', 'two']) await applyOp(sim.url, ns, { kind: 'create', name: n, value: n });
  await applyOp(sim.url, ns, { kind: 'update', name: 'two', value: 'v' });
  const byPath = await watchEvents(sim.url, `/api/v1/watch/namespaces/${ns}/configmaps/two?resourceVersion=${rv}`, (evs) => evs.length >= 2, 3000);
  assert.deepEqual(byPath.events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:two', 'MODIFIED:two']);
  const bySel = await watchEvents(sim.url, `${cmPath(ns)}?watch=true&fieldSelector=metadata.name%3Dtwo&resourceVersion=${rv}`, (evs) => evs.length >= 2, 3000);
  assert.deepEqual(bySel.events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:two', 'MODIFIED:two']);
});

test('query.list.timeoutSeconds: the server ends a watch after timeoutSeconds', async () => {
  const ns = await freshNs(sim.url);
  const started = Date.now();
  const { status } = await watchEvents(sim.url, `${cmPath(ns)}?watch=true&timeoutSeconds=1`, () => false, 5000);
  const took = Date.now() - started;
  assert.equal(status, 200);
  assert.ok(took >= 900 && took < 4500, `stream ended after ${took} ms`);
});

test('error.410: a watch from a revision outside the history window gets 410 Expired; relist and rewatch recovers', async () => {
  const ns = await freshNs(small.url);
  const listed = await call(small.url, 'GET', cmPath(ns));
  const oldRv = listed.body.metadata.resourceVersion;
  for (let i = 0; i < 12; i++) await applyOp(small.url, ns, { kind: 'create', name: `o${i}`, value: '' });
  await new Promise((r) => setTimeout(r, 10));
  const res = await request(`${small.url}${cmPath(ns)}?watch=true&resourceVersion=${oldRv}`);
  const text = await res.body.text();
  let status: { code: number; reason: string; message: string };
  if (res.statusCode === 410) status = JSON.parse(text);
  else {
    assert.equal(res.statusCode, 200);
    const ev = JSON.parse(text.split('\n')[0]);
    assert.equal(ev.type, 'ERROR');
    status = ev.object;
  }
  assert.equal(status.code, 410);
  assert.equal(status.reason, 'Expired');
  assert.match(status.message, new RegExp(`^too old resource version: ${oldRv} \\(\\d+\\)$`));
  // Client procedure of 4.3.5: list again, watch from the fresh resourceVersion.
  const relisted = await call(small.url, 'GET', cmPath(ns));
  assert.equal(relisted.body.items.length, 12);
  await applyOp(small.url, ns, { kind: 'create', name: 'after', value: '' });
  const { status: st, events } = await watchEvents(
    small.url,
    `${cmPath(ns)}?watch=true&resourceVersion=${relisted.body.metadata.resourceVersion}`,
    (evs) => evs.length >= 1,
    3000,
  );
  assert.equal(st, 200);
  assert.deepEqual(events.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:after']);
});

test('rule.chunking.token-expiry: an expired continue token gets 410 Expired telling the client to restart', async () => {
  const ns = await freshNs(small.url);
  for (let i = 0; i < 3; i++) await applyOp(small.url, ns, { kind: 'create', name: `t${i}`, value: '' });
  const first = await call(small.url, 'GET', `${cmPath(ns)}?limit=1`);
  assert.ok(first.body.metadata.continue, 'first.body.metadata.continue');
  await new Promise((r) => setTimeout(r, 1200)); // tokens carry whole seconds; the lifetime here is 150 ms
  const r = await call(small.url, 'GET', `${cmPath(ns)}?limit=1&continue=${encodeURIComponent(first.body.metadata.continue)}`);
  assert.equal(r.status, 410);
  assert.equal(r.body.reason, 'Expired');
  assert.match(r.body.message, /start a new list without the continue parameter/);
});

test('rule.chunking.same-query: a token is refused with other query parameters, with resourceVersion, or tampered', async () => {
  const ns = await freshNs(sim.url);
  for (let i = 0; i < 3; i++) await applyOp(sim.url, ns, { kind: 'create', name: `q${i}`, value: '' });
  const first = await call(sim.url, 'GET', `${cmPath(ns)}?limit=1`);
  const token = first.body.metadata.continue as string;
  const other = await call(sim.url, 'GET', `${cmPath(ns)}?limit=1&labelSelector=v%3Dx&continue=${token}`);
  assert.equal(other.status, 400);
  assert.equal(other.body.reason, 'BadRequest');
  const withRv = await call(sim.url, 'GET', `${cmPath(ns)}?limit=1&resourceVersion=5&continue=${token}`);
  assert.equal(withRv.status, 400);
  assert.match(withRv.body.message, /specifying resource version is not allowed when using continue/);
  const tampered = await call(sim.url, 'GET', `${cmPath(ns)}?limit=1&continue=${token.slice(0, -3)}xyz`);
  assert.equal(tampered.status, 400);
  assert.match(tampered.body.message, /^invalid continue token/);
  const foreign = await call(sim.url, 'GET', `/api/v1/namespaces/default/configmaps?limit=1&continue=${token}`);
  assert.equal(foreign.status, 400);
  // The token is the real server's format: base64url JSON starting with the version and revision.
  const decoded = JSON.parse(Buffer.from(token, 'base64url').toString());
  assert.equal(decoded.v, 'meta.k8s.io/v1');
  assert.equal(String(decoded.rv), first.body.metadata.resourceVersion);
});

test('query.list.resourceVersion: unset is the latest, 0 is accepted, a served value is at least as fresh, garbage is 400', async () => {
  const ns = await freshNs(sim.url);
  await applyOp(sim.url, ns, { kind: 'create', name: 'r', value: '' });
  const latest = await call(sim.url, 'GET', cmPath(ns));
  const zero = await call(sim.url, 'GET', `${cmPath(ns)}?resourceVersion=0`);
  assert.equal(zero.status, 200);
  assert.equal(zero.body.items.length, 1);
  const exact = await call(sim.url, 'GET', `${cmPath(ns)}?resourceVersion=${latest.body.metadata.resourceVersion}`);
  assert.equal(exact.status, 200);
  assert.ok(Number(exact.body.metadata.resourceVersion) >= Number(latest.body.metadata.resourceVersion), 'Number(exact.body.metadata.resourceVersion) >= Number(latest.body.metadata.resourceVersion)');
  const bad = await call(sim.url, 'GET', `${cmPath(ns)}?resourceVersion=x1`);
  assert.equal(bad.status, 400);
});
