// Workloads end to end over HTTP, measured the way kwok (the Kubernetes node and pod simulator) is measured: how
// many Deployments of 3 replicas per second become available with the daemon's default client limits
// (--x-api-qps 20, --x-api-burst 30; kwok's users see about 5 per second with default limits), and how long 100
// simulated nodes take to register and run 1,000 pods, with the real per-component client limits (kubelet 5 qps /
// burst 10 each, scheduler 50 / 100) and with limits off.
//
//   npx tsx simulator/bench/workloads.bench.ts
//   BENCH_DEPLOYMENTS=30 BENCH_NODES=100 BENCH_PODS=1000 npm run bench -- workloads

import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../cluster.ts';
import { startNodes } from '../nodes/index.ts';
import { Api, startWorkloadEnv } from '../testing/workload-test-env.ts';
import type { KubeList } from '../api/meta.ts';
import type { Measurement } from './measurement.ts';

const DEPLOYMENTS = Number(process.env.BENCH_DEPLOYMENTS ?? 30);
const NODES = Number(process.env.BENCH_NODES ?? 100);
const PODS = Number(process.env.BENCH_PODS ?? 1000);
const DEADLINE_MS = 300_000;


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function deploymentsPerSecond(log: (s: string) => void): Promise<Measurement> {
  // Nodes are not what is measured here: their client limits are off, so the daemon's own limits decide.
  const env = await startWorkloadEnv({ controllers: ['deployment', 'replicaset'], nodes: { count: 10, startMs: 0, kubeletQps: -1, schedulerQps: -1 } });
  try {
    const api = new Api(env.url);
    const ns = await api.namespace('bench');
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: DEPLOYMENTS }, (_, i) =>
        api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: `d${i}` },
          spec: { replicas: 3, selector: { matchLabels: { app: `d${i}` } }, template: { metadata: { labels: { app: `d${i}` } }, spec: { containers: [{ name: 'main', image: 'nginx:1.13' }] } } },
        }),
      ),
    );
    let available = 0;
    while (performance.now() - t0 < DEADLINE_MS) {
      const list = (await api.req<KubeList>('GET', `/apis/apps/v1/namespaces/${ns}/deployments`)).body.items;
      available = list.filter((d) => (d.status as { availableReplicas?: number } | undefined)?.availableReplicas === 3).length;
      if (available === DEPLOYMENTS) break;
      await sleep(100);
    }
    const seconds = (performance.now() - t0) / 1000;
    const rate = available / seconds;
    log(`deployments: ${available}/${DEPLOYMENTS} Deployments of 3 replicas available in ${seconds.toFixed(1)} s = ${rate.toFixed(2)}/s (daemon client 20 qps, burst 30)`);
    return { name: 'deployments of 3 available per second (default client limits)', value: rate, unit: '1/s', target: `all ${DEPLOYMENTS} available`, ok: available === DEPLOYMENTS };
  } finally {
    await env.close();
  }
}

async function nodesAndPods(log: (s: string) => void, limits: boolean): Promise<Measurement> {
  const sim = await startSimulator();
  const t0 = performance.now();
  const nodes = await startNodes(sim.url, { count: NODES, startMs: 0, log: () => {}, ...(limits ? {} : { kubeletQps: -1, schedulerQps: -1 }) });
  const registered = (performance.now() - t0) / 1000;
  try {
    const api = new Api(sim.url);
    const ns = await api.namespace('bench');
    const t1 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < PODS) {
          const i = next++;
          await api.create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { containers: [{ name: 'main', image: 'nginx:1.13' }] } });
        }
      }),
    );
    const created = (performance.now() - t1) / 1000;
    let running = 0;
    while (performance.now() - t1 < DEADLINE_MS) {
      const list = (await api.req<KubeList>('GET', `/api/v1/namespaces/${ns}/pods`)).body.items;
      running = list.filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running').length;
      if (running === PODS) break;
      await sleep(200);
    }
    const seconds = (performance.now() - t1) / 1000;
    const what = limits ? 'real client limits (kubelet 5/10 each, scheduler 50/100)' : 'client limits off';
    log(`nodes: ${NODES} nodes Ready in ${registered.toFixed(1)} s; ${running}/${PODS} pods Running ${seconds.toFixed(1)} s after the first create (creates took ${created.toFixed(1)} s), ${what}`);
    return { name: `${NODES} nodes + ${PODS} pods Running, ${what}`, value: seconds, unit: 's', target: `all ${PODS} Running`, ok: running === PODS };
  } finally {
    await nodes.close();
    await sim.close();
  }
}

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  return [await deploymentsPerSecond(log), await nodesAndPods(log, false), await nodesAndPods(log, true)];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
