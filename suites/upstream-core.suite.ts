// Core control loops on the target (upstream registry entries 69, 71-77, 79, 80, 116, 118, 151, 216, 218, 255,
// 256, 263; spec 8.2 controller.endpoint, controller.resourcequota, controller.disruption, controller.node (its
// NoExecute taint manager), controller.serviceaccount-token): Endpoints follow the ready pods a Service selects, per
// port; quota usage counts objects as they come and go, refuses a pod beyond it, and splits pods by scope; a
// disruption budget that is used up refuses an eviction (429) until more pods are healthy; a NoExecute taint
// evicts pods without a toleration at once, those with tolerationSeconds after it, and none once the taint is gone
// in time; a pod gets the service-account token volume unless it or its account opts out; a graceful pod delete is
// seen by a watch as a deletionTimestamp, then a deletion. Needs those controllers and one node.
import type { KubeObject } from '../simulator/api/meta.ts';
import { check, type CheckContext } from './harness/check.ts';
import { describeResponse, expectEqual, expectTrue, fail, forRows } from './harness/expect.ts';
import type { KindRef } from './harness/fixtures.ts';
import { NEEDS_NAMESPACES, needs } from './harness/objects.ts';
import { Observer, targetScaled } from './harness/observe.ts';
import { read } from './harness/progress.ts';
import { replaceWithRetry } from './harness/retry.ts';
import { describePods, finishBound, isReady, live, moveBound, mustCreate, mustDelete, mustPatch, runningTemplate, statusOf, usableNodes, podNamespace } from './harness/upstream-kit.ts';

const PODS: KindRef = { group: '', version: 'v1', kind: 'Pod', resource: 'pods', namespaced: true };
const QUOTAS: KindRef = { group: '', version: 'v1', kind: 'ResourceQuota', resource: 'resourcequotas', namespaced: true };
const PDBS: KindRef = { group: 'policy', version: 'v1beta1', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', namespaced: true };

const setUp = podNamespace;

function podBody(name: string, labels: Record<string, string>, opts: Parameters<typeof runningTemplate>[1] = {}, spec: Record<string, unknown> = {}) {
  const t = runningTemplate(labels, opts);
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...t.metadata }, spec: { ...t.spec, ...spec } };
}

// ---- Endpoints ----------------------------------------------------------------------------------------------

type Subset = { addresses?: Array<{ ip: string; targetRef?: { name?: string } }>; ports?: Array<{ name?: string; port: number }> };
/** "port-name:pod@port" entries of an Endpoints object, sorted. */
function endpointEntries(ep: KubeObject | undefined): string[] {
  const out: string[] = [];
  for (const s of ((ep as unknown as { subsets?: Subset[] })?.subsets ?? [])) for (const a of s.addresses ?? []) for (const p of s.ports ?? []) out.push(`${p.name ?? ''}:${a.targetRef?.name ?? a.ip}@${p.port}`);
  return out.sort();
}

check(
  'upstream.endpoints.follow-pods',
  {
    rows: ['controller.endpoint'],
    upstream: [216, 218],
    needs: { controllers: ['endpoint'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(PODS, ['create', 'delete']), { group: '', version: 'v1', resource: 'services', verbs: ['create'] }, { group: '', version: 'v1', resource: 'endpoints', verbs: ['get', 'watch'] }],
    title: 'Endpoints of a Service list the Ready pods it selects at their ports, empty with none; a two-port Service lists each pod under the port it serves',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await setUp(ctx);
    const eps = await Observer.open(ctx, `/api/v1/namespaces/${ns}/endpoints`);
    try {
      const svc = (name: string, ports: unknown[]) => mustCreate(ctx, `/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { svc: name }, ports } }, `Service ${name}`);
      await svc('single', [{ port: 80, targetPort: 8080, protocol: 'TCP' }]);
      await svc('multi', [
        { name: 'portname1', port: 80, targetPort: 'svc1', protocol: 'TCP' },
        { name: 'portname2', port: 81, targetPort: 'svc2', protocol: 'TCP' },
      ]);
      const want = async (name: string, entries: string[], entry: number) => {
        const got = await eps.until(await finishBound(ctx), (all) => {
          const ep = all.find((e) => e.metadata.name === name);
          return ep && endpointEntries(ep).join() === entries.join() ? ep : undefined;
        });
        if (!got) {
          const now = eps.objects.get(name);
          if (!now) fail(`no Endpoints object ${name} appeared for the Service within ${(await finishBound(ctx)) / 1000} s: no endpoint controller acts on this target`, 'controller.endpoint');
          fail(`entry ${entry}: Endpoints ${name} should list [${entries.join(', ')}], lists [${endpointEntries(now).join(', ')}]\n${eps.story((e) => endpointEntries(e).join(' '))}`, 'controller.endpoint');
        }
      };
      await want('single', [], 216);
      const pods = `/api/v1/namespaces/${ns}/pods`;
      await mustCreate(ctx, pods, podBody('pod1', { svc: 'single' }, { ports: [{ containerPort: 8080 }] }), 'pod1');
      await want('single', [':pod1@8080'], 216);
      await mustCreate(ctx, pods, podBody('pod2', { svc: 'single' }, { ports: [{ containerPort: 8080 }] }), 'pod2');
      await want('single', [':pod1@8080', ':pod2@8080'], 216);
      await mustDelete(ctx, `${pods}/pod1`, 'deleting pod1');
      await want('single', [':pod2@8080'], 216);
      await mustDelete(ctx, `${pods}/pod2`, 'deleting pod2');
      await want('single', [], 216);
      await mustCreate(ctx, pods, podBody('mpod1', { svc: 'multi' }, { ports: [{ name: 'svc1', containerPort: 100 }] }), 'mpod1');
      await mustCreate(ctx, pods, podBody('mpod2', { svc: 'multi' }, { ports: [{ name: 'svc2', containerPort: 101 }] }), 'mpod2');
      await want('multi', ['portname1:mpod1@100', 'portname2:mpod2@101'], 218);
      await mustDelete(ctx, `${pods}/mpod1`, 'deleting mpod1');
      await want('multi', ['portname2:mpod2@101'], 218);
    } finally {
      eps.close();
    }
  },
);

// ---- Pods ---------------------------------------------------------------------------------------------------

check(
  'upstream.pods.graceful-delete-watched',
  {
    rows: ['rule.ops.watch', 'query.delete.gracePeriodSeconds'],
    upstream: [263],
    needs: { controllers: [], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(PODS, ['create', 'delete', 'list', 'watch'])],
    title: 'a running pod found by its label, deleted with a grace period of 30 s, is seen by a watch first with a deletionTimestamp, then deleted; the labelled list is empty after',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await setUp(ctx);
    const sel = `time=${ns.slice(-8)}`;
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, sel);
    try {
      await mustCreate(ctx, `/api/v1/namespaces/${ns}/pods`, podBody('graceful', { time: ns.slice(-8) }), 'pod graceful');
      const running = await pods.until(await finishBound(ctx), (all) => (all.some((p) => isReady(p)) ? true : undefined));
      if (!running) fail(`the pod never became Ready: ${describePods(pods.list())} (the target's nodes run no pods?)`, 'rule.ops.watch');
      const del = await ctx.client.delete(`/api/v1/namespaces/${ns}/pods/graceful`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 30 } });
      expectTrue(del.status === 200 || del.status === 202, `DELETE with gracePeriodSeconds 30: ${describeResponse(del)}`, 'query.delete.gracePeriodSeconds');
      const gone = await pods.until(await targetScaled(ctx, 60_000), (all) => (all.length === 0 ? true : undefined));
      const marked = pods.log.some((c) => c.type === 'MODIFIED' && c.object.metadata.deletionTimestamp);
      expectTrue(marked, `entry 263: no watch event showed the pod with a deletionTimestamp before it went:\n${pods.story((p) => (p.metadata.deletionTimestamp ? `deletionTimestamp=${p.metadata.deletionTimestamp}` : ''))}`, 'query.delete.gracePeriodSeconds');
      expectTrue(gone && pods.log.some((c) => c.type === 'DELETED'), `entry 263: the watch saw no deletion of the gracefully deleted pod:\n${pods.story()}`, 'rule.ops.watch');
      const list = await ctx.client.get(`/api/v1/namespaces/${ns}/pods`, { query: { labelSelector: sel } });
      expectEqual(((list.object as unknown as { items?: unknown[] })?.items ?? []).length, 0, 'entry 263: pods listed by the label after the deletion', 'rule.ops.watch');
    } finally {
      pods.close();
    }
  },
);

// ---- ResourceQuota ------------------------------------------------------------------------------------------

const hardOf = (q: KubeObject | undefined) => statusOf<{ hard?: Record<string, string> }>(q).hard ?? {};
const usedOf = (q: KubeObject | undefined) => statusOf<{ used?: Record<string, string> }>(q).used ?? {};

async function quota(ctx: CheckContext, ns: string, name: string, spec: Record<string, unknown>): Promise<Observer> {
  await mustCreate(ctx, `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec }, `ResourceQuota ${name}`);
  return Observer.open(ctx, `/api/v1/namespaces/${ns}/resourcequotas`);
}

/** Waits until quota `name` uses what `want` says (a subset of status.used); fails with what it saw. */
async function usage(ctx: CheckContext, quotas: Observer, name: string, want: Record<string, string>, what: string, rows: string | string[]): Promise<void> {
  const ok = await quotas.until(await finishBound(ctx), (all) => {
    const used = usedOf(all.find((q) => q.metadata.name === name));
    return Object.entries(want).every(([k, v]) => used[k] === v) ? true : undefined;
  });
  if (!ok) fail(`${what}: quota ${name} should use ${JSON.stringify(want)}, uses ${JSON.stringify(usedOf(quotas.objects.get(name)))}`, rows);
}

check(
  'upstream.quota.counts-objects',
  {
    rows: ['controller.resourcequota'],
    upstream: [77, 71, 73, 74, 75, 76],
    needs: { controllers: ['resourcequota'] },
    requires: [NEEDS_NAMESPACES, needs(QUOTAS, ['create', 'get'])],
    title: 'a new quota soon shows its hard limits and usage; a ConfigMap, Secret, Service, ReplicationController and ReplicaSet each count while they exist and are released when deleted',
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const hard = { configmaps: '10', secrets: '10', services: '10', replicationcontrollers: '10', 'count/replicasets.apps': '10' };
    const quotas = await quota(ctx, ns, 'objects', { hard });
    try {
      const first = await quotas.until(await moveBound(ctx), (all) => {
        const q = all.find((x) => x.metadata.name === 'objects');
        return q && Object.keys(hard).every((k) => hardOf(q)[k] === hard[k as keyof typeof hard] && usedOf(q)[k] !== undefined) ? q : undefined;
      });
      if (!first) fail(`entry 77: a new quota did not show status.hard and status.used within ${(await moveBound(ctx)) / 1000} s: ${JSON.stringify(quotas.objects.get('objects')?.status)} (no resourcequota controller?)`, 'controller.resourcequota');
      const base = usedOf(first);
      const plus = (k: string, n: number) => String(Number(base[k] ?? '0') + n);
      const objects: Array<[string, string, unknown, number]> = [
        ['configmaps', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counted' } }, 71],
        ['secrets', `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'counted' } }, 75],
        ['services', `/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'counted' }, spec: { ports: [{ port: 80 }] } }, 76],
        ['replicationcontrollers', `/api/v1/namespaces/${ns}/replicationcontrollers`, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'counted' }, spec: { replicas: 0, selector: { q: 'rc' }, template: runningTemplate({ q: 'rc' }) } }, 74],
        ['count/replicasets.apps', `/apis/apps/v1/namespaces/${ns}/replicasets`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'counted' }, spec: { replicas: 0, selector: { matchLabels: { q: 'rs' } }, template: runningTemplate({ q: 'rs' }) } }, 73],
      ];
      for (const [, path, body] of objects) await mustCreate(ctx, path, body, `${path.split('/').pop()} counted`);
      await usage(ctx, quotas, 'objects', Object.fromEntries(objects.map(([k]) => [k, plus(k, 1)])), `entries ${objects.map((o) => o[3]).join('/')}: one object of each kind created`, 'controller.resourcequota');
      for (const [, path] of objects) await mustDelete(ctx, `${path}/counted`, 'deleting a counted object');
      await usage(ctx, quotas, 'objects', Object.fromEntries(objects.map(([k]) => [k, plus(k, 0)])), 'the counted objects deleted', 'controller.resourcequota');
    } finally {
      quotas.close();
    }
  },
);

check(
  'upstream.quota.pods-and-scopes',
  {
    rows: ['controller.resourcequota'],
    upstream: [72, 79, 80],
    needs: { controllers: ['resourcequota'] },
    requires: [NEEDS_NAMESPACES, needs(QUOTAS, ['create', 'get']), needs(PODS, ['create', 'update', 'delete'])],
    title: "a pod's requests are counted and released; a pod beyond the quota is refused (403); a pod's requests cannot be changed; BestEffort/NotBestEffort and Terminating/NotTerminating scopes count only their pods",
    timeoutSeconds: 120,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    // The scoped quotas in a namespace of their own: a quota on requests.cpu refuses pods that do not set it.
    const scopedNs = await ctx.namespace();
    const quotas = await quota(ctx, ns, 'compute', { hard: { pods: '5', 'requests.cpu': '500m', 'requests.memory': '500Mi' } });
    const scoped = await Observer.open(ctx, `/api/v1/namespaces/${scopedNs}/resourcequotas`);
    try {
      for (const [name, scope] of [['besteffort', 'BestEffort'], ['notbesteffort', 'NotBestEffort'], ['terminating', 'Terminating'], ['notterminating', 'NotTerminating']])
        await mustCreate(ctx, `/api/v1/namespaces/${scopedNs}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard: { pods: '5' }, scopes: [scope] } }, `quota ${name}`);
      const all = ['besteffort', 'notbesteffort', 'terminating', 'notterminating'];
      const ready = (await quotas.until(await moveBound(ctx), (qs) => (usedOf(qs[0]).pods === '0' ? true : undefined))) && (await scoped.until(await moveBound(ctx), (qs) => (all.every((n) => usedOf(qs.find((q) => q.metadata.name === n)).pods === '0') ? true : undefined)));
      if (!ready) fail(`the quotas' status.used never showed pods 0 within ${(await moveBound(ctx)) / 1000} s: ${[...quotas.list(), ...scoped.list()].map((q) => `${q.metadata.name} ${JSON.stringify(q.status)}`).join('; ')} (no resourcequota controller?)`, 'controller.resourcequota');
      const pods = `/api/v1/namespaces/${ns}/pods`;
      const scopedPods = `/api/v1/namespaces/${scopedNs}/pods`;
      const res = { requests: { cpu: '200m', memory: '100Mi' }, limits: { cpu: '200m', memory: '100Mi' } };
      const withResources = (name: string, r: unknown, spec: Record<string, unknown> = {}) => {
        const b = podBody(name, { q: name }, {}, spec);
        (b.spec.containers[0] as Record<string, unknown>).resources = r;
        return b;
      };
      await mustCreate(ctx, pods, withResources('burstable', res), 'a pod with requests');
      await usage(ctx, quotas, 'compute', { pods: '1', 'requests.cpu': '200m', 'requests.memory': '100Mi' }, 'entry 72: a pod requesting 200m and 100Mi', 'controller.resourcequota');
      await mustCreate(ctx, scopedPods, withResources('burstable', res), 'a pod with requests (scoped namespace)');
      await usage(ctx, scoped, 'notbesteffort', { pods: '1' }, 'entry 79: a pod with requests in the NotBestEffort quota', 'controller.resourcequota');
      await usage(ctx, scoped, 'notterminating', { pods: '1' }, 'entry 80: a pod without activeDeadlineSeconds in the NotTerminating quota', 'controller.resourcequota');
      const over = await ctx.client.create(pods, withResources('too-big', { requests: { cpu: '400m', memory: '100Mi' }, limits: { cpu: '400m', memory: '100Mi' } }));
      expectTrue(over.status === 403, `entry 72: a pod beyond the quota (400m more of 500m, 200m used) must be refused with 403: ${describeResponse(over)}`, 'controller.resourcequota');
      const { res: upd } = await replaceWithRetry<KubeObject & { spec: { containers: Array<{ resources: unknown }> } }>(ctx, `${pods}/burstable`, (changed) => {
        changed.spec.containers[0].resources = { requests: { cpu: '100m', memory: '100Mi' }, limits: { cpu: '100m', memory: '100Mi' } };
        return changed;
      });
      expectTrue(upd.status === 422 || upd.status === 403, `entry 72: changing a pod's requests must be refused: ${describeResponse(upd)}`, 'controller.resourcequota');
      await mustCreate(ctx, scopedPods, podBody('besteffort-pod', { q: 'be' }, {}, { activeDeadlineSeconds: 3600 }), 'a BestEffort pod with activeDeadlineSeconds');
      await usage(ctx, scoped, 'besteffort', { pods: '1' }, 'entry 79: a pod without requests in the BestEffort quota', 'controller.resourcequota');
      await usage(ctx, scoped, 'terminating', { pods: '1' }, 'entry 80: a pod with activeDeadlineSeconds in the Terminating quota', 'controller.resourcequota');
      await forRows('controller.resourcequota', async () => {
        await usage(ctx, scoped, 'notbesteffort', { pods: '1' }, 'entry 79: the BestEffort pod is not in the NotBestEffort quota', []);
        await usage(ctx, scoped, 'notterminating', { pods: '1' }, 'entry 80: the pod with a deadline is not in the NotTerminating quota', []);
        await usage(ctx, quotas, 'compute', { pods: '1', 'requests.cpu': '200m' }, 'entry 72: the pod counted, the refused one not', []);
      });
      await mustDelete(ctx, `${pods}/burstable`, 'deleting the pod with requests');
      await usage(ctx, quotas, 'compute', { pods: '0', 'requests.cpu': '0' }, 'entry 72: the deleted pod released', 'controller.resourcequota');
    } finally {
      quotas.close();
      scoped.close();
    }
  },
);

check(
  'upstream.quota.status',
  {
    rows: ['controller.resourcequota', 'rule.ops.status-only-through-status', 'rule.writes.subresource-only-part'],
    upstream: [69],
    needs: { controllers: ['resourcequota'] },
    requires: [NEEDS_NAMESPACES, needs(QUOTAS, ['create', 'get', 'update', 'patch']), needs(QUOTAS, ['get', 'update', 'patch'], 'status')],
    title: 'quota /status reads; an update and a patch of it answer with the written status and leave spec alone; status.hard follows a change of spec.hard',
    timeoutSeconds: 90,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const quotas = await quota(ctx, ns, 'st', { hard: { configmaps: '5' } });
    const path = `/api/v1/namespaces/${ns}/resourcequotas/st`;
    try {
      const got = await ctx.client.get(`${path}/status`);
      expectTrue(got.status === 200 && got.object?.metadata.name === 'st', `GET /status: ${describeResponse(got)}`, 'rule.ops.status-only-through-status');
      const { res: put } = await replaceWithRetry(ctx, `${path}/status`, (cur) => ({ ...cur, spec: { hard: { configmaps: '99' } }, status: { hard: { configmaps: '5' }, used: { configmaps: '3' } } }));
      expectTrue(put.status === 200 && usedOf(put.object).configmaps === '3' && (put.object?.spec as { hard?: Record<string, string> })?.hard?.configmaps === '5', `entry 69: PUT /status answers with the written status and the old spec: ${describeResponse(put)}`, 'rule.writes.subresource-only-part');
      const patch = await ctx.client.patch(`${path}/status`, { spec: { hard: { configmaps: '77' } }, status: { used: { configmaps: '4' } } }, 'merge');
      expectTrue(patch.status === 200 && usedOf(patch.object).configmaps === '4' && (patch.object?.spec as { hard?: Record<string, string> })?.hard?.configmaps === '5', `entry 69: PATCH /status answers with the patched status and the old spec: ${describeResponse(patch)}`, 'rule.writes.subresource-only-part');
      await mustPatch(ctx, path, { spec: { hard: { configmaps: '7' } } }, 'changing spec.hard');
      const follows = await quotas.until(await finishBound(ctx), (all) => (hardOf(all.find((q) => q.metadata.name === 'st')).configmaps === '7' ? true : undefined));
      expectTrue(follows, `entry 69: status.hard should follow spec.hard 7: ${JSON.stringify(quotas.objects.get('st')?.status)} (no resourcequota controller?)`, 'controller.resourcequota');
    } finally {
      quotas.close();
    }
  },
);

// ---- Disruption budgets -------------------------------------------------------------------------------------

check(
  'upstream.pdb.status-and-eviction',
  {
    rows: ['controller.disruption'],
    upstream: [116, 118],
    needs: { controllers: ['disruption', 'replicaset'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(PDBS, ['create', 'get']), needs(PODS, ['create'], 'eviction')],
    title: 'a policy/v1beta1 budget of minAvailable 2 over 2 Ready pods reports 0 disruptions allowed and an eviction is refused (429); with a third pod 1 is allowed and the eviction succeeds',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await setUp(ctx);
    const pdbs = await Observer.open(ctx, `/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`);
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`, 'app=guarded');
    try {
      await mustCreate(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'guarded' }, spec: { replicas: 2, selector: { matchLabels: { app: 'guarded' } }, template: runningTemplate({ app: 'guarded' }) } }, 'ReplicaSet guarded');
      await mustCreate(ctx, `/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'guard' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'guarded' } } } }, 'PodDisruptionBudget guard');
      const two = await pods.until(await finishBound(ctx), (all) => (live(all).filter(isReady).length === 2 ? live(all) : undefined));
      if (!two) fail(`setup: the ReplicaSet did not run 2 Ready pods: ${describePods(pods.list())}`, 'controller.disruption');
      const st = (want: Record<string, number>) => (all: KubeObject[]) => {
        const s = statusOf<Record<string, number>>(all[0]);
        return Object.entries(want).every(([k, v]) => s[k] === v) ? s : undefined;
      };
      const used = await pdbs.until(await finishBound(ctx), st({ currentHealthy: 2, desiredHealthy: 2, expectedPods: 2, disruptionsAllowed: 0 }));
      if (!used) fail(`entry 118: the budget's status should read currentHealthy 2, desiredHealthy 2, expectedPods 2, disruptionsAllowed 0: ${JSON.stringify(pdbs.list()[0]?.status)} (no disruption controller?)`, 'controller.disruption');
      const evict = (pod: KubeObject) => ctx.client.create(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: pod.metadata.name, namespace: ns } });
      const refused = await evict(two[0]);
      expectTrue(refused.status === 429, `entry 116: an eviction while the budget allows no disruption must be refused with 429: ${describeResponse(refused)}`, 'controller.disruption');
      await mustPatch(ctx, `/apis/apps/v1/namespaces/${ns}/replicasets/guarded`, { spec: { replicas: 3 } }, 'a third pod');
      const allowed = await pdbs.until(await finishBound(ctx), st({ currentHealthy: 3, disruptionsAllowed: 1 }));
      if (!allowed) fail(`entry 118: with 3 healthy pods the budget should allow 1 disruption: ${JSON.stringify(pdbs.list()[0]?.status)}`, 'controller.disruption');
      const ok = await evict(two[0]);
      expectTrue(ok.status === 201 || ok.status === 200, `entry 116: an eviction once the budget allows one must succeed: ${describeResponse(ok)}`, 'controller.disruption');
    } finally {
      pdbs.close();
      pods.close();
    }
  },
);

// ---- NoExecute taints ---------------------------------------------------------------------------------------

// Tolerations of the taint check: short enough that the solo phase (nothing else runs) stays short, long enough
// that the taint manager's second-grained timing and the taint's removal before SAVED_S are told apart.
const SHORT_S = 2;
const SAVED_S = 10;

check(
  'upstream.taints.noexecute-eviction',
  {
    rows: ['controller.node', 'option.enable-taint-manager'],
    upstream: [255, 256],
    needs: { controllers: ['node'], nodes: 1 },
    requires: [NEEDS_NAMESPACES, needs(PODS, ['create']), { group: '', version: 'v1', resource: 'nodes', verbs: ['get', 'patch'] }],
    title: 'a NoExecute taint of the check\'s own evicts a pod without toleration at once and one tolerating it for 2 s after that; removing the taint in time saves one tolerating it for 10 s',
    timeoutSeconds: 120,
    // A NoExecute taint evicts every pod on the node that does not tolerate it: other checks' pods too.
    solo: true,
  },
  async (ctx) => {
    const nodes = await usableNodes(ctx);
    if (nodes.length === 0) ctx.skip('the target has no Ready, schedulable node (needs 1 node)');
    const node = nodes[0].metadata.name!;
    const ns = await ctx.namespace();
    const key = `conformance.example.com/${ns.slice(-20)}`;
    const pods = await Observer.open(ctx, `/api/v1/namespaces/${ns}/pods`);
    const tol = (seconds?: number) => [{ key, operator: 'Equal', value: 'evict', effect: 'NoExecute', ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}) }];
    const taints = () => ((nodes[0].spec as { taints?: unknown[] } | undefined)?.taints ?? []);
    const setTaints = (list: unknown[]) => ctx.client.patch(`/api/v1/nodes/${node}`, { spec: { taints: list } }, 'merge');
    try {
      for (const [name, t] of [['plain', undefined], ['short', tol(SHORT_S)], ['saved', tol(SAVED_S)]] as const)
        await mustCreate(ctx, `/api/v1/namespaces/${ns}/pods`, podBody(name, { t: name }, {}, { nodeName: node, ...(t ? { tolerations: t } : {}) }), `pod ${name}`);
      const up = await pods.until(await finishBound(ctx), (all) => (live(all).filter(isReady).length === 3 ? true : undefined));
      if (!up) fail(`setup: the three pods bound to ${node} did not become Ready: ${describePods(pods.list())}`, 'controller.node');
      const current = (await read(ctx, `/api/v1/nodes/${node}`))!;
      const before = ((current.spec as { taints?: unknown[] } | undefined)?.taints ?? taints()) as unknown[];
      const tainted = performance.now();
      const res = await setTaints([...before, { key, value: 'evict', effect: 'NoExecute' }]);
      if (res.status !== 200) fail(`tainting node ${node}: ${describeResponse(res)}`, 'controller.node');
      const gone = (name: string) => (all: KubeObject[]) => (all.some((p) => p.metadata.name === name && !p.metadata.deletionTimestamp) ? undefined : true);
      const plain = await pods.until(await moveBound(ctx), gone('plain'));
      if (!plain) fail(`entry 255: a pod without a toleration stayed on the NoExecute-tainted node for ${(await moveBound(ctx)) / 1000} s: ${describePods(pods.list())} (no taint manager?)`, 'controller.node');
      const short = await pods.until(await targetScaled(ctx, 15_000), gone('short'));
      const shortAt = (performance.now() - tainted) / 1000;
      expectTrue(short, `entry 255: a pod tolerating the taint for ${SHORT_S} s was still there ${shortAt.toFixed(1)} s after it: ${describePods(pods.list())}`, 'controller.node');
      expectTrue(shortAt >= SHORT_S - 0.5, `entry 255: a pod tolerating the taint for ${SHORT_S} s was evicted after ${shortAt.toFixed(1)} s`, 'controller.node');
      const un = await setTaints(before);
      if (un.status !== 200) fail(`removing the taint: ${describeResponse(un)}`, 'controller.node');
      const hold = Math.max(0, SAVED_S * 1000 - (performance.now() - tainted)) + (await targetScaled(ctx, 3_000));
      await pods.hold(hold);
      expectTrue(pods.list().some((p) => p.metadata.name === 'saved' && !p.metadata.deletionTimestamp), `entry 256: the taint was removed within the pod's ${SAVED_S} s toleration, yet it was evicted: ${describePods(pods.list())}\n${pods.story()}`, 'controller.node');
    } finally {
      pods.close();
      const cur = await read(ctx, `/api/v1/nodes/${node}`);
      const left = ((cur?.spec as { taints?: Array<{ key: string }> } | undefined)?.taints ?? []).filter((t) => t.key !== key);
      await setTaints(left);
    }
  },
);

// ---- Service accounts ---------------------------------------------------------------------------------------

check(
  'upstream.serviceaccount.automount',
  {
    rows: ['controller.serviceaccount-token', 'controller.serviceaccount'],
    upstream: [151],
    needs: { controllers: ['serviceaccount', 'serviceaccount-token'] },
    requires: [NEEDS_NAMESPACES, needs(PODS, ['create']), { group: '', version: 'v1', resource: 'serviceaccounts', verbs: ['create'] }],
    title: 'a pod gets the token volume of its service account unless the pod or the account sets automountServiceAccountToken false; the pod\'s own setting wins',
    timeoutSeconds: 90,
    concurrent: true,
  },
  async (ctx) => {
    const ns = await ctx.namespace();
    const sas = `/api/v1/namespaces/${ns}/serviceaccounts`;
    // ServiceAccount admission sets spec.serviceAccountName of a pod that names none; without it nothing mounts tokens.
    const probe = await ctx.client.create(`/api/v1/namespaces/${ns}/pods`, podBody('probe', { sa: 'probe' }, {}, { schedulerName: 'conformance-no-scheduler' }));
    if ((probe.status === 201 || probe.status === 200) && !(probe.object?.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName)
      ctx.skip('the target runs no ServiceAccount admission (a pod naming no service account was not given "default"): token automount cannot be judged');
    await mustCreate(ctx, sas, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'mount' } }, 'ServiceAccount mount');
    await mustCreate(ctx, sas, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'nomount' }, automountServiceAccountToken: false }, 'ServiceAccount nomount');
    // The token Secrets of the accounts must exist before a pod may use them (ServiceAccount admission).
    const tokens = await Observer.open(ctx, sas);
    const withTokens = await tokens.until(await moveBound(ctx), (all) => (['mount', 'nomount'].every((n) => ((all.find((s) => s.metadata.name === n) as unknown as { secrets?: unknown[] })?.secrets ?? []).length > 0) ? true : undefined));
    tokens.close();
    if (!withTokens) fail(`the service accounts got no token Secret within ${(await moveBound(ctx)) / 1000} s (no serviceaccount-token controller acts on this target)`, 'controller.serviceaccount-token');
    const cases: Array<[string, string, boolean | undefined, boolean]> = [
      ['a', 'mount', undefined, true],
      ['b', 'nomount', undefined, false],
      ['c', 'mount', false, false],
      ['d', 'nomount', true, true],
      ['e', 'mount', true, true],
    ];
    const problems: string[] = [];
    for (const [name, sa, podSetting, mounted] of cases) {
      const body = podBody(`pod-${name}`, { sa: name }, {}, { serviceAccountName: sa, schedulerName: 'conformance-no-scheduler', ...(podSetting !== undefined ? { automountServiceAccountToken: podSetting } : {}) });
      const res = await ctx.client.create(`/api/v1/namespaces/${ns}/pods`, body);
      if (res.status !== 201 && res.status !== 200) fail(`creating pod-${name}: ${describeResponse(res)}`, 'controller.serviceaccount');
      const spec = res.object?.spec as { containers?: Array<{ volumeMounts?: Array<{ mountPath: string }> }> };
      const has = (spec.containers ?? []).some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath === '/var/run/secrets/kubernetes.io/serviceaccount'));
      if (has !== mounted) problems.push(`pod-${name} (account ${sa}, pod automount ${podSetting ?? 'unset'}): token mounted ${has}, expected ${mounted}`);
    }
    expectTrue(problems.length === 0, `entry 151: ${problems.join('; ')}`, 'controller.serviceaccount');
  },
);
