import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containerUsage, parseSchedule, usageAt } from './pod-usage.ts';
import type { KubeObject } from './meta.ts';

test('constant, share and schedule values', () => {
  assert.equal(usageAt('250m', '1', 0), 250);
  assert.equal(usageAt('80%', '500m', 0), 400);
  assert.equal(usageAt('80%', undefined, 0), undefined);
  assert.equal(usageAt('nonsense', '1', 0), undefined);
  const s = '0s:10%,60s:90%,3m:5%';
  assert.deepEqual(parseSchedule(s)?.points.map((p) => p.atMs), [0, 60_000, 180_000]);
  assert.equal(usageAt(s, '1', 0), 100);
  assert.equal(usageAt(s, '1', 59_999), 100);
  assert.equal(usageAt(s, '1', 60_000), 900);
  assert.equal(usageAt(s, '1', 10 * 60_000), 50);
  assert.equal(usageAt(`ramp:${s}`, '1', 30_000), 500);
  assert.equal(usageAt(`ramp:${s}`, '1', 120_000), 475);
  assert.equal(usageAt('ramp:0s:100m,10s:200m', undefined, 5_000), 150);
  assert.equal(usageAt('0s:10%,bad:5%', '1', 0), undefined);
});

test('per-container annotations win over the pod-wide one, which wins over the cluster default', () => {
  const started = '2026-01-01T00:00:00Z';
  const pod: KubeObject = {
    metadata: { name: 'p', annotations: { 'simulator.cluster.local/cpu-usage': '0s:100m,30s:300m', 'simulator.cluster.local/cpu-usage.side': '7m' } },
    spec: { containers: [{ name: 'main' }, { name: 'side' }] },
    status: { containerStatuses: [{ name: 'main', state: { running: { startedAt: started } } }, { name: 'side', state: { running: { startedAt: started } } }] },
  } as KubeObject;
  const at = (s: number) => containerUsage(pod, Date.parse(started) + s * 1000, { memory: '32Mi' });
  assert.deepEqual(at(10).map((c) => c.cpuMilli), [100, 7]);
  assert.deepEqual(at(31).map((c) => c.cpuMilli), [300, 7]);
  assert.equal(at(0)[0].memoryMilli, 32 * 1024 * 1024 * 1000);
});
