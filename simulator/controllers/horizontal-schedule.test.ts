// The HPA driven by a usage schedule (api/pod-usage.ts) alone: the pods' usage rises and falls with time since
// each container started, so the Deployment is scaled up and back down with no write to the pods or the template.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Api, eventually, startHpaEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

let env: WorkloadEnv;
let api: Api;
const DOWNSCALE_DELAY_S = 6;
before(async () => {
  env = await startHpaEnv(DOWNSCALE_DELAY_S);
  api = new Api(env.url);
});
after(() => env.close());

test('a usage schedule scales a Deployment up and, after the downscale delay, back down', async () => {
  const ns = await api.namespace('hpa-schedule');
  // 150% of the request for the first 12 s of each container, then 5%.
  const template = {
    metadata: { labels: { app: 'web' }, annotations: { 'simulator.cluster.local/cpu-usage': '0s:150%,12s:5%' } },
    spec: { containers: [{ name: 'main', image: 'nginx:1.13', resources: { requests: { cpu: '100m' } } }] },
  };
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template } });
  await api.create(`/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 50 } });
  const replicas = async () => ((await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`))?.spec as { replicas: number }).replicas;
  const peak = await eventually('scaled up by the schedule', async () => {
    const r = await replicas();
    return r > 1 && r;
  }, 30_000);
  assert.ok(peak >= 3, `scaled to ${peak}: 150% of a 50% target is 3 replicas`);
  const upAt = Date.now();
  await eventually('scaled back down to 1 once the schedule fell', async () => (await replicas()) === 1, 60_000);
  assert.ok(Date.now() - upAt >= (DOWNSCALE_DELAY_S - 1) * 1000, 'not before the downscale delay');
  const d = await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
  assert.equal(d?.metadata.annotations?.['deployment.kubernetes.io/revision'], '1', 'the template was never changed');
});
