// Deletion (spec 1.8, 3, 4.2, 7): DeleteOptions from body and query, preconditions, finalizers, propagation
// finalizers, graceful pod deletion, collection delete, namespace termination. A rejected delete changes nothing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { encodeObject } from '../codec/protobuf.ts';
import { httpCall } from '../testing/http.ts';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
});

interface Res {
  status: number;
  body: any;
}

const call = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Res> =>
  httpCall(sim.url, method, path, body, body === undefined ? {} : { 'content-type': contentType });

let n = 0;
async function namespace(): Promise<string> {
  const name = `del-${process.pid}-${++n}`;
  assert.equal((await call('POST', '/api/v1/namespaces', { metadata: { name } })).status, 201);
  return name;
}

async function configMap(ns: string, name: string, extra: Record<string, unknown> = {}): Promise<Res> {
  const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name, ...extra }, data: { a: 'b' } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r;
}

const cm = (ns: string, name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

test('rule.delete.success-status: an immediate delete answers a Success Status with code 200 and the details', async () => {
  const ns = await namespace();
  const created = await configMap(ns, 'gone');
  const r = await call('DELETE', cm(ns, 'gone'));
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid: created.body.metadata.uid }, code: 200 });
  assert.equal((await call('GET', cm(ns, 'gone'))).status, 404);
  const again = await call('DELETE', cm(ns, 'gone'));
  assert.equal(again.status, 404);
  assert.equal(again.body.reason, 'NotFound');
});

test('query.delete.body: DeleteOptions are read from JSON, YAML and protobuf bodies; an empty body is accepted', async () => {
  const ns = await namespace();
  for (const name of ['j', 'y', 'p', 'e']) await configMap(ns, name, { finalizers: ['example.com/hold'] });
  const json = await call('DELETE', cm(ns, 'j'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' });
  assert.equal(json.status, 200);
  assert.deepEqual(json.body.metadata.finalizers, ['example.com/hold', 'orphan']);
  const yaml = await call('DELETE', cm(ns, 'y'), 'kind: DeleteOptions\napiVersion: v1\npropagationPolicy: Foreground\n', 'application/yaml');
  assert.equal(yaml.status, 200);
  assert.deepEqual(yaml.body.metadata.finalizers, ['example.com/hold', 'foregroundDeletion']);
  const pb = await call('DELETE', cm(ns, 'p'), encodeObject({ kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true }), 'application/vnd.kubernetes.protobuf');
  assert.equal(pb.status, 200, JSON.stringify(pb.body));
  assert.deepEqual(pb.body.metadata.finalizers, ['example.com/hold', 'orphan']);
  const empty = await call('DELETE', cm(ns, 'e'), '', 'application/json');
  assert.equal(empty.status, 200);
  assert.ok(empty.body.metadata.deletionTimestamp, 'empty.body.metadata.deletionTimestamp');
});

test('query.delete.propagationPolicy and orphanDependents: both set is 422 and changes nothing; bad values are rejected', async () => {
  const ns = await namespace();
  const created = await configMap(ns, 'both');
  const before = await call('GET', cm(ns, 'both'));
  const both = await call('DELETE', `${cm(ns, 'both')}?orphanDependents=true&propagationPolicy=Background`);
  assert.equal(both.status, 422);
  assert.equal(both.body.reason, 'Invalid');
  assert.match(both.body.message, /orphanDependents and deletionPropagation cannot be both set/);
  const bodyAndQuery = await call('DELETE', `${cm(ns, 'both')}?propagationPolicy=Orphan`, { orphanDependents: false });
  assert.equal(bodyAndQuery.status, 422);
  const badPolicy = await call('DELETE', `${cm(ns, 'both')}?propagationPolicy=Sometimes`);
  assert.equal(badPolicy.status, 422);
  assert.equal(badPolicy.body.details.causes[0].reason, 'FieldValueNotSupported');
  const badGrace = await call('DELETE', `${cm(ns, 'both')}?gracePeriodSeconds=soon`);
  assert.equal(badGrace.status, 400);
  const negative = await call('DELETE', `${cm(ns, 'both')}?gracePeriodSeconds=-1`);
  assert.equal(negative.status, 422);
  const after = await call('GET', cm(ns, 'both'));
  assert.deepEqual(after.body, before.body, 'a rejected delete leaves the object exactly as it was');
  assert.equal(after.body.metadata.uid, created.body.metadata.uid);
});

test('query.delete.preconditions: a uid or resourceVersion precondition that does not match is 409 and changes nothing', async () => {
  const ns = await namespace();
  const created = await configMap(ns, 'pre');
  const wrongUid = await call('DELETE', cm(ns, 'pre'), { preconditions: { uid: 'not-the-uid' } });
  assert.equal(wrongUid.status, 409);
  assert.equal(wrongUid.body.reason, 'Conflict');
  const wrongRv = await call('DELETE', cm(ns, 'pre'), { preconditions: { resourceVersion: '1' } });
  assert.equal(wrongRv.status, 409);
  assert.equal((await call('GET', cm(ns, 'pre'))).body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  const right = await call('DELETE', cm(ns, 'pre'), { preconditions: { uid: created.body.metadata.uid, resourceVersion: created.body.metadata.resourceVersion } });
  assert.equal(right.status, 200);
  assert.equal(right.body.status, 'Success');
});

test('rule.finalizers: a finalizer keeps a deleted object readable with deletionTimestamp; emptying it removes the object; watchers see MODIFIED then DELETED', async () => {
  const ns = await namespace();
  const list = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
  await configMap(ns, 'fin', { finalizers: ['example.com/hold'] });
  const del = await call('DELETE', cm(ns, 'fin'));
  assert.equal(del.status, 200);
  assert.equal(del.body.kind, 'ConfigMap');
  assert.ok(del.body.metadata.deletionTimestamp, 'del.body.metadata.deletionTimestamp');
  assert.equal(del.body.metadata.deletionGracePeriodSeconds, 0);
  const held = await call('GET', cm(ns, 'fin'));
  assert.equal(held.status, 200);
  // No new finalizer once deletion started.
  const add = await call('PATCH', cm(ns, 'fin'), { metadata: { finalizers: ['example.com/hold', 'example.com/more'] } }, 'application/merge-patch+json');
  assert.equal(add.status, 422);
  assert.match(add.body.message, /no new finalizers can be added/);
  const release = await call('PATCH', cm(ns, 'fin'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
  assert.equal(release.status, 200);
  assert.equal((await call('GET', cm(ns, 'fin'))).status, 404);
  const res = await request(`${sim.url}/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${list.body.metadata.resourceVersion}&timeoutSeconds=1`);
  const events = (await res.body.text()).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  assert.ok(events[1].object.metadata.deletionTimestamp, 'events[1].object.metadata.deletionTimestamp');
});

test('query.delete.orphanDependents: false removes the orphan finalizer and answers 202 while deletion is pending', async () => {
  const ns = await namespace();
  await configMap(ns, 'orph', { finalizers: ['example.com/hold', 'orphan'] });
  const r = await call('DELETE', `${cm(ns, 'orph')}?orphanDependents=false`);
  assert.equal(r.status, 202);
  assert.deepEqual(r.body.metadata.finalizers, ['example.com/hold']);
});

test('rule.delete.default-policy: extensions/v1beta1 Deployments orphan by default; apps/v1 does not', async () => {
  const ns = await namespace();
  const deployment = (name: string, apiVersion: string) => ({
    apiVersion, kind: 'Deployment', metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
  });
  assert.equal((await call('POST', `/apis/extensions/v1beta1/namespaces/${ns}/deployments`, deployment('old', 'extensions/v1beta1'))).status, 201);
  assert.equal((await call('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment('new', 'apps/v1'))).status, 201);
  const old = await call('DELETE', `/apis/extensions/v1beta1/namespaces/${ns}/deployments/old`);
  assert.equal(old.status, 200);
  assert.deepEqual(old.body.metadata.finalizers, ['orphan']);
  const neu = await call('DELETE', `/apis/apps/v1/namespaces/${ns}/deployments/new`);
  assert.equal(neu.body.status, 'Success');
});

test('rule.delete.graceful: a scheduled pod gets a grace period from terminationGracePeriodSeconds; a second delete may shorten it', async () => {
  const ns = await namespace();
  const pod = (name: string, grace: number) => ({ metadata: { name }, spec: { nodeName: 'node-1', terminationGracePeriodSeconds: grace, containers: [{ name: 'c', image: 'busybox:1' }] } });
  assert.equal((await call('POST', `/api/v1/namespaces/${ns}/pods`, pod('slow', 30))).status, 201);
  assert.equal((await call('POST', `/api/v1/namespaces/${ns}/pods`, pod('quick', 1))).status, 201);
  assert.equal((await call('POST', `/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'unscheduled' }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } })).status, 201);
  const slow = await call('DELETE', `/api/v1/namespaces/${ns}/pods/slow`);
  assert.equal(slow.status, 200);
  assert.equal(slow.body.metadata.deletionGracePeriodSeconds, 30);
  const longer = await call('DELETE', `/api/v1/namespaces/${ns}/pods/slow?gracePeriodSeconds=60`);
  assert.equal(longer.body.metadata.deletionGracePeriodSeconds, 30, 'never lengthened');
  const now = await call('DELETE', `/api/v1/namespaces/${ns}/pods/slow?gracePeriodSeconds=0`);
  assert.equal(now.body.status, 'Success', 'shortened to zero: removed at once');
  const unscheduled = await call('DELETE', `/api/v1/namespaces/${ns}/pods/unscheduled`);
  assert.equal(unscheduled.body.status, 'Success', 'a pod on no node goes at once');
  const quick = await call('DELETE', `/api/v1/namespaces/${ns}/pods/quick`);
  assert.equal(quick.body.metadata.deletionGracePeriodSeconds, 1);
  const deadline = Date.now() + 5000;
  while ((await call('GET', `/api/v1/namespaces/${ns}/pods/quick`)).status !== 404) {
    assert.ok(Date.now() < deadline, 'the pod goes when its grace period ends');
    await new Promise((r) => setTimeout(r, 100));
  }
});

test('endpoint.deletecollection: collection delete with a label selector deletes exactly the matching objects', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('red', 'blue', 'green'), { minLength: 1, maxLength: 8 }), fc.constantFrom('red', 'blue', 'green'), async (colours, target) => {
      const ns = await namespace();
      for (const [i, c] of colours.entries()) await configMap(ns, `o${i}`, { labels: { colour: c } });
      const r = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=colour%3D${target}`);
      assert.equal(r.status, 200);
      assert.equal(r.body.kind, 'Status');
      assert.equal(r.body.status, 'Success');
      const left = await call('GET', `/api/v1/namespaces/${ns}/configmaps`);
      const expected = colours.map((c, i) => [c, `o${i}`]).filter(([c]) => c !== target).map(([, name]) => name).sort();
      assert.deepEqual(left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), expected);
    }),
    { numRuns: 10 },
  );
});

test('rule.namespace.termination: a deleted namespace is Terminating, refuses new content with 403, and goes when /finalize empties its finalizers', async () => {
  const ns = await namespace();
  const del = await call('DELETE', `/api/v1/namespaces/${ns}`);
  assert.equal(del.status, 200);
  assert.equal(del.body.status.phase, 'Terminating');
  assert.ok(del.body.metadata.deletionTimestamp, 'del.body.metadata.deletionTimestamp');
  const create = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'late' } });
  assert.equal(create.status, 403);
  assert.equal(create.body.reason, 'Forbidden');
  assert.match(create.body.message, /because it is being terminated/);
  const current = await call('GET', `/api/v1/namespaces/${ns}`);
  // A plain update cannot drop spec.finalizers: only /finalize can.
  const put = await call('PUT', `/api/v1/namespaces/${ns}`, { ...current.body, spec: { finalizers: [] } });
  assert.deepEqual(put.body.spec.finalizers, ['kubernetes']);
  const fin = await call('PUT', `/api/v1/namespaces/${ns}/finalize`, { ...put.body, spec: { finalizers: [] } });
  assert.equal(fin.status, 200);
  assert.deepEqual(fin.body.spec.finalizers, [], 'the answer shows what was written');
  assert.equal((await call('GET', `/api/v1/namespaces/${ns}`)).status, 404);
});

test('rule.finalizers property: any order of finalizer removals and deletes with any options ends with the object gone exactly when deleted and unfinalized', async () => {
  const finalizer = fc.constantFrom('a.example.com/x', 'b.example.com/y', 'c.example.com/z');
  const step = fc.oneof(
    fc.record({ op: fc.constant('delete' as const), policy: fc.constantFrom(undefined, 'Background', 'Foreground', 'Orphan') }),
    fc.record({ op: fc.constant('remove' as const), finalizer }),
  );
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(finalizer, { maxLength: 3 }), fc.array(step, { maxLength: 8 }), async (initial, steps) => {
      const ns = await namespace();
      await configMap(ns, 'obj', { finalizers: initial });
      let deleted = false;
      let gone = false;
      for (const s of steps) {
        const cur = await call('GET', cm(ns, 'obj'));
        if (cur.status === 404) break;
        if (s.op === 'delete') {
          const r = await call('DELETE', `${cm(ns, 'obj')}${s.policy ? `?propagationPolicy=${s.policy}` : ''}`);
          assert.equal(r.status, 200);
          deleted = true;
          if (r.body.kind === 'Status') gone = true;
        } else {
          const fins = (cur.body.metadata.finalizers ?? []).filter((f: string) => f !== s.finalizer);
          const r = await call('PUT', cm(ns, 'obj'), { ...cur.body, metadata: { ...cur.body.metadata, finalizers: fins } });
          assert.equal(r.status, 200, JSON.stringify(r.body));
        }
        const after = await call('GET', cm(ns, 'obj'));
        if (after.status === 404) {
          assert.ok(deleted, 'only a deleted object goes');
          gone = true;
          break;
        }
        assert.equal(!!after.body.metadata.deletionTimestamp, deleted, 'deletionTimestamp set exactly once deleted');
        assert.ok((after.body.metadata.finalizers ?? []).length > 0 || !deleted, 'a deleted object without finalizers does not stay');
      }
      const final = await call('GET', cm(ns, 'obj'));
      assert.equal(final.status === 404, gone);
    }),
    { numRuns: 25 },
  );
});
