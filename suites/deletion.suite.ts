// Deletion (spec 1.8, 2.1, 4.2 delete parameters, 4.6 collection deletes, 7 delete success body): the Status
// body, gracePeriodSeconds, propagationPolicy and orphanDependents (never both), finalizers and
// deletionTimestamp (the object stays readable until the write that empties its finalizers; watchers see
// MODIFIED then DELETED), preconditions (409 on a uid or resourceVersion mismatch), collection deletes with
// label selectors, and that a refused delete leaves the object exactly as it was.
//
// A delete that is still pending (finalizers, a grace period) may answer the object with its
// deletionTimestamp instead of a Status (the real server does); an immediate delete must answer the Status.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, fixture, hasFixture, objectPath, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, isStatus, needs, readObject } from './harness/objects.ts';
import { specTables } from './harness/spec.ts';
import { expectStatusBody } from './harness/status-body.ts';
import type { DecodedResponse } from './harness/client.ts';
import { listAll, openWatch, readUntil, selectorMatches, selectorString, short, type Requirement } from './harness/list-watch.ts';

const CM_DELETE = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update', 'patch', 'delete'])];
const SUCCESS = [
  'error.delete-success-body',
  'bodyType.Status',
  'field.Status.kind',
  'field.Status.apiVersion',
  'field.Status.metadata',
  'field.Status.status',
  'field.Status.code',
];

type Options = { gracePeriodSeconds?: number; propagationPolicy?: string; orphanDependents?: boolean };

/** Sends a delete with options in the query or as a DeleteOptions body (JSON or YAML). */
function sendDelete(
  ctx: CheckContext,
  path: string,
  opts: Options & { preconditions?: Record<string, string> },
  where: 'query' | 'json' | 'yaml',
  pretty = false,
): Promise<DecodedResponse> {
  const query: Record<string, string | number | boolean> = pretty ? { pretty: 'true' } : {};
  if (where === 'query') {
    const { preconditions, ...rest } = opts;
    if (preconditions) return ctx.client.delete(path, { query, body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions } });
    return ctx.client.delete(path, { query: { ...query, ...rest } });
  }
  return ctx.client.delete(path, { query, body: { kind: 'DeleteOptions', apiVersion: 'v1', ...opts }, contentType: where });
}

/** The object as GET shows it now, or undefined when it is gone (404). */
async function current(ctx: CheckContext, path: string): Promise<KubeObject | undefined> {
  const res = await ctx.client.get(path);
  if (res.status === 404) return undefined;
  if (res.status !== 200 || !res.object) fail(`GET ${path}: expected 200 or 404, got ${describeResponse(res)}`);
  return res.object;
}

/** Removes every finalizer so a pending object can go (cleanup, and the last step of the finalizer check). */
async function dropFinalizers(ctx: CheckContext, path: string): Promise<void> {
  const res = await ctx.client.patch(path, { metadata: { finalizers: null } }, 'merge');
  if (res.status !== 200 && res.status !== 404) fail(`cleanup: removing the finalizers of ${path} failed: ${describeResponse(res)}`);
}

/** A refused delete must leave the object exactly as it was, down to its resourceVersion. */
async function expectUnchanged(ctx: CheckContext, path: string, before: KubeObject, what: string, rows: string | string[]): Promise<void> {
  const after = await ctx.client.get(path);
  if (after.status !== 200) fail(`${what}: the object is gone after the refused delete (GET ${describeResponse(after)})`, rows);
  expectEqual(after.object, before, `${what}: the object after the refused delete`, rows);
}

check(
  'deletion.status-body-and-options',
  {
    rows: [...SUCCESS, 'rule.delete.options-body', 'bodyType.DeleteOptions', 'query.delete.gracePeriodSeconds', 'query.delete.propagationPolicy', 'query.delete.orphanDependents', 'query.delete.pretty', 'rule.delete.grace-period-zero', 'rule.fields.orphan-finalizer', 'endpoint.core.configmaps.namespaced.delete'],
    requires: CM_DELETE,
    title: 'a delete with any valid options (query or JSON/YAML body) answers a Status Success with code 200, or the pending object when options keep it (orphan or foreground finalizer, grace period)',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const options: fc.Arbitrary<Options> = fc.oneof(
      fc.constant({}),
      fc.record({ gracePeriodSeconds: fc.integer({ min: 0, max: 60 }) }),
      fc.record({ propagationPolicy: fc.constantFrom('Background', 'Foreground', 'Orphan') }),
      fc.record({ orphanDependents: fc.boolean() }),
      fc.record({ gracePeriodSeconds: fc.constant(0), propagationPolicy: fc.constant('Background') }),
    );
    await ctx.forAll(fc.record({ opts: options, where: fc.constantFrom('query' as const, 'json' as const, 'yaml' as const), pretty: fc.boolean() }), async ({ opts, where, pretty }) => {
      const name = ctx.uniqueName('del');
      await createObject(ctx, CONFIGMAPS, name, ns);
      const path = objectPath(CONFIGMAPS, name, ns);
      const what = `DELETE ${path} with ${JSON.stringify(opts)} in the ${where}${pretty ? ', pretty=true' : ''}`;
      const res = await sendDelete(ctx, path, opts, where, pretty);
      await forRows(['rule.delete.options-body', 'bodyType.DeleteOptions'], () => expectStatusCode(res, [200, 202], what));
      // Judge the answer first: a Success Status, or the object still pending (deletionTimestamp set). What
      // happens afterwards is not the answer's business: a garbage collector removes the 'orphan' or
      // 'foregroundDeletion' finalizer it owns within milliseconds, so a pending answer may be followed by a 404.
      const answeredPending = !isStatus(res.object);
      if (answeredPending) {
        const obj = res.object;
        await forRows(SUCCESS, () => {
          if (!obj || typeof obj !== 'object' || !obj.metadata) fail(`${what}: the answer is neither a Status nor the object: ${short(obj)}`);
        });
        expectTrue(
          obj!.metadata.deletionTimestamp,
          `${what}: answered the object without a deletionTimestamp (neither a Status nor a pending object)`,
          'rule.delete.options-body',
        );
      } else {
        await forRows(SUCCESS, () => expectStatusBody(res, { status: 'Success', code: 200 }, what));
      }
      const after = await current(ctx, path);
      if (!after) return;
      // Still there: only options that keep an object may do that, and the object says why.
      const pending = after;
      await forRows(['rule.delete.grace-period-zero', 'query.delete.gracePeriodSeconds'], () => {
        if (opts.gracePeriodSeconds === 0 && (pending.metadata.finalizers ?? []).length === 0)
          fail(`${what}: gracePeriodSeconds=0 without finalizers left the object in place: ${short(pending.metadata)}`);
      });
      expectTrue(pending.metadata.deletionTimestamp, `${what}: the object is still there without a deletionTimestamp`, 'rule.delete.options-body');
      if (answeredPending)
        expectEqual(res.object?.metadata?.uid, pending.metadata.uid, `${what}: uid of the pending object answered`, 'rule.delete.options-body');
      const finalizers = pending.metadata.finalizers ?? [];
      const orphaning = opts.propagationPolicy === 'Orphan' || opts.orphanDependents === true;
      await forRows(['rule.fields.orphan-finalizer', 'query.delete.orphanDependents', 'query.delete.propagationPolicy'], () => {
        if (finalizers.includes('orphan') && !orphaning && opts.propagationPolicy !== undefined)
          fail(`${what}: the pending object carries the 'orphan' finalizer though the options did not ask to orphan`);
        if (orphaning && finalizers.length > 0 && !finalizers.includes('orphan') && !finalizers.includes('foregroundDeletion'))
          fail(`${what}: pending with finalizers ${short(finalizers)} but not 'orphan'`);
      });
      if (orphaning && finalizers.includes('orphan')) {
        // orphanDependents=false on a second delete removes the 'orphan' finalizer again (spec 2.1). The garbage
        // collector may have finished the object meanwhile: then the second delete finds nothing (404).
        const again = await sendDelete(ctx, path, { orphanDependents: false }, 'json');
        const later = await current(ctx, path);
        expectStatusCode(again, later ? [200, 202] : [200, 202, 404], `second DELETE ${path} with orphanDependents=false`, 'rule.fields.orphan-finalizer');
        if (later && (later.metadata.finalizers ?? []).includes('orphan'))
          fail(`second DELETE with orphanDependents=false kept the 'orphan' finalizer: ${short(later.metadata.finalizers)}`, 'rule.fields.orphan-finalizer');
      }
      await dropFinalizers(ctx, path);
    });
  },
);

check(
  'deletion.options-exclusive-and-invalid',
  { rows: ['rule.delete.options-exclusive', 'query.delete.orphanDependents', 'query.delete.propagationPolicy'], requires: CM_DELETE, title: 'orphanDependents with propagationPolicy, or an unknown policy, is refused (422, or 400) with a Status, and the object stays exactly as it was' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const bad: fc.Arbitrary<Options> = fc.oneof(
      fc.record({ orphanDependents: fc.boolean(), propagationPolicy: fc.constantFrom('Orphan', 'Background', 'Foreground') }),
      fc.record({ propagationPolicy: fc.constantFrom('Sideways', 'orphan', 'background', 'All') }),
    );
    await ctx.forAll(fc.record({ opts: bad, where: fc.constantFrom('query' as const, 'json' as const, 'yaml' as const), finalizer: fc.boolean() }), async ({ opts, where, finalizer }) => {
      const name = ctx.uniqueName('excl');
      await createObject(ctx, CONFIGMAPS, name, ns, {
        metadata: { name, labels: { k: 'v' }, ...(finalizer ? { finalizers: ['conformance.example/hold'] } : {}) },
      });
      const path = objectPath(CONFIGMAPS, name, ns);
      const before = await readObject(ctx, CONFIGMAPS, name, ns);
      const what = `DELETE ${path} with ${JSON.stringify(opts)} in the ${where}`;
      const res = await sendDelete(ctx, path, opts, where);
      const row = opts.orphanDependents !== undefined ? 'rule.delete.options-exclusive' : 'query.delete.propagationPolicy';
      await forRows(row, () => {
        expectStatusCode(res, [422, 400], what);
        expectStatusBody(res, { status: 'Failure', code: res.status }, what);
      });
      await expectUnchanged(ctx, path, before, what, row);
      if (finalizer) await dropFinalizers(ctx, path);
    });
  },
);

check(
  'deletion.finalizers',
  {
    rows: ['field.ObjectMeta.finalizers', 'rule.events.update-is-modification', 'rule.events.delete-is-removal', 'rule.delete.options-body'],
    requires: [...CM_DELETE, needs(CONFIGMAPS, ['watch'])],
    title: 'an object with finalizers gets a deletionTimestamp, stays readable, and goes with the write that empties its finalizers; watchers see MODIFIED then DELETED',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const input = fc.record({
      count: fc.integer({ min: 1, max: 3 }),
      opts: fc.constantFrom<Options>({}, { propagationPolicy: 'Background' }, { gracePeriodSeconds: 0 }),
      how: fc.array(fc.constantFrom('merge' as const, 'json' as const, 'put' as const), { minLength: 3, maxLength: 3 }),
      deleteTwice: fc.boolean(),
    });
    await ctx.forAll(input, async (v) => {
      const name = ctx.uniqueName('fin');
      const finalizers = Array.from({ length: v.count }, (_, i) => `conformance.example/f${i}`);
      const created = await createObject(ctx, CONFIGMAPS, name, ns, { metadata: { name, finalizers } });
      const path = objectPath(CONFIGMAPS, name, ns);
      const { stream } = await openWatch(ctx, collectionPath(CONFIGMAPS, ns), {
        watch: 'true',
        resourceVersion: created.metadata.resourceVersion!,
        fieldSelector: `metadata.name=${name}`,
      });
      try {
        const what = `DELETE ${path} (finalizers ${finalizers.join(', ')}) with ${JSON.stringify(v.opts)}`;
        const res = await sendDelete(ctx, path, v.opts, 'json');
        expectStatusCode(res, [200, 202], what, 'rule.delete.options-body');
        if (!isStatus(res.object))
          expectTrue(res.object?.metadata?.deletionTimestamp, `${what}: the answered object has no deletionTimestamp`, 'field.ObjectMeta.finalizers');
        let obj = await current(ctx, path);
        await forRows('field.ObjectMeta.finalizers', () => {
          if (!obj) fail(`${what}: the object is gone although it has finalizers`);
          expectTrue(obj.metadata.deletionTimestamp, `${what}: GET shows no deletionTimestamp`);
          expectEqual([...(obj.metadata.finalizers ?? [])].sort(), finalizers, `${what}: finalizers after the delete`);
        });
        if (v.deleteTwice) {
          const again = await sendDelete(ctx, path, {}, 'query');
          expectStatusCode(again, [200, 202, 409], `second ${what}`, 'field.ObjectMeta.finalizers');
          obj = await current(ctx, path);
          expectTrue(obj, `second ${what}: the object is gone although it has finalizers`, 'field.ObjectMeta.finalizers');
        }
        const listed = await listAll(ctx, collectionPath(CONFIGMAPS, ns), { fieldSelector: `metadata.name=${name}` });
        expectEqual(listed.items.length, 1, `${what}: the pending object in the list`, 'field.ObjectMeta.finalizers');
        // Remove the finalizers one by one; only the last write removes the object.
        let remaining = [...finalizers];
        for (let i = 0; i < finalizers.length; i++) {
          remaining = remaining.slice(1);
          const how = v.how[i];
          let w: DecodedResponse;
          if (how === 'merge') w = await ctx.client.patch(path, { metadata: { finalizers: remaining.length ? remaining : null } }, 'merge');
          else if (how === 'json') w = await ctx.client.patch(path, [{ op: 'remove', path: '/metadata/finalizers/0' }], 'json');
          else w = await ctx.client.replace(path, { ...obj!, metadata: { ...obj!.metadata, finalizers: remaining } });
          expectStatusCode(w, [200, 201], `removing a finalizer of ${name} (${how})`, 'field.ObjectMeta.finalizers');
          obj = await current(ctx, path);
          await forRows('field.ObjectMeta.finalizers', () => {
            if (remaining.length > 0 && !obj) fail(`${name} is gone while finalizers ${remaining.join(', ')} remain`);
            if (remaining.length === 0 && obj) fail(`${name} is still there (${short(obj.metadata)}) after the write that emptied its finalizers`);
            if (obj) expectEqual(obj.metadata.finalizers ?? [], remaining, `finalizers of ${name}`);
          });
        }
        const events = await readUntil(stream, (evs) => evs.some((e) => e.type === 'DELETED'), 5000);
        const types = events.map((e) => e.type);
        const expectedTypes = [...Array(finalizers.length + (v.deleteTwice ? 1 : 0)).fill('MODIFIED'), 'DELETED'];
        await forRows(['rule.events.update-is-modification', 'rule.events.delete-is-removal'], () => {
          // A second delete of a pending object may or may not write (no change): one MODIFIED fewer is fine then.
          const ok =
            JSON.stringify(types) === JSON.stringify(expectedTypes) || (v.deleteTwice && JSON.stringify(types) === JSON.stringify(expectedTypes.slice(1)));
          if (!ok)
            fail(
              `watch of ${name} from its creation: expected [${expectedTypes.join(', ')}] (deletionTimestamp set, finalizers removed, gone), got [${types.join(', ')}]`,
            );
          const first = events[0].object as KubeObject;
          expectTrue(first.metadata.deletionTimestamp, `the first MODIFIED event of ${name} carries no deletionTimestamp`);
        });
      } finally {
        stream.close();
        if (await current(ctx, path)) await dropFinalizers(ctx, path);
      }
    });
  },
);

check(
  'deletion.preconditions',
  { rows: ['bodyType.DeleteOptions', 'rule.delete.options-body', ...SUCCESS], requires: CM_DELETE, title: 'DeleteOptions preconditions: a uid or resourceVersion mismatch is 409 Conflict and changes nothing; matching ones delete' },
  async (ctx) => {
    const ns = await ctx.namespace();
    const input = fc
      .record({ uid: fc.constantFrom('right', 'wrong', 'absent'), rv: fc.constantFrom('current', 'stale', 'absent') })
      .filter((p) => p.uid !== 'absent' || p.rv !== 'absent');
    await ctx.forAll(input, async (p) => {
      const name = ctx.uniqueName('pre');
      const created = await createObject(ctx, CONFIGMAPS, name, ns);
      const path = objectPath(CONFIGMAPS, name, ns);
      const patched = await ctx.client.patch(path, { data: { bump: '1' } }, 'merge');
      expectStatusCode(patched, 200, `merge PATCH ${path}`);
      const before = patched.object!;
      const preconditions: Record<string, string> = {};
      if (p.uid !== 'absent') preconditions.uid = p.uid === 'right' ? before.metadata.uid! : '00000000-0000-0000-0000-000000000000';
      if (p.rv !== 'absent') preconditions.resourceVersion = p.rv === 'current' ? before.metadata.resourceVersion! : created.metadata.resourceVersion!;
      const what = `DELETE ${path} with preconditions ${JSON.stringify(preconditions)} (${p.uid} uid, ${p.rv} resourceVersion)`;
      const res = await sendDelete(ctx, path, { preconditions }, 'json');
      if (p.uid === 'wrong' || p.rv === 'stale') {
        await forRows(['bodyType.DeleteOptions', 'rule.delete.options-body'], async () => {
          expectStatusCode(res, 409, what);
          expectStatusBody(res, { status: 'Failure', code: 409, reason: 'Conflict' }, what);
          await expectUnchanged(ctx, path, before, what, 'bodyType.DeleteOptions');
        });
      } else {
        await forRows(SUCCESS, () => {
          expectStatusCode(res, 200, what);
          expectStatusBody(res, { status: 'Success', code: 200 }, what);
        });
        expectTrue(!(await current(ctx, path)), `${what}: the object is still there`, 'bodyType.DeleteOptions');
      }
    });
  },
);

// ----- collection deletes -------------------------------------------------------------------------------

const requirement: fc.Arbitrary<Requirement> = fc.oneof(
  fc.record({ key: fc.constant('tier'), op: fc.constantFrom('=' as const, '!=' as const), value: fc.constantFrom('a', 'b') }),
  fc.record({ key: fc.constant('tier'), op: fc.constantFrom('in' as const, 'notin' as const), values: fc.subarray(['a', 'b', 'c'], { minLength: 1 }) }),
  fc.record({ key: fc.constantFrom('tier', 'env'), op: fc.constantFrom('exists' as const, '!' as const) }),
);

/** After a collection delete: matching objects are gone (or pending with a deletionTimestamp), the rest untouched. */
async function checkCollectionDelete(ctx: CheckContext, ref: KindRef, ns: string, made: KubeObject[], reqs: Requirement[], res: DecodedResponse, what: string, row: string): Promise<void> {
  await forRows(row, async () => {
    expectStatusCode(res, [200, 202], what);
    const body = res.object as unknown as { kind?: string; status?: string; code?: number; items?: unknown } | undefined;
    // The spec shows a Status; the real server answers the list of what it deleted. Both are fine.
    if (isStatus(body)) {
      if (body.status !== 'Success') fail(`${what}: Status with status ${JSON.stringify(body.status)}`);
    } else if (!body || !Array.isArray(body.items)) fail(`${what}: the answer is neither a Status nor a list: ${short(body)}`);
    const now = new Map((await listAll(ctx, collectionPath(ref, ns))).items.map((o) => [o.metadata.name!, o]));
    for (const o of made) {
      const after = now.get(o.metadata.name!);
      if (selectorMatches(reqs, o.metadata.labels)) {
        if (after && !after.metadata.deletionTimestamp)
          fail(`${what}: ${o.metadata.name} (labels ${short(o.metadata.labels ?? {})}) matches the selector and is still there, not being deleted`);
      } else if (!after) fail(`${what}: ${o.metadata.name} (labels ${short(o.metadata.labels ?? {})}) does not match the selector and was deleted`);
      else if (after.metadata.deletionTimestamp) fail(`${what}: ${o.metadata.name} does not match the selector and is being deleted`);
      // Controllers may write status to workload kinds; ConfigMaps nobody else touches.
      else if (ref.kind === 'ConfigMap' && after.metadata.resourceVersion !== o.metadata.resourceVersion)
        fail(
          `${what}: ${o.metadata.name} does not match the selector and was changed (resourceVersion ${o.metadata.resourceVersion} -> ${after.metadata.resourceVersion})`,
        );
    }
  });
}

check(
  'deletion.collection-selector',
  { rows: ['endpoint.core.configmaps.namespaced.deletecollection', 'query.list.labelSelector'], requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'list', 'deletecollection'])], title: 'DELETE of a collection with a label selector deletes exactly the matching objects' },
  async (ctx) => {
    const input = fc.record({
      objects: fc.array(
        fc.record({ tier: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }), env: fc.option(fc.constant('x'), { nil: undefined }) }),
        { maxLength: 8 },
      ),
      selector: fc.array(requirement, { minLength: 1, maxLength: 2 }),
    });
    await ctx.forAll(input, async (v) => {
      const ns = await ctx.namespace();
      const made: KubeObject[] = [];
      for (const o of v.objects) {
        const name = ctx.uniqueName('col');
        const labels: Record<string, string> = {};
        if (o.tier) labels.tier = o.tier;
        if (o.env) labels.env = o.env;
        made.push(await createObject(ctx, CONFIGMAPS, name, ns, { metadata: { name, labels } }));
      }
      const sel = selectorString(v.selector);
      const p = collectionPath(CONFIGMAPS, ns);
      const res = await ctx.client.delete(p, { query: { labelSelector: sel } });
      await checkCollectionDelete(
        ctx,
        CONFIGMAPS,
        ns,
        made,
        v.selector,
        res,
        `DELETE ${p}?labelSelector=${sel}`,
        'endpoint.core.configmaps.namespaced.deletecollection',
      );
    });
  },
);

check(
  'deletion.collection-stays-in-namespace',
  {
    rows: ['endpoint.core.configmaps.namespaced.deletecollection'],
    requires: [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'list', 'deletecollection'])],
    title: "DELETE of a namespaced collection (with or without a selector) deletes in that namespace only; another namespace's objects of the same labels stay untouched",
  },
  async (ctx) => {
    const input = fc.record({ count: fc.integer({ min: 1, max: 4 }), withSelector: fc.boolean() });
    await ctx.forAll(input, async ({ count, withSelector }) => {
      const [doomed, other] = [await ctx.namespace(), await ctx.namespace()];
      const made = new Map<string, KubeObject[]>([
        [doomed, []],
        [other, []],
      ]);
      for (const ns of [doomed, other]) {
        for (let i = 0; i < count; i++) {
          const name = `same-${i}`;
          made.get(ns)!.push(await createObject(ctx, CONFIGMAPS, name, ns, { metadata: { name, labels: { tier: 'a' } } }));
        }
      }
      const p = collectionPath(CONFIGMAPS, doomed);
      const query = withSelector ? { labelSelector: 'tier=a' } : undefined;
      const res = await ctx.client.delete(p, query ? { query } : {});
      const what = `DELETE ${p}${withSelector ? '?labelSelector=tier=a' : ''}`;
      await checkCollectionDelete(ctx, CONFIGMAPS, doomed, made.get(doomed)!, [], res, what, 'endpoint.core.configmaps.namespaced.deletecollection');
      await forRows('endpoint.core.configmaps.namespaced.deletecollection', async () => {
        const left = new Map((await listAll(ctx, collectionPath(CONFIGMAPS, other))).items.map((o) => [o.metadata.name!, o]));
        for (const o of made.get(other)!) {
          const after = left.get(o.metadata.name!);
          if (!after) fail(`${what}: ConfigMap ${other}/${o.metadata.name} of another namespace (same name and labels) was deleted`);
          if (after.metadata.deletionTimestamp || after.metadata.resourceVersion !== o.metadata.resourceVersion)
            fail(
              `${what}: ConfigMap ${other}/${o.metadata.name} of another namespace was changed (resourceVersion ${o.metadata.resourceVersion} -> ${after.metadata.resourceVersion})`,
            );
        }
      });
    }, { numRuns: Math.min(ctx.fc.numRuns, 4) });
  },
);

const COLLECTION_ROWS = specTables().endpoints.filter(
  (e) => e.verb === 'deletecollection' && e.testable && e.kind && hasFixture(e.kind) && e.id !== 'endpoint.core.configmaps.namespaced.deletecollection',
);

for (const row of COLLECTION_ROWS) {
  const ref: KindRef = { group: row.group, version: row.version, kind: row.kind!, resource: row.resource!, namespaced: true };
  check(
    `deletion.collection.${row.id.replace(/^endpoint\./, '').replace(/\.namespaced\.deletecollection$/, '')}`,
    { rows: [row.id], requires: [NEEDS_NAMESPACES, needs(ref, ['create', 'list', 'deletecollection'])], title: `DELETE ${row.specPath}?labelSelector=... deletes the matching ${row.kind} objects only` },
    async (ctx) => {
      const ns = await ctx.namespace();
      const made: KubeObject[] = [];
      for (const mark of ['yes', 'no', 'yes']) {
        const name = ctx.uniqueName(ref.kind);
        const body = fixture(ref, name, ns, { 'conformance/delete': mark });
        const res = await ctx.client.create(collectionPath(ref, ns), body);
        if (![200, 201, 202].includes(res.status) || !res.object) fail(`setup: creating ${ref.kind} ${name} failed: ${describeResponse(res)}`);
        made.push(res.object);
      }
      const p = collectionPath(ref, ns);
      const res = await ctx.client.delete(p, { query: { labelSelector: 'conformance/delete=yes', propagationPolicy: 'Background' } });
      await checkCollectionDelete(
        ctx,
        ref,
        ns,
        made,
        [{ key: 'conformance/delete', op: '=', value: 'yes' }],
        res,
        `DELETE ${p}?labelSelector=conformance/delete=yes`,
        row.id,
      );
    },
  );
}
