// Custom resources for operator tests: how soon a CRD's instances can be created, the figure envtest users wait
// for (envtest starts a real etcd and kube-apiserver, then installs CRDs; its users report 5-15 s per start).
//   - warm: on a running simulator, POST of a CRD → the first 201 for an instance of it (polled every 1 ms),
//     beside a plain ConfigMap create on the same server (what any create costs);
//   - cold: process start of `npx tsx simulator` → /api answers → CRD posted → first instance created: the whole
//     wait of a test suite that starts its own API server, beside a bare Fastify server's first answer.
// Medians of BENCH_CRD_RUNS (default 5). envtest is not run here (no binaries in CI, no network); its start time
// is quoted in the README beside these figures.

import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { formatLine, median, type Measurement } from './measurement.ts';
import { startSimulator } from '../cluster.ts';
import { freePort } from '../testing/ports.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.env.BENCH_CRD_RUNS ?? 5);

const crd = (group: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } } } },
        subresources: { status: {} },
      },
    ],
  },
});
const widget = (group: string, name: string) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 3 } });

async function post(base: string, path: string, body: unknown): Promise<number> {
  const r = await request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await r.body.arrayBuffer();
  return r.statusCode;
}

/** POST the CRD, then POST an instance until it is 201: milliseconds from the CRD's POST to the first 201. */
async function crdToInstance(base: string, group: string): Promise<number> {
  const t0 = performance.now();
  const code = await post(base, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(group));
  if (code !== 201) throw new Error(`CRD create answered ${code}`);
  for (let i = 0; ; i++) {
    const c = await post(base, `/apis/${group}/v1/namespaces/default/widgets`, widget(group, `w${i}`));
    if (c === 201) return performance.now() - t0;
    if (c !== 404 && c !== 503) throw new Error(`instance create answered ${c}`);
    if (performance.now() - t0 > 30_000) throw new Error('instances were not creatable within 30 s');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Spawns node with args on port; returns ms from spawn to the first 200 of /api, and then runs after(base). */
async function coldStart(args: (port: number) => string[], after?: (base: string) => Promise<unknown>): Promise<number> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, args(port), { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let exited: string | undefined;
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  child.on('exit', (code) => (exited = `exited ${code}: ${err}`));
  try {
    for (;;) {
      if (exited) throw new Error(exited);
      try {
        const r = await request(`${base}/api`);
        await r.body.arrayBuffer();
        if (r.statusCode === 200) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    if (after) await after(base);
    return performance.now() - t0;
  } finally {
    child.kill('SIGKILL');
  }
}

const BARE = (port: number) => `import Fastify from 'fastify'; const f = Fastify(); f.get('/api', async () => ({ kind: 'APIVersions', versions: ['v1'] }));
await f.listen({ port: ${port}, host: '127.0.0.1' });`;

export async function run(log: (s: string) => void = console.log): Promise<Measurement[]> {
  // Warm: one simulator, a fresh group per run.
  const sim = await startSimulator();
  const warm: number[] = [];
  const configMap: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      warm.push(await crdToInstance(sim.url, `bench${i}.example.com`));
      const t0 = performance.now();
      const c = await post(sim.url, '/api/v1/namespaces/default/configmaps', { metadata: { name: `cm-${i}` }, data: { k: 'v' } });
      if (c !== 201) throw new Error(`ConfigMap create answered ${c}`);
      configMap.push(performance.now() - t0);
    }
  } finally {
    await sim.close();
  }
  // Cold: a process per run, alternated with a bare Fastify server so a disturbance hits both alike.
  const cold: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    bare.push(await coldStart((port) => ['--import', 'tsx', '--input-type=module', '-e', BARE(port)]));
    cold.push(await coldStart((port) => ['--import', 'tsx', join('simulator', 'index.ts'), '--port', String(port), '--kubeconfig-out', '/dev/null'], (base) => crdToInstance(base, 'cold.example.com')));
  }
  const w = median(warm);
  const m = median(configMap);
  const c = median(cold);
  const b = median(bare);
  const results: Measurement[] = [
    { name: `CRD created -> first instance created, running simulator (median of ${RUNS})`, value: w, unit: 'ms', target: 'report only', ok: true },
    // Goals are ratios against what the same machine does in the same run (a CRD's path is two creates, the
    // names check and the Established condition).
    { name: `  the same / one ConfigMap create (${m.toFixed(1)} ms)`, value: w / m, unit: 'x', target: '<= 10', ok: w / m <= 10 },
    {
      name: `npx tsx simulator: process start -> CRD posted -> first instance created (median of ${RUNS}; bare Fastify's first answer ${b.toFixed(0)} ms; envtest 5-15 s)`,
      value: c,
      unit: 'ms',
      target: 'report only',
      ok: true,
    },
    { name: '  the same / bare Fastify through tsx, process start -> first answer', value: c / b, unit: 'x', target: '<= 2', ok: c / b <= 2 },
  ];
  for (const r of results) log(formatLine(r));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await run();
