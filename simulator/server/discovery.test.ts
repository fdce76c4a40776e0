// Discovery documents over HTTP (spec 4.4, wire-facts 6): /api, /api/v1, /apis, /apis/<group>, /apis/<g>/<v>.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { DEFAULT_RESOURCES as RESOURCES } from '../api/registry.ts';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
});

async function get(path: string, accept?: string): Promise<{ status: number; contentType: string | undefined; text: string }> {
  const res = await request(sim.url + path, { headers: accept ? { accept } : {} });
  const text = await res.body.text();
  return { status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, text };
}

interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

async function resources(path: string): Promise<{ doc: Record<string, unknown>; byName: Map<string, APIResource> }> {
  const r = await get(path);
  assert.equal(r.status, 200);
  const doc = JSON.parse(r.text) as Record<string, unknown>;
  const list = doc.resources as APIResource[];
  return { doc, byName: new Map(list.map((x) => [x.name, x])) };
}

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('/api', () => {
  test('APIVersions, no apiVersion, the server address, compact JSON with a trailing newline', async () => {
    const r = await get('/api');
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/json');
    assert.equal(
      r.text,
      `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:${sim.port}"}]}\n`,
    );
  });

  test("kubectl's aggregated-discovery Accept falls back to the plain document", async () => {
    const accept =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    for (const path of ['/api', '/apis']) {
      const r = await get(path, accept);
      assert.equal(r.status, 200, path);
      assert.equal(r.contentType, 'application/json');
      assert.match(JSON.parse(r.text).kind, /^(APIVersions|APIGroupList)$/);
    }
  });
});

describe('/api/v1', () => {
  test('APIResourceList without apiVersion, key order kind, groupVersion, resources', async () => {
    const { doc } = await resources('/api/v1');
    assert.deepEqual(Object.keys(doc), ['kind', 'groupVersion', 'resources']);
    assert.equal(doc.kind, 'APIResourceList');
    assert.equal(doc.groupVersion, 'v1');
  });

  test('resources sorted by name; verbs sorted and unique; singularName always present', async () => {
    for (const path of ['/api/v1', '/apis/apps/v1', '/apis/extensions/v1beta1', '/apis/batch/v1', '/apis/batch/v1beta1']) {
      const r = JSON.parse((await get(path)).text) as { resources: APIResource[] };
      const names = r.resources.map((x) => x.name);
      assert.deepEqual(names, [...names].sort(), path);
      for (const res of r.resources) {
        assert.deepEqual(res.verbs, [...new Set(res.verbs)].sort(), `${path} ${res.name}`);
        assert.equal(res.singularName, '', `${path} ${res.name}`);
        assert.deepEqual(Object.keys(res).slice(0, 3), ['name', 'singularName', 'namespaced']);
      }
    }
  });

  test('core entries: namespaced flag, kind, short names, subresources', async () => {
    const { byName } = await resources('/api/v1');
    assert.deepEqual(byName.get('configmaps'), { name: 'configmaps', singularName: '', namespaced: true, kind: 'ConfigMap', verbs: ALL, shortNames: ['cm'] });
    assert.deepEqual(byName.get('namespaces'), {
      name: 'namespaces',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ALL.filter((v) => v !== 'deletecollection'),
      shortNames: ['ns'],
    });
    assert.deepEqual(byName.get('namespaces/finalize'), {
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
    assert.deepEqual(byName.get('namespaces/status'), {
      name: 'namespaces/status',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['get', 'patch', 'update'],
    });
    assert.deepEqual(byName.get('pods/status')?.verbs, ['get', 'patch', 'update']);
    assert.equal(byName.get('secrets')?.kind, 'Secret');
    assert.equal(byName.get('secrets')?.shortNames, undefined);
    assert.deepEqual(byName.get('services')?.shortNames, ['svc']);
    const rcScale = byName.get('replicationcontrollers/scale');
    assert.deepEqual(rcScale, {
      name: 'replicationcontrollers/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  });
});

describe('/apis', () => {
  test('APIGroupList with apiVersion v1; every served group with its versions and preferred version', async () => {
    const r = await get('/apis');
    assert.equal(r.status, 200);
    assert.equal(r.contentType, 'application/json');
    assert.ok(r.text.endsWith('}\n'), "r.text.endsWith('}\\n')");
    const doc = JSON.parse(r.text) as {
      kind: string;
      apiVersion: string;
      groups: Array<{ name: string; versions: Array<{ groupVersion: string; version: string }>; preferredVersion: { groupVersion: string; version: string } }>;
    };
    assert.equal(doc.kind, 'APIGroupList');
    assert.equal(doc.apiVersion, 'v1');
    const groups = new Map(doc.groups.map((g) => [g.name, g]));
    // apps/v1beta2 and apps/v1beta1 serve StatefulSets and ControllerRevisions, as 1.9 did.
    assert.deepEqual(groups.get('apps'), {
      name: 'apps',
      versions: [
        { groupVersion: 'apps/v1', version: 'v1' },
        { groupVersion: 'apps/v1beta2', version: 'v1beta2' },
        { groupVersion: 'apps/v1beta1', version: 'v1beta1' },
      ],
      preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
    });
    assert.deepEqual(groups.get('extensions'), {
      name: 'extensions',
      versions: [{ groupVersion: 'extensions/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'extensions/v1beta1', version: 'v1beta1' },
    });
    assert.deepEqual(groups.get('batch'), {
      name: 'batch',
      versions: [{ groupVersion: 'batch/v1', version: 'v1' }, { groupVersion: 'batch/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'batch/v1', version: 'v1' },
    });
    assert.equal(groups.has(''), false, 'the core group is served at /api, not listed');
  });

  test('/apis/<group> is an APIGroup; an unknown group is the plain 404 page', async () => {
    const r = await get('/apis/batch');
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.text), {
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: 'batch',
      versions: [{ groupVersion: 'batch/v1', version: 'v1' }, { groupVersion: 'batch/v1beta1', version: 'v1beta1' }],
      preferredVersion: { groupVersion: 'batch/v1', version: 'v1' },
    });
    for (const path of ['/apis/nosuchgroup', '/apis/apps/v2', '/api/v2', '/apis/batch/v2alpha1']) {
      const nf = await get(path);
      assert.equal(nf.status, 404, path);
      assert.equal(nf.text, '404 page not found\n', path);
      assert.equal(nf.contentType, 'text/plain; charset=utf-8');
    }
  });
});

describe('/apis/<group>/<version>', () => {
  test('apps/v1 keeps apiVersion; deployments/scale is autoscaling/v1 Scale', async () => {
    const { doc, byName } = await resources('/apis/apps/v1');
    assert.deepEqual(Object.keys(doc), ['kind', 'apiVersion', 'groupVersion', 'resources']);
    assert.equal(doc.apiVersion, 'v1');
    assert.equal(doc.groupVersion, 'apps/v1');
    assert.deepEqual(byName.get('deployments'), {
      name: 'deployments',
      singularName: '',
      namespaced: true,
      kind: 'Deployment',
      verbs: ALL,
      shortNames: ['deploy'],
      categories: ['all'],
    });
    assert.deepEqual(byName.get('deployments/scale'), {
      name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'],
    });
    assert.deepEqual(byName.get('deployments/status'), {
      name: 'deployments/status',
      singularName: '',
      namespaced: true,
      kind: 'Deployment',
      verbs: ['get', 'patch', 'update'],
    });
    assert.deepEqual(byName.get('replicasets/scale')?.group, 'autoscaling');
    assert.deepEqual(byName.get('daemonsets')?.shortNames, ['ds']);
    assert.equal(byName.has('daemonsets/scale'), false);
  });

  test('extensions/v1beta1 strips apiVersion; its Scale is extensions/v1beta1', async () => {
    const { doc, byName } = await resources('/apis/extensions/v1beta1');
    assert.deepEqual(Object.keys(doc), ['kind', 'groupVersion', 'resources']);
    assert.equal(doc.groupVersion, 'extensions/v1beta1');
    assert.deepEqual(byName.get('deployments/scale'), {
      name: 'deployments/scale', singularName: '', namespaced: true, group: 'extensions', version: 'v1beta1', kind: 'Scale', verbs: ['get', 'patch', 'update'],
    });
    assert.equal(byName.get('ingresses')?.kind, 'Ingress');
    assert.deepEqual(byName.get('ingresses')?.shortNames, ['ing']);
  });

  test('batch/v1 and batch/v1beta1', async () => {
    const v1 = await resources('/apis/batch/v1');
    assert.equal(v1.doc.apiVersion, 'v1');
    assert.deepEqual([...v1.byName.keys()], ['jobs', 'jobs/status']);
    const b = await resources('/apis/batch/v1beta1');
    assert.deepEqual(b.byName.get('cronjobs'), {
      name: 'cronjobs',
      singularName: '',
      namespaced: true,
      kind: 'CronJob',
      verbs: ALL,
      shortNames: ['cj'],
      categories: ['all'],
    });
  });

  test('every registry declaration is listed with its kind, scope and verbs, and nothing else', async () => {
    const gvs = new Set(RESOURCES.map((d) => `${d.group}/${d.version}`));
    for (const gv of gvs) {
      const [group, version] = gv.split('/');
      const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
      const { byName } = await resources(path);
      const defs = RESOURCES.filter((d) => d.group === group && d.version === version);
      const main = [...byName.values()].filter((r) => !r.name.includes('/'));
      assert.deepEqual(main.map((r) => r.name).sort(), defs.map((d) => d.resource).sort(), path);
      for (const d of defs) {
        const r = byName.get(d.resource)!;
        assert.equal(r.kind, d.kind);
        assert.equal(r.namespaced, d.namespaced);
        assert.deepEqual(r.verbs, [...d.verbs].sort());
        for (const sub of Object.keys(d.subresources)) assert.ok(byName.has(`${d.resource}/${sub}`), `${path} ${d.resource}/${sub}`);
      }
    }
  });

  test('discovery answers YAML when asked, and only GET', async () => {
    const y = await get('/apis/apps/v1', 'application/yaml');
    assert.equal(y.status, 200);
    assert.equal(y.contentType, 'application/yaml');
    assert.match(y.text, /^apiVersion: v1\n/);
    const post = await request(sim.url + '/api/v1', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(post.statusCode, 405);
    const body = (await post.body.json()) as { reason: string; message: string };
    assert.equal(body.reason, 'MethodNotAllowed');
    assert.equal(body.message, 'the server does not allow this method on the requested resource');
  });
});
