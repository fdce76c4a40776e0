// Create, read, replace, list and delete (spec 1.8, 4.6, 4.7, 4.10, 7; Status bodies per wire facts 2):
// the life cycle of every spec kind, names unique per scope, the optimistic lock on stale PUTs, last-write-
// wins PATCH, selectors, delete options, and the Status bodies of NotFound, AlreadyExists, Conflict and
// successful deletes. Property-based over names, labels and data where the input space is large.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { configMapData, dnsSubdomain, labels as labelSets } from './harness/arbitraries.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, forRows } from './harness/expect.ts';
import { collectionPath, objectPath, SPEC_KINDS, hasFixture, type KindRef } from './harness/fixtures.ts';
import { CONFIGMAPS, DEPLOYMENTS, NEEDS_NAMESPACES, createObject, isStatus, needs, readObject } from './harness/objects.ts';
import { expectStatusBody } from './harness/status-body.ts';
import { replaceWithRetry } from './harness/retry.ts';

const CM_ALL = [NEEDS_NAMESPACES, needs(CONFIGMAPS, ['create', 'get', 'list', 'update', 'patch', 'delete'])];

type ListBody = { items?: KubeObject[]; metadata?: { resourceVersion?: string } };

async function listObjects(ctx: CheckContext, path: string, query?: Record<string, string>): Promise<KubeObject[]> {
  const res = await ctx.client.get<ListBody>(path, { query });
  expectStatusCode(res, 200, `GET ${path}${query ? ` ${JSON.stringify(query)}` : ''}`, 'rule.ops.list-in-namespace');
  return res.object?.items ?? [];
}

async function listNames(ctx: CheckContext, path: string, query?: Record<string, string>): Promise<string[]> {
  return (await listObjects(ctx, path, query)).map((o) => o.metadata?.name ?? '').sort();
}

check(
  'crud.create-then-get',
  {
    rows: ['rule.ops.create-stores', 'rule.writes.create-codes', 'rule.ops.get-by-name'],
    requires: CM_ALL,
    title: 'a created ConfigMap (any valid name, labels, data) reads back as created',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const seen = new Set<string>();
    await ctx.forAll(fc.record({ name: dnsSubdomain(), labels: labelSets(), data: configMapData() }), async (v) => {
      // Names repeat across runs and shrinks: suffix them so every run creates a new object.
      const name = `${v.name.slice(0, 200)}-${seen.size}`;
      seen.add(name);
      const created = await forRows('rule.writes.create-codes', async () => {
        const res = await ctx.client.create(collectionPath(CONFIGMAPS, ns), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, labels: v.labels },
          data: v.data,
        });
        expectStatusCode(res, [200, 201, 202], `create ConfigMap ${name}`);
        return res.object!;
      });
      const read = await forRows('rule.ops.get-by-name', () => readObject(ctx, CONFIGMAPS, name, ns));
      await forRows('rule.ops.create-stores', () => {
        expectEqual(read.metadata.name, name, 'metadata.name');
        expectEqual(read.metadata.namespace, ns, 'metadata.namespace');
        expectEqual(read.metadata.uid, created.metadata?.uid, 'metadata.uid of the read vs the create answer');
        expectEqual(read.metadata.labels ?? {}, v.labels, 'labels');
        expectEqual(read.data ?? {}, v.data, 'data');
      });
    });
  },
);

for (const ref of SPEC_KINDS.filter((k) => k.namespaced && hasFixture(k.kind))) {
  const group = ref.group === '' ? 'core' : ref.group;
  check(
    `crud.lifecycle.${group}.${ref.version}.${ref.resource}`,
    {
      rows: [
        'rule.service.rest-verbs',
        'rule.ops.create-stores',
        'rule.ops.get-by-name',
        'rule.ops.list-in-namespace',
        'rule.writes.put-codes',
        'rule.writes.create-codes',
      ],
      requires: [NEEDS_NAMESPACES, needs(ref, ['create', 'get', 'list', 'update', 'delete'])],
      title: `${ref.kind} (${group}/${ref.version}): create, get, list, replace, delete, then 404`,
    },
    async (ctx) => lifecycle(ctx, ref),
  );
}

async function lifecycle(ctx: CheckContext, ref: KindRef): Promise<void> {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName(ref.kind);
  const path = objectPath(ref, name, ns);
  const created = await forRows('rule.writes.create-codes', () => createObject(ctx, ref, name, ns));
  expectEqual(created.kind, ref.kind, 'kind of the create answer', 'rule.ops.create-stores');
  const read = await forRows('rule.ops.get-by-name', () => readObject(ctx, ref, name, ns));
  expectEqual(read.metadata.uid, created.metadata.uid, 'uid of the read object', 'rule.ops.create-stores');
  // Other writers (controllers, e.g. a token controller's secrets) may add objects of their own to the
  // namespace: the list must hold ours, and only objects of this namespace.
  await forRows('rule.ops.list-in-namespace', async () => {
    const listed = await listObjects(ctx, collectionPath(ref, ns));
    expectTrue(listed.some((o) => o.metadata?.name === name), `the list of ${ns} lacks ${name}: ${JSON.stringify(listed.map((o) => o.metadata?.name))}`);
    const strays = listed.filter((o) => o.metadata?.namespace !== undefined && o.metadata.namespace !== ns);
    expectTrue(
      strays.length === 0,
      `the list of ${ns} holds objects of other namespaces: ${JSON.stringify(strays.map((o) => `${o.metadata.namespace}/${o.metadata.name}`))}`,
    );
  });
  const replaced = await forRows('rule.writes.put-codes', async () => {
    // Read-modify-write retried on 409 Conflict: a controller may write the object (status) between GET and PUT.
    const { res } = await replaceWithRetry(ctx, path, (body) => {
      body.metadata.annotations = { ...(body.metadata.annotations ?? {}), 'conformance/replaced': 'yes' };
      return body;
    });
    expectStatusCode(res, [200, 201], `PUT ${path}`);
    return res.object!;
  });
  expectEqual(replaced.metadata?.annotations?.['conformance/replaced'], 'yes', 'annotation after the PUT', 'rule.writes.put-codes');
  const deleted = await ctx.client.delete(path);
  expectStatusCode(deleted, [200, 202], `DELETE ${path}`, 'rule.service.rest-verbs');
  // A delete may be pending (finalizers, graceful): then the object still shows with a deletionTimestamp.
  const after = await ctx.client.get(path);
  if (after.status === 200) {
    expectTrue(
      Boolean(after.object?.metadata?.deletionTimestamp),
      `GET ${path} after DELETE: still there without a deletionTimestamp`,
      'rule.service.rest-verbs',
    );
  } else {
    expectStatusCode(after, 404, `GET ${path} after DELETE`, 'rule.service.rest-verbs');
  }
}

check('crud.unique-names', { rows: ['rule.service.unique-names'], requires: CM_ALL, title: 'creating a name twice is 409 AlreadyExists and leaves one object' }, async (ctx) => {
  const ns = await ctx.namespace();
  await ctx.forAll(configMapData(2), async (data) => {
    const name = ctx.uniqueName('dup');
    const first = await createObject(ctx, CONFIGMAPS, name, ns, { data });
    const second = await ctx.client.create(collectionPath(CONFIGMAPS, ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { other: 'x' } });
    expectStatusCode(second, 409, `second create of ${name}`);
    expectStatusBody(second, { status: 'Failure', code: 409, reason: 'AlreadyExists', name, detailsKind: 'configmaps' }, `second create of ${name}`);
    const read = await readObject(ctx, CONFIGMAPS, name, ns);
    expectEqual(read.metadata.uid, first.metadata.uid, 'uid after the refused second create');
    expectEqual(read.data ?? {}, first.data ?? {}, 'data after the refused second create');
  });
});

check(
  'crud.stale-put-conflict',
  {
    rows: ['rule.ops.replace-optimistic-lock', 'error.optimistic-lock'],
    requires: CM_ALL,
    title: 'a PUT with a stale resourceVersion is 409 Conflict and changes nothing',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({ updates: fc.integer({ min: 1, max: 3 }), stale: fc.nat(), data: configMapData(2) }), async (v) => {
      const name = ctx.uniqueName('lock');
      let current = await createObject(ctx, CONFIGMAPS, name, ns);
      const versions = [current];
      for (let i = 0; i < v.updates; i++) {
        const res = await ctx.client.replace(objectPath(CONFIGMAPS, name, ns), { ...current, data: { step: String(i) } });
        expectStatusCode(res, [200, 201], `PUT ${name} step ${i} with the current resourceVersion`, 'rule.ops.replace-optimistic-lock');
        current = res.object!;
        versions.push(current);
      }
      const stale = versions[v.stale % (versions.length - 1)];
      const what = `PUT ${name} with the stale resourceVersion ${stale.metadata.resourceVersion} (current ${current.metadata.resourceVersion})`;
      const res = await ctx.client.replace(objectPath(CONFIGMAPS, name, ns), { ...stale, data: v.data });
      expectStatusCode(res, 409, what);
      expectStatusBody(res, { status: 'Failure', code: 409, reason: 'Conflict', name, detailsKind: 'configmaps' }, what, 'error.optimistic-lock');
      const read = await readObject(ctx, CONFIGMAPS, name, ns);
      expectEqual(read.metadata.resourceVersion, current.metadata.resourceVersion, 'resourceVersion after the refused PUT');
      expectEqual(read.data ?? {}, current.data ?? {}, 'data after the refused PUT');
    });
  },
);

check('crud.patch-last-write-wins', { rows: ['rule.ops.patch-no-optimistic-lock'], requires: CM_ALL, title: 'PATCHes based on the same read all succeed; the last one wins' }, async (ctx) => {
  const ns = await ctx.namespace();
  await ctx.forAll(fc.array(fc.string({ maxLength: 12 }), { minLength: 2, maxLength: 4 }), async (values) => {
    const name = ctx.uniqueName('patch');
    await createObject(ctx, CONFIGMAPS, name, ns);
    for (const value of values) {
      const res = await ctx.client.patch(objectPath(CONFIGMAPS, name, ns), { data: { key: value } }, 'merge');
      expectStatusCode(res, 200, `merge PATCH of ${name} without a resourceVersion`);
    }
    const read = await readObject(ctx, CONFIGMAPS, name, ns);
    expectEqual((read.data as Record<string, string> | undefined)?.key, values[values.length - 1], 'data.key after the PATCHes');
  });
});

check('crud.not-found', { rows: ['bodyType.Status', 'rule.ops.get-by-name'], requires: CM_ALL, title: 'GET, PUT, PATCH and DELETE of a missing object are 404 NotFound Status bodies' }, async (ctx) => {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('missing');
  const path = objectPath(CONFIGMAPS, name, ns);
  const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, resourceVersion: '1' } };
  const attempts = [
    { what: `GET ${path}`, send: () => ctx.client.get(path) },
    { what: `PUT ${path}`, send: () => ctx.client.replace(path, body) },
    { what: `PATCH ${path}`, send: () => ctx.client.patch(path, { data: { a: 'b' } }, 'merge') },
    { what: `DELETE ${path}`, send: () => ctx.client.delete(path) },
  ];
  for (const a of attempts) {
    const res = await a.send();
    expectStatusCode(res, 404, a.what);
    expectStatusBody(res, { status: 'Failure', code: 404, reason: 'NotFound', name, detailsKind: 'configmaps' }, a.what, 'bodyType.Status');
  }
});

check('crud.delete-success-status', { rows: ['error.delete-success-body', 'bodyType.Status', 'rule.delete.options-body', 'bodyType.DeleteOptions'], requires: CM_ALL, title: 'a delete answers a Status with status Success and code 200; DeleteOptions bodies in JSON and YAML' }, async (ctx) => {
  const ns = await ctx.namespace();
  for (const format of ['json', 'yaml'] as const) {
    const name = ctx.uniqueName(`del-${format}`);
    await createObject(ctx, CONFIGMAPS, name, ns);
    const path = objectPath(CONFIGMAPS, name, ns);
    const res = await forRows(['rule.delete.options-body', 'bodyType.DeleteOptions'], async () => {
      const r = await ctx.client.delete(path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' }, contentType: format });
      expectStatusCode(r, 200, `DELETE ${path} with a ${format} DeleteOptions body`);
      return r;
    });
    expectStatusBody(res, { status: 'Success', code: 200 }, `DELETE ${path}`, 'error.delete-success-body');
    const after = await ctx.client.get(path);
    expectStatusCode(after, 404, `GET ${path} after the delete`, 'error.delete-success-body');
  }
});

check('crud.delete-options-exclusive', { rows: ['rule.delete.options-exclusive', 'query.delete.orphanDependents', 'query.delete.propagationPolicy'], requires: CM_ALL, title: 'orphanDependents and propagationPolicy together are refused' }, async (ctx) => {
  const ns = await ctx.namespace();
  await ctx.forAll(fc.tuple(fc.boolean(), fc.constantFrom('Orphan', 'Background', 'Foreground'), fc.boolean()), async ([orphan, policy, inQuery]) => {
    const name = ctx.uniqueName('opts');
    await createObject(ctx, CONFIGMAPS, name, ns);
    const path = objectPath(CONFIGMAPS, name, ns);
    const res = inQuery
      ? await ctx.client.delete(path, { query: { orphanDependents: orphan, propagationPolicy: policy } })
      : await ctx.client.delete(path, { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: orphan, propagationPolicy: policy } });
    expectTrue(
      res.status >= 400 && res.status < 500,
      `DELETE with both orphanDependents=${orphan} and propagationPolicy=${policy} (${inQuery ? 'query' : 'body'}): expected a 4xx refusal, got ${describeResponse(res)}`,
    );
    const still = await ctx.client.get(path);
    expectStatusCode(still, 200, `GET ${path} after the refused delete`);
  });
});

check('crud.delete-grace-zero', { rows: ['rule.delete.grace-period-zero', 'query.delete.gracePeriodSeconds'], requires: CM_ALL, title: 'gracePeriodSeconds=0 deletes at once' }, async (ctx) => {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('grace');
  await createObject(ctx, CONFIGMAPS, name, ns);
  const path = objectPath(CONFIGMAPS, name, ns);
  const res = await ctx.client.delete(path, { query: { gracePeriodSeconds: 0 } });
  expectStatusCode(res, 200, `DELETE ${path}?gracePeriodSeconds=0`);
  expectStatusCode(await ctx.client.get(path), 404, `GET ${path} right after the delete`);
});

check('crud.list-label-selector', { rows: ['rule.ops.list-in-namespace', 'query.list.labelSelector'], requires: CM_ALL, title: 'a namespace list holds exactly its objects; labelSelector k=v restricts it' }, async (ctx) => {
  const value = fc.constantFrom('a', 'b', 'c');
  await ctx.forAll(fc.array(
    fc.record({ tier: fc.option(value, { nil: undefined }), env: fc.option(value, { nil: undefined }) }),
    { minLength: 1, maxLength: 5 },
  ), async (specs) => {
    const ns = await ctx.namespace();
    const made: Array<{ name: string; labels: Record<string, string> }> = [];
    for (const s of specs) {
      const objLabels: Record<string, string> = {};
      if (s.tier) objLabels.tier = s.tier;
      if (s.env) objLabels.env = s.env;
      const name = ctx.uniqueName('sel');
      await createObject(ctx, CONFIGMAPS, name, ns, { metadata: { name, labels: objLabels } });
      made.push({ name, labels: objLabels });
    }
    const path = collectionPath(CONFIGMAPS, ns);
    // Only the check's own objects (named sel-...) are compared: a cluster may put ConfigMaps of its own into
    // every namespace (e.g. a CA bundle publisher), which neither the spec nor this check forbids.
    const ours = (names: string[]) => names.filter((n) => n.startsWith('sel-'));
    expectEqual(ours(await listNames(ctx, path)), made.map((m) => m.name).sort(), `names listed in ${ns}`, 'rule.ops.list-in-namespace');
    for (const [key, v] of [['tier', 'a'], ['env', 'b']] as const) {
      const expected = made.filter((m) => m.labels[key] === v).map((m) => m.name).sort();
      const listed = await listObjects(ctx, path, { labelSelector: `${key}=${v}` });
      expectEqual(ours(listed.map((o) => o.metadata?.name ?? '').sort()), expected, `names listed with labelSelector ${key}=${v}`, 'query.list.labelSelector');
      const unmatched = listed.filter((o) => o.metadata?.labels?.[key] !== v).map((o) => o.metadata?.name);
      expectTrue(
        unmatched.length === 0,
        `the list with labelSelector ${key}=${v} holds objects without that label: ${JSON.stringify(unmatched)}`,
        'query.list.labelSelector',
      );
    }
  });
});

check('crud.list-all-namespaces', { rows: ['rule.ops.list-all-namespaces'], requires: CM_ALL, title: 'the cluster-wide list holds the objects of every namespace' }, async (ctx) => {
  const made: Array<{ ns: string; name: string }> = [];
  for (let i = 0; i < 2; i++) {
    const ns = await ctx.namespace();
    const name = ctx.uniqueName('all');
    await createObject(ctx, CONFIGMAPS, name, ns);
    made.push({ ns, name });
  }
  const res = await ctx.client.get<ListBody>(collectionPath(CONFIGMAPS));
  expectStatusCode(res, 200, 'GET /api/v1/configmaps');
  const items = res.object?.items ?? [];
  for (const m of made) {
    expectTrue(items.some((o) => o.metadata?.name === m.name && o.metadata?.namespace === m.ns), `the cluster-wide list lacks ${m.ns}/${m.name}`);
  }
});

check('crud.put-ignores-status', { rows: ['rule.writes.put-ignores-status', 'rule.ops.replace-ignores-status'], requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'update'])], title: 'the status part of a PUT on the main resource is ignored' }, async (ctx) => {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('deploy');
  await createObject(ctx, DEPLOYMENTS, name, ns);
  // Sentinels no controller would write (the Deployment asks for 1 replica), and a read-modify-write retried
  // on 409: the deployment controller writes status between our GET and PUT.
  const { res } = await replaceWithRetry<KubeObject & { status?: Record<string, unknown> }>(ctx, objectPath(DEPLOYMENTS, name, ns), (body) => {
    body.status = { ...(body.status ?? {}), replicas: 1007, readyReplicas: 1007, observedGeneration: 1099 };
    return body;
  });
  expectStatusCode(res, [200, 201], `PUT deployment ${name} with a status`);
  const ignored = (st: Record<string, unknown> | undefined) => st?.replicas !== 1007 && st?.readyReplicas !== 1007 && st?.observedGeneration !== 1099;
  expectTrue(ignored(res.object?.status), `the PUT changed status (answer): ${JSON.stringify(res.object?.status)}`);
  const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as KubeObject & { status?: Record<string, unknown> };
  expectTrue(ignored(read.status), `the PUT changed status: ${JSON.stringify(read.status)}`);
});

check('crud.status-subresource-only-status', { rows: ['rule.writes.subresource-only-part', 'rule.ops.status-only-through-status', 'rule.ops.scale'], requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get']), needs(DEPLOYMENTS, ['update'], 'status'), needs(DEPLOYMENTS, ['update'], 'scale')], title: 'a write to /status changes only status; to /scale only the replica count' }, async (ctx) => {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('deploy');
  await createObject(ctx, DEPLOYMENTS, name, ns);
  const path = objectPath(DEPLOYMENTS, name, ns);
  type Deploy = KubeObject & { spec: { replicas?: number; minReadySeconds?: number }; status?: Record<string, unknown> };
  await forRows(['rule.writes.subresource-only-part', 'rule.ops.status-only-through-status'], async () => {
    // The deployment controller owns this status and may overwrite it right after: what the spec guarantees
    // (4.10) is that the write changed status and only status, which its answer shows; spec must stay as it was.
    const { res } = await replaceWithRetry<Deploy>(ctx, `${path}/status`, (body) => {
      body.spec.minReadySeconds = 42;
      body.status = { ...(body.status ?? {}), observedGeneration: 5005 };
      return body;
    });
    expectStatusCode(res, [200, 201], `PUT ${path}/status`);
    expectEqual(res.object?.status?.observedGeneration, 5005, 'status.observedGeneration in the answer of PUT /status');
    expectTrue(res.object?.spec?.minReadySeconds !== 42, 'PUT /status changed spec.minReadySeconds (answer)');
    const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Deploy;
    expectTrue(read.spec.minReadySeconds !== 42, 'PUT /status changed spec.minReadySeconds');
  });
  await forRows(['rule.writes.subresource-only-part', 'rule.ops.scale'], async () => {
    const before = await readObject(ctx, DEPLOYMENTS, name, ns);
    const { res } = await replaceWithRetry<KubeObject & { spec?: { replicas?: number } }>(ctx, `${path}/scale`, (body) => {
      body.spec = { ...(body.spec ?? {}), replicas: 3 };
      return body;
    });
    expectStatusCode(res, [200, 201], `PUT ${path}/scale`);
    const read = (await readObject(ctx, DEPLOYMENTS, name, ns)) as Deploy;
    expectEqual(read.spec.replicas, 3, 'spec.replicas after PUT /scale');
    const strip = (o: KubeObject) => ({ ...(o.spec as Record<string, unknown>), replicas: undefined });
    expectEqual(strip(read), strip(before), 'the rest of spec after PUT /scale');
  });
});

check('crud.kind-not-updatable', { rows: ['rule.fields.kind-not-updatable'], requires: CM_ALL, title: 'a PUT that changes kind is refused' }, async (ctx) => {
  const ns = await ctx.namespace();
  const name = ctx.uniqueName('kind');
  const created = await createObject(ctx, CONFIGMAPS, name, ns);
  const res = await ctx.client.replace(objectPath(CONFIGMAPS, name, ns), { ...created, kind: 'Secret' });
  expectTrue(res.status >= 400 && res.status < 500, `PUT of a ConfigMap with kind Secret: expected a 4xx refusal, got ${describeResponse(res)}`);
  if (isStatus(res.object)) expectEqual(res.object.code, res.status, 'Status.code of the refusal');
  const read = await readObject(ctx, CONFIGMAPS, name, ns);
  expectEqual(read.kind, 'ConfigMap', 'kind after the refused PUT');
});
