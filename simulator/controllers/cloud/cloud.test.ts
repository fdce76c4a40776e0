// The simulated cloud and its loops, observed through the API and the daemon's read-only /cloud/* documents:
// --cloud-config format and errors, credential files, unknown providers; the service controller
// (LoadBalancer ingress from the pool, released on type change and delete, --service-sync-period,
// --concurrent-service-syncs); the route controller (--route-reconciliation-period, --configure-cloud-routes);
// instances (ExternalIP addresses, a node whose instance is gone is deleted); the CloudAllocator; and
// --controllers=* starting node, ttl, route and service.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../api/meta.ts';
import { loadCloudConfig } from './simulated-cloud.ts';
import { startDaemon } from '../daemon/daemon.ts';
import { UsageError } from '../config/options.ts';
import { startSimulator } from '../../cluster.ts';
import { eventually } from '../../testing/workload-test-env.ts';
import { conditionOf, startNodeEnv, whenSeen, type NodeEnv } from '../../testing/node-test-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'cloud-test-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const REPO = fileURLToPath(new URL('../../..', import.meta.url));

test('--cloud-config: YAML or JSON settings, defaults, and errors naming the problem', () => {
  const c = loadCloudConfig(file('ok.yaml', 'region: r1\nloadBalancerPool: [203.0.113.7, 198.51.100.0/30]\nloadBalancerProvisionSeconds: 0.5\n'));
  assert.deepEqual(c.loadBalancerPool, ['203.0.113.7', '198.51.100.1', '198.51.100.2']);
  assert.equal(c.region, 'r1');
  assert.equal(loadCloudConfig(file('ok.json', '{"instancePodCIDRMaskSize": 26}')).instancePodCIDRMaskSize, 26);
  assert.equal(loadCloudConfig('').loadBalancerPool.length, 14, 'no file: the defaults (203.0.113.0/28)');
  assert.throws(() => loadCloudConfig(join(dir, 'missing.yaml')), /cannot read .*missing\.yaml: ENOENT/);
  assert.throws(() => loadCloudConfig(file('bad.yaml', 'region: [unclosed\n')), /is not YAML or JSON/);
  assert.throws(() => loadCloudConfig(file('list.yaml', '- a\n')), /expected a mapping/);
  assert.throws(() => loadCloudConfig(file('unknown.yaml', 'zonez: 2\n')), /unknown setting "zonez"/);
  assert.throws(() => loadCloudConfig(file('pool.yaml', 'loadBalancerPool: [not-an-ip]\n')), /loadBalancerPool: expected IPv4 addresses or CIDRs/);
});

async function daemonStartError(args: string[]): Promise<Error> {
  const sim = await startSimulator();
  try {
    await startDaemon(['--master', sim.url, '--leader-elect=false', '--port=0', '--address=127.0.0.1', '--controllers=ttl', ...args], { log: () => {} });
  } catch (err) {
    return err as Error;
  } finally {
    await sim.close();
  }
  throw new Error(`the daemon started with ${args.join(' ')}`);
}

test('bad cloud files stop the start with exit 2 naming the option; an unknown provider ends it like the real daemon', async () => {
  const missing = await daemonStartError(['--cloud-provider=simulated', `--cloud-config=${join(dir, 'nope.yaml')}`]);
  assert.ok(missing instanceof UsageError && missing.exitCode === 2, 'missing instanceof UsageError && missing.exitCode === 2');
  assert.match(missing.message, /for "--cloud-config" flag: cannot read/);
  const malformed = await daemonStartError(['--cloud-provider=simulated', `--cloud-config=${file('m.yaml', 'loadBalancerPool: 7\n')}`]);
  assert.match(malformed.message, /"--cloud-config" flag: .*loadBalancerPool/);
  for (const opt of ['--cloud-a-container-registry-config', '--cloud-b-json-key']) {
    const unreadable = await daemonStartError([`${opt}=${join(dir, 'absent.json')}`]);
    assert.ok(unreadable instanceof UsageError, 'unreadable instanceof UsageError');
    assert.match(unreadable.message, new RegExp(`for "${opt}" flag: cannot read the file`));
    const bad = await daemonStartError([`${opt}=${file('bad.json', '{nope')}`]);
    assert.match(bad.message, new RegExp(`for "${opt}" flag: not JSON`));
  }
  const unknown = await daemonStartError(['--cloud-provider=gce']);
  assert.equal((unknown as { exitCode?: number }).exitCode, 255);
  assert.equal(unknown.message, 'error building controller context: cloud provider could not be initialized: unknown cloud provider "gce"');
  // The command: exit codes 255 and 2, the messages on stderr.
  const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'simulator/controllers/index.ts', '--master=http://127.0.0.1:1', '--port=0', ...args], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
  const r255 = run(['--cloud-provider=nosuchcloud']);
  assert.equal(r255.status, 255, r255.stderr);
  assert.match(r255.stderr, /^F\d{4} .*\] error building controller context: cloud provider could not be initialized: unknown cloud provider "nosuchcloud"$/m);
  const r2 = run(['--cloud-b-json-key=/nonexistent/key.json']);
  assert.equal(r2.status, 2, r2.stderr);
  assert.match(r2.stderr, /--cloud-b-json-key/);
});

test('credentials and the cloud are shown in /configz; --controllers=* runs node, ttl, route and service', async () => {
  const sim = await startSimulator();
  const key = file('key.json', '{"type": "service_account", "project": "p"}');
  const d = await startDaemon(
    [
      '--master',
      sim.url,
      '--leader-elect=false',
      '--port=0',
      '--address=127.0.0.1',
      '--controllers=*',
      '--allocate-node-cidrs',
      '--cluster-cidr=10.244.0.0/16',
      '--cloud-provider=simulated',
      `--cloud-b-json-key=${key}`,
    ],
    { log: () => {} },
  );
  try {
    const configz = await eventually('states', async () => {
      const c = (await (await fetch(`${d.url}/configz`)).json()) as {
        controllers: { status: Record<string, { state: string; reason?: string }> };
        cloud: Record<string, unknown>;
      };
      return ['node', 'ttl', 'route', 'service'].every((n) => c.controllers.status[n]?.state !== 'pending') && c;
    });
    for (const n of ['node', 'ttl', 'route', 'service'])
      assert.equal(configz.controllers.status[n].state, 'running', `${n}: ${JSON.stringify(configz.controllers.status[n])}`);
    assert.equal(configz.cloud.provider, 'simulated');
    assert.deepEqual((configz.cloud.credentials as Record<string, unknown>)['cloud-b-json-key'], { file: key, keys: 2, loaded: true });
    assert.equal((configz.cloud.credentials as Record<string, unknown>)['cloud-a-container-registry-config'], null);
    const r = await fetch(`${d.url}/cloud/routes`, { method: 'POST' });
    assert.equal(r.status, 405, 'the route table is read-only');
  } finally {
    await d.close();
    await sim.close();
  }
});

const svcPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/services${name ? `/${name}` : ''}`;
const svc = (name: string, type = 'LoadBalancer') => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { type, ports: [{ port: 80 }], selector: { app: name } },
});
const ingressOf = (s: KubeObject | undefined) =>
  (s?.status as { loadBalancer?: { ingress?: Array<{ ip: string }> } } | undefined)?.loadBalancer?.ingress?.[0]?.ip;

async function withCloud(controllers: string[], flags: string[], cloudConfig: string, fn: (env: NodeEnv) => Promise<void>, count = 2): Promise<void> {
  const env = await startNodeEnv(
    controllers,
    ['--cloud-provider=simulated', `--cloud-config=${file(`c-${Math.random()}.yaml`, cloudConfig)}`, '--x-api-qps=500', '--x-api-burst=1000', ...flags],
    { count },
  );
  try {
    await fn(env);
  } finally {
    await env.close();
  }
}
const cloudDoc = async (env: NodeEnv, what: string) =>
  (await (await fetch(`${env.daemon.url}/cloud/${what}`)).json()) as { items: Array<Record<string, unknown>> };

test('service: a LoadBalancer Service gets an address from the pool, released when it changes type or goes', async () => {
  await withCloud(['service'], [], 'loadBalancerPool: [203.0.113.10, 203.0.113.11]\n', async (env) => {
    const ns = await env.api.namespace('lb');
    await env.api.create(svcPath(ns), svc('a'));
    await env.api.create(svcPath(ns), svc('b'));
    const a = await eventually('a ingress', async () => ingressOf(await env.api.get(svcPath(ns, 'a'))));
    const b = await eventually('b ingress', async () => ingressOf(await env.api.get(svcPath(ns, 'b'))));
    assert.deepEqual([a, b].sort(), ['203.0.113.10', '203.0.113.11']);
    assert.equal((await cloudDoc(env, 'loadbalancers')).items.length, 2);
    const cur = (await env.api.get(svcPath(ns, 'a')))!;
    const put = await env.api.req('PUT', svcPath(ns, 'a'), { ...cur, spec: { ...(cur.spec as object), type: 'ClusterIP', ports: [{ port: 80 }] } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await eventually('a ingress cleared', async () => ingressOf(await env.api.get(svcPath(ns, 'a'))) === undefined);
    await env.api.delete(svcPath(ns, 'b'));
    await eventually('both released', async () => (await cloudDoc(env, 'loadbalancers')).items.length === 0);
    const events = (await env.api.list(`/api/v1/namespaces/${ns}/events`)) as Array<KubeObject & { reason?: string }>;
    for (const r of ['CreatingLoadBalancer', 'CreatedLoadBalancer', 'DeletingLoadBalancer', 'DeletedLoadBalancer'])
      assert.ok(
        events.some((e) => e.reason === r),
        r,
      );
  });
});

/** Pool of one: a holds it, b waits; a goes at t0; returns how long b waited for the freed address. */
async function freedAddressWait(period: string): Promise<number> {
  let waited = -1;
  await withCloud(['service'], [`--service-sync-period=${period}`], 'loadBalancerPool: [203.0.113.20]\n', async (env) => {
    const ns = await env.api.namespace('pool');
    await env.api.create(svcPath(ns), svc('a'));
    await eventually('a ingress', async () => ingressOf(await env.api.get(svcPath(ns, 'a'))));
    await env.api.create(svcPath(ns), svc('b'));
    await eventually('b failed', async () =>
      ((await env.api.list(`/api/v1/namespaces/${ns}/events`)) as Array<KubeObject & { reason?: string }>).some(
        (e) => e.reason === 'CreatingLoadBalancerFailed',
      ),
    );
    const t0 = Date.now();
    await env.api.delete(svcPath(ns, 'a'));
    waited = (await whenSeen('b ingress', async () => ingressOf(await env.api.get(svcPath(ns, 'b'))) === '203.0.113.20', 20_000)) - t0;
  });
  return waited;
}

test('--service-sync-period: every LoadBalancer Service is synced again each period (a freed pool address is taken by then)', async () => {
  const short = await freedAddressWait('500ms');
  const long = await freedAddressWait('5m');
  assert.ok(short < 2_500, `period 500ms: the waiting Service got the freed address after ${short} ms`);
  // With 5 min only the retry back-off (5 s after the first failure) brings it.
  assert.ok(long > 2_800, `period 5m: it waited ${long} ms (the 5 s retry back-off)`);
});

async function provisionAll(workers: number): Promise<number> {
  let took = -1;
  await withCloud(['service'], [`--concurrent-service-syncs=${workers}`], 'loadBalancerProvisionSeconds: 1\n', async (env) => {
    const ns = await env.api.namespace('conc');
    const t0 = Date.now();
    for (const n of ['s1', 's2', 's3', 's4']) await env.api.create(svcPath(ns), svc(n));
    took = (await whenSeen('4 ingresses', async () => (await env.api.list(svcPath(ns))).every((s) => ingressOf(s)), 20_000)) - t0;
  });
  return took;
}

test('--concurrent-service-syncs: 4 load balancers taking 1 s each, one at a time or all at once', async () => {
  const one = await provisionAll(1);
  const four = await provisionAll(4);
  assert.ok(one >= 3_800, `1 worker: ${one} ms`);
  assert.ok(four < 2_800, `4 workers: ${four} ms`);
});

test('route: podCIDRs in the read-only route table each --route-reconciliation-period, NetworkUnavailable=False, removed with the node', async () => {
  const flags = ['--allocate-node-cidrs', '--cluster-cidr=10.64.0.0/16'];
  await withCloud(['node', 'route'], [...flags, '--route-reconciliation-period=200ms'], '', async (env) => {
    const routes = await eventually('3 routes', async () => {
      const r = (await cloudDoc(env, 'routes')).items;
      return r.length === 3 && r;
    });
    for (const n of await env.api.list('/api/v1/nodes')) {
      const route = routes.find((r) => r.targetNode === n.metadata.name);
      assert.equal(route?.destinationCIDR, (n.spec as { podCIDR: string }).podCIDR);
      assert.equal(route?.name, `kubernetes-${n.metadata.uid}`);
      await eventually(
        'NetworkUnavailable False',
        async () =>
          conditionOf(await env.api.get(`/api/v1/nodes/${n.metadata.name}`), 'Ready') &&
          conditionOf(await env.api.get(`/api/v1/nodes/${n.metadata.name}`), 'NetworkUnavailable')?.reason === 'RouteCreated',
      );
    }
    await env.api.delete('/api/v1/nodes/sim-node-2');
    await eventually('route removed', async () => (await cloudDoc(env, 'routes')).items.length === 2);
  }, 3);
  // A long period: the first pass ran at start, before the node IPAM gave out ranges; the next is an hour away.
  await withCloud(['node', 'route'], [...flags, '--route-reconciliation-period=1h'], '', async (env) => {
    await eventually('podCIDRs', async () => (await env.api.list('/api/v1/nodes')).every((n) => (n.spec as { podCIDR?: string }).podCIDR));
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal((await cloudDoc(env, 'routes')).items.length, 0, 'no pass within the hour');
  });
  // --configure-cloud-routes=false: the route controller does not run.
  await withCloud(['node', 'route'], [...flags, '--configure-cloud-routes=false', '--route-reconciliation-period=200ms'], '', async (env) => {
    await eventually('podCIDRs', async () => (await env.api.list('/api/v1/nodes')).every((n) => (n.spec as { podCIDR?: string }).podCIDR));
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await cloudDoc(env, 'routes')).items.length, 0);
    assert.equal(env.daemon.controllerStates().route.state, 'not started');
  });
});

test('instances: nodes get their ExternalIP; a node whose instance is gone is deleted; the CloudAllocator gives instance ranges', async () => {
  await withCloud(['node'], ['--node-monitor-period=100ms', '--node-monitor-grace-period=2s', '--allocate-node-cidrs', '--cidr-allocator-type=CloudAllocator'], 'externalIPRange: 198.51.100.0/24\ninstancePodCIDRRange: 10.250.0.0/16\ninstancePodCIDRMaskSize: 25\n', async (env) => {
    await eventually('ExternalIPs', async () =>
      (await env.api.list('/api/v1/nodes')).every((n) =>
        ((n.status as { addresses?: Array<{ type: string; address: string }> }).addresses ?? []).some(
          (a) => a.type === 'ExternalIP' && a.address.startsWith('198.51.100.'),
        ),
      ),
    );
    const cidrs = await eventually('cloud ranges', async () => {
      const l = (await env.api.list('/api/v1/nodes')).map((n) => (n.spec as { podCIDR?: string }).podCIDR);
      return l.every((c) => c && /^10\.250\.\d+\.(0|128)\/25$/.test(c)) && l;
    });
    assert.equal(new Set(cidrs).size, cidrs.length);
    await env.nodes.setNodeState('sim-node-1', 'terminated');
    await eventually('the node is deleted', async () => (await env.api.get('/api/v1/nodes/sim-node-1')) === undefined, 15_000);
    assert.ok(await env.api.get('/api/v1/nodes/sim-node-0'), 'the other node stays');
  });
});
