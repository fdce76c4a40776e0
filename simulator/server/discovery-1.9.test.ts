// Discovery against the real 1.9.4 OpenAPI document (../shared/upstream-fixtures/openapi-v1.9.4-swagger.json):
// every group version, resource, subresource, verb, kind and namespaced flag the document's paths say a 1.9 cluster
// serves, nothing more by default; the alpha group versions only with --runtime-config. The document was generated
// with every group version on, so its alpha ones are what --runtime-config turns on.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { startApiServer, type RunningApiServer } from './start.ts';
import { RESOURCES } from '../api/registry.ts';
import { parseRuntimeConfig, RuntimeConfigError } from '../api/runtime-config.ts';

interface Expected {
  groupVersion: string;
  name: string;
  namespaced: boolean;
  verbs: Set<string>;
  kind?: string;
}

const VERB_OF_ACTION: Record<string, string | undefined> = {
  get: 'get', list: 'list', watch: 'watch', watchlist: 'watch', post: 'create', put: 'update', patch: 'patch', delete: 'delete', deletecollection: 'deletecollection',
  // Connect subresources (exec, attach, portforward, proxy) list no verbs in 1.9's discovery.
  connect: undefined, proxy: undefined,
};

/** The resources of each group version, as the document's paths describe them. */
function fromDocument(): Map<string, Map<string, Expected>> {
  const doc = JSON.parse(readFileSync(new URL('../../../shared/upstream-fixtures/openapi-v1.9.4-swagger.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, { 'x-kubernetes-action'?: string; 'x-kubernetes-group-version-kind'?: { kind: string } }>>;
  };
  const out = new Map<string, Map<string, Expected>>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    const m = /^\/api\/(v1)\/(.+)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)\/(.+)$/.exec(path);
    if (!m) continue;
    const groupVersion = m[1];
    let segs = m[2].split('/');
    if (segs[0] === 'proxy') continue; // the deprecated /api/v1/proxy/... paths are no resource
    if (segs[0] === 'watch') segs = segs.slice(1);
    let namespaced = false;
    if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) {
      namespaced = true;
      segs = segs.slice(2);
    }
    const name = segs.length >= 3 && segs[1] === '{name}' ? `${segs[0]}/${segs[2]}` : segs[0];
    if (name.startsWith('{')) continue;
    let gv = out.get(groupVersion);
    if (!gv) out.set(groupVersion, (gv = new Map()));
    let r = gv.get(name);
    if (!r) gv.set(name, (r = { groupVersion, name, namespaced: false, verbs: new Set() }));
    r.namespaced ||= namespaced;
    for (const [method, op] of Object.entries(ops)) {
      if (method === 'parameters' || !op['x-kubernetes-action']) continue;
      const verb = VERB_OF_ACTION[op['x-kubernetes-action']];
      if (verb) r.verbs.add(verb);
      r.kind ??= op['x-kubernetes-group-version-kind']?.kind;
    }
  }
  return out;
}

const EXPECTED = fromDocument();
const isAlpha = (gv: string) => gv.includes('alpha');

/** The proxy subresources are another change's (pods/nodes/services proxy): checked when served, tolerated when not. */
const NOT_YET = new Set(['v1 pods/proxy', 'v1 services/proxy', 'v1 nodes/proxy']);

/** Served beyond 1.9 on purpose (ResourceDef.beyond19 says which client needs it). */
const BEYOND = new Set(RESOURCES.filter((d) => d.beyond19).map((d) => (d.group ? `${d.group}/${d.version}` : d.version)));

interface Served {
  name: string;
  namespaced: boolean;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  singularName: string;
}

async function getJson(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(base + path);
  const text = await res.body.text();
  return { status: res.statusCode, body: res.statusCode === 200 ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Every group version the server lists and the resources of each. */
async function discover(base: string): Promise<Map<string, Map<string, Served>>> {
  const out = new Map<string, Map<string, Served>>();
  const gvs = ['v1'];
  const groups = (await getJson(base, '/apis')).body.groups as Array<{ versions: Array<{ groupVersion: string }> }>;
  for (const g of groups) for (const v of g.versions) gvs.push(v.groupVersion);
  for (const gv of gvs) {
    const r = await getJson(base, gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    assert.equal(r.status, 200, gv);
    out.set(gv, new Map((r.body.resources as Served[]).map((x) => [x.name, x])));
  }
  return out;
}

/** Differences between what is served and the document, one line each ("missing ...", "extra ...", "... verbs ..."). */
function compare(served: Map<string, Map<string, Served>>, wantGroupVersion: (gv: string) => boolean): string[] {
  const diffs: string[] = [];
  for (const [gv, resources] of EXPECTED) {
    if (!wantGroupVersion(gv)) continue;
    const got = served.get(gv);
    for (const [name, want] of resources) {
      const key = `${gv} ${name}`;
      const have = got?.get(name);
      if (!have) {
        if (!NOT_YET.has(key)) diffs.push(`missing ${key}`);
        continue;
      }
      if (have.namespaced !== want.namespaced) diffs.push(`${key}: namespaced ${have.namespaced}, 1.9 ${want.namespaced}`);
      const verbs = [...want.verbs].sort().join(',');
      if ([...have.verbs].sort().join(',') !== verbs) diffs.push(`${key}: verbs [${have.verbs.join(',')}], 1.9 [${verbs}]`);
      if (want.kind && have.kind !== want.kind) diffs.push(`${key}: kind ${have.kind}, 1.9 ${want.kind}`);
    }
  }
  for (const [gv, resources] of served) {
    if (BEYOND.has(gv)) continue;
    for (const [name, r] of resources) {
      if (EXPECTED.get(gv)?.has(name)) continue;
      // A parent without verbs (extensions' ReplicationControllerDummy) has no path of its own in the document.
      if (r.verbs.length === 0 && [...(EXPECTED.get(gv)?.keys() ?? [])].some((x) => x.startsWith(`${name}/`))) continue;
      diffs.push(`extra ${gv} ${name}`);
    }
  }
  return diffs;
}

describe('discovery equals the 1.9.4 document', () => {
  let server: RunningApiServer;
  let served: Map<string, Map<string, Served>>;
  before(async () => {
    server = await startApiServer();
    served = await discover(server.url);
  });
  after(async () => server.close());

  test('every resource of the default group versions, with its verbs, kind and scope; nothing else', () => {
    assert.deepEqual(compare(served, (gv) => !isAlpha(gv)), []);
  });

  test('no alpha group version by default', () => {
    assert.deepEqual([...served.keys()].filter(isAlpha), []);
  });

  test('what 1.9 did not serve is there only for a named client', () => {
    const beyond = [...served.keys()].filter((gv) => !EXPECTED.has(gv));
    assert.deepEqual(beyond.sort(), ['apiextensions.k8s.io/v1', 'certificates.k8s.io/v1', 'metrics.k8s.io/v1beta1']);
    for (const gv of beyond) for (const d of RESOURCES.filter((x) => `${x.group}/${x.version}` === gv)) assert.match(d.beyond19 ?? '', /kubectl|client/, `${gv} ${d.resource}`);
  });

  test('group order, versions and preferred versions as 1.9 lists them', async () => {
    const groups = (await getJson(server.url, '/apis')).body.groups as Array<{ name: string; versions: Array<{ version: string }>; preferredVersion: { version: string } }>;
    const byName = new Map(groups.map((g) => [g.name, g]));
    assert.deepEqual(groups.map((g) => g.name).slice(0, 15), [
      'apiregistration.k8s.io', 'extensions', 'apps', 'events.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'autoscaling', 'batch',
      'certificates.k8s.io', 'networking.k8s.io', 'policy', 'rbac.authorization.k8s.io', 'storage.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io',
    ]);
    const versions = (g: string) => byName.get(g)!.versions.map((v) => v.version);
    assert.deepEqual(versions('apps'), ['v1', 'v1beta2', 'v1beta1']);
    assert.deepEqual(versions('autoscaling'), ['v1', 'v2beta1']);
    assert.deepEqual(versions('rbac.authorization.k8s.io'), ['v1', 'v1beta1']);
    assert.deepEqual(versions('storage.k8s.io'), ['v1', 'v1beta1']);
    for (const g of ['apps', 'autoscaling', 'batch', 'rbac.authorization.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io', 'storage.k8s.io']) {
      assert.equal(byName.get(g)!.preferredVersion.version, 'v1', g);
    }
    assert.equal(byName.get('events.k8s.io')!.preferredVersion.version, 'v1beta1');
  });

  test('short names and categories as 1.9 gives them', () => {
    const at = (gv: string, name: string) => served.get(gv)!.get(name)!;
    const short = (gv: string, name: string) => at(gv, name).shortNames ?? [];
    assert.deepEqual(short('v1', 'componentstatuses'), ['cs']);
    assert.deepEqual(short('v1', 'limitranges'), ['limits']);
    assert.deepEqual(short('v1', 'podtemplates'), []);
    assert.deepEqual(short('extensions/v1beta1', 'networkpolicies'), ['netpol']);
    assert.deepEqual(short('networking.k8s.io/v1', 'networkpolicies'), ['netpol']);
    assert.deepEqual(short('extensions/v1beta1', 'podsecuritypolicies'), ['psp']);
    assert.deepEqual(short('events.k8s.io/v1beta1', 'events'), ['ev']);
    assert.deepEqual(short('autoscaling/v2beta1', 'horizontalpodautoscalers'), ['hpa']);
    // "kubectl get all": the workloads, pods, services and autoscalers; not ingresses, policies or configuration.
    const all = [...served].flatMap(([gv, rs]) => [...rs.values()].filter((r) => r.categories?.includes('all')).map((r) => `${gv} ${r.name}`));
    assert.deepEqual(new Set(all.map((x) => x.split(' ')[1])), new Set([
      'pods', 'replicationcontrollers', 'services', 'daemonsets', 'deployments', 'replicasets', 'statefulsets', 'jobs', 'cronjobs', 'horizontalpodautoscalers',
    ]));
    assert.ok(!all.includes('extensions/v1beta1 replicationcontrollers'), 'the extensions dummy has no category');
    // Built-in resources have no singular name in 1.9's discovery.
    for (const [gv, rs] of served) for (const r of rs.values()) assert.equal(r.singularName, '', `${gv} ${r.name}`);
  });
});

describe('--runtime-config', () => {
  test('turns the alpha group versions on, and what is beyond 1.9 off', async () => {
    const alpha = [...EXPECTED.keys()].filter(isAlpha);
    assert.deepEqual(alpha.sort(), [
      'admissionregistration.k8s.io/v1alpha1', 'batch/v2alpha1', 'rbac.authorization.k8s.io/v1alpha1', 'scheduling.k8s.io/v1alpha1', 'settings.k8s.io/v1alpha1', 'storage.k8s.io/v1alpha1',
    ]);
    const server = await startApiServer({ runtimeConfig: [...alpha.map((gv) => `${gv}=true`), ...[...BEYOND].map((gv) => `${gv}=false`)] });
    try {
      const served = await discover(server.url);
      assert.deepEqual(compare(served, () => true), []);
      for (const gv of BEYOND) assert.equal(served.has(gv), false, gv);
      assert.deepEqual((await getJson(server.url, '/apis/batch')).body.versions, [
        { groupVersion: 'batch/v1', version: 'v1' }, { groupVersion: 'batch/v1beta1', version: 'v1beta1' }, { groupVersion: 'batch/v2alpha1', version: 'v2alpha1' },
      ]);
      assert.equal((await getJson(server.url, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).status, 404);
    } finally {
      await server.close();
    }
  });

  test('one resource of a group version, and the syntax of the real flag', () => {
    assert.deepEqual([...parseRuntimeConfig('batch/v2alpha1,api/all=false, storage.k8s.io/v1beta1/volumeattachments=true')], [
      ['batch/v2alpha1', true], ['api/all', false], ['storage.k8s.io/v1beta1/volumeattachments', true],
    ]);
    assert.throws(() => parseRuntimeConfig('batch/v2alpha1=yes'), RuntimeConfigError);
    assert.throws(() => parseRuntimeConfig('batch'), RuntimeConfigError);
  });
});
