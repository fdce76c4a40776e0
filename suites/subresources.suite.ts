// Subresources and writes (spec 1.8, 4.8, 4.10): a write to /status changes only status and one to /scale
// only the replica count; PUT and PATCH of the main resource ignore status; PUT .../finalize changes only
// spec.finalizers; Scale objects agree with their parent (name, spec.replicas, status.replicas, selector);
// creates answer 200/201/202 and PUTs 200/201. Values written to status are sentinels (>= 1000) a controller
// would not produce, and the answers of the writes are checked as well as later reads, so a target with
// controllers running does not disturb the checks.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { labelKey } from './harness/arbitraries.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { collectionPath, objectPath, type KindRef } from './harness/fixtures.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs, readObject } from './harness/objects.ts';
import { canonicalJson, type JsonObject } from './harness/models/json.ts';
import { getIn } from './harness/workloads.ts';
import { CONFLICT_BUDGET_MS, RetryBudget, isConflict, replaceWithRetry } from './harness/retry.ts';
import type { DecodedResponse } from './harness/client.ts';

const EXT_DEPLOYMENTS: KindRef = { group: 'extensions', version: 'v1beta1', kind: 'Deployment', resource: 'deployments', namespaced: true };
const EXT_REPLICASETS: KindRef = { group: 'extensions', version: 'v1beta1', kind: 'ReplicaSet', resource: 'replicasets', namespaced: true };
const NAMESPACES: KindRef = { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false };

type Obj = KubeObject & { spec?: JsonObject; status?: JsonObject };

const labelValue = fc.stringMatching(/^[a-z0-9]([a-z0-9._-]{0,6}[a-z0-9])?$/);
const selectorLabels = fc.dictionary(labelKey(), labelValue, { minKeys: 1, maxKeys: 3 });

function workloadBody(ref: KindRef, name: string, selector: Record<string, string>, replicas: number): JsonObject {
  return {
    apiVersion: ref.group ? `${ref.group}/${ref.version}` : ref.version,
    kind: ref.kind,
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: { metadata: { labels: selector }, spec: { containers: [{ name: 'main', image: 'busybox:1.28' }] } },
    },
  };
}

async function createWorkload(ctx: CheckContext, ref: KindRef, ns: string, name: string, selector: Record<string, string>, replicas: number): Promise<Obj> {
  const res = await ctx.client.create(collectionPath(ref, ns), workloadBody(ref, name, selector, replicas));
  expectStatusCode(res, [200, 201, 202], `create ${ref.kind} ${name}`, 'rule.writes.create-codes');
  return readObject(ctx, ref, name, ns) as Promise<Obj>;
}

const withoutReplicas = (spec: unknown) => canonicalJson({ ...(spec as JsonObject), replicas: undefined });

/** Paths where `before` had a value that `after` no longer has (changed or removed); members added in `after` are not listed. */
function changedValues(before: unknown, after: unknown, path: string): string[] {
  if (before === undefined || before === null) return [];
  if (typeof before === 'object' && !Array.isArray(before) && typeof after === 'object' && after !== null && !Array.isArray(after)) {
    return Object.entries(before as JsonObject).flatMap(([k, v]) => changedValues(v, (after as JsonObject)[k], `${path}.${k}`));
  }
  return canonicalJson(before) === canonicalJson(after) ? [] : [path];
}

// ---- /status changes only status; the main resource ignores status ------------------------------------

const statusValues = fc.record({
  replicas: fc.integer({ min: 1000, max: 9999 }),
  observedGeneration: fc.integer({ min: 1000, max: 9999 }),
  collisionCount: fc.integer({ min: 1000, max: 9999 }),
});
const specChange = fc.record({ minReadySeconds: fc.integer({ min: 1, max: 120 }), replicas: fc.integer({ min: 0, max: 4 }) });

check(
  'subresources.status-writes-only-status',
  {
    upstream: [113, 114],
    rows: ['rule.writes.subresource-only-part', 'rule.ops.status-only-through-status', 'endpoint.apps.deployments.status.namespaced.update', 'endpoint.apps.deployments.status.namespaced.patch', 'endpoint.apps.deployments.status.namespaced.get', 'rule.writes.put-codes'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get']), needs(DEPLOYMENTS, ['get', 'update', 'patch'], 'status')],
    title: 'PUT and PATCH of /status with spec and status changes change status only',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({ status: statusValues, spec: specChange, verb: fc.constantFrom('PUT', 'PATCH') }), async ({ status, spec, verb }) => {
      const name = ctx.uniqueName('status');
      const before = await createWorkload(ctx, DEPLOYMENTS, ns, name, { app: name }, 1);
      const path = `${objectPath(DEPLOYMENTS, name, ns)}/status`;
      const got = await ctx.client.get(path);
      expectStatusCode(got, 200, `GET ${path}`, 'endpoint.apps.deployments.status.namespaced.get');
      expectEqual(got.object?.metadata?.uid, before.metadata.uid, `GET ${path}: uid of the object`, 'endpoint.apps.deployments.status.namespaced.get');
      const what = `${verb} ${path} with spec ${JSON.stringify(spec)} and status ${JSON.stringify(status)}`;
      // PUT is a read-modify-write retried on 409 Conflict: the deployment controller writes status meanwhile.
      const res =
        verb === 'PUT'
          ? (await replaceWithRetry<Obj>(ctx, path, (cur) => ({ ...cur, spec: { ...cur.spec, ...spec }, status: { ...(cur.status ?? {}), ...status } }))).res
          : await ctx.client.patch(path, { spec, status }, 'merge');
      expectStatusCode(
        res,
        verb === 'PUT' ? [200, 201] : 200,
        what,
        verb === 'PUT' ? ['rule.writes.put-codes', 'endpoint.apps.deployments.status.namespaced.update'] : 'endpoint.apps.deployments.status.namespaced.patch',
      );
      const answer = res.object as Obj;
      await forRows(['rule.writes.subresource-only-part', 'rule.ops.status-only-through-status'], async () => {
        for (const [k, v] of Object.entries(status)) expectEqual(getIn(answer, `status.${k}`), v, `${what}: status.${k} in the answer`);
        expectEqual(canonicalJson(answer.spec), canonicalJson(before.spec), `${what}: spec in the answer`);
        const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Obj;
        expectEqual(canonicalJson(read.spec), canonicalJson(before.spec), `${what}: spec read back`);
      });
    });
  },
);

check(
  'subresources.main-resource-ignores-status',
  {
    rows: ['rule.writes.put-ignores-status', 'rule.ops.replace-ignores-status', 'rule.ops.status-only-through-status', 'rule.writes.put-codes'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'update', 'patch']), needs(DEPLOYMENTS, ['update'], 'status')],
    title: 'PUT and PATCH of the main resource apply their spec change and ignore their status (with or without one): status set through /status stays',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const arb = fc.record({ status: statusValues, spec: specChange, verb: fc.constantFrom('PUT', 'PATCH'), omitStatus: fc.boolean() });
    await ctx.forAll(arb, async ({ status, spec, verb, omitStatus }) => {
      const name = ctx.uniqueName('main');
      await createWorkload(ctx, DEPLOYMENTS, ns, name, { app: name }, 1);
      const path = objectPath(DEPLOYMENTS, name, ns);
      // A condition of our own type, set through /status. A controller may rewrite status meanwhile (and one that
      // writes stale status may even drop it), so the write under test is sent with the resourceVersion of a read
      // that shows the marker: when it succeeds, it was applied to exactly that state, and a marker missing from
      // its answer was removed by this write. A 409 (or a marker gone before we write) just means: again.
      const marker = { type: 'ConformanceMarker', status: 'True', reason: 'SetThroughStatus', message: name };
      const hasMarker = (o: unknown) =>
        ((getIn(o, 'status.conditions') as JsonObject[] | undefined) ?? []).some((c) => c.type === marker.type && c.message === marker.message);
      const sentStatus = omitStatus ? undefined : { ...status, conditions: [] };
      const what = `${verb} ${path} with spec ${JSON.stringify(spec)} and ${omitStatus ? 'no status' : `status ${JSON.stringify(sentStatus)}`}`;
      let res: DecodedResponse | undefined;
      const budget = new RetryBudget();
      while (!res && budget.next()) {
        const { res: setup } = await replaceWithRetry<Obj>(ctx, `${path}/status`, (cur) => ({
          ...cur,
          status: {
            ...(cur.status ?? {}),
            conditions: [...((cur.status?.conditions as JsonObject[] | undefined) ?? []).filter((c) => c.type !== marker.type), marker],
          },
        }));
        expectStatusCode(setup, [200, 201], `setup: PUT ${path}/status with a ConformanceMarker condition`);
        const cur = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Obj;
        if (!hasMarker(cur)) continue;
        const rv = cur.metadata.resourceVersion;
        const sent =
          verb === 'PUT'
            ? await ctx.client.replace(path, { ...cur, spec: { ...cur.spec, ...spec }, status: sentStatus })
            : await ctx.client.patch(path, { metadata: { resourceVersion: rv }, spec, ...(omitStatus ? {} : { status: sentStatus }) }, 'merge');
        if (!isConflict(sent) || budget.last) res = sent;
      }
      if (!res)
        fail(
          `setup: the ConformanceMarker condition set through ${path}/status kept vanishing before the ${verb} (${budget.attempt} tries in ${CONFLICT_BUDGET_MS / 1000} s): another writer removes status conditions it does not own`,
        );
      expectStatusCode(res, verb === 'PUT' ? [200, 201] : 200, what, verb === 'PUT' ? 'rule.writes.put-codes' : undefined);
      const answer = res.object as Obj;
      const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Obj;
      // The GET after shows the write's own result only if nobody wrote since.
      const untouched = read.metadata.resourceVersion === answer.metadata?.resourceVersion;
      for (const [label, obj] of [['answer', answer], ['GET after', read]] as const) {
        for (const [k, v] of Object.entries(spec)) expectEqual(getIn(obj, `spec.${k}`), v, `${what}: spec.${k} in the ${label}`);
        await forRows(verb === 'PUT' ? ['rule.writes.put-ignores-status', 'rule.ops.replace-ignores-status'] : 'rule.ops.status-only-through-status', () => {
          if (!omitStatus)
            for (const [k, v] of Object.entries(status))
              expectTrue(getIn(obj, `status.${k}`) !== v, `${what}: status.${k} became ${v} in the ${label}; the main resource must ignore status`);
          const conditions = (getIn(obj, 'status.conditions') as JsonObject[] | undefined) ?? [];
          if (label === 'answer' || untouched)
            expectTrue(
              hasMarker(obj),
              `${what}: the ConformanceMarker condition set through /status is gone in the ${label} (conditions ${JSON.stringify(conditions)}); the main resource must leave status as it was`,
            );
        });
      }
    });
  },
);

// ---- scale ----------------------------------------------------------------------------------------------

/** Label pairs of a Scale's selector: a string "a=b,c=d" (autoscaling/v1) or a map (extensions/v1beta1). */
function scaleSelectorPairs(status: unknown): string[] | undefined {
  const sel = (status as JsonObject | undefined)?.selector;
  if (typeof sel === 'string') return sel === '' ? [] : sel.split(',').map((s) => s.trim()).sort();
  if (sel && typeof sel === 'object' && !Array.isArray(sel)) {
    const m =
      (sel as JsonObject).matchLabels && typeof (sel as JsonObject).matchLabels === 'object'
        ? ((sel as JsonObject).matchLabels as JsonObject)
        : (sel as JsonObject);
    return Object.entries(m).map(([k, v]) => `${k}=${v}`).sort();
  }
  return undefined;
}

const SCALE_PARENTS: Array<{ ref: KindRef; rows: string[] }> = [
  { ref: DEPLOYMENTS, rows: ['endpoint.apps.deployments.scale.namespaced.get', 'endpoint.apps.deployments.scale.namespaced.update'] },
  { ref: EXT_DEPLOYMENTS, rows: [] },
  { ref: EXT_REPLICASETS, rows: ['endpoint.ext.replicasets.scale.namespaced.get', 'endpoint.ext.replicasets.scale.namespaced.update'] },
];

check(
  'subresources.scale-consistent',
  {
    upstream: [107, 129],
    rows: ['rule.ops.scale', 'rule.writes.subresource-only-part', 'rule.media.path-parameters', 'rule.writes.put-codes', ...SCALE_PARENTS.flatMap((p) => p.rows)],
    requires: [NEEDS_NAMESPACES],
    title: 'a Scale names its parent and shows its spec.replicas, status.replicas and selector; PUT /scale changes spec.replicas only',
  },
  async (ctx) => {
    const parents = SCALE_PARENTS.filter((p) => ctx.serves(needs(p.ref, ['create', 'get'])) && ctx.serves(needs(p.ref, ['get', 'update'], 'scale')));
    if (parents.length === 0) ctx.skip('target serves no scale subresource of the spec (apps/v1 deployments, extensions/v1beta1 deployments or replicasets)');
    const ns = await ctx.namespace();
    const arb = fc.record({
      parent: fc.constantFrom(...parents),
      selector: selectorLabels,
      from: fc.integer({ min: 0, max: 3 }),
      to: fc.integer({ min: 0, max: 6 }),
    });
    await ctx.forAll(arb, async ({ parent, selector, from, to }) => {
      const ref = parent.ref;
      const rows = ['rule.ops.scale', ...parent.rows];
      const name = ctx.uniqueName('scale');
      const before = await createWorkload(ctx, ref, ns, name, selector, from);
      const path = `${objectPath(ref, name, ns)}/scale`;
      const label = `${ref.group}/${ref.version} ${ref.kind} ${name}`;
      const scale = await ctx.client.get<Obj>(path);
      expectStatusCode(scale, 200, `GET ${path}`, rows);
      const after = (await readObject(ctx, ref, name, ns)) as Obj;
      await forRows(rows, () => {
        const s = scale.object!;
        expectEqual(s.kind, 'Scale', `GET ${path}: kind`);
        expectEqual(s.metadata?.name, name, `GET ${path}: metadata.name (the Scale is named like its parent)`, 'rule.media.path-parameters');
        expectEqual(getIn(s, 'spec.replicas'), from, `GET ${path}: spec.replicas of ${label} created with ${from}`);
        const statusReplicas = (getIn(s, 'status.replicas') as number | undefined) ?? 0;
        // A controller moves the parent's status.replicas toward spec.replicas while we read: the Scale, read
        // between two reads of the parent, shows a value between theirs.
        const parentReplicas = [before, after].map((o) => (getIn(o, 'status.replicas') as number | undefined) ?? 0);
        const [lo, hi] = [Math.min(...parentReplicas), Math.max(...parentReplicas)];
        expectTrue(
          statusReplicas >= lo && statusReplicas <= hi,
          `GET ${path}: status.replicas ${statusReplicas}, the parent shows ${parentReplicas.join(' then ')}`,
        );
        const want = Object.entries(selector).map(([k, v]) => `${k}=${v}`).sort();
        expectEqual(scaleSelectorPairs(s.status), want, `GET ${path}: status.selector against the parent's selector ${JSON.stringify(selector)}`);
      });
      // Read-modify-write of the Scale retried on 409 Conflict: a controller writes the parent's status meanwhile.
      const { res: put } = await replaceWithRetry<Obj>(ctx, path, (cur) => ({ ...cur, spec: { ...(cur.spec ?? {}), replicas: to } }));
      expectStatusCode(put, [200, 201], `PUT ${path} with spec.replicas ${to}`, ['rule.writes.put-codes', ...rows]);
      expectEqual(getIn(put.object, 'spec.replicas'), to, `PUT ${path}: spec.replicas in the answer`, rows);
      const read = (await readObject(ctx, ref, name, ns)) as Obj;
      expectEqual(getIn(read, 'spec.replicas'), to, `${label}: spec.replicas after PUT ${path}`, rows);
      // Values the spec had must be unchanged. Fields that were unset may have been filled meanwhile by another
      // writer: a controller patching the main resource through apps/v1 stores that version's defaults
      // (progressDeadlineSeconds, revisionHistoryLimit) into an extensions/v1beta1 object, as real servers do.
      const changed = changedValues(before.spec ?? {}, read.spec ?? {}, 'spec').filter((p) => p !== 'spec.replicas');
      expectTrue(
        changed.length === 0,
        `${label}: the rest of spec after PUT ${path} changed at ${changed.join(', ')}: before ${withoutReplicas(before.spec)}, after ${withoutReplicas(read.spec)}`,
        'rule.writes.subresource-only-part',
      );
      expectEqual(
        canonicalJson(read.metadata.labels ?? {}),
        canonicalJson(before.metadata.labels ?? {}),
        `${label}: labels after PUT ${path}`,
        'rule.writes.subresource-only-part',
      );
    });
  },
);

// ---- metadata in the body of a /status or /scale write -------------------------------------------------

const USER_KEY = 'conformance.example.com/kept';
const ADDED_KEY = 'conformance.example.com/added';

/** What a /status or /scale write must leave as it was: our label and annotation, and no new ones. */
function metadataProblems(obj: Obj, before: Obj): string[] {
  const problems: string[] = [];
  const labels = obj.metadata?.labels ?? {};
  const annotations = obj.metadata?.annotations ?? {};
  if (labels[USER_KEY] !== before.metadata.labels?.[USER_KEY])
    problems.push(`label ${USER_KEY} is ${JSON.stringify(labels[USER_KEY])}, was ${JSON.stringify(before.metadata.labels?.[USER_KEY])}`);
  if (ADDED_KEY in labels) problems.push(`label ${ADDED_KEY} was added`);
  if (annotations[USER_KEY] !== before.metadata.annotations?.[USER_KEY])
    problems.push(`annotation ${USER_KEY} is ${JSON.stringify(annotations[USER_KEY])}, was ${JSON.stringify(before.metadata.annotations?.[USER_KEY])}`);
  if (ADDED_KEY in annotations) problems.push(`annotation ${ADDED_KEY} was added`);
  return problems;
}

check(
  'subresources.writes-keep-metadata',
  {
    rows: ['rule.writes.subresource-only-part', 'endpoint.apps.deployments.status.namespaced.update', 'endpoint.apps.deployments.status.namespaced.patch', 'endpoint.apps.deployments.scale.namespaced.update', 'endpoint.apps.deployments.scale.namespaced.patch'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get']), needs(DEPLOYMENTS, ['get', 'update', 'patch'], 'status'), needs(DEPLOYMENTS, ['get', 'update', 'patch'], 'scale')],
    title: 'PUT and PATCH of /status and /scale whose body also changes labels, annotations and spec change only status, or only the replica count',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const arb = fc.record({
      sub: fc.constantFrom('status', 'scale'),
      verb: fc.constantFrom('PUT', 'PATCH'),
      value: fc.stringMatching(/^[a-z0-9]{1,8}$/),
      replicas: fc.integer({ min: 0, max: 2 }),
      observedGeneration: fc.integer({ min: 1000, max: 9999 }),
      minReadySeconds: fc.integer({ min: 1, max: 120 }),
    });
    await ctx.forAll(arb, async ({ sub, verb, value, replicas, observedGeneration, minReadySeconds }) => {
      const name = ctx.uniqueName(sub);
      const body = workloadBody(DEPLOYMENTS, name, { app: name }, 0);
      (body.metadata as JsonObject).labels = { app: name, [USER_KEY]: 'before' };
      (body.metadata as JsonObject).annotations = { [USER_KEY]: 'before' };
      const created = await ctx.client.create(collectionPath(DEPLOYMENTS, ns), body);
      expectStatusCode(created, [200, 201, 202], `create Deployment ${name}`, 'rule.writes.create-codes');
      const before = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Obj;
      const path = `${objectPath(DEPLOYMENTS, name, ns)}/${sub}`;
      const metadata = { labels: { [USER_KEY]: `x${value}`, [ADDED_KEY]: value }, annotations: { [USER_KEY]: `x${value}`, [ADDED_KEY]: value } };
      const what = `${verb} ${path} with labels and annotations ${JSON.stringify(metadata.labels)}${sub === 'status' ? `, spec.minReadySeconds ${minReadySeconds} and status.observedGeneration ${observedGeneration}` : ` and spec.replicas ${replicas}`}`;
      const rows = [`endpoint.apps.deployments.${sub}.namespaced.${verb === 'PUT' ? 'update' : 'patch'}`];
      let res: DecodedResponse;
      if (verb === 'PUT') {
        // Read-modify-write retried on 409 Conflict: the deployment controller writes status meanwhile.
        res = (
          await replaceWithRetry<Obj>(ctx, path, (cur) => {
            const out: Obj = {
              ...cur,
              metadata: {
                ...cur.metadata,
                labels: { ...(cur.metadata.labels ?? {}), ...metadata.labels },
                annotations: { ...(cur.metadata.annotations ?? {}), ...metadata.annotations },
              },
            };
            if (sub === 'status') return { ...out, spec: { ...(cur.spec ?? {}), minReadySeconds }, status: { ...(cur.status ?? {}), observedGeneration } };
            return { ...out, spec: { ...(cur.spec ?? {}), replicas } };
          })
        ).res;
      } else {
        const patch = sub === 'status' ? { metadata, spec: { minReadySeconds }, status: { observedGeneration } } : { metadata, spec: { replicas } };
        res = await ctx.client.patch(path, patch, 'merge');
      }
      expectStatusCode(res, verb === 'PUT' ? [200, 201] : 200, what, rows);
      const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Obj;
      await forRows(['rule.writes.subresource-only-part', ...rows], () => {
        if (sub === 'status')
          expectEqual(getIn(res.object, 'status.observedGeneration'), observedGeneration, `${what}: status.observedGeneration in the answer`);
        else expectEqual(getIn(res.object, 'spec.replicas'), replicas, `${what}: spec.replicas in the answer`);
        if (sub === 'scale') expectEqual(getIn(read, 'spec.replicas'), replicas, `${what}: the Deployment's spec.replicas read back`);
      });
      await forRows('rule.writes.subresource-only-part', () => {
        // The Scale's own metadata is not the parent's in every server; the parent is what must stay.
        const judged: Array<[string, Obj]> = sub === 'status' ? [['answer', res.object as Obj], ['GET after', read]] : [['GET after', read]];
        for (const [label, obj] of judged) {
          const problems = metadataProblems(obj, before);
          if (problems.length)
            fail(`${what}: in the ${label}, ${problems.join('; ')}; a write to ${sub} changes only ${sub === 'status' ? 'status' : 'the replica count'}`);
          expectEqual(getIn(obj, 'spec.minReadySeconds'), getIn(before, 'spec.minReadySeconds'), `${what}: spec.minReadySeconds in the ${label}`);
        }
      });
    });
  },
);

// ---- namespace finalize -----------------------------------------------------------------------------

const finalizerName = fc.oneof(fc.constant('kubernetes'), fc.stringMatching(/^[a-z]{1,8}$/).map((w) => `conformance.example.com/${w}`));

check(
  'subresources.namespace-finalize',
  {
    upstream: [63],
    rows: ['endpoint.core.namespaces.finalize.cluster-scoped.update', 'field.ObjectMeta.finalizers', 'rule.writes.put-codes'],
    requires: [NEEDS_NAMESPACES, needs(NAMESPACES, ['get']), needs(NAMESPACES, ['update'], 'finalize')],
    title: 'PUT .../finalize sets spec.finalizers and leaves status alone',
  },
  async (ctx) => {
    const arb = fc.record({ finalizers: fc.uniqueArray(finalizerName, { maxLength: 3 }), label: fc.stringMatching(/^[A-Z][a-z]{1,8}$/) });
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}`;
    try {
      await ctx.forAll(arb, async ({ finalizers, label }) => {
        const before = (await readObject(ctx, NAMESPACES, ns)) as Obj;
        const body = structuredClone(before);
        body.spec = { ...(body.spec ?? {}), finalizers };
        // Status must not change through finalize; metadata may (the real server applies label changes there,
        // and the spec's "changes only that part" (4.10) speaks of status and scale only).
        body.status = { ...(body.status ?? {}), phase: `Conformance${label}` };
        const what = `PUT ${path}/finalize with spec.finalizers ${JSON.stringify(finalizers)} and status.phase ${body.status.phase}`;
        const res = await ctx.client.replace(`${path}/finalize`, body);
        expectStatusCode(res, [200, 201], what, ['endpoint.core.namespaces.finalize.cluster-scoped.update', 'rule.writes.put-codes']);
        const read = (await readObject(ctx, NAMESPACES, ns)) as Obj;
        for (const [which, obj] of [['answer', res.object as Obj], ['GET after', read]] as const) {
          await forRows('endpoint.core.namespaces.finalize.cluster-scoped.update', () =>
            expectEqual(
              [...((getIn(obj, 'spec.finalizers') as string[] | undefined) ?? [])].sort(),
              [...finalizers].sort(),
              `${what}: spec.finalizers in the ${which}`,
            ),
          );
          expectEqual(
            getIn(obj, 'status.phase'),
            getIn(before, 'status.phase'),
            `${what}: status.phase in the ${which}`,
            'endpoint.core.namespaces.finalize.cluster-scoped.update',
          );
        }
      });
    } finally {
      // Leave only the standard finalizer, so the namespace can be deleted when the check ends.
      const current = await ctx.client.get(path);
      if (current.status === 200 && current.object) {
        const body = structuredClone(current.object) as Obj;
        body.spec = { ...(body.spec ?? {}), finalizers: ['kubernetes'] };
        const res = await ctx.client.replace(`${path}/finalize`, body);
        if (![200, 201].includes(res.status)) fail(`cleanup: PUT ${path}/finalize back to [kubernetes] answered ${describeResponse(res)}`);
      }
    }
  },
);
