// Namespace termination (spec 1.6, 3, 4.7, 4.8 finalize): DELETE of a namespace leaves it Terminating with a
// deletionTimestamp while its finalizers remain; creates in it are refused with 403 Forbidden; it disappears
// once its content is gone and its finalizers are emptied through /finalize. The namespace controller (the
// daemon) may not run: the /finalize step is done by the check only when the target leaves the namespace
// Terminating, and "the content goes with its namespace" is skipped, with the reason, when no controller acts.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath } from './harness/fixtures.ts';
import { CONFIGMAPS, NEEDS_NAMESPACES, createObject, needs } from './harness/objects.ts';
import { expectStatusBody } from './harness/status-body.ts';
import { short } from './harness/list-watch.ts';
import { busyScaled } from './harness/progress.ts';
import type { DecodedResponse } from './harness/client.ts';

const NAMESPACES = { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false };
const NS_ALL = [NEEDS_NAMESPACES, needs(NAMESPACES, ['get', 'create', 'delete']), needs(CONFIGMAPS, ['create', 'get', 'list', 'delete'])];
const SECRETS = { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true };

type Ns = KubeObject & { spec?: { finalizers?: string[] }; status?: { phase?: string } };

async function readNs(ctx: CheckContext, name: string): Promise<Ns | undefined> {
  const res = await ctx.client.get<Ns>(`/api/v1/namespaces/${name}`);
  if (res.status === 404) return undefined;
  if (res.status !== 200 || !res.object) fail(`GET namespace ${name}: expected 200 or 404, got ${describeResponse(res)}`);
  return res.object;
}

/** A finalizer of the check's own: a namespace carrying it stays Terminating after its controller is done. */
const HOLD = 'conformance.example.com/hold';

/**
 * Creates a namespace of this run with a ConfigMap and a Secret in it, then deletes the namespace. With `hold`
 * the namespace carries a finalizer of the check's own, so that a namespace controller that empties and finalizes
 * it quickly cannot take the Terminating state away before the check has read it; `release` removes it.
 */
async function deleteWithContent(ctx: CheckContext, hold = false): Promise<{ name: string; content: string[]; deleted: DecodedResponse }> {
  const name = ctx.namespaceName();
  const res = await ctx.client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(hold ? { finalizers: [HOLD] } : {}) } });
  expectStatusCode(res, [200, 201, 202], `create namespace ${name}`);
  const content = [objectPath(CONFIGMAPS, 'cm', name)];
  await createObject(ctx, CONFIGMAPS, 'cm', name);
  if (ctx.serves(needs(SECRETS, ['create', 'get']))) {
    await createObject(ctx, SECRETS, 'secret', name);
    content.push(objectPath(SECRETS, 'secret', name));
  }
  const deleted = await ctx.client.delete(`/api/v1/namespaces/${name}`);
  return { name, content, deleted };
}

/** Removes the check's own finalizer again (the namespace then goes as usual). */
async function release(ctx: CheckContext, name: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const ns = await readNs(ctx, name);
    if (!ns || !(ns.metadata.finalizers ?? []).includes(HOLD)) return;
    const finalizers = (ns.metadata.finalizers ?? []).filter((f) => f !== HOLD);
    const res = await ctx.client.replace(`/api/v1/namespaces/${name}`, { ...ns, metadata: { ...ns.metadata, finalizers } });
    if (res.status !== 409) return;
  }
}

check(
  'namespace-lifecycle.terminating',
  {
    rows: ['endpoint.core.namespaces.cluster-scoped.delete', 'rule.scope.namespace-cluster-scoped', 'rule.delete.options-body'],
    requires: NS_ALL,
    title: 'DELETE of a namespace with content: Terminating with a deletionTimestamp, still readable, creates in it refused with 403 Forbidden',
  },
  async (ctx) => {
    const { name, deleted } = await deleteWithContent(ctx, true);
    try {
      await terminating(ctx, name, deleted);
    } finally {
      await release(ctx, name);
    }
  },
);

async function terminating(ctx: CheckContext, name: string, deleted: DecodedResponse): Promise<void> {
  const what = `DELETE /api/v1/namespaces/${name}`;
  expectStatusCode(deleted, [200, 202], what, 'endpoint.core.namespaces.cluster-scoped.delete');
  const ns = await readNs(ctx, name);
  if (!ns) {
    // A namespace controller emptied and removed it already: then the answer must have been a Status or the namespace.
    const kind = (deleted.object as { kind?: string } | undefined)?.kind;
    expectTrue(kind === 'Status' || kind === 'Namespace', `${what}: answer ${short(deleted.object)}`, 'rule.delete.options-body');
    return;
  }
  await forRows('endpoint.core.namespaces.cluster-scoped.delete', () => {
    expectTrue(ns.metadata.deletionTimestamp, `namespace ${name} after DELETE: no deletionTimestamp (${short(ns.metadata)})`);
    expectTrue(ns.status?.phase === 'Terminating', `namespace ${name} after DELETE: phase ${JSON.stringify(ns.status?.phase)}, expected "Terminating"`);
    if ((deleted.object as { kind?: string } | undefined)?.kind === 'Namespace') expectTrue((deleted.object as Ns).status?.phase === 'Terminating', `${what}: the answered namespace has phase ${JSON.stringify((deleted.object as Ns).status?.phase)}`);
    else expectStatusBody(deleted, { status: 'Success', code: 200 }, what);
  });
  const listed = await ctx.client.get<{ items?: Ns[] }>('/api/v1/namespaces');
  expectTrue(listed.object?.items?.some((n) => n.metadata?.name === name), `the namespace list lacks the Terminating namespace ${name}`, 'rule.scope.namespace-cluster-scoped');
  const create = await ctx.client.create(collectionPath(CONFIGMAPS, name), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } });
  if ((await readNs(ctx, name)) === undefined) return; // removed meanwhile by a controller: a 404 or 403 are both fine then
  await forRows('endpoint.core.namespaces.cluster-scoped.delete', () => {
    expectStatusCode(create, 403, `create a ConfigMap in the Terminating namespace ${name}`);
    expectStatusBody(create, { status: 'Failure', code: 403, reason: 'Forbidden' }, `create in the Terminating namespace ${name}`);
  });
}

check(
  'namespace-lifecycle.finalize',
  {
    rows: ['endpoint.core.namespaces.finalize.cluster-scoped.update', 'rule.lifecycle.namespace-cascade'],
    requires: [...NS_ALL, needs(NAMESPACES, ['update'], 'finalize')],
    title: 'a Terminating namespace whose content is gone disappears once /finalize empties its finalizers',
  },
  async (ctx) => {
    const { name, content, deleted } = await deleteWithContent(ctx);
    expectStatusCode(deleted, [200, 202], `DELETE namespace ${name}`);
    let ns = await readNs(ctx, name);
    if (!ns) return; // a namespace controller did all of it already
    if ((ns.spec?.finalizers ?? []).length === 0) ctx.skip(`namespace ${name} is Terminating without spec.finalizers; nothing to finalize`);
    // Do what the namespace controller does: delete the content, then empty the finalizers.
    for (const p of content) {
      const r = await ctx.client.delete(p);
      expectStatusCode(r, [200, 202, 404], `DELETE ${p} in the Terminating namespace`, 'rule.lifecycle.namespace-cascade');
    }
    const path = `/api/v1/namespaces/${name}/finalize`;
    for (let attempt = 0; attempt < 3 && ns; attempt++) {
      const res = await ctx.client.replace<Ns>(path, { ...ns, spec: { ...(ns.spec ?? {}), finalizers: [] } });
      if (res.status === 409) {
        ns = await readNs(ctx, name);
        continue;
      }
      if (res.status === 404) break;
      await forRows('endpoint.core.namespaces.finalize.cluster-scoped.update', () => {
        expectStatusCode(res, [200, 201], `PUT ${path} with spec.finalizers []`);
        expectTrue(res.object?.kind === 'Namespace', `PUT ${path}: answer is not a Namespace: ${short(res.object)}`);
        expectTrue((res.object?.spec?.finalizers ?? []).length === 0, `PUT ${path}: the answered namespace still has finalizers ${short(res.object?.spec?.finalizers)}`);
      });
      break;
    }
    ns = await readNs(ctx, name);
    if (ns) {
      // The real namespace controller deletes the namespace once more after finalizing it.
      const again = await ctx.client.delete(`/api/v1/namespaces/${name}`);
      expectStatusCode(again, [200, 202, 404], `second DELETE of the finalized namespace ${name}`, 'endpoint.core.namespaces.finalize.cluster-scoped.update');
      ns = await readNs(ctx, name);
    }
    if (ns) fail(`namespace ${name} is still there after its content was deleted and /finalize emptied its finalizers: ${short({ metadata: ns.metadata, spec: ns.spec, status: ns.status })}`, 'endpoint.core.namespaces.finalize.cluster-scoped.update');
  },
);

check(
  'namespace-lifecycle.cascade',
  {
    upstream: [67],
    rows: ['rule.lifecycle.namespace-cascade', 'rule.scope.namespace-deletion-cascades'],
    requires: NS_ALL,
    needs: { controllers: ['namespace'] },
    title: 'the objects of a deleted namespace go with it, and the namespace disappears (needs a namespace controller)',
    timeoutSeconds: 120,
  },
  async (ctx) => {
    const { name, content, deleted } = await deleteWithContent(ctx);
    expectStatusCode(deleted, [200, 202], `DELETE namespace ${name}`);
    const started = Date.now();
    // Stretched on a busy machine: a namespace controller that gets a fraction of a core, and works through the
    // namespaces of the run's other checks in turn (each deleted as its check ends), is slow, not absent.
    const quietBound = busyScaled(45_000);
    const bound = busyScaled(90_000);
    for (;;) {
      const ns = await readNs(ctx, name);
      const left: string[] = [];
      for (const p of content) if ((await ctx.client.get(p)).status === 200) left.push(p);
      if (!ns) {
        if (left.length) fail(`namespace ${name} is gone but its objects remain: ${left.join(', ')}`, 'rule.scope.namespace-deletion-cascades');
        return;
      }
      const progressed = left.length < content.length || (ns.spec?.finalizers ?? []).length === 0;
      const elapsed = Date.now() - started;
      if (!progressed && elapsed > quietBound) ctx.nothingMoved('namespace', `nothing acted on the deleted namespace ${name} within ${quietBound / 1000} s (content still present, finalizers ${short(ns.spec?.finalizers)})`);
      if (elapsed > bound) fail(`namespace ${name} still exists ${bound / 1000} s after DELETE (${left.length} of ${content.length} objects left, finalizers ${short(ns.spec?.finalizers)})`, 'rule.lifecycle.namespace-cascade');
      await new Promise((r) => setTimeout(r, 250));
    }
  },
);
