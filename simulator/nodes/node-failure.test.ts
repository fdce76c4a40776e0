// Failing simulated nodes (the node-state annotation and setNodeState), zone/region labels, and pod IPs from
// the Node's spec.podCIDR, against a real simulator without the controller daemon (nothing else touches the
// nodes, so every change seen is the kubelets').
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { ANN_NODE_STATE, REGION_LABEL, ZONE_LABEL, placementOf, startNodes, type NodesHandle } from './index.ts';
import { Api, eventually, phaseOf } from '../testing/workload-test-env.ts';

let sim: RunningSimulator;
let nodes: NodesHandle;
let api: Api;
before(async () => {
  sim = await startSimulator();
  nodes = await startNodes(sim.url, { count: 4, zones: 2, heartbeatMs: 100, startMs: 20, stopMs: 20, kubeletQps: -1, schedulerQps: -1, log: () => {} });
  api = new Api(sim.url);
});
after(async () => {
  await nodes.close();
  await sim.close();
});

interface Cond {
  type: string;
  status: string;
  reason?: string;
  lastHeartbeatTime?: string;
}
const readyOf = (n: KubeObject | undefined) => ((n?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
const node = (name: string) => api.get(`/api/v1/nodes/${name}`);

test('--zones spreads nodes over zones of one region, in turn', async () => {
  assert.deepEqual(placementOf(0, { zones: 0 }), {});
  assert.deepEqual(placementOf(3, { zones: 2, region: 'r' }), { region: 'r', zone: 'r-b' });
  const zones = await Promise.all(nodes.nodeNames.map(async (n) => (await node(n))!.metadata.labels!));
  assert.deepEqual(zones.map((l) => l[ZONE_LABEL]), ['sim-region-1-a', 'sim-region-1-b', 'sim-region-1-a', 'sim-region-1-b']);
  assert.ok(zones.every((l) => l[REGION_LABEL] === 'sim-region-1'), "zones.every((l) => l[REGION_LABEL] === 'sim-region-1')");
});

test('node-state stopped: no heartbeat until ready again; not-ready: Ready=False with KubeletNotReady', async () => {
  const name = nodes.nodeNames[1];
  await nodes.setNodeState(name, 'stopped');
  // A heartbeat already in flight may still land (the machine may be slow): some 1.2 s window (a heartbeat
  // time changes every second) must pass without any write to the Node.
  let stable = false;
  for (let i = 0; i < 4 && !stable; i++) {
    const before = (await node(name))?.metadata.resourceVersion;
    await new Promise((r) => setTimeout(r, 1_200));
    stable = (await node(name))?.metadata.resourceVersion === before;
  }
  assert.ok(stable, 'a stopped node posts no heartbeat');
  // Set through the API only (what kubectl annotate does): the kubelet follows the annotation.
  await api.patch(`/api/v1/nodes/${name}`, { metadata: { annotations: { [ANN_NODE_STATE]: 'not-ready' } } });
  const notReady = await eventually('Ready=False', async () => {
    const r = readyOf(await node(name));
    return r?.status === 'False' && r;
  });
  assert.equal(notReady.reason, 'KubeletNotReady');
  await nodes.setNodeState(name, 'ready');
  await eventually('Ready again', async () => readyOf(await node(name))?.status === 'True');
});

test('a stopped node confirms no deletion until it comes back', async () => {
  const ns = await api.namespace('fail');
  const name = nodes.nodeNames[2];
  await api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: name, containers: [{ name: 'c', image: 'nginx' }] } });
  await eventually('running', async () => phaseOf((await api.get(`/api/v1/namespaces/${ns}/pods/p`))!) === 'Running');
  await nodes.setNodeState(name, 'stopped');
  await api.req('DELETE', `/api/v1/namespaces/${ns}/pods/p`);
  await new Promise((r) => setTimeout(r, 800));
  assert.ok((await api.get(`/api/v1/namespaces/${ns}/pods/p`))?.metadata.deletionTimestamp, 'still terminating: nobody confirms');
  await nodes.setNodeState(name, 'ready');
  await eventually('confirmed once back', async () => (await api.get(`/api/v1/namespaces/${ns}/pods/p`)) === undefined);
});

test("pod IPs come from the node's spec.podCIDR once it has one", async () => {
  const ns = await api.namespace('cidr');
  const name = nodes.nodeNames[3];
  await api.patch(`/api/v1/nodes/${name}`, { spec: { podCIDR: '10.77.3.64/26' } });
  await eventually('kubelet saw it', async () => (await node(name))?.spec && true);
  await new Promise((r) => setTimeout(r, 200));
  for (const p of ['a', 'b']) await api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: p }, spec: { nodeName: name, containers: [{ name: 'c', image: 'nginx' }] } });
  const ips = await eventually('IPs', async () => {
    const list = await api.list(`/api/v1/namespaces/${ns}/pods`);
    const got = list.map((p) => (p.status as { podIP?: string }).podIP).filter(Boolean) as string[];
    return got.length === 2 && got;
  });
  for (const ip of ips) assert.match(ip, /^10\.77\.3\.(6[6-9]|[7-9]\d|1[01]\d|12[0-6])$/, `${ip} is a host of 10.77.3.64/26 (from .66)`);
  assert.notEqual(ips[0], ips[1]);
});
