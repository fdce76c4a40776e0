// The control loops seen through the API (spec 1.6, 1.8, 3, 8.2): a deleted namespace takes everything in it
// along; deleted owners take their dependents along as the delete options ask (Background, Foreground with
// blockOwnerDeletion, Orphan); every namespace gets a default service account. A target without a controller
// daemon shows none of this: when nothing at all moves within a bound, the check is skipped with that reason;
// when something moves but not all of it, the check fails.

import type { KubeList, KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, fixture, hasFixture, objectPath, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, needs } from './harness/objects.ts';
import { createNamespace } from './harness/namespaces.ts';
import { busyScaled } from './harness/progress.ts';

/** How long a target may take before we conclude that no controller acts on it. */
const NO_CONTROLLER_BOUND_MS = busyScaled(20_000);
/**
 * How long a namespace with one object of every kind may take to disappear once its controller acts. Pods in it
 * terminate gracefully (30 s by default on a real cluster) and a busy namespace controller requeues with a
 * back-off, so this is generous; nothing moving at all within NO_CONTROLLER_BOUND_MS is a skip instead.
 */
const NAMESPACE_GONE_MS = busyScaled(90_000);
/**
 * How long a deleted namespace may see nothing happen before "no namespace controller acts" (a skip): the namespace
 * controller works through the namespaces of the run's other checks in turn (each deleted as its check ends: a
 * few hundred), so on a busy machine it may reach this one only after a while.
 */
const NAMESPACE_QUIET_MS = busyScaled(45_000);

const SECRETS: KindRef = { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `done` holds (true) or the time is up (false). */
async function within(ms: number, done: () => Promise<boolean>): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await done()) return true;
    if (performance.now() > deadline) return false;
    await sleep(200);
  }
}

async function status(ctx: CheckContext, path: string): Promise<number> {
  return (await ctx.client.get(path)).status;
}

async function read(ctx: CheckContext, path: string): Promise<KubeObject | undefined> {
  const res = await ctx.client.get(path);
  return res.status === 200 ? res.object : undefined;
}

function ownerRef(owner: KubeObject, extra: { blockOwnerDeletion?: boolean } = {}) {
  return { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind ?? 'ConfigMap', name: owner.metadata.name!, uid: owner.metadata.uid!, ...extra };
}

/** Every namespaced kind the target serves that can be created and listed and that the harness can build. */
function creatableKinds(ctx: CheckContext): KindRef[] {
  const out: KindRef[] = [];
  for (const gv of Object.values(ctx.discovery.groupVersions)) {
    for (const r of gv.resources) {
      if (r.name.includes('/') || !r.namespaced || !hasFixture(r.kind)) continue;
      if (!r.verbs.includes('create') || !r.verbs.includes('list')) continue;
      out.push({ group: gv.group, version: gv.version, kind: r.kind, resource: r.name, namespaced: true });
    }
  }
  return out;
}

check(
  'controllers.namespace-deletion-leaves-nothing',
  {
    upstream: [66, 67],
    rows: ['rule.lifecycle.namespace-cascade', 'controller.namespace'],
    requires: [NEEDS_NAMESPACES],
    needs: { controllers: ['namespace'] },
    title: 'a deleted namespace with an object of every kind in it is gone, with its content, within a few seconds',
    timeoutSeconds: 120,
  },
  async (ctx) => {
    const ns = ctx.namespaceName();
    await createNamespace(ctx.client, ns);
    const kinds = creatableKinds(ctx);
    for (const kind of kinds) {
      const name = ctx.uniqueName(kind.kind);
      const res = await ctx.client.create(collectionPath(kind, ns), fixture(kind, name, ns));
      if (![200, 201, 202].includes(res.status))
        fail(`setup: creating ${kind.kind} ${name} through ${kind.group || 'core'}/${kind.version} failed: ${describeResponse(res)}`);
    }
    const count = async () => {
      let n = 0;
      for (const kind of kinds) n += (await ctx.client.get<KubeList>(collectionPath(kind, ns))).object?.items?.length ?? 0;
      return n;
    };
    const before = await count();
    const del = await ctx.client.delete(`/api/v1/namespaces/${ns}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    if (![200, 202].includes(del.status)) fail(`deleting namespace ${ns}: ${describeResponse(del)}`);
    const started = performance.now();
    let moved = false;
    const gone = await within(NAMESPACE_GONE_MS, async () => {
      if ((await status(ctx, `/api/v1/namespaces/${ns}`)) === 404) return true;
      const elapsed = performance.now() - started;
      if (!moved && elapsed > NAMESPACE_QUIET_MS / 2) moved = (await count()) < before;
      // Nothing deleted at all within the bound: no namespace controller runs against this target.
      if (!moved && elapsed > NAMESPACE_QUIET_MS) {
        ctx.nothingMoved(
          'namespace',
          `${before} objects were still in the terminating namespace after ${NAMESPACE_QUIET_MS / 1000} s`,
        );
      }
      return false;
    });
    if (!gone) {
      fail(
        `namespace ${ns} was still there ${Math.round((performance.now() - started) / 1000)} s after its deletion, with ${await count()} of ${before} objects left`,
        'rule.lifecycle.namespace-cascade',
      );
    }
    await forRows('rule.lifecycle.namespace-cascade', async () => {
      for (const kind of kinds) {
        const res = await ctx.client.get<KubeList>(collectionPath(kind, ns));
        const items = res.object?.items ?? [];
        expectTrue(
          items.length === 0,
          `after the namespace went, ${kind.group || 'core'}/${kind.version} ${kind.resource} still lists ${items.map((i) => i.metadata.name).join(', ')}`,
        );
      }
    });
  },
);

const GC_ROWS = ['rule.ops.delete-dependents', 'query.delete.propagationPolicy', 'controller.garbagecollector'];
const GC_NEEDS = { controllers: ['garbagecollector'] };
const GC_REQUIRES = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'delete', 'patch']), needs(SECRETS, ['create', 'get'])];

check('controllers.gc-background', { rows: GC_ROWS, requires: GC_REQUIRES, needs: GC_NEEDS, title: 'Background: dependents of a deleted owner are deleted after it', timeoutSeconds: 60 }, async (ctx) => {
  const ns = await ctx.namespace();
  const owner = await createObject(ctx, CONFIGMAPS, ctx.uniqueName('owner'), ns);
  const depName = ctx.uniqueName('dep');
  const secretName = ctx.uniqueName('dep-secret');
  await createObject(ctx, CONFIGMAPS, depName, ns, { metadata: { name: depName, ownerReferences: [ownerRef(owner)] } });
  await createObject(ctx, SECRETS, secretName, ns, { metadata: { name: secretName, ownerReferences: [ownerRef(owner)] } });
  const bystander = await createObject(ctx, CONFIGMAPS, ctx.uniqueName('bystander'), ns);
  const res = await ctx.client.delete(objectPath(CONFIGMAPS, owner.metadata.name!, ns), {
    body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
  });
  if (res.status !== 200) fail(`deleting the owner: ${describeResponse(res)}`);
  const depPath = objectPath(CONFIGMAPS, depName, ns);
  const secretPath = objectPath(SECRETS, secretName, ns);
  const collected = await within(NO_CONTROLLER_BOUND_MS, async () => (await status(ctx, depPath)) === 404 && (await status(ctx, secretPath)) === 404);
  if (!collected) {
    if ((await status(ctx, depPath)) === 200 && (await status(ctx, secretPath)) === 200)
      ctx.nothingMoved(
        'garbagecollector',
        `dependents of an owner deleted in the background were still there after ${NO_CONTROLLER_BOUND_MS / 1000} s`,
      );
    fail('only some dependents of the deleted owner were collected', 'rule.ops.delete-dependents');
  }
  expectTrue(
    (await status(ctx, objectPath(CONFIGMAPS, bystander.metadata.name!, ns))) === 200,
    'an object without owners was deleted too',
    'rule.ops.delete-dependents',
  );
});

check(
  'controllers.gc-foreground',
  { rows: GC_ROWS, requires: GC_REQUIRES, needs: GC_NEEDS, title: 'Foreground: dependents go first; the owner waits for those with blockOwnerDeletion', timeoutSeconds: 90 },
  async (ctx) => {
    const ns = await ctx.namespace();
    const owner = await createObject(ctx, CONFIGMAPS, ctx.uniqueName('owner'), ns);
    const blocker = ctx.uniqueName('blocker');
    const free = ctx.uniqueName('free');
    // The blocking dependent holds a finalizer of the check's own, so the owner's wait can be seen.
    await createObject(ctx, CONFIGMAPS, blocker, ns, {
      metadata: { name: blocker, ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: ['conformance.example.com/hold'] },
    });
    await createObject(ctx, CONFIGMAPS, free, ns, { metadata: { name: free, ownerReferences: [ownerRef(owner)] } });
    const ownerPath = objectPath(CONFIGMAPS, owner.metadata.name!, ns);
    const blockerPath = objectPath(CONFIGMAPS, blocker, ns);
    const freePath = objectPath(CONFIGMAPS, free, ns);
    const res = await ctx.client.delete(ownerPath, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    if (res.status !== 200) fail(`deleting the owner in the foreground: ${describeResponse(res)}`);
    const moved = await within(
      NO_CONTROLLER_BOUND_MS,
      async () => (await status(ctx, freePath)) === 404 && !!(await read(ctx, blockerPath))?.metadata.deletionTimestamp,
    );
    try {
      if (!moved) {
        const freeLeft = (await status(ctx, freePath)) === 200;
        const blockerDeleting = !!(await read(ctx, blockerPath))?.metadata.deletionTimestamp;
        if (freeLeft && !blockerDeleting)
          ctx.nothingMoved(
            'garbagecollector',
            `no dependent of an owner deleted in the foreground was deleted within ${NO_CONTROLLER_BOUND_MS / 1000} s`,
          );
        fail(
          `after ${NO_CONTROLLER_BOUND_MS / 1000} s: the dependent without blockOwnerDeletion ${freeLeft ? 'was still there' : 'was gone'}, the blocking one ${blockerDeleting ? 'was being deleted' : 'was not being deleted'}`,
          'rule.ops.delete-dependents',
        );
      }
      const waiting = await read(ctx, ownerPath);
      expectTrue(waiting !== undefined, 'the owner went before its blocking dependent (blockOwnerDeletion)', 'rule.ops.delete-dependents');
      expectTrue(
        (waiting.metadata.finalizers ?? []).includes('foregroundDeletion'),
        `the waiting owner lost its foregroundDeletion finalizer: ${JSON.stringify(waiting.metadata.finalizers)}`,
        'rule.ops.delete-dependents',
      );
    } finally {
      // Let the blocking dependent go (also when the check fails), so the namespace can be cleaned up.
      const cur = await read(ctx, blockerPath);
      if (cur) await ctx.client.patch(blockerPath, { metadata: { finalizers: null } }, 'merge');
    }
    const done = await within(NO_CONTROLLER_BOUND_MS, async () => (await status(ctx, blockerPath)) === 404 && (await status(ctx, ownerPath)) === 404);
    expectTrue(
      done,
      `once its blocking dependent was gone the owner ${(await status(ctx, ownerPath)) === 200 ? 'was still there' : 'went, but the dependent stayed'} after ${NO_CONTROLLER_BOUND_MS / 1000} s`,
      'rule.ops.delete-dependents',
    );
  },
);

check('controllers.gc-orphan', { rows: [...GC_ROWS, 'query.delete.orphanDependents'], requires: GC_REQUIRES, needs: GC_NEEDS, title: 'Orphan: dependents stay without the owner reference; the owner goes', timeoutSeconds: 60 }, async (ctx) => {
  const ns = await ctx.namespace();
  const owner = await createObject(ctx, CONFIGMAPS, ctx.uniqueName('owner'), ns);
  const other = await createObject(ctx, CONFIGMAPS, ctx.uniqueName('other-owner'), ns);
  const only = ctx.uniqueName('only');
  const shared = ctx.uniqueName('shared');
  await createObject(ctx, CONFIGMAPS, only, ns, { metadata: { name: only, ownerReferences: [ownerRef(owner)] } });
  await createObject(ctx, CONFIGMAPS, shared, ns, { metadata: { name: shared, ownerReferences: [ownerRef(owner), ownerRef(other)] } });
  const ownerPath = objectPath(CONFIGMAPS, owner.metadata.name!, ns);
  const res = await ctx.client.delete(ownerPath, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
  if (res.status !== 200) fail(`deleting the owner with Orphan: ${describeResponse(res)}`);
  const ownerGone = await within(NO_CONTROLLER_BOUND_MS, async () => (await status(ctx, ownerPath)) === 404);
  const onlyNow = await read(ctx, objectPath(CONFIGMAPS, only, ns));
  const sharedNow = await read(ctx, objectPath(CONFIGMAPS, shared, ns));
  if (!ownerGone) {
    const untouched = (onlyNow?.metadata.ownerReferences ?? []).some((r) => r.uid === owner.metadata.uid);
    if (untouched)
      ctx.nothingMoved(
        'garbagecollector',
        `an owner deleted with Orphan kept its orphan finalizer and its dependents their references for ${NO_CONTROLLER_BOUND_MS / 1000} s`,
      );
    fail('the dependents were orphaned but the owner stayed (its orphan finalizer was not removed)', 'rule.ops.delete-dependents');
  }
  await forRows('rule.ops.delete-dependents', () => {
    expectTrue(onlyNow !== undefined, 'a dependent of an owner deleted with Orphan was deleted');
    expectTrue(sharedNow !== undefined, 'a dependent with a second owner was deleted');
    expectTrue(
      !(onlyNow.metadata.ownerReferences ?? []).length,
      `the orphaned dependent still has owner references: ${JSON.stringify(onlyNow.metadata.ownerReferences)}`,
    );
    const refs = (sharedNow.metadata.ownerReferences ?? []).map((r) => r.uid);
    expectTrue(
      refs.length === 1 && refs[0] === other.metadata.uid,
      `the dependent with two owners should keep only the other one, has ${JSON.stringify(refs)}`,
    );
  });
});

check(
  'controllers.default-service-account',
  {
    rows: ['controller.serviceaccount'],
    requires: [NEEDS_NAMESPACES, { group: '', version: 'v1', resource: 'serviceaccounts', verbs: ['get', 'delete'] }],
    needs: { controllers: ['serviceaccount'] },
    title: 'every new namespace gets a default service account, created again when deleted',
    timeoutSeconds: 60,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}/serviceaccounts/default`;
    if (!(await within(NO_CONTROLLER_BOUND_MS, async () => (await status(ctx, path)) === 200))) {
      ctx.nothingMoved('serviceaccount', `namespace ${ns} had no default service account after ${NO_CONTROLLER_BOUND_MS / 1000} s`);
    }
    const first = (await read(ctx, path))!;
    const del = await ctx.client.delete(path);
    if (del.status !== 200) fail(`deleting the default service account: ${describeResponse(del)}`);
    const back = await within(NO_CONTROLLER_BOUND_MS, async () => {
      const cur = await read(ctx, path);
      return !!cur && cur.metadata.uid !== first.metadata.uid;
    });
    expectTrue(back, `the deleted default service account was not created again within ${NO_CONTROLLER_BOUND_MS / 1000} s`);
  },
);
