// Versions (spec 9): the version is part of the path and every group version of the spec is served; a
// Deployment body with apiVersion apps/v1beta1 at the apps/v1 path is accepted (the spec says "returned as
// such"; a server answering apps/v1 is not held to it, the object must be created and readable); an
// unrecognised body apiVersion may be refused (then 400 and nothing stored) or accepted; and one Deployment
// is shared by apps/v1 and extensions/v1beta1: created through one, read, listed and watched through the
// other, each answered in the version asked for.
import fc from 'fast-check';
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectStatusCode, expectTrue, fail, forRows } from './harness/expect.ts';
import { apiBase, apiVersionOf, collectionPath, fixture, objectPath, SPEC_KINDS, type KindRef } from './harness/fixtures.ts';
import { DEPLOYMENTS, NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { specTables } from './harness/spec.ts';
import { groupVersionKey } from './harness/discovery.ts';
import type { JsonObject } from './harness/models/json.ts';
import { getIn } from './harness/workloads.ts';

const EXT_DEPLOYMENTS: KindRef = { group: 'extensions', version: 'v1beta1', kind: 'Deployment', resource: 'deployments', namespaced: true };

type ListBody = { apiVersion?: string; kind?: string; items?: KubeObject[]; metadata?: { resourceVersion?: string } };

function specGroupVersions(): string[] {
  const row = specTables().versioning.find((r) => r.id === 'version.groups-in-use') as { groupVersions?: string[] } | undefined;
  return ['v1', ...(row?.groupVersions ?? [])];
}

function prefixRowOf(gv: string): string | undefined {
  const p = specTables().prefixes.find((r) => apiVersionOf(r.group, r.version) === gv);
  return p?.id;
}

check(
  'versions.group-version-paths',
  {
    rows: ['version.path-carries-version', 'version.groups-in-use', 'prefix.CORE', 'prefix.EXT', 'prefix.APPS', 'prefix.BATCH', 'prefix.BATCHB', 'rule.scope.paths', 'field.List.apiVersion', 'field.List.kind', 'field.Object.apiVersion'],
    requires: [NEEDS_NAMESPACES],
    title: 'every group version of the spec is served at /api/v1 or /apis/<group>/<version>; lists and created objects there carry that apiVersion',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    for (const gv of specGroupVersions()) {
      const [group, version] = gv.includes('/') ? gv.split('/') : ['', gv];
      const rows = ['version.groups-in-use', 'version.path-carries-version', ...[prefixRowOf(gv)].filter((x): x is string => Boolean(x))];
      const base = apiBase(group, version);
      await forRows(rows, async () => {
        expectTrue(
          ctx.discovery.groupVersions[groupVersionKey(group, version)] !== undefined,
          `discovery does not list ${gv}, a group version the spec says is in use`,
        );
        const res = await ctx.client.get<{ kind?: string; groupVersion?: string }>(base);
        expectStatusCode(res, 200, `GET ${base}`);
        expectEqual(res.object?.kind, 'APIResourceList', `GET ${base}: kind`);
        expectEqual(res.object?.groupVersion, gv, `GET ${base}: groupVersion`);
      });
      for (const ref of SPEC_KINDS.filter((k) => apiVersionOf(k.group, k.version) === gv && k.namespaced && ctx.serves(needs(k, ['create', 'list'])))) {
        const name = ctx.uniqueName(ref.kind);
        const created = await ctx.client.create(collectionPath(ref, ns), fixture(ref, name, ns));
        expectStatusCode(created, [200, 201, 202], `create ${ref.kind} at ${collectionPath(ref, ns)}`, 'rule.writes.create-codes');
        await forRows(['version.path-carries-version', 'field.Object.apiVersion'], () => {
          if (created.object?.kind === ref.kind) expectEqual(created.object.apiVersion, gv, `create at ${collectionPath(ref, ns)}: apiVersion of the answer`);
        });
        const list = await ctx.client.get<ListBody>(collectionPath(ref, ns));
        expectStatusCode(list, 200, `GET ${collectionPath(ref, ns)}`, rows);
        await forRows(['version.path-carries-version', 'field.List.apiVersion', 'field.List.kind'], () => {
          expectEqual(list.object?.apiVersion, gv, `GET ${collectionPath(ref, ns)}: list apiVersion`);
          expectEqual(list.object?.kind, `${ref.kind}List`, `GET ${collectionPath(ref, ns)}: list kind`);
          expectTrue((list.object?.items ?? []).some((i) => i.metadata?.name === name), `GET ${collectionPath(ref, ns)}: ${name} not listed`);
        });
      }
    }
  },
);

// ---- apps/v1beta1 bodies at the apps/v1 path ------------------------------------------------------------

const labelValue = fc.stringMatching(/^[a-z0-9]{1,8}$/);

check(
  'versions.body-apiversion-may-differ',
  {
    rows: ['version.body-apiversion-may-differ', 'version.convert-recognised', 'endpoint.apps.deployments.namespaced.create', 'field.Object.apiVersion'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    title: 'a Deployment with body apiVersion apps/v1beta1 POSTed to the apps/v1 path is created and readable (answered as apps/v1beta1 or apps/v1)',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({
      replicas: fc.integer({ min: 0, max: 4 }),
      app: labelValue,
      minReadySeconds: fc.integer({ min: 0, max: 30 }),
    }), async ({ replicas, app, minReadySeconds }) => {
      const name = ctx.uniqueName('v1beta1');
      const body = {
        apiVersion: 'apps/v1beta1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas,
          minReadySeconds,
          selector: { matchLabels: { app } },
          template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image: 'busybox:1.28' }] } },
        },
      };
      const what = `POST ${collectionPath(DEPLOYMENTS, ns)} with body apiVersion apps/v1beta1`;
      const res = await ctx.client.create(collectionPath(DEPLOYMENTS, ns), body);
      expectStatusCode(res, [200, 201, 202], what, 'version.body-apiversion-may-differ');
      if (res.object?.kind === 'Deployment') {
        expectTrue(
          ['apps/v1beta1', 'apps/v1'].includes(String(res.object.apiVersion)),
          `${what}: answered with apiVersion ${res.object.apiVersion}`,
          'version.body-apiversion-may-differ',
        );
      }
      const read = await ctx.client.get(objectPath(DEPLOYMENTS, name, ns));
      expectStatusCode(read, 200, `${what}: GET ${objectPath(DEPLOYMENTS, name, ns)}`, 'version.body-apiversion-may-differ');
      await forRows(['version.body-apiversion-may-differ', 'version.convert-recognised'], () => {
        const o = read.object!;
        expectTrue(['apps/v1beta1', 'apps/v1'].includes(String(o.apiVersion)), `${what}: read back with apiVersion ${o.apiVersion}`);
        expectEqual(getIn(o, 'spec.replicas'), replicas, `${what}: spec.replicas read back`);
        expectEqual(getIn(o, 'spec.minReadySeconds') ?? 0, minReadySeconds, `${what}: spec.minReadySeconds read back`);
        expectEqual(getIn(o, 'spec.template.metadata.labels'), { app }, `${what}: template labels read back`);
      });
    });
  },
);

// ---- unrecognised apiVersion ------------------------------------------------------------------------------

const KNOWN_GROUPS = new Set(['', 'apps', 'extensions', 'batch', 'autoscaling', 'policy', 'rbac.authorization.k8s.io', 'networking.k8s.io', 'storage.k8s.io']);
const unknownApiVersion = fc.oneof(
  fc.stringMatching(/^v[2-9][0-9]?$/).map((v) => `apps/${v}`),
  fc.constantFrom('apps/v1gamma1', 'apps/v0', 'apps/V1', 'apps/v1beta9'),
  fc.tuple(fc.stringMatching(/^[a-z]{2,8}\.example\.com$/), fc.constantFrom('v1', 'v1beta1')).map(([g, v]) => `${g}/${v}`),
).filter((gv) => !KNOWN_GROUPS.has(gv.split('/')[0]) || gv.startsWith('apps/'));

check(
  'versions.unrecognised-apiversion',
  {
    rows: ['field.Object.apiVersion'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get'])],
    title: 'a body apiVersion the server does not recognise is refused with 400 and nothing stored (or accepted, which the spec allows); never 5xx',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(unknownApiVersion, async (apiVersion) => {
      const name = ctx.uniqueName('unknown');
      const body = { ...(fixture(DEPLOYMENTS, name, ns) as unknown as JsonObject), apiVersion };
      const what = `POST ${collectionPath(DEPLOYMENTS, ns)} with body apiVersion ${apiVersion}`;
      const res = await ctx.client.create(collectionPath(DEPLOYMENTS, ns), body);
      const read = await ctx.client.get(objectPath(DEPLOYMENTS, name, ns));
      if ([200, 201, 202].includes(res.status)) {
        expectStatusCode(read, 200, `${what}: accepted (the spec allows it), then GET`);
      } else {
        expectStatusCode(res, 400, what);
        expectStatusCode(read, 404, `${what}: GET after the refusal`);
      }
    });
  },
);

// ---- apps/v1 and extensions/v1beta1 share Deployments -------------------------------------------------

async function firstWatchObject(ctx: CheckContext, ref: KindRef, ns: string, name: string, resourceVersion: string): Promise<KubeObject> {
  const stream = await ctx.client.watch(collectionPath(ref, ns), {
    query: { watch: 'true', resourceVersion, fieldSelector: `metadata.name=${name}` },
    timeoutMs: 10_000,
  });
  try {
    if (stream.status !== 200) fail(`watch ${collectionPath(ref, ns)} answered ${stream.status}: ${stream.receivedText().slice(0, 200)}`);
    const event = await stream.next(5_000);
    if (!event) fail(`watch ${collectionPath(ref, ns)} from resourceVersion ${resourceVersion}: no event for ${name} within 5 s`);
    return event.object as KubeObject;
  } finally {
    stream.close();
  }
}

check(
  'versions.shared-deployments',
  {
    rows: ['version.convert-recognised', 'endpoint.ext.deployments.namespaced.list', 'endpoint.ext.deployments.cluster-wide.watch', 'endpoint.apps.deployments.namespaced.watch', 'field.Object.apiVersion', 'rule.watch.list-with-watch-param'],
    requires: [NEEDS_NAMESPACES, needs(DEPLOYMENTS, ['create', 'get', 'list', 'watch', 'patch']), needs(EXT_DEPLOYMENTS, ['create', 'get', 'list', 'watch', 'patch'])],
    title: 'a Deployment created through apps/v1 or extensions/v1beta1 is read, listed, watched and patched through the other, each in the version asked for',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    await ctx.forAll(fc.record({
      fromApps: fc.boolean(),
      replicas: fc.integer({ min: 0, max: 3 }),
      to: fc.integer({ min: 0, max: 3 }),
      app: labelValue,
    }), async ({ fromApps, replicas, to, app }) => {
      const [a, b] = fromApps ? [DEPLOYMENTS, EXT_DEPLOYMENTS] : [EXT_DEPLOYMENTS, DEPLOYMENTS];
      const gvA = apiVersionOf(a.group, a.version);
      const gvB = apiVersionOf(b.group, b.version);
      const name = ctx.uniqueName('shared');
      const listBefore = await ctx.client.get<ListBody>(collectionPath(b, ns));
      expectStatusCode(listBefore, 200, `GET ${collectionPath(b, ns)}`);
      const body = {
        apiVersion: gvA,
        kind: 'Deployment',
        metadata: { name },
        spec: {
          replicas,
          selector: { matchLabels: { app } },
          template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'main', image: 'busybox:1.28' }] } },
        },
      };
      const created = await ctx.client.create(collectionPath(a, ns), body);
      if (![200, 201, 202].includes(created.status)) fail(`create through ${gvA}: ${describeResponse(created)}`, 'rule.writes.create-codes');
      const uid = created.object?.metadata?.uid;
      const what = `Deployment ${name} created through ${gvA}`;
      await forRows('version.convert-recognised', async () => {
        const got = await ctx.client.get(objectPath(b, name, ns));
        expectStatusCode(got, 200, `${what}: GET through ${gvB}`);
        expectEqual(got.object?.apiVersion, gvB, `${what}: apiVersion of the GET through ${gvB}`);
        if (uid) expectEqual(got.object?.metadata?.uid, uid, `${what}: uid through ${gvB}`);
        expectEqual(getIn(got.object, 'spec.replicas'), replicas, `${what}: spec.replicas through ${gvB}`);
        const list = await ctx.client.get<ListBody>(collectionPath(b, ns));
        expectStatusCode(list, 200, `${what}: list through ${gvB}`);
        expectEqual(list.object?.apiVersion, gvB, `${what}: apiVersion of the list through ${gvB}`);
        const item = (list.object?.items ?? []).find((i) => i.metadata?.name === name);
        expectTrue(item !== undefined, `${what}: not in the list through ${gvB}`);
        if (item?.apiVersion !== undefined) expectEqual(item.apiVersion, gvB, `${what}: apiVersion of the list item through ${gvB}`);
        const watched = await firstWatchObject(ctx, b, ns, name, listBefore.object?.metadata?.resourceVersion ?? '0');
        expectEqual(watched.apiVersion, gvB, `${what}: apiVersion of the watch event object through ${gvB}`);
        expectEqual(watched.metadata?.name, name, `${what}: name of the first watch event through ${gvB}`);
        const patched = await ctx.client.patch(objectPath(b, name, ns), { spec: { replicas: to } }, 'merge');
        expectStatusCode(patched, 200, `${what}: merge PATCH spec.replicas ${to} through ${gvB}`);
        expectEqual(patched.object?.apiVersion, gvB, `${what}: apiVersion of the PATCH answer through ${gvB}`);
        const back = await ctx.client.get(objectPath(a, name, ns));
        expectStatusCode(back, 200, `${what}: GET through ${gvA} after the patch`);
        expectEqual(back.object?.apiVersion, gvA, `${what}: apiVersion through ${gvA}`);
        expectEqual(getIn(back.object, 'spec.replicas'), to, `${what}: spec.replicas through ${gvA} after patching through ${gvB}`);
      });
    });
  },
);
