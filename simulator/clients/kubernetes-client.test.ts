// The OpenAPI-driven `kubernetes-client` npm package (godaddy's, a devDependency pinned to 9.0.0) against the
// simulator: it builds its whole API surface from the OpenAPI v2 document the server serves (loadSpec), so this
// proves the document is complete enough to drive a real generated client. Loaded from the client config the
// simulator writes; ConfigMap CRUD (create, get, list with a label selector, merge patch, replace, delete), a
// watch stream from a resourceVersion, and a 404 surfacing as the client's error with the Status code.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { eventually } from '../testing/test-simulator.ts';
import { clientDir, kubernetesClientPackage, requireClient, skipUnlessFound, type ClientDir } from '../testing/real-clients.ts';

type Json = Record<string, any>;

const probe = kubernetesClientPackage();
const NS = 'kubernetes-client';

describe(`kubernetes-client ${probe.found?.version ?? ''} (OpenAPI-driven) against the simulator`, { skip: skipUnlessFound(probe) }, () => {
  let sim: RunningSimulator;
  let cd: ClientDir;
  let client: any;
  const cms = () => client.api.v1.namespaces(NS).configmaps;

  before(async () => {
    requireClient(probe);
    sim = await startSimulator();
    cd = clientDir(sim.url, NS);
    const { Client, KubeConfig } = probe.load!('kubernetes-client') as any;
    const Request = probe.load!('kubernetes-client/backends/request') as any;
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(cd.kubeconfig);
    client = new Client({ backend: new Request({ kubeconfig }) });
    await client.loadSpec();
    await client.api.v1.namespaces.post({ body: { metadata: { name: NS } } });
  });
  after(async () => {
    await sim?.close();
    if (cd) rmSync(cd.dir, { recursive: true, force: true });
  });

  test('loadSpec builds the API from the served OpenAPI v2 document (core, apps, batch, extensions)', async () => {
    const apis = client.apis;
    for (const f of [client.api.v1.namespaces, apis.apps.v1.deployments, apis.batch.v1.jobs, apis.batch.v1beta1.cronjobs, apis.extensions.v1beta1.ingresses]) {
      assert.equal(typeof f?.get, 'function');
    }
    const deployments = await client.apis.apps.v1.namespaces(NS).deployments.get();
    assert.equal(deployments.statusCode, 200);
    assert.deepEqual(deployments.body.items, []);
  });

  test('ConfigMap CRUD: create, get, list by label, merge patch, replace, delete', async () => {
    const created = await cms().post({ body: { metadata: { name: 'kc', labels: { app: 'kc' } }, data: { a: '1' } } });
    assert.equal(created.statusCode, 201);
    assert.equal(created.body.metadata.name, 'kc');
    const got = await cms()('kc').get();
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.body.data, { a: '1' });
    const listed = await cms().get({ qs: { labelSelector: 'app=kc' } });
    assert.deepEqual(listed.body.items.map((i: Json) => i.metadata.name), ['kc']);
    const patched = await cms()('kc').patch({ body: { data: { b: '2' } } });
    assert.deepEqual(patched.body.data, { a: '1', b: '2' });
    const replaced = await cms()('kc').put({ body: { ...patched.body, data: { c: '3' } } });
    assert.equal(replaced.statusCode, 200);
    assert.deepEqual(replaced.body.data, { c: '3' });
    assert.equal(replaced.body.metadata.uid, created.body.metadata.uid);
    const deleted = await cms()('kc').delete();
    assert.equal(deleted.statusCode, 200);
    await assert.rejects(cms()('kc').get(), (e: Json) => e.statusCode === 404 && /not found/.test(e.message));
  });

  test('a watch stream from a resourceVersion sees ADDED, MODIFIED and DELETED in order', async () => {
    const rv = (await cms().get()).body.metadata.resourceVersion as string;
    const stream = await client.api.v1.watch.namespaces(NS).configmaps.getObjectStream({ qs: { resourceVersion: rv } });
    const seen: string[] = [];
    stream.on('data', (e: Json) => seen.push(`${e.type} ${e.object.metadata.name}`));
    try {
      await cms().post({ body: { metadata: { name: 'watched' }, data: { a: '1' } } });
      await cms()('watched').patch({ body: { data: { a: '2' } } });
      await cms()('watched').delete();
      await eventually(`three events (seen: ${seen.join(', ')})`, async () => seen.length >= 3);
      assert.deepEqual(seen, ['ADDED watched', 'MODIFIED watched', 'DELETED watched']);
    } finally {
      stream.destroy?.();
      stream.abort?.();
    }
  });
});
