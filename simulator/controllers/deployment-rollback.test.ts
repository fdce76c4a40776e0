// Deployment rollback, both ways: the 1.9 extensions/v1beta1 deployments/rollback subresource (spec.rollbackTo,
// acted on by the Deployment controller) and kubectl 1.32's client-side `rollout undo` (which patches the
// template from the ReplicaSets' revision annotations). Real server, controllers and simulated nodes in-process.

import { test, after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/meta.ts';
import { Api, eventually, podTemplate, startWorkloadEnv, type WorkloadEnv } from '../testing/workload-test-env.ts';
import { lastRevision, REVISION, ROLLBACK_TO } from './deployment.ts';

let env: WorkloadEnv;
let api: Api;
before(async () => {
  env = await startWorkloadEnv({ controllers: ['deployment', 'replicaset'] });
  api = new Api(env.url);
});
after(() => env.close());

const dPath = (ns: string, name: string) => `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
const extPath = (ns: string, name: string) => `/apis/extensions/v1beta1/namespaces/${ns}/deployments/${name}`;
const imageOf = (o: KubeObject | undefined) =>
  ((o?.spec as { template?: { spec?: { containers?: Array<{ image?: string }> } } } | undefined)?.template?.spec?.containers ?? [])[0]?.image;
const imageOfRS = imageOf;

/** Creates a Deployment and rolls it through the given images, waiting for each revision to be complete. */
async function withHistory(ns: string, name: string, images: string[]): Promise<void> {
  await api.create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: podTemplate({ app: name }, { image: images[0] }) },
  });
  for (let i = 0; i < images.length; i++) {
    if (i > 0)
      await api.patch(dPath(ns, name), [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: images[i] }], 'application/json-patch+json');
    await waitRevision(ns, name, i + 1, images[i]);
  }
}

/** Waits until the Deployment is at `revision` with `image`, rolled out, and its ReplicaSet for it exists. */
async function waitRevision(ns: string, name: string, revision: number, image: string): Promise<KubeObject> {
  return eventually(`deployment ${name} at revision ${revision} with ${image}`, async () => {
    const d = await api.get(dPath(ns, name));
    const st = (d?.status ?? {}) as { updatedReplicas?: number; replicas?: number; observedGeneration?: number };
    if (d?.metadata.annotations?.[REVISION] !== String(revision) || imageOf(d) !== image) return false;
    if (st.observedGeneration !== d.metadata.generation || st.updatedReplicas !== 1 || st.replicas !== 1) return false;
    const rss = await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`);
    return rss.some((rs) => rs.metadata.annotations?.[REVISION] === String(revision) && imageOfRS(rs) === image) && d;
  });
}

test('lastRevision is the second highest revision (0 without one)', () => {
  const rs = (r: string | undefined) => ({ metadata: { annotations: r === undefined ? {} : { [REVISION]: r } } }) as KubeObject;
  assert.equal(lastRevision([rs('3'), rs('1'), rs('5')]), 3);
  assert.equal(lastRevision([rs('2')]), 0);
  assert.equal(lastRevision([]), 0);
  assert.equal(lastRevision([rs('4'), rs(undefined)]), 0);
});

describe('the deployments/rollback subresource', () => {
  test('rollback to revision 1 copies its template back, clears rollbackTo and rolls out as revision 4', async () => {
    const ns = await api.namespace('rb');
    await withHistory(ns, 'web', ['nginx:1.13', 'nginx:1.14', 'nginx:1.15']);
    const r = await api.req('POST', `${extPath(ns, 'web')}/rollback`, {
      kind: 'DeploymentRollback',
      apiVersion: 'extensions/v1beta1',
      name: 'web',
      rollbackTo: { revision: 1 },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const d = await waitRevision(ns, 'web', 4, 'nginx:1.13');
    assert.equal(d.metadata.annotations?.[ROLLBACK_TO], undefined, 'the request is cleared');
    const ext = await api.get(extPath(ns, 'web'));
    assert.equal((ext?.spec as { rollbackTo?: unknown }).rollbackTo, undefined);
    // The ReplicaSet of revision 1 was reused: it now carries revision 4; no ReplicaSet was added.
    const rss = await api.list(`/apis/apps/v1/namespaces/${ns}/replicasets`);
    assert.equal(rss.length, 3);
    assert.deepEqual(rss.map((rs) => rs.metadata.annotations?.[REVISION]).sort(), ['2', '3', '4']);
  });

  test('revision 0 goes back to the previous revision', async () => {
    const ns = await api.namespace('rb');
    await withHistory(ns, 'web', ['nginx:1.13', 'nginx:1.14']);
    const r = await api.req('POST', `${extPath(ns, 'web')}/rollback`, {
      kind: 'DeploymentRollback',
      apiVersion: 'extensions/v1beta1',
      name: 'web',
      rollbackTo: {},
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await waitRevision(ns, 'web', 3, 'nginx:1.13');
  });

  test('an unknown revision only clears the request: the template stays', async () => {
    const ns = await api.namespace('rb');
    await withHistory(ns, 'web', ['nginx:1.13', 'nginx:1.14']);
    const before = await api.get(dPath(ns, 'web'));
    const r = await api.req('POST', `${extPath(ns, 'web')}/rollback`, {
      kind: 'DeploymentRollback',
      apiVersion: 'extensions/v1beta1',
      name: 'web',
      rollbackTo: { revision: 9 },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const d = await eventually('rollbackTo cleared', async () => {
      const x = await api.get(dPath(ns, 'web'));
      return x?.metadata.annotations?.[ROLLBACK_TO] === undefined && Number(x?.metadata.resourceVersion) > Number(before?.metadata.resourceVersion) && x;
    });
    assert.equal(imageOf(d), 'nginx:1.14');
    assert.equal(d.metadata.annotations?.[REVISION], '2');
    assert.equal(d.metadata.generation, before?.metadata.generation, 'no template change');
  });

  test('a paused Deployment keeps the request until resumed', async () => {
    const ns = await api.namespace('rb');
    await withHistory(ns, 'web', ['nginx:1.13', 'nginx:1.14']);
    await api.patch(dPath(ns, 'web'), { spec: { paused: true } });
    await api.req('POST', `${extPath(ns, 'web')}/rollback`, {
      kind: 'DeploymentRollback',
      apiVersion: 'extensions/v1beta1',
      name: 'web',
      rollbackTo: { revision: 1 },
    });
    // A spec change after the request: once observedGeneration catches up, the controller has synced with the request in view.
    const bumped = await api.patch(dPath(ns, 'web'), { spec: { minReadySeconds: 1 } });
    await eventually('paused deployment observed after the request', async () => {
      const d = await api.get(dPath(ns, 'web'));
      const st = (d?.status ?? {}) as { observedGeneration?: number; conditions?: Array<{ reason?: string }> };
      return st.observedGeneration === bumped.metadata.generation && st.conditions?.some((c) => c.reason === 'DeploymentPaused') && d;
    });
    const ext = await api.get(extPath(ns, 'web'));
    assert.deepEqual((ext?.spec as { rollbackTo?: unknown }).rollbackTo, { revision: 1 });
    await api.patch(dPath(ns, 'web'), { spec: { paused: false } });
    await waitRevision(ns, 'web', 3, 'nginx:1.13');
  });
});

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKubectl = probe.error ? `kubectl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : false;

describe('kubectl rollout undo (client-side, from ReplicaSet history)', { skip: noKubectl }, () => {
  let dir: string;
  let kubeconfig: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollback-test-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'sim', cluster: { server: env.url } }],
      users: [{ name: 'anonymous', user: {} }],
      contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'anonymous' } }],
      'current-context': 'sim',
    }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const kubectl = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { PATH: process.env.PATH, HOME: dir }, timeout: 30_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      });
    });

  test('undo goes to the previous revision, --to-revision to a given one; history lists them', async () => {
    const ns = await api.namespace('undo');
    await withHistory(ns, 'web', ['nginx:1.13', 'nginx:1.14', 'nginx:1.15']);
    const history = await kubectl('-n', ns, 'rollout', 'history', 'deployment/web');
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n3\s+<none>/);
    assert.equal((await kubectl('-n', ns, 'rollout', 'undo', 'deployment/web')).trim(), 'deployment.extensions/web rolled back');
    await waitRevision(ns, 'web', 4, 'nginx:1.14');
    assert.equal((await kubectl('-n', ns, 'rollout', 'undo', 'deployment/web', '--to-revision=1')).trim(), 'deployment.extensions/web rolled back');
    await waitRevision(ns, 'web', 5, 'nginx:1.13');
    assert.match(await kubectl('-n', ns, 'rollout', 'status', 'deployment/web', '--timeout=20s'), /successfully rolled out/);
    await assert.rejects(kubectl('-n', ns, 'rollout', 'undo', 'deployment/web', '--to-revision=42'), /unable to find specified revision 42 in history/);
  });
});
