// Node IPAM (--allocate-node-cidrs, RangeAllocator) and the TTL controller, observed through the API:
// two mask sizes, pod IPs from the allocated range, the service range left out, CIDRNotAvailable when full,
// a deleted node's range reused, never the same range twice; the TTL annotation at the real boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/meta.ts';
import { contains, parseCidr4, parseIPv4 } from '../api/cidr.ts';
import { eventually, phaseOf } from '../testing/workload-test-env.ts';
import { boundPod, startNodeEnv, type NodeEnv } from '../testing/node-test-env.ts';

const podCIDR = (n: KubeObject | undefined) => (n?.spec as { podCIDR?: string } | undefined)?.podCIDR;

async function withEnv(controllers: string[], flags: string[], count: number, fn: (env: NodeEnv) => Promise<void>): Promise<void> {
  const env = await startNodeEnv(controllers, ['--x-api-qps=500', '--x-api-burst=1000', ...flags], { count });
  try {
    await fn(env);
  } finally {
    await env.close();
  }
}

async function cidrs(env: NodeEnv, n: number): Promise<string[]> {
  return eventually(`${n} pod CIDRs`, async () => {
    const got = (await env.api.list('/api/v1/nodes')).map(podCIDR).filter(Boolean) as string[];
    return got.length === n && got.sort();
  });
}

test('--node-cidr-mask-size: /24 and /26 blocks of --cluster-cidr, distinct, and pod IPs from them', async () => {
  for (const mask of [24, 26]) {
    await withEnv(['node'], ['--allocate-node-cidrs', '--cluster-cidr=10.100.0.0/16', `--node-cidr-mask-size=${mask}`], 3, async (env) => {
      const got = await cidrs(env, 3);
      assert.equal(new Set(got).size, 3, `distinct: ${got}`);
      const cluster = parseCidr4('10.100.0.0/16')!;
      for (const c of got) {
        assert.match(c, new RegExp(`/${mask}$`));
        assert.ok(contains(cluster, parseCidr4(c)!.base), `${c} inside the cluster CIDR`);
      }
      const ns = await env.api.namespace('ipam');
      await env.api.create(`/api/v1/namespaces/${ns}/pods`, boundPod('p', 'sim-node-1'));
      const pod = await eventually('running', async () => {
        const p = await env.api.get(`/api/v1/namespaces/${ns}/pods/p`);
        return phaseOf(p!) === 'Running' && p;
      });
      const nodeCidr = parseCidr4(podCIDR(await env.api.get('/api/v1/nodes/sim-node-1'))!)!;
      assert.ok(contains(nodeCidr, parseIPv4((pod.status as { podIP: string }).podIP)!), `pod IP ${(pod.status as { podIP: string }).podIP} in the node's ${mask} block`);
    });
  }
});

test('--service-cluster-ip-range is left out; a full range gives CIDRNotAvailable; a deleted node frees its block', async () => {
  // 10.100.0.0/22 in /24 blocks = 4, the service range takes the first two: 2 blocks for 3 nodes.
  await withEnv(['node'], ['--allocate-node-cidrs', '--cluster-cidr=10.100.0.0/22', '--node-cidr-mask-size=24', '--service-cluster-ip-range=10.100.0.0/23'], 3, async (env) => {
    const got = await cidrs(env, 2);
    assert.deepEqual(got, ['10.100.2.0/24', '10.100.3.0/24']);
    const waiting = (await env.api.list('/api/v1/nodes')).find((n) => !podCIDR(n))!.metadata.name!;
    await eventually('CIDRNotAvailable event', async () =>
      (await env.api.list('/api/v1/namespaces/default/events')).some((e) => {
        const ev = e as KubeObject & { reason?: string; type?: string; involvedObject?: { name?: string; kind?: string }; message?: string };
        return ev.reason === 'CIDRNotAvailable' && ev.involvedObject?.kind === 'Node' && ev.involvedObject.name === waiting && ev.message === `Node ${waiting} status is now: CIDRNotAvailable`;
      }),
    );
    const donor = (await env.api.list('/api/v1/nodes')).find((n) => podCIDR(n))!;
    await env.api.delete(`/api/v1/nodes/${donor.metadata.name}`);
    await eventually('the waiting node gets the freed block', async () => podCIDR(await env.api.get(`/api/v1/nodes/${waiting}`)) === podCIDR(donor));
    const all = (await env.api.list('/api/v1/nodes')).map(podCIDR);
    assert.equal(new Set(all).size, all.length, `never twice: ${all}`);
  });
});

test('ttl: node.alpha.kubernetes.io/ttl is 0 s up to 100 nodes, 15 s above, back to 0 below 90', async () => {
  await withEnv(['ttl'], [], 0, async (env) => {
    const ttls = async () => (await env.api.list('/api/v1/nodes')).map((n) => n.metadata.annotations?.['node.alpha.kubernetes.io/ttl']);
    const create = (i: number) => env.api.create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: `n-${String(i).padStart(3, '0')}` } });
    for (let i = 0; i < 100; i += 20) await Promise.all(Array.from({ length: 20 }, (_, k) => create(i + k)));
    await eventually('100 nodes: ttl 0', async () => {
      const t = await ttls();
      return t.length === 100 && t.every((v) => v === '0');
    });
    await create(100);
    await eventually('101 nodes: ttl 15', async () => (await ttls()).every((v) => v === '15'), 20_000);
    // 95 nodes: still 15 (the step goes down only below 90).
    for (let i = 0; i < 6; i++) await env.api.delete(`/api/v1/nodes/n-${String(i).padStart(3, '0')}`);
    await new Promise((r) => setTimeout(r, 500));
    assert.ok((await ttls()).every((v) => v === '15'), '95 nodes: still 15');
    for (let i = 6; i < 12; i++) await env.api.delete(`/api/v1/nodes/n-${String(i).padStart(3, '0')}`);
    await eventually('89 nodes: ttl 0', async () => (await ttls()).every((v) => v === '0'), 20_000);
  });
});
