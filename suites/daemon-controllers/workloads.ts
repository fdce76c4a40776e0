// Workloads, disruption budgets, autoscaling and quotas (StatefulSet order, PDB status, HPA, ResourceQuota): a part
// of daemon-controllers.suite.ts, observed through the API of the check's simulator.
import { check } from '../harness/check.ts';
import { expectTrue, fail } from '../harness/expect.ts';
import { busyScaled, sleep, within } from '../harness/progress.ts';
import type { KubeObject } from '../../simulator/api/meta.ts';
import { type Http, namespaceFor, nowText, withControllers, withEnv } from './env.ts';

/** Marks a pod Running and Ready (or not) as its kubelet would. */
async function setPodReady(api: Http, ns: string, name: string, ready: boolean): Promise<void> {
  const ts = nowText();
  await api.send('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ts }] } }, 'application/merge-patch+json');
}

const livePodNames = async (api: Http, ns: string, selector: string) =>
  (await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`)).filter((p) => p.metadata.deletionTimestamp == null).map((p) => p.metadata.name ?? '').sort();

check(
  'daemon-controllers.statefulset',
  {
    rows: ['controller.statefulset'],
    title: 'statefulset: an OrderedReady set of 3 creates <set>-0, -1, -2 one at a time, each only once the one before is Running and Ready; scaling down removes the highest ordinal first',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'sts');
      await withControllers(env, 'statefulset', [], 'statefulset', async () => {
        const labels = { app: 'web' };
        const r = await api.send('POST', `/apis/apps/v1/namespaces/${ns}/statefulsets`, {
          apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
          spec: { replicas: 3, serviceName: 'web', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } } },
        });
        if (r.status !== 201) fail(`setup: creating StatefulSet web answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        // The check is the kubelet: it makes each pod Ready in turn, after looking that the next one waits.
        for (let i = 0; i < 3; i++) {
          const seen = await within(busyScaled(40_000), async () => {
            const names = await livePodNames(api, ns, 'app=web');
            return names.includes(`web-${i}`) ? names : undefined;
          });
          expectTrue(seen, `web-${i} was created within ${busyScaled(40_000) / 1000} s (pods: ${JSON.stringify(await livePodNames(api, ns, 'app=web'))})`, ['controller.statefulset']);
          const want = Array.from({ length: i + 1 }, (_, k) => `web-${k}`);
          expectTrue(JSON.stringify(seen) === JSON.stringify(want), `while web-${i - 1} was not Ready, only ${JSON.stringify(want)} may exist; found ${JSON.stringify(seen)}`, ['controller.statefulset']);
          if (i < 2) {
            // Held unready for a while: the next ordinal must not appear.
            await sleep(1_500);
            const still = await livePodNames(api, ns, 'app=web');
            expectTrue(JSON.stringify(still) === JSON.stringify(want), `web-${i + 1} must wait for web-${i} to be Running and Ready; found ${JSON.stringify(still)}`, ['controller.statefulset']);
          }
          await setPodReady(api, ns, `web-${i}`, true);
        }
        await api.send('PATCH', `/apis/apps/v1/namespaces/${ns}/statefulsets/web/scale`, { spec: { replicas: 1 } }, 'application/merge-patch+json');
        const down = await within(busyScaled(40_000), async () => {
          const names = await livePodNames(api, ns, 'app=web');
          return names.includes('web-2') ? undefined : names;
        });
        expectTrue(down && down.includes('web-0'), `scaled to 1: web-2 went first and web-0 stays (pods: ${JSON.stringify(down)})`, ['controller.statefulset']);
      });
    });
  },
);

check(
  'daemon-controllers.disruption',
  {
    rows: ['controller.disruption'],
    title: 'disruption: a PodDisruptionBudget gets currentHealthy, desiredHealthy, disruptionsAllowed, expectedPods and observedGeneration from its pods; an eviction beyond the budget is refused with 429',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'pdb');
      await withControllers(env, 'disruption', [], 'disruption', async () => {
        for (const n of ['p-0', 'p-1', 'p-2']) {
          const r = await api.send('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: n, labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } });
          if (r.status !== 201) fail(`setup: creating pod ${n} answered ${r.status}`);
          await setPodReady(api, ns, n, true);
        }
        const r = await api.send('POST', `/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets`, { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'db' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } } });
        if (r.status !== 201) fail(`setup: creating the PodDisruptionBudget answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        type PdbStatus = { currentHealthy?: number; desiredHealthy?: number; disruptionsAllowed?: number; expectedPods?: number; observedGeneration?: number };
        const pdb = async () => (await api.get(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets/db`)) as (KubeObject & { status?: PdbStatus }) | undefined;
        const want = (s: PdbStatus | undefined, healthy: number, allowed: number) =>
          s?.currentHealthy === healthy && s.desiredHealthy === 2 && s.disruptionsAllowed === allowed && s.expectedPods === 3;
        const first = await within(busyScaled(40_000), async () => {
          const p = await pdb();
          return want(p?.status, 3, 1) && p!.status!.observedGeneration === p!.metadata.generation ? p : undefined;
        });
        expectTrue(first, `minAvailable 2 over 3 ready pods: status currentHealthy 3, desiredHealthy 2, disruptionsAllowed 1, expectedPods 3, observedGeneration = generation within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await pdb())?.status)})`, ['controller.disruption']);
        const evict = (pod: string) => api.send('POST', `/api/v1/namespaces/${ns}/pods/${pod}/eviction`, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: pod, namespace: ns } });
        const e1 = await evict('p-0');
        expectTrue(e1.status === 201 || e1.status === 200, `the first eviction within the budget was allowed (got ${e1.status}: ${JSON.stringify(e1.body).slice(0, 200)})`, ['controller.disruption']);
        const second = await within(busyScaled(40_000), async () => ((await pdb())?.status?.disruptionsAllowed === 0 ? true : undefined));
        expectTrue(second, `after one eviction the budget shows disruptionsAllowed 0 within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await pdb())?.status)})`, ['controller.disruption']);
        const e2 = await evict('p-1');
        expectTrue(e2.status === 429, `an eviction beyond the budget was refused with 429 (got ${e2.status}: ${JSON.stringify(e2.body).slice(0, 200)})`, ['controller.disruption']);
      });
    });
  },
);

check(
  'daemon-controllers.horizontalpodautoscaling',
  {
    rows: ['controller.horizontalpodautoscaling', 'option.horizontal-pod-autoscaler-sync-period'],
    title: 'horizontalpodautoscaling: an HPA gets its status written (currentReplicas of its target, read through /scale) and follows the target every --horizontal-pod-autoscaler-sync-period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'hpa');
      // The replicaset loop keeps the target's status.replicas (what the 1.9 autoscaler reads as current) true.
      await withControllers(env, 'horizontalpodautoscaling,replicaset', ['--horizontal-pod-autoscaler-sync-period=1s'], 'horizontalpodautoscaling', async () => {
        const labels = { app: 'front' };
        const rs = await api.send('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
          apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'front' },
          spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.13', resources: { requests: { cpu: '100m' } } }] } } },
        });
        if (rs.status !== 201) fail(`setup: creating ReplicaSet front answered ${rs.status}`);
        const hpa = await api.send('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, {
          apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'front' },
          spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'front' }, minReplicas: 1, maxReplicas: 10, targetCPUUtilizationPercentage: 50 },
        });
        if (hpa.status !== 201) fail(`setup: creating the HorizontalPodAutoscaler answered ${hpa.status}: ${JSON.stringify(hpa.body).slice(0, 200)}`);
        const statusOf = async () => ((await api.get(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/front`))?.status as { currentReplicas?: number; desiredReplicas?: number } | undefined);
        // A 1.9 server writes the status's non-omitempty counters as 0 on create; the controller's first sync sets
        // desiredReplicas to at least minReplicas (1), so that is what tells its write apart.
        const written = await within(busyScaled(40_000), async () => (((await statusOf())?.desiredReplicas ?? 0) >= 1 ? true : undefined));
        expectTrue(written, `the HPA's status was written within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify(await statusOf())})`, ['controller.horizontalpodautoscaling']);
        // The target changes behind the HPA's back: the next sync (1 s) sees it.
        await api.send('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/front/scale`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
        const followed = await within(10_000, async () => ((await statusOf())?.currentReplicas === 3 ? true : undefined));
        expectTrue(followed, `--horizontal-pod-autoscaler-sync-period=1s: the HPA's currentReplicas followed its target to 3 within 10 s (got ${JSON.stringify(await statusOf())})`, ['option.horizontal-pod-autoscaler-sync-period', 'controller.horizontalpodautoscaling']);
      });
    });
  },
);

check(
  'daemon-controllers.resourcequota',
  {
    rows: ['controller.resourcequota', 'option.resource-quota-sync-period', 'option.concurrent-resource-quota-syncs'],
    title: 'resourcequota: status.hard and status.used follow the quota and the objects of its namespace (created, deleted), and a wrong status.used is recomputed by the next --resource-quota-sync-period',
    timeoutSeconds: 150,
    concurrent: true,
  },
  async (ctx) => {
    await withEnv(ctx, async (env) => {
      const { api } = env;
      const ns = await namespaceFor(api, 'quota');
      await withControllers(env, 'resourcequota', ['--resource-quota-sync-period=1s', '--concurrent-resource-quota-syncs=2'], 'resourcequota', async () => {
        const r = await api.send('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { configmaps: '5', pods: '4', 'requests.cpu': '2' } } });
        if (r.status !== 201) fail(`setup: creating the ResourceQuota answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
        type QuotaStatus = { hard?: Record<string, string>; used?: Record<string, string> };
        const status = async () => ((await api.get(`/api/v1/namespaces/${ns}/resourcequotas/q`))?.status as QuotaStatus | undefined);
        const cpuMilli = (q: string | undefined) => (q === undefined ? NaN : q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
        const usedIs = (s: QuotaStatus | undefined, cms: number, pods: number, cpu: number) =>
          s?.used !== undefined && Number(s.used.configmaps) === cms && Number(s.used.pods) === pods && cpuMilli(s.used['requests.cpu']) === cpu;
        const first = await within(busyScaled(40_000), async () => {
          const s = await status();
          return s?.hard?.configmaps === '5' && usedIs(s, 0, 0, 0) ? true : undefined;
        });
        expectTrue(first, `a new quota got status.hard = spec.hard and status.used zero within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify(await status())})`, ['controller.resourcequota']);
        for (const n of ['a', 'b']) await api.send('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: {} });
        const pod = await api.send('POST', `/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.13', resources: { requests: { cpu: '250m' }, limits: { cpu: '250m' } } }] } });
        expectTrue(pod.status === 201, `a pod within the quota was admitted (got ${pod.status}: ${JSON.stringify(pod.body).slice(0, 200)})`, ['controller.resourcequota']);
        const counted = await within(busyScaled(40_000), async () => (usedIs(await status(), 2, 1, 250) ? true : undefined));
        expectTrue(counted, `after 2 ConfigMaps and a pod requesting 250m, status.used shows configmaps 2, pods 1, requests.cpu 250m within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await status())?.used)})`, ['controller.resourcequota']);
        await api.send('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`);
        const released = await within(busyScaled(40_000), async () => (usedIs(await status(), 1, 1, 250) ? true : undefined));
        expectTrue(released, `a deleted ConfigMap is released from status.used within ${busyScaled(40_000) / 1000} s (got ${JSON.stringify((await status())?.used)})`, ['controller.resourcequota']);
        // A wrong status.used (written by the check) is put right by the next full sync.
        const q = (await api.get(`/api/v1/namespaces/${ns}/resourcequotas/q`)) as KubeObject & { status?: QuotaStatus };
        const w = await api.send('PUT', `/api/v1/namespaces/${ns}/resourcequotas/q/status`, { ...q, status: { hard: q.status?.hard, used: { ...q.status?.used, configmaps: '4' } } });
        expectTrue(w.status === 200, `setup: writing status.used answered ${w.status}`);
        const fixed = await within(busyScaled(30_000), async () => (Number((await status())?.used?.configmaps) === 1 ? true : undefined));
        expectTrue(fixed, `--resource-quota-sync-period=1s: a wrong status.used.configmaps was recomputed within ${busyScaled(30_000) / 1000} s (the default period: 5 min) (got ${JSON.stringify((await status())?.used)})`, ['option.resource-quota-sync-period']);
      });
    });
  },
);
