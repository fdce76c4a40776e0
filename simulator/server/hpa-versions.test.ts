// HorizontalPodAutoscalers at autoscaling/v1 and v2beta1 over one storage: v2beta1 metrics that v1 cannot hold
// are kept in annotations (as 1.9 keeps them) and survive a v1 write; v2beta1's own defaults and validation.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Harness, harness } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('hpa');
});
after(() => h.close());

const V1 = () => `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;
const V2 = () => `/apis/autoscaling/v2beta1/namespaces/${ns}/horizontalpodautoscalers`;
const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const pods = { type: 'Pods', pods: { metricName: 'qps', targetAverageValue: '10' } };

test('v2beta1 metrics: CPU in targetCPUUtilizationPercentage, the others in the metrics annotation, back at v2beta1 after a v1 write', async () => {
  const created = await h.create(V2(), {
    apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' },
    spec: { scaleTargetRef: target, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 50 } }, pods] },
  });
  assert.equal(created.apiVersion, 'autoscaling/v2beta1');
  assert.deepEqual(created.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 50 } }, pods]);
  assert.equal(created.metadata.annotations, undefined);
  const v1 = (await h.call('GET', `${V1()}/web`)).body;
  assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
  assert.equal(v1.spec.metrics, undefined);
  assert.deepEqual(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics']), [pods]);
  const put = await h.call('PUT', `${V1()}/web`, { ...v1, spec: { ...v1.spec, maxReplicas: 7, targetCPUUtilizationPercentage: 60 } });
  assert.equal(put.status, 200, put.text);
  const back = (await h.call('GET', `${V2()}/web`)).body;
  assert.equal(back.spec.maxReplicas, 7);
  assert.deepEqual(back.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 60 } }, pods]);
  assert.equal(back.metadata.annotations, undefined);
});

test("v2beta1's defaults and validation", async () => {
  const plain = await h.create(V2(), { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'plain' }, spec: { scaleTargetRef: target, maxReplicas: 3 } });
  assert.equal(plain.spec.minReplicas, 1);
  assert.deepEqual(plain.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }]);
  const v1 = await h.create(V1(), { metadata: { name: 'v1only' }, spec: { scaleTargetRef: target, maxReplicas: 3 } });
  assert.equal(v1.spec.targetCPUUtilizationPercentage, undefined, 'v1 has no CPU default');
  const bad = await h.call('POST', V2(), { apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' }, spec: { scaleTargetRef: target, maxReplicas: 3, metrics: [{ type: 'External' }] } });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.details.causes[0].field, 'spec.metrics[0].type');
});
