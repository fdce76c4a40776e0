// Events from the control loops, the scheduler and the kubelets (real server, daemon and simulated nodes
// in-process), and `kubectl describe` showing them.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['deployment', 'replicaset', 'job'], nodes: { restartBackoffMs: 100 } });
  api = new Api(env.url);
});
after(() => env.close());

interface Ev extends KubeObject {
  involvedObject: { kind: string; name: string; fieldPath?: string };
  reason: string;
  message: string;
  type: string;
  count: number;
  source: { component: string; host?: string };
}
const eventsOf = async (ns: string, kind: string, name: string) =>
  (await api.list(`/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(`involvedObject.kind=${kind},involvedObject.name=${name}`)}`)) as Ev[];

/** Waits until the object has events with all these reasons; returns them. */
async function waitReasons(ns: string, kind: string, name: string, reasons: string[]): Promise<Ev[]> {
  return eventually(`${kind} ${name} events ${reasons.join(', ')}`, async () => {
    const evs = await eventsOf(ns, kind, name);
    return reasons.every((r) => evs.some((e) => e.reason === r)) && evs;
  });
}

test('a Deployment rollout: ScalingReplicaSet, SuccessfulCreate, Scheduled and the kubelet events; scale-down SuccessfulDelete; pod deletion Killing', async () => {
  const ns = await api.namespace('ev');
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) } });
  const rs = await eventually('replica set', async () => (await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`))[0]);
  const dEvents = await waitReasons(ns, 'Deployment', 'web', ['ScalingReplicaSet']);
  assert.equal(dEvents[0].message, `Scaled up replica set ${rs.metadata.name} to 2`);
  assert.deepEqual(dEvents[0].source, { component: 'deployment-controller' });
  const rsEvents = await eventually('two SuccessfulCreate', async () => {
    const evs = await eventsOf(ns, 'ReplicaSet', rs.metadata.name ?? '');
    return evs.filter((e) => e.reason === 'SuccessfulCreate').length === 2 && evs;
  });
  assert.ok(rsEvents.every((e) => /^Created pod: web-\d+-\w{5}$/.test(e.message) && e.source.component === 'replicaset-controller'), "rsEvents.every((e) => /^Created pod: web-\\d+-\\w{5}$/.test(e.message) && e.source.component === 'rep…");
  const pod = (await api.list(`/api/v1/namespaces/${ns}/pods`))[0];
  const podEvents = await waitReasons(ns, 'Pod', pod.metadata.name ?? '', ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started']);
  const scheduled = podEvents.find((e) => e.reason === 'Scheduled')!;
  const node = ((await api.get(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`))?.spec as { nodeName?: string }).nodeName;
  assert.equal(scheduled.message, `Successfully assigned ${ns}/${pod.metadata.name} to ${node}`);
  assert.deepEqual(scheduled.source, { component: 'default-scheduler' });
  const started = podEvents.find((e) => e.reason === 'Started')!;
  assert.deepEqual(started.source, { component: 'kubelet', host: node });
  assert.equal(started.involvedObject.fieldPath, 'spec.containers{main}');
  assert.equal(podEvents.find((e) => e.reason === 'Pulling')?.message, 'pulling image "nginx:1.13"');
  // Scale down: the ReplicaSet deletes one pod; the kubelet kills its container.
  await api.patch(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { replicas: 1 } });
  const del = (await waitReasons(ns, 'ReplicaSet', rs.metadata.name ?? '', ['SuccessfulDelete'])).find((e) => e.reason === 'SuccessfulDelete')!;
  const victim = del.message.replace('Deleted pod: ', '');
  await waitReasons(ns, 'Pod', victim, ['Killing']);
  await waitReasons(ns, 'Deployment', 'web', ['ScalingReplicaSet']).then((evs) => assert.ok(evs.some((e) => e.message === `Scaled down replica set ${rs.metadata.name} to 1`), 'evs.some((e) => e.message === `Scaled down replica set ${rs.metadata.name} to 1`)'));
});

test('Jobs: SuccessfulCreate and Completed; a failing one BackoffLimitExceeded; a crash-looping pod BackOff with an aggregated count', async () => {
  const ns = await api.namespace('ev');
  await api.create(`/apis/batch/v1/namespaces/${ns}/jobs`, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'ok' }, spec: { template: podTemplate({ job: 'ok' }, { restartPolicy: 'Never' }) } });
  const ok = await waitReasons(ns, 'Job', 'ok', ['SuccessfulCreate', 'Completed']);
  assert.equal(ok.find((e) => e.reason === 'Completed')?.message, 'Job completed');
  assert.equal(ok.find((e) => e.reason === 'SuccessfulCreate')?.source.component, 'job-controller');
  await api.create(`/apis/batch/v1/namespaces/${ns}/jobs`, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'bad' },
    spec: { backoffLimit: 0, template: podTemplate({ job: 'bad' }, { restartPolicy: 'Never', annotations: { 'simulator.cluster.local/exit-code': '1' } }) },
  });
  const bad = await waitReasons(ns, 'Job', 'bad', ['BackoffLimitExceeded']);
  assert.equal(bad.find((e) => e.reason === 'BackoffLimitExceeded')?.message, 'Job has reached the specified backoff limit');
  // OnFailure with a failing container: restarted in place, BackOff again and again, one Event with a count.
  await api.create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'crash', annotations: { 'simulator.cluster.local/exit-code': '1', 'simulator.cluster.local/run-seconds': '0.05' } },
    spec: { restartPolicy: 'Always', containers: [{ name: 'main', image: 'busybox' }] },
  });
  const backoff = await eventually('BackOff counted at least 3 times', async () => {
    const evs = (await eventsOf(ns, 'Pod', 'crash')).filter((e) => e.reason === 'BackOff');
    return evs.length === 1 && evs[0].count >= 3 && evs[0];
  });
  assert.equal(backoff.type, 'Warning');
  await api.delete(`/api/v1/namespaces/${ns}/pods/crash`, { gracePeriodSeconds: 0 });
});

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKubectl = probe.error ? `kubectl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : false;

test('kubectl describe pod, deployment and job list the events', { skip: noKubectl }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'events-test-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 's', cluster: { server: env.url } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 's', context: { cluster: 's', user: 'u' } }], 'current-context': 's' }));
  const kubectl = (...args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { PATH: process.env.PATH, HOME: dir }, timeout: 30_000 }, (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${out}\n${errOut}`)) : resolve(out))),
    );
  try {
    const ns = await api.namespace('describe');
    await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: podTemplate({ app: 'web' }) } });
    await api.create(`/apis/batch/v1/namespaces/${ns}/jobs`, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi' }, spec: { template: podTemplate({ job: 'pi' }, { restartPolicy: 'Never' }) } });
    const pod = await eventually('web pod', async () => (await api.list(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`))[0]);
    await waitReasons(ns, 'Pod', pod.metadata.name ?? '', ['Started']);
    await waitReasons(ns, 'Job', 'pi', ['Completed']);
    const dp = await kubectl('-n', ns, 'describe', 'pod', pod.metadata.name ?? '');
    assert.match(dp, /Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/);
    assert.match(dp, /Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned/);
    assert.match(dp, /Normal\s+Started\s+.*kubelet\s+Started container/);
    const dd = await kubectl('-n', ns, 'describe', 'deployment', 'web');
    assert.match(dd, /Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set web-\d+ to 1/);
    const dj = await kubectl('-n', ns, 'describe', 'job', 'pi');
    assert.match(dj, /Normal\s+SuccessfulCreate\s+.*job-controller\s+Created pod: pi-/);
    assert.match(dj, /Normal\s+Completed\s+.*job-controller\s+Job completed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
