// Horizontal pod autoscaler: raising the template's simulated CPU usage scales a Deployment up; lowering it
// scales down only once the downscale delay has passed since the last scale (both times asserted).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { desiredReplicas } from './horizontal.ts';
import { Api, eventually, startHpaEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

test('tolerance: a ratio within it keeps the count, outside it scales by the ratio', () => {
  assert.equal(desiredReplicas(2, 2, 54, 50, 0.1), 2); // ratio 1.08, within 0.1
  assert.equal(desiredReplicas(2, 2, 54, 50, 0.05), 3); // ratio 1.08 beyond 0.05: ceil(2.16)
  assert.equal(desiredReplicas(4, 4, 20, 50, 0.1), 2);
});

let env: WorkloadEnv;
let api: Api;
const DOWNSCALE_DELAY_S = 8;
before(async () => {
  env = await startHpaEnv(DOWNSCALE_DELAY_S);
  api = new Api(env.url);
});
after(() => env.close());

test('CPU usage above target scales up at once; below target scales down only after the downscale delay', async () => {
  const ns = await api.namespace('hpa');
  const template = (usage: string) => ({
    metadata: { labels: { app: 'web' }, annotations: { 'simulator.cluster.local/cpu-usage': usage } },
    spec: { containers: [{ name: 'main', image: 'nginx:1.13', resources: { requests: { cpu: '100m' } } }] },
  });
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('50m') } });
  await api.create(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 50 } });
  await eventually('utilisation observed at 50%', async () => ((await api.get(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/web`))?.status as { currentCPUUtilizationPercentage?: number } | undefined)?.currentCPUUtilizationPercentage === 50, 40_000);
  const raisedAt = Date.now();
  await api.patch(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { template: { metadata: { annotations: { 'simulator.cluster.local/cpu-usage': '150m' } } } } });
  const up = await eventually('scaled up', async () => {
    const h = await api.get(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/web`);
    const d = await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    // The controller scales the target, then writes its own status: wait for both (read in either order).
    return ((d?.spec as { replicas: number }).replicas ?? 1) > 1 && !!(h?.status as { lastScaleTime?: string } | undefined)?.lastScaleTime && h;
  }, 40_000);
  const upAt = Date.now();
  const st = up.status as { lastScaleTime?: string; desiredReplicas?: number };
  assert.ok(st.lastScaleTime, 'lastScaleTime set');
  assert.match(up.metadata.annotations?.['autoscaling.alpha.kubernetes.io/conditions'] ?? '', /SucceededRescale|ReadyForNewScale|ValidMetricFound/);
  const scaledUpAt = Date.parse(st.lastScaleTime!);
  await api.patch(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { template: { metadata: { annotations: { 'simulator.cluster.local/cpu-usage': '5m' } } } } });
  const down = await eventually('scaled down to 1', async () => {
    const d = await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    return (d?.spec as { replicas: number }).replicas === 1 && Date.now();
  }, 60_000);
  // Its status follows the scale: wait for the new lastScaleTime.
  const downScaleTime = await eventually('lastScaleTime of the scale down', async () => {
    const h = await api.get(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers/web`);
    const t = Date.parse((h?.status as { lastScaleTime?: string } | undefined)?.lastScaleTime ?? '');
    return t !== scaledUpAt && t;
  }, 10_000);
  // Whole-second timestamps: allow one second of rounding.
  assert.ok(downScaleTime - scaledUpAt >= (DOWNSCALE_DELAY_S - 1) * 1000, `scaled down ${downScaleTime - scaledUpAt} ms after the scale up, before the ${DOWNSCALE_DELAY_S}s delay`);
  assert.ok(down - raisedAt > 0 && upAt >= raisedAt, 'down - raisedAt > 0 && upAt >= raisedAt');
});
