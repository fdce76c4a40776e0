// Custom resources through the clients people use (issue #25): kubectl (current and 1.20) applies a CRD and an
// instance, gets, watches (`get <plural> -w`), patches and deletes them; client-node's generic
// KubernetesObjectApi and the Python client's CustomObjectsApi do CRUD on instances. Each against a simulator of
// its own, through the client config the simulator writes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { startSimulator, clientConfigYaml, type RunningSimulator } from '../cluster.ts';
import { eventually } from '../testing/test-simulator.ts';
import { clientDir, kubectl120, kubectlCurrent, pythonClient, REPO, requireClient, run, skipUnlessFound, type ClientDir, type ClientProbe } from '../testing/real-clients.ts';

const CRD_YAML = (apiVersion: 'v1' | 'v1beta1') =>
  apiVersion === 'v1'
    ? `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
`
    : `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  version: v1
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  validation:
    openAPIV3Schema:
      properties:
        spec:
          properties:
            cronSpec: {type: string}
            replicas: {type: integer}
`;

const INSTANCE = (replicas: number) => `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: my-crontab
spec:
  cronSpec: "* * * * */5"
  replicas: ${replicas}
`;

async function crdEstablished(sim: RunningSimulator): Promise<void> {
  await eventually('the custom resource served', async () => {
    const r = await fetch(`${sim.url}/apis/stable.example.com/v1`);
    await r.arrayBuffer();
    return r.status === 200 ? true : undefined;
  });
}

function kubectlCrd(label: string, probe: ClientProbe, crdVersion: 'v1' | 'v1beta1'): void {
  describe(`kubectl ${label}: custom resources`, { skip: skipUnlessFound(probe) }, () => {
    let sim: RunningSimulator;
    let cd: ClientDir;
    let bin: string;
    const ok = async (...args: string[]) => {
      const r = await run(bin, args, { env: cd.env });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r.stdout;
    };
    const file = (name: string, text: string) => {
      const p = join(cd.dir, name);
      writeFileSync(p, text);
      return p;
    };

    before(async () => {
      bin = requireClient(probe).path;
      sim = await startSimulator();
      cd = clientDir(sim.url, 'default');
    });
    after(async () => {
      await sim?.close();
      if (cd) rmSync(cd.dir, { recursive: true, force: true });
    });

    test('apply a CRD, apply an instance, get -w sees a change, patch, describe, delete', async () => {
      assert.match(await ok('apply', '-f', file('crd.yaml', CRD_YAML(crdVersion))), /customresourcedefinition\.apiextensions\.k8s\.io\/crontabs\.stable\.example\.com created/);
      await crdEstablished(sim);
      assert.match(await ok('apply', '-f', file('ct.yaml', INSTANCE(2))), /crontab\.stable\.example\.com\/my-crontab created/);
      assert.match(await ok('get', 'crontabs'), /^my-crontab\s/m);
      assert.match(await ok('get', 'ct', 'my-crontab', '-o', 'jsonpath={.spec.replicas}'), /^2$/);

      // get -w: the initial row, then the change made by apply.
      const watch = spawn(bin, ['get', 'crontabs', '-w', '-o', 'jsonpath={.spec.replicas}{"\\n"}'], { env: cd.env });
      let seen = '';
      watch.stdout.on('data', (b: Buffer) => (seen += b.toString()));
      try {
        await eventually('the watch to print the first row', async () => (seen.includes('2') ? true : undefined));
        assert.match(await ok('apply', '-f', file('ct.yaml', INSTANCE(3))), /configured/);
        await eventually('the watch to print the change', async () => (/3/.test(seen) ? true : undefined));
      } finally {
        watch.kill();
      }

      assert.match(await ok('patch', 'ct', 'my-crontab', '--type', 'merge', '-p', '{"spec":{"replicas":4}}'), /patched/);
      const smp = await run(bin, ['patch', 'ct', 'my-crontab', '-p', '{"spec":{"replicas":5}}'], { env: cd.env });
      assert.notEqual(smp.code, 0, 'a strategic merge patch of a custom resource is refused (415)');
      assert.match(smp.stderr, /strategic-merge-patch\+json is not supported|unknown format/);
      assert.match(await ok('describe', 'ct', 'my-crontab'), /Kind:\s+CronTab/);
      assert.match(await ok('delete', '-f', file('ct.yaml', INSTANCE(3))), /deleted/);
      assert.match(await ok('delete', 'crd', 'crontabs.stable.example.com'), /deleted/);
      await eventually('the CRD gone', async () => ((await ok('get', 'crd')).includes('crontabs') ? undefined : true));
    });
  });
}

kubectlCrd('current', kubectlCurrent(), 'v1');
kubectlCrd('1.20', kubectl120(), 'v1beta1');

describe('@kubernetes/client-node KubernetesObjectApi: custom resources', () => {
  let sim: RunningSimulator;
  let client: k8s.KubernetesObjectApi;
  before(async () => {
    sim = await startSimulator();
    const kc = new k8s.KubeConfig();
    kc.loadFromString(clientConfigYaml(sim.url));
    client = k8s.KubernetesObjectApi.makeApiClient(kc);
  });
  after(async () => {
    await sim?.close();
  });

  // Replace sends creationTimestamp as "...:18.000Z": the server takes it as the same instant (issue #16).
  test('create the CRD and an instance, read, replace, list and delete them through the generic API', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
      spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' }, versions: [{ name: 'v1', served: true, storage: true }] },
    };
    await client.create(crd);
    await crdEstablished(sim);
    const obj = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'node-ct', namespace: 'default' }, spec: { cronSpec: '* * * * *', replicas: 1 } };
    const created = await client.create(obj);
    assert.equal(created.metadata?.name, 'node-ct');
    const read = (await client.read({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'node-ct', namespace: 'default' } })) as k8s.KubernetesObject & { spec: { replicas: number } };
    read.spec.replicas = 2;
    const replaced = (await client.replace(read)) as k8s.KubernetesObject & { spec: { replicas: number } };
    assert.equal(replaced.spec.replicas, 2);
    const list = await client.list('stable.example.com/v1', 'CronTab', 'default');
    assert.deepEqual(list.items.map((i) => i.metadata?.name), ['node-ct']);
    await client.delete({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'node-ct', namespace: 'default' } });
    const after = await client.list('stable.example.com/v1', 'CronTab', 'default');
    assert.equal(after.items.length, 0);
  });
});

const python = pythonClient();
describe(`Python kubernetes client ${python.found?.version ?? ''}: CustomObjectsApi`, { skip: skipUnlessFound(python) }, () => {
  let sim: RunningSimulator;
  let cd: ClientDir;
  const results = new Map<string, { ok: boolean; detail: string }>();
  let output = '';
  before(async () => {
    const py = requireClient(python).path;
    sim = await startSimulator();
    cd = clientDir(sim.url, 'default');
    const crd = { metadata: { name: 'crontabs.stable.example.com' }, spec: { group: 'stable.example.com', version: 'v1', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' }, validation: { openAPIV3Schema: { properties: { spec: { properties: { replicas: { type: 'integer' } } } } } } } };
    const r = await fetch(`${sim.url}/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(crd) });
    assert.equal(r.status, 201, await r.text());
    await crdEstablished(sim);
    const out = await run(py, [join(REPO, 'simulator/clients/python/custom_objects.py'), cd.kubeconfig, 'default'], { env: cd.env, timeoutMs: 60_000 });
    output = `exit ${out.code}\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`;
    for (const line of out.stdout.split('\n')) if (line.startsWith('{')) {
      const res = JSON.parse(line) as { check: string; ok: boolean; detail: string };
      results.set(res.check, res);
    }
  });
  after(async () => {
    await sim?.close();
    if (cd) rmSync(cd.dir, { recursive: true, force: true });
  });
  for (const check of ['create_get_list', 'replace_and_patch', 'invalid_is_422', 'delete']) {
    test(check, () => {
      const r = results.get(check);
      assert.ok(r, `no result for ${check}\n${output}`);
      assert.ok(r.ok, r.detail);
    });
  }
});
