// The scheduler's choice without an API: least loaded first, equal nodes in turn, nodes that do not fit skipped,
// and the reasons of a pod that fits nowhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import type { ApiClient } from '../client/api-client.ts';
import { SimScheduler } from './scheduler.ts';

interface NodeOpts {
  ready?: boolean;
  pods?: number;
  labels?: Record<string, string>;
  taint?: boolean;
  unschedulable?: boolean;
}
const node = (name: string, opts: NodeOpts = {}): KubeObject => ({
  metadata: { name, labels: opts.labels ?? {} },
  spec: { unschedulable: opts.unschedulable, taints: opts.taint ? [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] : undefined },
  status: { allocatable: { pods: String(opts.pods ?? 110) }, conditions: [{ type: 'Ready', status: opts.ready === false ? 'False' : 'True' }] },
});
const pod = (spec: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c' }], ...spec } });

function scheduler(bound: Map<string, number>): SimScheduler {
  return new SimScheduler({} as ApiClient, { pod: () => undefined, podsOn: (n) => bound.get(n) ?? 0 }, { workers: 1, retryMs: 1000, log: () => {} });
}

test('least loaded node first; equal nodes take turns as their load goes up', () => {
  const bound = new Map<string, number>([['a', 2], ['b', 0], ['c', 0]]);
  const s = scheduler(bound);
  for (const n of ['a', 'b', 'c']) s.nodeChanged(n, node(n));
  const picks: string[] = [];
  for (let i = 0; i < 7; i++) {
    const n = s.pick(pod())!;
    picks.push(n);
    bound.set(n, (bound.get(n) ?? 0) + 1);
    s.loadChanged(n);
  }
  assert.deepEqual(picks, ['b', 'c', 'b', 'c', 'a', 'b', 'c']);
});

test('nodes that are not ready, unschedulable, tainted, of other labels or full are skipped; a pod that fits nowhere gets the reasons', () => {
  const bound = new Map<string, number>([['full', 1]]);
  const s = scheduler(bound);
  s.nodeChanged('down', node('down', { ready: false }));
  s.nodeChanged('cordoned', node('cordoned', { unschedulable: true }));
  s.nodeChanged('tainted', node('tainted', { taint: true }));
  s.nodeChanged('full', node('full', { pods: 1, labels: { disk: 'ssd' } }));
  s.nodeChanged('ssd', node('ssd', { labels: { disk: 'ssd' } }));
  assert.equal(s.pick(pod({ nodeSelector: { disk: 'ssd' } })), 'ssd');
  assert.equal(s.pick(pod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }], nodeSelector: { disk: 'hdd' } })), undefined);
  s.nodeChanged('ssd', undefined);
  assert.equal(s.pick(pod({ nodeSelector: { disk: 'ssd' } })), undefined);
  const { fits, total, reasons } = s.candidates(pod({ nodeSelector: { disk: 'ssd' } }));
  assert.deepEqual(fits, []);
  assert.equal(total, 4);
  assert.deepEqual(Object.fromEntries(reasons), {
    'node(s) were not ready': 1,
    'node(s) were unschedulable': 1,
    "node(s) had taints that the pod didn't tolerate": 1,
    'Insufficient pods': 1,
  });
  // The tainted node takes a pod that tolerates the taint.
  assert.equal(s.pick(pod({ tolerations: [{ key: 'dedicated', operator: 'Exists' }] })), 'tainted');
});
