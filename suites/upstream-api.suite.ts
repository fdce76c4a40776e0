// What the upstream conformance registry asks of the API alone (the `api` profile: no controller or node needed),
// through the group versions the spec serves: each kind's life through its verbs (create seen by a watch, read,
// list across namespaces by label, patch, replace, delete seen by a watch, delete as a collection); /status
// writes that answer with what was written, leave spec alone and read back; discovery of every group with its
// preferred version and /version; empty ConfigMap and Secret keys refused; pods found by label, updated, patched
// in status, given a QOS class, deleted as a collection; the `kubernetes` Service; namespaces updated and patched;
// LocalSubjectAccessReview agreeing with what an impersonated account can do; custom resource definitions
// listed, watched, their status written and found in discovery; watches started at events' versions agreeing.
// Each check names its registry entries (`upstream`); suites/UPSTREAM-CONFORMANCE.md is the map.
import type { KubeList, KubeObject } from '../simulator/api/meta.ts';
import { check } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail, forRows } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer } from './harness/observe.ts';
import { listItems, read } from './harness/progress.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { mustCreate, mustPatch, runningTemplate } from './harness/upstream-kit.ts';

const gvPath = (ref: KindRef) => (ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`);
const apiVersion = (ref: KindRef) => (ref.group ? `${ref.group}/${ref.version}` : ref.version);
const nsPath = (ref: KindRef, ns: string) => `${gvPath(ref)}/namespaces/${ns}/${ref.resource}`;
const kind = (group: string, version: string, k: string, resource: string): KindRef => ({ group, version, kind: k, resource, namespaced: true });

const POD_SPEC = { ...runningTemplate({}).spec, schedulerName: 'conformance-no-scheduler' };
const selectorFor = { matchLabels: { never: 'matches' } };

// ---- Life through the verbs ---------------------------------------------------------------------------------

interface Life {
  ref: KindRef;
  upstream: number[];
  body: (name: string, ns: string) => Record<string, unknown>;
  /** A change made by PUT, and how to see it in an answer. */
  update: (o: Record<string, unknown>) => Record<string, unknown>;
  updated: (o: KubeObject | undefined) => boolean;
  /** A change made by PATCH (besides a label), and how to see it. */
  patch?: { body: Record<string, unknown>; seen: (o: KubeObject | undefined) => boolean };
}

const annotate = (o: Record<string, unknown>) => ({ ...o, metadata: { ...(o.metadata as object), annotations: { ...((o.metadata as { annotations?: object }).annotations ?? {}), updated: 'yes' } } });
const annotated = (o: KubeObject | undefined) => o?.metadata.annotations?.updated === 'yes';

const LIVES: Life[] = [
  {
    ref: kind('', 'v1', 'ConfigMap', 'configmaps'),
    upstream: [223],
    body: () => ({ data: { key: 'value' } }),
    update: (o) => ({ ...o, data: { key: 'updated' } }),
    updated: (o) => (o as unknown as { data?: Record<string, string> })?.data?.key === 'updated',
    patch: { body: { data: { other: 'patched' } }, seen: (o) => (o as unknown as { data?: Record<string, string> })?.data?.other === 'patched' },
  },
  {
    ref: kind('apps', 'v1', 'DaemonSet', 'daemonsets'),
    upstream: [100],
    body: () => ({ spec: { selector: selectorFor, template: { ...runningTemplate(selectorFor.matchLabels), spec: { ...runningTemplate({}).spec, nodeSelector: { 'conformance.example.com/none': 'none' } } } } }),
    update: annotate,
    updated: annotated,
  },
  {
    ref: kind('apps', 'v1', 'ReplicaSet', 'replicasets'),
    upstream: [131, 128],
    body: () => ({ spec: { replicas: 0, selector: selectorFor, template: runningTemplate(selectorFor.matchLabels) } }),
    update: annotate,
    updated: annotated,
    patch: { body: { spec: { minReadySeconds: 3 } }, seen: (o) => (o?.spec as { minReadySeconds?: number })?.minReadySeconds === 3 },
  },
  {
    ref: kind('', 'v1', 'ResourceQuota', 'resourcequotas'),
    upstream: [70, 78],
    body: () => ({ spec: { hard: { pods: '5' } } }),
    update: (o) => ({ ...o, spec: { hard: { pods: '6' } } }),
    updated: (o) => (o?.spec as { hard?: Record<string, string> })?.hard?.pods === '6',
  },
  {
    ref: kind('policy', 'v1beta1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
    upstream: [115, 117],
    // 1.9 refuses changes of a budget's spec (mutable from 1.15): the update and patch change metadata.
    body: () => ({ spec: { minAvailable: 1, selector: selectorFor } }),
    update: annotate,
    updated: annotated,
  },
  {
    ref: kind('apps', 'v1', 'StatefulSet', 'statefulsets'),
    upstream: [144],
    body: (name) => ({ spec: { replicas: 0, serviceName: name, selector: selectorFor, template: runningTemplate(selectorFor.matchLabels) } }),
    update: annotate,
    updated: annotated,
    // 1.9 lets a StatefulSet's spec change only in replicas, template and updateStrategy.
    patch: { body: { spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null } } }, seen: (o) => (o?.spec as { updateStrategy?: { type?: string } })?.updateStrategy?.type === 'OnDelete' },
  },
  {
    ref: kind('', 'v1', 'ServiceAccount', 'serviceaccounts'),
    upstream: [155, 156],
    body: () => ({}),
    update: (o) => ({ ...o, automountServiceAccountToken: false }),
    updated: (o) => (o as unknown as { automountServiceAccountToken?: boolean })?.automountServiceAccountToken === false,
  },
  {
    ref: kind('', 'v1', 'Event', 'events'),
    upstream: [178, 177, 175, 176],
    body: (name, ns) => ({ involvedObject: { kind: 'Pod', name, namespace: ns, apiVersion: 'v1' }, reason: 'Conformance', message: 'first', type: 'Normal', source: { component: 'conformance' }, count: 1 }),
    update: (o) => ({ ...o, message: 'updated' }),
    updated: (o) => (o as unknown as { message?: string })?.message === 'updated',
    patch: { body: { message: 'patched' }, seen: (o) => (o as unknown as { message?: string })?.message === 'patched' },
  },
  {
    ref: kind('', 'v1', 'Endpoints', 'endpoints'),
    upstream: [219],
    body: () => ({ subsets: [{ addresses: [{ ip: '10.9.9.1' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] }),
    update: (o) => ({ ...o, subsets: [{ addresses: [{ ip: '10.9.9.2' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }] }),
    updated: (o) => JSON.stringify((o as unknown as { subsets?: unknown })?.subsets ?? '').includes('10.9.9.2'),
    patch: {
      body: { subsets: [{ addresses: [{ ip: '10.9.9.3' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] },
      seen: (o) => JSON.stringify((o as unknown as { subsets?: unknown })?.subsets ?? '').includes('10.9.9.3'),
    },
  },
  {
    ref: kind('', 'v1', 'Secret', 'secrets'),
    upstream: [291],
    body: () => ({ data: { key: Buffer.from('value').toString('base64') } }),
    update: (o) => ({ ...o, data: { key: Buffer.from('updated').toString('base64') } }),
    updated: (o) => (o as unknown as { data?: Record<string, string> })?.data?.key === Buffer.from('updated').toString('base64'),
    patch: { body: { data: { other: Buffer.from('patched').toString('base64') } }, seen: (o) => (o as unknown as { data?: Record<string, string> })?.data?.other === Buffer.from('patched').toString('base64') },
  },
  {
    ref: kind('extensions', 'v1beta1', 'Ingress', 'ingresses'),
    upstream: [193],
    body: (name) => ({ spec: { backend: { serviceName: name, servicePort: 80 } } }),
    update: (o) => ({ ...o, spec: { backend: { serviceName: 'updated', servicePort: 80 } } }),
    updated: (o) => (o?.spec as { backend?: { serviceName?: string } })?.backend?.serviceName === 'updated',
    patch: { body: { spec: { backend: { serviceName: 'patched', servicePort: 81 } } }, seen: (o) => (o?.spec as { backend?: { serviceName?: string } })?.backend?.serviceName === 'patched' },
  },
  {
    ref: kind('batch', 'v1', 'Job', 'jobs'),
    upstream: [126],
    body: () => ({ spec: { parallelism: 0, template: { ...runningTemplate({ job: 'life' }), spec: { ...runningTemplate({}).spec, restartPolicy: 'Never' } } } }),
    update: annotate,
    updated: annotated,
    patch: { body: { spec: { parallelism: 0, activeDeadlineSeconds: 600 } },
      seen: (o) => (o?.spec as { activeDeadlineSeconds?: number })?.activeDeadlineSeconds === 600 },
  },
];

for (const life of LIVES) {
  const { ref } = life;
  check(
    `upstream.life.${ref.group || 'core'}.${ref.version}.${ref.resource}`,
    {
      rows: ['rule.ops.create-stores', 'rule.ops.get-by-name', 'rule.ops.list-all-namespaces', 'rule.ops.patch-merge-per-field', 'rule.ops.watch', 'rule.service.rest-verbs'],
      upstream: life.upstream,
      requires: [NEEDS_NAMESPACES, needs(ref, ['create', 'get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection'])],
      title: `${apiVersion(ref)} ${ref.kind}: create seen by a watch, read, listed across namespaces by label, patched, replaced, deleted (seen by the watch), deleted as a collection by label`,
    },
    async (ctx) => {
      const ns = await ctx.namespace();
      const set = `life-${ns.slice(-10)}`;
      const coll = nsPath(ref, ns);
      const watch = await Observer.open(ctx, coll, `set=${set}`);
      try {
        for (const name of ['one', 'two']) await mustCreate(ctx, coll, { apiVersion: apiVersion(ref), kind: ref.kind, metadata: { name, labels: { set } }, ...life.body(name, ns) }, `${ref.kind} ${name}`);
        const added = await watch.until(10_000, (all) => (all.length === 2 ? true : undefined));
        expectTrue(added, `the watch did not show both created objects: ${watch.story()}`, 'rule.ops.watch');
        const got = await ctx.client.get(`${coll}/one`);
        expectTrue(got.status === 200 && got.object?.metadata.name === 'one', `GET ${coll}/one: ${describeResponse(got)}`, 'rule.ops.get-by-name');
        const across = await ctx.client.get<KubeList>(`${gvPath(ref)}/${ref.resource}`, { query: { labelSelector: `set=${set}` } });
        expectEqual((across.object?.items ?? []).map((i) => `${i.metadata.namespace}/${i.metadata.name}`).sort(), [`${ns}/one`, `${ns}/two`], `list across namespaces with labelSelector set=${set}`, 'rule.ops.list-all-namespaces');
        const patched = await mustPatch(ctx, `${coll}/one`, { metadata: { labels: { patched: 'yes' } }, ...(life.patch?.body ?? {}) }, `PATCH ${ref.kind} one`);
        const patchedNow = await read(ctx, `${coll}/one`);
        await forRows('rule.ops.patch-merge-per-field', () => {
          expectTrue(patched.metadata.labels?.patched === 'yes' && patchedNow?.metadata.labels?.patched === 'yes' && patchedNow.metadata.labels?.set === set, `a label added by PATCH reads back beside the old one: ${JSON.stringify(patchedNow?.metadata.labels)}`);
          if (life.patch) expectTrue(life.patch.seen(patched) && life.patch.seen(patchedNow), `the patched field reads back: ${JSON.stringify(patchedNow).slice(0, 400)}`);
        });
        // Read-modify-write retried on 409: a controller may write the object (its status) in between.
        const { res: put } = await replaceWithRetry(ctx, `${coll}/one`, (cur) => life.update(cur as unknown as Record<string, unknown>) as unknown as KubeObject);
        expectTrue(
          put.status === 200 && life.updated(put.object) && life.updated(await read(ctx, `${coll}/one`)),
          `PUT of ${ref.kind} one: the change reads back: ${describeResponse(put)}`,
          'rule.service.rest-verbs',
        );
        const del = await ctx.client.delete(`${coll}/one`);
        expectTrue(del.status === 200 || del.status === 202, `DELETE ${coll}/one: ${describeResponse(del)}`, 'rule.service.rest-verbs');
        const seenDeleted = await watch.until(10_000, (all) => (all.some((o) => o.metadata.name === 'one') ? undefined : true));
        expectTrue(seenDeleted && watch.log.some((c) => c.type === 'DELETED' && c.name === 'one'), `the watch did not show the deletion of one: ${watch.story()}`, 'rule.ops.watch');
        const dc = await ctx.client.delete(coll, { query: { labelSelector: `set=${set}` } });
        expectTrue(dc.status === 200, `DELETE of the collection by label: ${describeResponse(dc)}`, 'rule.service.rest-verbs');
        const emptied = await watch.until(10_000, (all) => (all.length === 0 ? true : undefined));
        expectTrue(emptied, `after the collection delete the watch still has ${watch.list().map((o) => o.metadata.name).join(', ')}`, 'rule.service.rest-verbs');
        expectEqual((await listItems(ctx, coll, `set=${set}`)).length, 0, 'objects listed by the label after the collection delete', 'rule.service.rest-verbs');
      } finally {
        watch.close();
      }
    },
  );
}

// ---- /status ------------------------------------------------------------------------------------------------

interface StatusCase {
  ref: KindRef;
  upstream: number[];
  body: (name: string) => Record<string, unknown>;
  /** Two different status changes (for PUT, then PATCH), and how to see each. */
  put: Record<string, unknown>;
  putSeen: (s: Record<string, unknown>) => boolean;
  patch: Record<string, unknown>;
  patchSeen: (s: Record<string, unknown>) => boolean;
}

const cond = (type: string) => ({ type, status: 'True', reason: 'Conformance', message: 'set by the conformance check', lastTransitionTime: '2020-01-01T00:00:00Z' });
const hasCond = (type: string) => (s: Record<string, unknown>) => ((s.conditions as Array<{ type: string }>) ?? []).some((c) => c.type === type);

const STATUS: StatusCase[] = [
  {
    ref: kind('batch', 'v1beta1', 'CronJob', 'cronjobs'),
    upstream: [99],
    body: (name) => ({ spec: { schedule: '0 0 1 1 *', suspend: true, jobTemplate: { spec: { template: { ...runningTemplate({ cron: name }), spec: { ...runningTemplate({}).spec, restartPolicy: 'Never' } } } } } }),
    put: { lastScheduleTime: '2020-01-01T00:00:00Z' },
    putSeen: (s) => s.lastScheduleTime === '2020-01-01T00:00:00Z',
    patch: { lastScheduleTime: '2020-02-01T00:00:00Z' },
    patchSeen: (s) => s.lastScheduleTime === '2020-02-01T00:00:00Z',
  },
  {
    ref: kind('apps', 'v1', 'DaemonSet', 'daemonsets'),
    upstream: [106],
    body: () => ({ spec: { selector: selectorFor, template: { ...runningTemplate(selectorFor.matchLabels), spec: { ...runningTemplate({}).spec, nodeSelector: { 'conformance.example.com/none': 'none' } } } } }),
    put: { collisionCount: 3, currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    putSeen: (s) => s.collisionCount === 3,
    patch: { collisionCount: 4 },
    patchSeen: (s) => s.collisionCount === 4,
  },
  {
    ref: kind('policy', 'v1beta1', 'PodDisruptionBudget', 'poddisruptionbudgets'),
    upstream: [119],
    body: () => ({ spec: { minAvailable: 1, selector: selectorFor } }),
    put: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 1, expectedPods: 0, observedGeneration: 1, disruptedPods: { gone: '2020-01-01T00:00:00Z' } },
    putSeen: (s) => JSON.stringify(s.disruptedPods ?? {}).includes('gone'),
    patch: { disruptedPods: { 'gone-too': '2020-01-01T00:00:00Z' } },
    patchSeen: (s) => JSON.stringify(s.disruptedPods ?? {}).includes('gone-too'),
  },
  {
    ref: kind('batch', 'v1', 'Job', 'jobs'),
    upstream: [123],
    body: () => ({ spec: { parallelism: 0, template: { ...runningTemplate({ job: 'status' }), spec: { ...runningTemplate({}).spec, restartPolicy: 'Never' } } } }),
    put: { startTime: '2020-01-01T00:00:00Z' },
    putSeen: (s) => s.startTime === '2020-01-01T00:00:00Z',
    patch: { startTime: '2020-02-01T00:00:00Z' },
    patchSeen: (s) => s.startTime === '2020-02-01T00:00:00Z',
  },
  {
    ref: kind('apps', 'v1', 'ReplicaSet', 'replicasets'),
    upstream: [133],
    body: () => ({ spec: { replicas: 0, selector: selectorFor, template: runningTemplate(selectorFor.matchLabels) } }),
    put: { replicas: 0, conditions: [cond('ConformancePut')] },
    putSeen: hasCond('ConformancePut'),
    patch: { conditions: [cond('ConformancePatch')] },
    patchSeen: hasCond('ConformancePatch'),
  },
  {
    ref: kind('apps', 'v1', 'StatefulSet', 'statefulsets'),
    upstream: [147],
    body: (name) => ({ spec: { replicas: 0, serviceName: name, selector: selectorFor, template: runningTemplate(selectorFor.matchLabels) } }),
    put: { replicas: 0, collisionCount: 3 },
    putSeen: (s) => s.collisionCount === 3,
    patch: { collisionCount: 4 },
    patchSeen: (s) => s.collisionCount === 4,
  },
  {
    ref: kind('', 'v1', 'Service', 'services'),
    upstream: [210],
    body: () => ({ spec: { ports: [{ port: 80 }] } }),
    put: { loadBalancer: { ingress: [{ ip: '203.0.113.1' }] } },
    putSeen: (s) => JSON.stringify(s.loadBalancer ?? {}).includes('203.0.113.1'),
    patch: { loadBalancer: { ingress: [{ ip: '203.0.113.2' }] } },
    patchSeen: (s) => JSON.stringify(s.loadBalancer ?? {}).includes('203.0.113.2'),
  },
  {
    ref: kind('', 'v1', 'Pod', 'pods'),
    upstream: [268, 269],
    // No scheduler of that name: no node, so no kubelet writes this pod's status meanwhile.
    body: () => ({ spec: POD_SPEC }),
    put: { phase: 'Pending', message: 'put by the conformance check', conditions: [cond('ConformancePut')] },
    putSeen: (s) => s.message === 'put by the conformance check',
    patch: { message: 'patched by the conformance check' },
    patchSeen: (s) => s.message === 'patched by the conformance check',
  },
];

for (const c of STATUS) {
  const { ref } = c;
  check(
    `upstream.status.${ref.group || 'core'}.${ref.version}.${ref.resource}`,
    {
      rows: ['rule.ops.status-only-through-status', 'rule.writes.subresource-only-part'],
      upstream: c.upstream,
      requires: [NEEDS_NAMESPACES, needs(ref, ['create', 'get']), needs(ref, ['get', 'update', 'patch'], 'status')],
      title: `${apiVersion(ref)} ${ref.kind}/status: GET, PUT and PATCH answer with the written status, leave spec as it was, and read back (or a later write by another shows)`,
    },
    async (ctx) => {
      const ns = await ctx.namespace();
      const path = `${nsPath(ref, ns)}/st`;
      const made = await mustCreate(ctx, nsPath(ref, ns), { apiVersion: apiVersion(ref), kind: ref.kind, metadata: { name: 'st' }, ...c.body('st') }, `${ref.kind} st`);
      const specJson = JSON.stringify(made.spec ?? null);
      const got = await ctx.client.get(`${path}/status`);
      expectTrue(got.status === 200 && got.object?.metadata.name === 'st', `GET ${path}/status: ${describeResponse(got)}`, 'rule.ops.status-only-through-status');
      const statusOf = (o: KubeObject | undefined) => (o?.status ?? {}) as Record<string, unknown>;
      // The body also asks for a spec change, which /status must ignore.
      // Read-modify-write retried on 409: a controller may write the status in between.
      const { res: put } = await replaceWithRetry(ctx, `${path}/status`, (cur) => ({ ...cur, spec: { ...(cur.spec as object), conformanceIgnored: true }, metadata: { ...cur.metadata }, status: { ...statusOf(cur), ...c.put } }));
      await forRows(['rule.ops.status-only-through-status', 'rule.writes.subresource-only-part'], async () => {
        expectTrue(put.status === 200 && c.putSeen(statusOf(put.object)), `PUT ${path}/status answers with the written status: ${describeResponse(put)}`);
        expectEqual(JSON.stringify(put.object?.spec ?? null), specJson, 'spec in the answer to PUT /status');
        const patch = await ctx.client.patch(`${path}/status`, { status: c.patch }, 'merge');
        expectTrue(patch.status === 200 && c.patchSeen(statusOf(patch.object)), `PATCH ${path}/status answers with the patched status: ${describeResponse(patch)}`);
        const now = await read(ctx, path);
        const moved = now?.metadata.resourceVersion !== patch.object?.metadata.resourceVersion;
        expectTrue(c.patchSeen(statusOf(now)) || moved, `a GET after PATCH /status shows neither the patched status nor a later write: ${JSON.stringify(now?.status)}`);
        expectEqual(JSON.stringify(now?.spec ?? null), specJson, 'spec read after the /status writes');
      });
    },
  );
}

// ---- Discovery and version ----------------------------------------------------------------------------------

check(
  'upstream.discovery.every-group',
  {
    rows: ['rule.service.rest-verbs', 'version.groups-in-use'],
    upstream: [47, 48, 93],
    requires: [],
    title: 'every group in /apis names a preferred version among its versions; every group version document carries its groupVersion and names resources; /version gives integer major and minor',
  },
  async (ctx) => {
    const apis = await ctx.client.get<{ groups?: Array<{ name: string; versions: Array<{ groupVersion: string; version: string }>; preferredVersion?: { groupVersion: string; version: string } }> }>('/apis');
    if (apis.status !== 200 || !apis.object?.groups) fail(`GET /apis: ${describeResponse(apis)}`, 'version.groups-in-use');
    const problems: string[] = [];
    for (const g of apis.object.groups) {
      const pref = g.preferredVersion;
      if (!pref || !g.versions.some((v) => v.groupVersion === pref.groupVersion && v.version === pref.version)) problems.push(`group ${g.name}: preferredVersion ${JSON.stringify(pref)} is not one of its versions`);
      for (const v of g.versions) {
        const doc = await ctx.client.get<{ groupVersion?: string; resources?: Array<{ name: string }> }>(`/apis/${v.groupVersion}`);
        if (doc.status !== 200 || doc.object?.groupVersion !== v.groupVersion || !(doc.object.resources ?? []).length) problems.push(`/apis/${v.groupVersion}: HTTP ${doc.status}, groupVersion ${JSON.stringify(doc.object?.groupVersion)}, ${(doc.object?.resources ?? []).length} resources`);
      }
      const groupDoc = await ctx.client.get<{ preferredVersion?: { groupVersion: string } }>(`/apis/${g.name}`);
      if (groupDoc.status !== 200 || groupDoc.object?.preferredVersion?.groupVersion !== pref?.groupVersion) problems.push(`/apis/${g.name}: HTTP ${groupDoc.status}, preferredVersion ${JSON.stringify(groupDoc.object?.preferredVersion)} (in /apis: ${pref?.groupVersion})`);
    }
    expectTrue(problems.length === 0, `entries 47/48: ${problems.join('; ')}`, 'version.groups-in-use');
    const version = await ctx.client.get<{ major?: string; minor?: string }>('/version');
    expectTrue(version.status === 200 && /^\d+$/.test(version.object?.major ?? '') && /^\d+\+?$/.test(version.object?.minor ?? ''), `entry 93: /version should give integer major and minor: ${describeResponse(version)}`, 'version.groups-in-use');
  },
);

// ---- Empty keys ---------------------------------------------------------------------------------------------

check(
  'upstream.validation.empty-data-keys',
  {
    rows: ['rule.ops.create-stores'],
    upstream: [222, 290],
    requires: [NEEDS_NAMESPACES, needs(kind('', 'v1', 'ConfigMap', 'configmaps'), ['create']), needs(kind('', 'v1', 'Secret', 'secrets'), ['create'])],
    title: 'a ConfigMap or Secret with an empty data key is refused (422 Invalid) and not stored',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    for (const [resource, k, data, entry] of [['configmaps', 'ConfigMap', { '': 'value' }, 222], ['secrets', 'Secret', { '': Buffer.from('value').toString('base64') }, 290]] as const) {
      const res = await ctx.client.create(`/api/v1/namespaces/${ns}/${resource}`, { apiVersion: 'v1', kind: k, metadata: { name: 'empty-key' }, data });
      expectTrue(res.status === 422 && (res.object as unknown as { reason?: string })?.reason === 'Invalid', `entry ${entry}: a ${k} with an empty data key: ${describeResponse(res)}`, 'rule.ops.create-stores');
      expectEqual((await ctx.client.get(`/api/v1/namespaces/${ns}/${resource}/empty-key`)).status, 404, `entry ${entry}: the refused ${k} is not stored`, 'rule.ops.create-stores');
    }
  },
);

// ---- Pods through the API -----------------------------------------------------------------------------------

check(
  'upstream.pods.api',
  {
    rows: ['rule.ops.create-stores', 'rule.ops.list-in-namespace', 'rule.ops.patch-merge-per-field', 'rule.service.rest-verbs'],
    upstream: [261, 264, 266, 269],
    requires: [NEEDS_NAMESPACES, needs(kind('', 'v1', 'Pod', 'pods'), ['create', 'get', 'list', 'patch', 'delete', 'deletecollection'])],
    title: 'pods get qosClass Guaranteed, Burstable or BestEffort from their requests and limits; a changed label is found by the new selector only; labelled pods go with a collection delete',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const mk = async (name: string, resources?: unknown) => {
      const spec = JSON.parse(JSON.stringify(POD_SPEC)) as { containers: Array<Record<string, unknown>> };
      if (resources) spec.containers[0].resources = resources;
      return mustCreate(ctx, pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { group: 'qos', name } }, spec }, `pod ${name}`);
    };
    const qos: Array<[string, unknown, string]> = [
      ['guaranteed', { requests: { cpu: '100m', memory: '10Mi' }, limits: { cpu: '100m', memory: '10Mi' } }, 'Guaranteed'],
      ['burstable', { requests: { cpu: '100m' } }, 'Burstable'],
      ['besteffort', undefined, 'BestEffort'],
    ];
    const classes: string[] = [];
    for (const [name, r, want] of qos) {
      const made = await mk(name, r);
      const now = await read(ctx, `${pods}/${name}`);
      const got = (now?.status as { qosClass?: string } | undefined)?.qosClass ?? (made.status as { qosClass?: string } | undefined)?.qosClass;
      if (got !== want) classes.push(`${name}: qosClass ${JSON.stringify(got)}, expected ${want}`);
    }
    expectTrue(classes.length === 0, `entry 261: ${classes.join('; ')}`, 'rule.ops.create-stores');
    await mustPatch(ctx, `${pods}/besteffort`, { metadata: { labels: { name: 'relabelled' } } }, 'changing a pod label');
    await forRows('rule.ops.list-in-namespace', async () => {
      expectEqual((await listItems(ctx, pods, 'name=relabelled')).map((p) => p.metadata.name), ['besteffort'], 'entry 264: pods found by the new label');
      expectEqual((await listItems(ctx, pods, 'name=besteffort')).length, 0, 'entry 264: pods found by the old label');
    });
    const dc = await ctx.client.delete(pods, { query: { labelSelector: 'group=qos' }, body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
    expectTrue(dc.status === 200, `entry 266: DELETE of the pods collection by label: ${describeResponse(dc)}`, 'rule.service.rest-verbs');
    const left = await Observer.open(ctx, pods, 'group=qos').then(async (o) => {
      const empty = await o.until(10_000, (all) => (all.length === 0 ? true : undefined));
      o.close();
      return empty ? [] : o.list();
    });
    expectEqual(left.map((p) => p.metadata.name), [], 'entry 266: labelled pods left after the collection delete', 'rule.service.rest-verbs');
  },
);

// ---- The kubernetes Service ---------------------------------------------------------------------------------

check(
  'upstream.services.kubernetes-service',
  {
    rows: ['rule.ops.list-all-namespaces'],
    upstream: [212, 215],
    requires: [{ group: '', version: 'v1', resource: 'services', verbs: ['list', 'get'] }],
    title: 'the services list across namespaces holds `kubernetes` in `default`, a ClusterIP Service with port https 443',
  },
  async (ctx) => {
    const all = await listItems(ctx, '/api/v1/services');
    const svc = all.find((s) => s.metadata.namespace === 'default' && s.metadata.name === 'kubernetes');
    expectTrue(svc !== undefined, `entry 212: no default/kubernetes among ${all.length} services listed across namespaces`, 'rule.ops.list-all-namespaces');
    const spec = svc.spec as { type?: string; ports?: Array<{ name?: string; port: number; protocol?: string }> };
    expectTrue((spec.type ?? 'ClusterIP') === 'ClusterIP' && (spec.ports ?? []).some((p) => p.port === 443 && p.name === 'https'), `entry 215: the kubernetes Service should be a ClusterIP Service with port https 443: ${JSON.stringify(spec)}`, 'rule.ops.list-all-namespaces');
  },
);

// ---- Namespaces ---------------------------------------------------------------------------------------------

check(
  'upstream.namespaces.update-patch-status',
  {
    rows: ['rule.ops.patch-merge-per-field', 'rule.service.rest-verbs', 'rule.ops.status-only-through-status'],
    upstream: [64, 65, 68],
    requires: [NEEDS_NAMESPACES, { group: '', version: 'v1', resource: 'namespaces', verbs: ['get', 'update', 'patch'] }, { group: '', version: 'v1', resource: 'namespaces', subresource: 'status', verbs: ['get', 'update', 'patch'] }],
    title: 'a namespace PUT with a new label and a PATCH adding another read back; /status shows phase Active and takes an update and a patch',
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const path = `/api/v1/namespaces/${ns}`;
    const cur = (await read(ctx, path))!;
    const put = await ctx.client.replace(path, { ...cur, metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), updated: 'yes' } } });
    expectTrue(put.status === 200 && (await read(ctx, path))?.metadata.labels?.updated === 'yes', `entry 64: a label set by PUT reads back: ${describeResponse(put)}`, 'rule.service.rest-verbs');
    await mustPatch(ctx, path, { metadata: { labels: { patched: 'yes' } } }, 'patching the namespace');
    const now = await read(ctx, path);
    expectTrue(now?.metadata.labels?.patched === 'yes' && now.metadata.labels.updated === 'yes', `entry 68: labels after the patch: ${JSON.stringify(now?.metadata.labels)}`, 'rule.ops.patch-merge-per-field');
    const st = await ctx.client.get(`${path}/status`);
    expectTrue(st.status === 200 && (st.object?.status as { phase?: string } | undefined)?.phase === 'Active', `entry 65: GET /status of a live namespace shows phase Active: ${describeResponse(st)}`, 'rule.ops.status-only-through-status');
    const sput = await ctx.client.replace(`${path}/status`, { ...st.object, status: { phase: 'Active' } });
    const spatch = await ctx.client.patch(`${path}/status`, { status: { phase: 'Active' } }, 'merge');
    expectTrue(sput.status === 200 && spatch.status === 200 && (spatch.object?.status as { phase?: string } | undefined)?.phase === 'Active', `entry 65: PUT and PATCH of /status: ${describeResponse(sput)}; ${describeResponse(spatch)}`, 'rule.ops.status-only-through-status');
  },
);

// ---- LocalSubjectAccessReview -------------------------------------------------------------------------------

check(
  'upstream.auth.local-subject-access-review',
  {
    rows: ['rule.scope.namespace-authorization'],
    upstream: [157],
    requires: [NEEDS_NAMESPACES, { group: 'authorization.k8s.io', version: 'v1', resource: 'localsubjectaccessreviews', verbs: ['create'] }, { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', verbs: ['create'] }],
    title: "SubjectAccessReview and LocalSubjectAccessReview for a namespace's default service account agree with what a request impersonating it gets",
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const user = `system:serviceaccount:${ns}:default`;
    const groups = ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'];
    const attrs = { namespace: ns, verb: 'list', resource: 'configmaps', group: '' };
    const lsar = await ctx.client.create(`/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', metadata: { namespace: ns }, spec: { user, groups, resourceAttributes: attrs } });
    const sar = await ctx.client.create('/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: attrs } });
    expectTrue(lsar.status === 201 || lsar.status === 200, `POST LocalSubjectAccessReview: ${describeResponse(lsar)}`, 'rule.scope.namespace-authorization');
    expectTrue(sar.status === 201 || sar.status === 200, `POST SubjectAccessReview: ${describeResponse(sar)}`, 'rule.scope.namespace-authorization');
    const allowedOf = (o: KubeObject | undefined) => (o?.status as { allowed?: boolean } | undefined)?.allowed === true;
    const asIt = await ctx.client.get(`/api/v1/namespaces/${ns}/configmaps`, { headers: { 'Impersonate-User': user, 'Impersonate-Group': groups[0] } });
    if (asIt.status !== 200 && asIt.status !== 403) ctx.skip(`the target does not let this identity impersonate ${user} (HTTP ${asIt.status}): the reviews cannot be compared with what the account can do`);
    const can = asIt.status === 200;
    await forRows('rule.scope.namespace-authorization', () => {
      expectEqual(allowedOf(lsar.object), can, `entry 157: LocalSubjectAccessReview says ${allowedOf(lsar.object)} where the impersonated list answered ${asIt.status}`);
      expectEqual(allowedOf(sar.object), can, `entry 157: SubjectAccessReview says ${allowedOf(sar.object)} where the impersonated list answered ${asIt.status}`);
    });
  },
);

// ---- Custom resource definitions ----------------------------------------------------------------------------

check(
  'upstream.crd.list-watch-status-discovery',
  {
    rows: ['rule.ops.watch', 'rule.service.rest-verbs', 'version.groups-in-use'],
    upstream: [32, 33, 34, 35, 37],
    requires: [{ group: 'apiextensions.k8s.io', version: 'v1beta1', resource: 'customresourcedefinitions', verbs: ['create', 'get', 'list', 'delete', 'deletecollection'] }],
    title: 'labelled definitions list by label and go with a collection delete (each delete answered); a watch on custom objects sees them added, modified and deleted; definition /status reads and takes updates and patches; discovery names the group and customresourcedefinitions',
    timeoutSeconds: 90,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const tag = ns.slice(-10).replace(/[^a-z0-9]/g, '');
    const group = `c${tag}.conformance.example.com`;
    const base = '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions';
    const names = ['widgets', 'gadgets'];
    const made: string[] = [];
    try {
      for (const plural of names) {
        const res = await ctx.client.create(base, {
          apiVersion: 'apiextensions.k8s.io/v1beta1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `${plural}.${group}`, labels: { set: tag } },
          spec: { group, version: 'v1', scope: 'Namespaced', names: { plural, singular: plural.slice(0, -1), kind: plural[0].toUpperCase() + plural.slice(1, -1), listKind: `${plural[0].toUpperCase()}${plural.slice(1, -1)}List` } },
        });
        expectTrue(res.status === 201 || res.status === 200, `entry 33: creating definition ${plural}.${group}: ${describeResponse(res)}`, 'rule.service.rest-verbs');
        made.push(`${plural}.${group}`);
      }
      const listed = await listItems(ctx, base, `set=${tag}`);
      expectEqual(listed.map((d) => d.metadata.name).sort(), made.slice().sort(), 'entry 35: definitions listed by their label', 'rule.service.rest-verbs');
      // Served once Established; the custom objects' collection answers then.
      const coll = `/apis/${group}/v1/namespaces/${ns}/widgets`;
      const served = await (async () => {
        for (let i = 0; i < 100; i++) {
          if ((await ctx.client.get(coll)).status === 200) return true;
          await new Promise((r) => setTimeout(r, 100));
        }
        return false;
      })();
      if (!served) fail(`the custom type ${group}/v1 widgets was not served within 10 s of its definition`, 'rule.service.rest-verbs');
      const disc = await ctx.client.get<{ groups?: Array<{ name: string }> }>('/apis');
      const gvDoc = await ctx.client.get<{ resources?: Array<{ name: string }> }>('/apis/apiextensions.k8s.io/v1beta1');
      expectTrue(
        (disc.object?.groups ?? []).some((g) => g.name === 'apiextensions.k8s.io') && (gvDoc.object?.resources ?? []).some((r) => r.name === 'customresourcedefinitions'),
        'entry 37: /apis names apiextensions.k8s.io and its v1beta1 document names customresourcedefinitions',
        'version.groups-in-use',
      );
      const watch = await Observer.open(ctx, coll);
      try {
        const body = { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, size: 1 };
        await mustCreate(ctx, coll, body, 'custom object w1');
        await mustPatch(ctx, `${coll}/w1`, { size: 2 }, 'patching w1');
        const del = await ctx.client.delete(`${coll}/w1`);
        expectTrue(del.status === 200, `deleting w1: ${describeResponse(del)}`, 'rule.ops.watch');
        await watch.until(10_000, () => (watch.log.some((c) => c.type === 'DELETED') ? true : undefined));
        expectEqual(watch.log.filter((c) => c.type !== 'LISTED').map((c) => c.type), ['ADDED', 'MODIFIED', 'DELETED'], 'entry 32: watch events of a custom object created, patched and deleted', 'rule.ops.watch');
      } finally {
        watch.close();
      }
      const sPath = `${base}/${made[0]}/status`;
      const st = await ctx.client.get(sPath);
      expectTrue(st.status === 200, `entry 34: GET definition /status: ${describeResponse(st)}`, 'rule.service.rest-verbs');
      const cond = { type: 'ConformanceProbe', status: 'True', reason: 'Conformance', message: 'set by the check', lastTransitionTime: '2020-01-01T00:00:00Z' };
      const { res: sput } = await replaceWithRetry(ctx, sPath, (cur) => ({ ...cur, status: { ...(cur.status as object),
        conditions: [...((cur.status as { conditions?: unknown[] })?.conditions ?? []), cond] } }));
      expectTrue(sput.status === 200 && JSON.stringify(sput.object?.status).includes('ConformanceProbe'), `entry 34: PUT definition /status: ${describeResponse(sput)}`, 'rule.service.rest-verbs');
      const spatch = await ctx.client.patch(sPath, { metadata: { labels: { status: 'patched' } } }, 'merge');
      expectTrue(spatch.status === 200, `entry 34: PATCH definition /status: ${describeResponse(spatch)}`, 'rule.service.rest-verbs');
      const dc = await ctx.client.delete(base, { query: { labelSelector: `set=${tag}` } });
      expectTrue(dc.status === 200, `entry 35/33: DELETE of the definitions collection by label: ${describeResponse(dc)}`, 'rule.service.rest-verbs');
      const gone = await (async () => {
        for (let i = 0; i < 100; i++) {
          if ((await listItems(ctx, base, `set=${tag}`)).length === 0) return true;
          await new Promise((r) => setTimeout(r, 100));
        }
        return false;
      })();
      expectTrue(gone, `entry 35: definitions left after the collection delete: ${(await listItems(ctx, base, `set=${tag}`)).map((d) => d.metadata.name).join(', ')}`, 'rule.service.rest-verbs');
    } finally {
      for (const name of made) await ctx.client.delete(`${base}/${name}`);
    }
  },
);

// ---- Concurrent watchers ------------------------------------------------------------------------------------

check(
  'upstream.watch.concurrent-same-order',
  {
    rows: ['rule.ops.watch', 'rule.lifecycle.watch-start'],
    upstream: [92],
    requires: [NEEDS_NAMESPACES, needs(kind('', 'v1', 'ConfigMap', 'configmaps'), ['create', 'update', 'watch'])],
    title: "watches started at several events' resourceVersions while writes go on each see exactly the later changes, in the same order as a watch from the start",
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const coll = `/api/v1/namespaces/${ns}/configmaps`;
    const start = await ctx.client.get<KubeList>(coll);
    const rv0 = start.object?.metadata?.resourceVersion ?? '';
    const firstWatch = await ctx.client.watch(coll, { query: { watch: 'true', resourceVersion: rv0 } });
    const writes = 30;
    const writer = (async () => {
      for (let i = 0; i < writes; i++) {
        const name = `w${i % 3}`;
        const r = i < 3 ? await ctx.client.create(coll, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } }) : await ctx.client.patch(`${coll}/${name}`, { data: { i: String(i) } }, 'merge');
        if (r.status !== 200 && r.status !== 201) fail(`write ${i}: ${describeResponse(r)}`, 'rule.ops.watch');
      }
    })();
    const seen: Array<{ rv: string; key: string }> = [];
    const later: Array<Promise<Array<{ rv: string; key: string }>>> = [];
    while (seen.length < writes) {
      const ev = await firstWatch.next(10_000);
      if (!ev) break;
      const o = ev.object as KubeObject;
      seen.push({ rv: o.metadata.resourceVersion!, key: `${ev.type} ${o.metadata.name} ${(o as unknown as { data?: { i?: string } }).data?.i}` });
      // A new watch from this event's version, opened while the writes go on.
      if (seen.length % 7 === 0) {
        const from = seen.length;
        later.push(
          ctx.client.watch(coll, { query: { watch: 'true', resourceVersion: o.metadata.resourceVersion! } }).then(async (w) => {
            const got: Array<{ rv: string; key: string }> = [];
            while (got.length < writes - from) {
              const e = await w.next(10_000);
              if (!e) break;
              const x = e.object as KubeObject;
              got.push({ rv: x.metadata.resourceVersion!, key: `${e.type} ${x.metadata.name} ${(x as unknown as { data?: { i?: string } }).data?.i}` });
            }
            w.close();
            return got;
          }),
        );
      }
    }
    firstWatch.close();
    await writer;
    expectEqual(seen.length, writes, 'events seen by the watch from the start', 'rule.ops.watch');
    const results = await Promise.all(later);
    results.forEach((got, i) => {
      const from = (i + 1) * 7;
      expectEqual(got.map((g) => `${g.rv} ${g.key}`), seen.slice(from).map((g) => `${g.rv} ${g.key}`), `entry 92: the watch started at event ${from}'s version sees exactly the later events, in order`, 'rule.lifecycle.watch-start');
    });
  },
);
