// The resourcequota controller with the API server's quota admission: status.hard/used written from what exists
// (object counts, count/<resource>.<group>, compute resources of non-terminal pods, scopes); creates judged
// against status.used and charged to it (two racing creates cannot both take the last unit; 403 with the real
// message); deletions and pods going terminal given back by the recount; --resource-quota-sync-period (a
// hand-edited status.used is corrected only by the full resync: 1s vs 1h) and --concurrent-resource-quota-syncs
// (status writes in flight at once, held at a proxy: 1 vs 3). All waits poll with deadlines.
import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { startDaemon, type DaemonHandle } from './daemon/daemon.ts';
import { holdingProxy } from '../testing/holding-proxy.ts';
import { Api, eventually, phaseOf, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

type Amounts = Record<string, string>;
type Quota = KubeObject & { spec: { hard: Amounts; scopes?: string[] }; status?: { hard?: Amounts; used?: Amounts } };

const quota = (name: string, hard: Record<string, string>, scopes?: string[]) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...(scopes ? { scopes } : {}) } });
const container = (resources?: object) => ({ name: 'c', image: 'busybox', ...(resources ? { resources } : {}) });
const pod = (name: string, opts: { resources?: object; restartPolicy?: string; activeDeadlineSeconds?: number } = {}) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { containers: [container(opts.resources)], restartPolicy: opts.restartPolicy ?? 'Always', ...(opts.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: opts.activeDeadlineSeconds } : {}) },
});
const small = { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } };
const messageOf = (body: unknown) => (body as { message?: string }).message;

async function usedOf(api: Api, ns: string, name: string): Promise<Record<string, string> | undefined> {
  return (await api.get<Quota>(`/api/v1/namespaces/${ns}/resourcequotas/${name}`))?.status?.used;
}
/** Waits until status.used equals `want` (and status.hard equals spec.hard). */
async function usedBecomes(api: Api, ns: string, name: string, want: Record<string, string>, timeoutMs = 30_000): Promise<void> {
  await eventually(`${ns}/${name} used ${JSON.stringify(want)}`, async () => {
    const q = await api.get<Quota>(`/api/v1/namespaces/${ns}/resourcequotas/${name}`);
    const sorted = (o: object | undefined) => JSON.stringify(Object.entries(o ?? {}).sort());
    if (q && sorted(q.status?.hard) === sorted(q.spec.hard) && sorted(q.status?.used) === sorted(want)) return true;
    throw new Error(`status ${JSON.stringify(q?.status)}`);
  }, timeoutMs);
}

describe('resourcequota controller and quota admission', () => {
  let env: WorkloadEnv;
  let api: Api;
  before(async () => {
    env = await startWorkloadEnv({ controllers: ['resourcequota'], nodes: { count: 2, batchRunMs: 300 } });
    api = new Api(env.url);
  });
  after(() => env.close());

  test('status.hard and used from what exists; a create past used is 403 with the real message; a delete gives back', async () => {
    const ns = await api.namespace('rq');
    await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'before' }, data: {} });
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('compute', {
      pods: '2', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi', cpu: '1',
    }));
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('objects', {
      configmaps: '3', 'count/configmaps': '3', secrets: '5', services: '2', 'services.nodeports': '1', 'services.loadbalancers': '0',
      resourcequotas: '3', replicationcontrollers: '1', persistentvolumeclaims: '1', 'count/deployments.apps': '1',
    }));
    // Counted from what exists: the configmap made before the quota, the two quotas themselves.
    await usedBecomes(api, ns, 'compute', { pods: '0', 'requests.cpu': '0', 'requests.memory': '0', 'limits.cpu': '0', 'limits.memory': '0', cpu: '0' });
    await usedBecomes(api, ns, 'objects', {
      configmaps: '1', 'count/configmaps': '1', secrets: '0', services: '0', 'services.nodeports': '0', 'services.loadbalancers': '0',
      resourcequotas: '2', replicationcontrollers: '0', persistentvolumeclaims: '0', 'count/deployments.apps': '0',
    });

    // A pod that leaves a limited compute resource unset.
    const bare = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('bare'));
    assert.equal(bare.status, 403, JSON.stringify(bare.body));
    assert.equal(messageOf(bare.body), 'pods "bare" is forbidden: failed quota: compute: must specify cpu,limits.cpu,limits.memory,requests.cpu,requests.memory');

    // Two pods fit; admission charges each at once (no wait for the controller).
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('p1', { resources: small }));
    assert.equal((await usedOf(api, ns, 'compute'))?.pods, '1');
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('p2', { resources: small }));
    const after2 = await usedOf(api, ns, 'compute');
    assert.deepEqual(after2, { pods: '2', 'requests.cpu': '200m', 'requests.memory': '128Mi', 'limits.cpu': '400m', 'limits.memory': '256Mi', cpu: '200m' });
    const third = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('p3', { resources: small }));
    assert.equal(third.status, 403);
    assert.equal((third.body as { reason?: string }).reason, 'Forbidden');
    assert.equal(messageOf(third.body), 'pods "p3" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2');
    // Several resources exceeded at once are listed sorted.
    const big = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('big', { resources: { requests: { cpu: '2', memory: '64Mi' }, limits: { cpu: '2', memory: '128Mi' } } }));
    assert.equal(messageOf(big.body), 'pods "big" is forbidden: exceeded quota: compute, requested: cpu=2,limits.cpu=2,pods=1,requests.cpu=2, used: cpu=200m,limits.cpu=400m,pods=2,requests.cpu=200m, limited: cpu=1,limits.cpu=2,pods=2,requests.cpu=1');

    // The delete is given back by the controller's recount; then the create passes.
    assert.equal(await api.delete(`/api/v1/namespaces/${ns}/pods/p1`, { gracePeriodSeconds: 0 }), 200);
    await usedBecomes(api, ns, 'compute', { pods: '1', 'requests.cpu': '100m', 'requests.memory': '64Mi', 'limits.cpu': '200m', 'limits.memory': '128Mi', cpu: '100m' });
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('p3', { resources: small }));

    // Object counts: configmaps (bare and count/), services with node ports and load balancers, count/<resource>.<group>.
    await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'two' } });
    await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'three' } });
    const cm4 = await api.req('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'four' } });
    assert.equal(messageOf(cm4.body), 'configmaps "four" is forbidden: exceeded quota: objects, requested: configmaps=1,count/configmaps=1, used: configmaps=3,count/configmaps=3, limited: configmaps=3,count/configmaps=3');
    const svc = (name: string, type: string, ports: number) => ({ metadata: { name }, spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) } });
    const np2 = await api.req('POST', `/api/v1/namespaces/${ns}/services`, svc('np2', 'NodePort', 2));
    assert.equal(messageOf(np2.body), 'services "np2" is forbidden: exceeded quota: objects, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1');
    const lb = await api.req('POST', `/api/v1/namespaces/${ns}/services`, svc('lb', 'LoadBalancer', 1));
    assert.equal(messageOf(lb.body), 'services "lb" is forbidden: exceeded quota: objects, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0');
    await api.create(`/api/v1/namespaces/${ns}/services`, svc('np1', 'NodePort', 1));
    await api.create(`/api/v1/namespaces/${ns}/services`, svc('plain', 'ClusterIP', 3));
    // An update that changes a Service's type is charged too.
    const toNp = await api.req('PATCH', `/api/v1/namespaces/${ns}/services/plain`, { spec: { type: 'NodePort' } }, 'application/merge-patch+json');
    assert.equal(toNp.status, 403, JSON.stringify(toNp.body));
    assert.match(messageOf(toNp.body) ?? '', /exceeded quota: objects, requested: services.nodeports=3, used: services.nodeports=1, limited: services.nodeports=1/);
    const deploy = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 0, selector: { matchLabels: { a: name } }, template: { metadata: { labels: { a: name } }, spec: { containers: [container()] } } } });
    await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deploy('d1'));
    const d2 = await api.req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deploy('d2'));
    assert.equal(messageOf(d2.body), 'deployments.apps "d2" is forbidden: exceeded quota: objects, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
    // As in 1.9, admission charges by the group of the request: a create through extensions/v1beta1 counts under
    // count/deployments.extensions and passes uncharged; the controller's recount (apps) sees it at the next look.
    await api.create(`/apis/extensions/v1beta1/namespaces/${ns}/deployments`, { ...deploy('d2'), apiVersion: 'extensions/v1beta1' });
    assert.equal((await usedOf(api, ns, 'objects'))?.['count/deployments.apps'], '1');
    // A delete (of a resource counted only through count/) makes the controller count again: d2 is left.
    assert.equal(await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/d1`), 200);
    await usedBecomes(api, ns, 'objects', {
      configmaps: '3', 'count/configmaps': '3', secrets: '0', services: '2', 'services.nodeports': '1', 'services.loadbalancers': '0',
      resourcequotas: '2', replicationcontrollers: '0', persistentvolumeclaims: '0', 'count/deployments.apps': '1',
    });
    const d3 = await api.req('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deploy('d3'));
    assert.equal(d3.status, 403);
    assert.equal(await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/d2`), 200);
    await eventually('count/deployments.apps back to 0', async () => (await usedOf(api, ns, 'objects'))?.['count/deployments.apps'] === '0');
    await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, deploy('d3'));
  });

  test('racing creates: exactly as many pass as the quota has room for', async () => {
    const ns = await api.namespace('race');
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('q', { pods: '3', 'count/secrets': '2' }));
    await usedBecomes(api, ns, 'q', { pods: '0', 'count/secrets': '0' });
    const pods = await Promise.all(Array.from({ length: 8 }, (_, i) => api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod(`r${i}`))));
    assert.equal(pods.filter((r) => r.status === 201).length, 3, pods.map((r) => r.status).join(','));
    assert.ok(pods.filter((r) => r.status !== 201).every((r) => r.status === 403 && /exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3$/.test(messageOf(r.body) ?? '')), 'pods.filter((r) => r.status !== 201).every((r) => r.status === 403 && /exceeded quota: q, requested…');
    const secrets = await Promise.all(Array.from({ length: 6 }, (_, i) => api.req('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: `s${i}` } })));
    assert.equal(secrets.filter((r) => r.status === 201).length, 2);
    assert.equal((await api.list(`/api/v1/namespaces/${ns}/pods`)).length, 3);
    await usedBecomes(api, ns, 'q', { pods: '3', 'count/secrets': '2' });
  });

  test('terminal pods count only under count/pods; scopes Terminating, NotTerminating, BestEffort, NotBestEffort', async () => {
    const ns = await api.namespace('scope');
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('all', { pods: '10', 'count/pods': '10' }));
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('term', { pods: '1' }, ['Terminating']));
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('notterm', { pods: '10' }, ['NotTerminating']));
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('be', { pods: '2' }, ['BestEffort']));
    await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('nbe', { pods: '10', 'requests.cpu': '1' }, ['NotBestEffort']));
    for (const n of ['term', 'notterm', 'be']) await usedBecomes(api, ns, n, { pods: '0' });
    await usedBecomes(api, ns, 'nbe', { pods: '0', 'requests.cpu': '0' });
    // Best effort, not terminating.
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('be1'));
    // Burstable, terminating (activeDeadlineSeconds), never ends by itself.
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('t1', { resources: small, activeDeadlineSeconds: 3600 }));
    const t2 = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('t2', { resources: small, activeDeadlineSeconds: 3600 }));
    assert.equal(messageOf(t2.body), 'pods "t2" is forbidden: exceeded quota: term, requested: pods=1, used: pods=1, limited: pods=1');
    // A best-effort batch pod: it runs 300 ms and Succeeds, then counts only under count/pods.
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('job', { restartPolicy: 'Never' }));
    const be3 = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('be3'));
    assert.equal(be3.status, 403, 'BestEffort quota full (be1 and job)');
    await eventually('the batch pod Succeeded', async () => phaseOf((await api.get(`/api/v1/namespaces/${ns}/pods/job`))!) === 'Succeeded');
    await usedBecomes(api, ns, 'be', { pods: '1' });
    await usedBecomes(api, ns, 'all', { pods: '2', 'count/pods': '3' });
    await usedBecomes(api, ns, 'term', { pods: '1' });
    await usedBecomes(api, ns, 'notterm', { pods: '1' });
    await usedBecomes(api, ns, 'nbe', { pods: '1', 'requests.cpu': '100m' });
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('be3'));
  });
});

describe('quota admission reads status only', () => {
  let sim: RunningSimulator;
  let api: Api;
  before(async () => {
    sim = await startSimulator();
    api = new Api(sim.url);
  });
  after(() => sim.close());

  test('no status yet: nothing limited; hard without used: "status unknown for quota"; then judged on used', async () => {
    const ns = await api.namespace('nostatus');
    const q = await api.create<Quota>(`/api/v1/namespaces/${ns}/resourcequotas`, quota('q', { pods: '1' }));
    assert.equal(q.status?.hard, undefined);
    // No controller here: as in 1.9, a quota whose status.hard is empty matches nothing.
    for (const n of ['a', 'b']) await api.create(`/api/v1/namespaces/${ns}/pods`, pod(n));
    const put = (status: object) => api.req('PUT', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...quota('q', { pods: '1' }), status });
    assert.equal((await put({ hard: { pods: '1' } })).status, 200);
    const unknown = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('c'));
    assert.equal(unknown.status, 403);
    assert.equal(messageOf(unknown.body), 'pods "c" is forbidden: status unknown for quota: q');
    // Things the quota does not track are not affected.
    await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'free' } });
    assert.equal((await put({ hard: { pods: '3' }, used: { pods: '2' } })).status, 200);
    await api.create(`/api/v1/namespaces/${ns}/pods`, pod('c'));
    assert.equal((await usedOf(api, ns, 'q'))?.pods, '3');
    const d = await api.req('POST', `/api/v1/namespaces/${ns}/pods`, pod('d'));
    assert.equal(messageOf(d.body), 'pods "d" is forbidden: exceeded quota: q, requested: pods=1, used: pods=3, limited: pods=3');
    // dryRun judges without charging.
    assert.equal((await put({ hard: { pods: '4' }, used: { pods: '3' } })).status, 200);
    assert.equal((await api.req('POST', `/api/v1/namespaces/${ns}/pods?dryRun=All`, pod('dry'))).status, 201);
    assert.equal((await usedOf(api, ns, 'q'))?.pods, '3');
  });
});

describe('--resource-quota-sync-period and --concurrent-resource-quota-syncs', () => {
  let sim: RunningSimulator;
  let api: Api;
  before(async () => {
    sim = await startSimulator();
    api = new Api(sim.url);
  });
  after(() => sim.close());

  const daemon = (master: string, flags: string[]) => startDaemon(['--master', master, '--leader-elect=false', '--port=0', '--controllers=resourcequota', '--x-api-qps=-1', ...flags], { log: () => {} });

  test('--resource-quota-sync-period: a hand-edited status.used is corrected by the full resync (1s), not before it (1h); a delete is followed at once with either', async () => {
    for (const period of ['1s', '1h']) {
      const ns = await api.namespace(`period-${period}`);
      await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'one' } });
      await api.create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'two' } });
      await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota('q', { configmaps: '10' }));
      let d: DaemonHandle | undefined;
      try {
        d = await daemon(sim.url, [`--resource-quota-sync-period=${period}`]);
        await usedBecomes(api, ns, 'q', { configmaps: '2' });
        // A delete is followed whatever the period.
        assert.equal(await api.delete(`/api/v1/namespaces/${ns}/configmaps/two`), 200);
        await usedBecomes(api, ns, 'q', { configmaps: '1' });
        // A wrong used written by hand: only the full resync looks again.
        const cur = (await api.get<Quota>(`/api/v1/namespaces/${ns}/resourcequotas/q`))!;
        const put = await api.req('PUT', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...cur, status: { hard: cur.status!.hard, used: { configmaps: '7' } } });
        assert.equal(put.status, 200);
        if (period === '1s') {
          await usedBecomes(api, ns, 'q', { configmaps: '1' }, 30_000);
        } else {
          await new Promise((r) => setTimeout(r, 4000));
          assert.deepEqual(await usedOf(api, ns, 'q'), { configmaps: '7' }, 'no resync within 4 s of a 1h period');
        }
      } finally {
        await d?.close();
      }
    }
  });

  test('--concurrent-resource-quota-syncs: that many status writes in flight at once (held 400 ms at a proxy)', async () => {
    const ns = await api.namespace('workers');
    for (const workers of [1, 3]) {
      // Fresh quotas without status: each needs one write (only this namespace's writes are held and counted).
      for (let i = 0; i < 6; i++) await api.create(`/api/v1/namespaces/${ns}/resourcequotas`, quota(`w${workers}-${i}`, { pods: '5' }));
      const proxy = await holdingProxy(sim.url, 400, (req) => req.method === 'PUT' && (req.url ?? '').startsWith(`/api/v1/namespaces/${ns}/resourcequotas/`));
      let d: DaemonHandle | undefined;
      try {
        d = await daemon(proxy.url, [`--concurrent-resource-quota-syncs=${workers}`, '--resource-quota-sync-period=1h']);
        await eventually('every quota has a status', async () => {
          const items = await api.list(`/api/v1/namespaces/${ns}/resourcequotas`);
          return items.length >= 6 && items.every((q) => (q as Quota).status?.used?.pods !== undefined);
        }, 60_000);
        assert.equal(proxy.maxInFlight(), workers, `max concurrent status writes with ${workers} worker(s)`);
      } finally {
        await d?.close();
        await proxy.close();
      }
      for (const q of await api.list(`/api/v1/namespaces/${ns}/resourcequotas`)) await api.delete(`/api/v1/namespaces/${ns}/resourcequotas/${q.metadata.name}`);
    }
  });
});
