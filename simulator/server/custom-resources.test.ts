// CustomResourceDefinitions over HTTP: names accepted and Established, instances served (CRUD, list with
// chunking, watch, JSON and YAML only — spec 4.1 —, patch types, /status and /scale), validation against the
// schema, conflicts, and deletion that removes every instance first.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type RunningSimulator } from '../cluster.ts';

type Json = Record<string, any>;

let sim: RunningSimulator;

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; text: string; type: string | null }> {
  const res = await fetch(sim.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, text, type: res.headers.get('content-type') };
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const CRONTAB_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        selector: { type: 'string' },
      },
      required: ['cronSpec'],
    },
  },
};

function crontabCrd(group: string, extra: Json = {}): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1beta1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      version: 'v1',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
      validation: { openAPIV3Schema: CRONTAB_SCHEMA },
      subresources: {
        status: {},
        scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
      },
      ...extra,
    },
  };
}

async function established(name: string): Promise<Json> {
  return eventually(async () => {
    const r = await call('GET', `/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/${name}`);
    const conds: Json[] = r.body.status?.conditions ?? [];
    return conds.some((c) => c.type === 'Established' && c.status === 'True') ? r.body : undefined;
  }, `${name} Established`);
}

before(async () => {
  sim = await startSimulator({ controllers: ['namespace', 'garbagecollector'] });
  await call('POST', '/api/v1/namespaces', { metadata: { name: 'crd-a' } });
});
after(() => sim.close());

describe('CustomResourceDefinition', () => {
  it('is Established with its names accepted, and its resource appears in discovery', async () => {
    const r = await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', crontabCrd('stable.example.com'));
    assert.equal(r.status, 201, r.text);
    assert.ok(r.body.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io'), "r.body.metadata.finalizers.includes('customresourcecleanup.apiextensions.k8s.io')");
    const crd = await established('crontabs.stable.example.com');
    assert.deepEqual(crd.status.acceptedNames.plural, 'crontabs');
    assert.ok(crd.status.conditions.some((c: Json) => c.type === 'NamesAccepted' && c.status === 'True'), "crd.status.conditions.some((c: Json) => c.type === 'NamesAccepted' && c.status === 'True')");
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    const groups = await call('GET', '/apis');
    assert.ok(groups.body.groups.some((g: Json) => g.name === 'stable.example.com'), "groups.body.groups.some((g: Json) => g.name === 'stable.example.com')");
    const list = await call('GET', '/apis/stable.example.com/v1');
    const res = list.body.resources.find((x: Json) => x.name === 'crontabs');
    assert.equal(res.kind, 'CronTab');
    assert.equal(res.namespaced, true);
    assert.deepEqual(res.shortNames, ['ct']);
    assert.ok(list.body.resources.some((x: Json) => x.name === 'crontabs/status'), "list.body.resources.some((x: Json) => x.name === 'crontabs/status')");
    assert.ok(list.body.resources.some((x: Json) => x.name === 'crontabs/scale'), "list.body.resources.some((x: Json) => x.name === 'crontabs/scale')");
  });

  it('reads through apiextensions.k8s.io/v1 with per-version schema and subresources', async () => {
    const r = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crontabs.stable.example.com');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.apiVersion, 'apiextensions.k8s.io/v1');
    const v = r.body.spec.versions[0];
    assert.equal(v.name, 'v1');
    assert.equal(v.served, true);
    assert.equal(v.storage, true);
    assert.deepEqual(v.schema.openAPIV3Schema, CRONTAB_SCHEMA);
    assert.ok(v.subresources.status, 'v.subresources.status');
    assert.equal(r.body.spec.validation, undefined);
  });

  it('serves instances: create, get, list with chunks, replace, JSON and merge patch, delete', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/crd-a/crontabs';
    for (let i = 0; i < 5; i++) {
      const c = await call('POST', base, {
        apiVersion: 'stable.example.com/v1',
        kind: 'CronTab',
        metadata: { name: `ct-${i}` },
        spec: { cronSpec: '*/5 * * * *', replicas: 1 },
      });
      assert.equal(c.status, 201, c.text);
    }
    const page1 = await call('GET', `${base}?limit=2`);
    assert.equal(page1.body.kind, 'CronTabList');
    assert.equal(page1.body.items.length, 2);
    assert.ok(page1.body.metadata.continue, 'page1.body.metadata.continue');
    const page2 = await call('GET', `${base}?limit=10&continue=${encodeURIComponent(page1.body.metadata.continue)}`);
    assert.equal(page2.body.items.length, 3);
    const got = await call('GET', `${base}/ct-0`);
    assert.equal(got.body.metadata.selfLink, `${base}/ct-0`);
    const put = await call('PUT', `${base}/ct-0`, { ...got.body, spec: { cronSpec: '*/1 * * * *', replicas: 2 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.spec.replicas, 2);
    const merge = await call('PATCH', `${base}/ct-0`, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(merge.status, 200, merge.text);
    assert.equal(merge.body.spec.replicas, 3);
    const jp = await call('PATCH', `${base}/ct-0`, [{ op: 'replace', path: '/spec/replicas', value: 4 }], { 'content-type': 'application/json-patch+json' });
    assert.equal(jp.status, 200, jp.text);
    assert.equal(jp.body.spec.replicas, 4);
    const smp = await call('PATCH', `${base}/ct-0`, { spec: { replicas: 5 } }, { 'content-type': 'application/strategic-merge-patch+json' });
    assert.equal(smp.status, 415, 'strategic merge patch is refused for custom resources');
    assert.equal(smp.body.kind, 'Status');
    const del = await call('DELETE', `${base}/ct-4`);
    assert.equal(del.status, 200, del.text);
    assert.equal((await call('GET', `${base}/ct-4`)).status, 404);
  });

  it('answers JSON or YAML only: protobuf alone in Accept is 406, protobuf then JSON is JSON (spec 4.1)', async () => {
    const path = '/apis/stable.example.com/v1/namespaces/crd-a/crontabs/ct-0';
    const pb = await call('GET', path, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(pb.status, 406);
    const both = await call('GET', path, undefined, { accept: 'application/vnd.kubernetes.protobuf, application/json' });
    assert.equal(both.status, 200);
    assert.match(both.type ?? '', /^application\/json/);
    const yaml = await call('GET', path, undefined, { accept: 'application/yaml' });
    assert.equal(yaml.status, 200);
    assert.match(yaml.text, /kind: CronTab/);
    const pbList = await call('GET', '/apis/stable.example.com/v1/namespaces/crd-a/crontabs', undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(pbList.status, 406);
  });

  it('validates instances against the schema: 422 with field paths', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/crd-a/crontabs';
    const bad = await call('POST', base, {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'bad' },
      spec: { cronSpec: 'not a cron', replicas: 11 },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.reason, 'Invalid');
    const fields = bad.body.details.causes.map((c: Json) => c.field).sort();
    assert.deepEqual(fields, ['spec.cronSpec', 'spec.replicas']);
    const missing = await call('POST', base, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'bad2' }, spec: {} });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.details.causes[0].field, 'spec.cronSpec');
  });

  it('/status changes only status and /scale only the replica count', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/crd-a/crontabs';
    const cur = await call('GET', `${base}/ct-1`);
    const st = await call('PUT', `${base}/ct-1/status`, {
      ...cur.body,
      metadata: { ...cur.body.metadata, labels: { sneaky: 'yes' } },
      spec: { cronSpec: '1 1 1 1 1', replicas: 9 },
      status: { replicas: 1, selector: 'app=ct' },
    });
    assert.equal(st.status, 200, st.text);
    assert.deepEqual(st.body.status, { replicas: 1, selector: 'app=ct' });
    assert.equal(st.body.spec.replicas, 1);
    assert.equal(st.body.metadata.labels, undefined);
    const main = await call('PUT', `${base}/ct-1`, { ...st.body, status: { replicas: 7 } });
    assert.deepEqual(main.body.status, { replicas: 1, selector: 'app=ct' }, 'the main resource does not write status');
    const scale = await call('GET', `${base}/ct-1/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.spec.replicas, 1);
    const put = await call('PUT', `${base}/ct-1/scale`, { ...scale.body, spec: { replicas: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal((await call('GET', `${base}/ct-1`)).body.spec.replicas, 3);
  });

  it('a watch from a resourceVersion sees later changes; a custom resource is garbage collected with its owner', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/crd-a/crontabs';
    const list = await call('GET', base);
    const ac = new AbortController();
    const res = await fetch(`${sim.url}${base}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, { signal: ac.signal });
    const reader = res.body!.getReader();
    await call('POST', base, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'watched' }, spec: { cronSpec: '* * * * *' } });
    let buf = '';
    while (!buf.includes('\n')) buf += new TextDecoder().decode((await reader.read()).value);
    const ev = JSON.parse(buf.split('\n')[0]);
    assert.equal(ev.type, 'ADDED');
    assert.equal(ev.object.metadata.name, 'watched');
    ac.abort();
    const owner = await call('POST', '/api/v1/namespaces/crd-a/configmaps', { metadata: { name: 'owner' } });
    await call('POST', base, {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.body.metadata.uid }] },
      spec: { cronSpec: '* * * * *' },
    });
    await call('DELETE', '/api/v1/namespaces/crd-a/configmaps/owner');
    await eventually(async () => ((await call('GET', `${base}/owned`)).status === 404 ? true : undefined), 'the owned custom resource collected', 20_000);
  });

  it('refuses a CRD whose names another CRD of the group holds (NamesAccepted False), and a malformed one with 422', async () => {
    const clash = crontabCrd('stable.example.com');
    clash.metadata.name = 'crontabs2.stable.example.com';
    clash.spec.names = { plural: 'crontabs2', singular: 'crontab2', kind: 'CronTab' };
    const r = await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', clash);
    assert.equal(r.status, 201, r.text);
    const crd = await eventually(async () => {
      const g = await call('GET', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/crontabs2.stable.example.com');
      return g.body.status?.conditions?.length ? g.body : undefined;
    }, 'conditions');
    const names = crd.status.conditions.find((c: Json) => c.type === 'NamesAccepted');
    assert.equal(names.status, 'False');
    assert.equal(names.reason, 'KindConflict');
    assert.equal((await call('GET', '/apis/stable.example.com/v1/namespaces/crd-a/crontabs2')).status, 404);
    const bad = await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', {
      metadata: { name: 'wrong.name.io' },
      spec: { group: 'name.io', version: 'v1', scope: 'Everywhere', names: { plural: 'things', kind: 'Thing' } },
    });
    assert.equal(bad.status, 422, bad.text);
    const fields = bad.body.details.causes.map((c: Json) => c.field);
    assert.ok(fields.includes('spec.scope') && fields.includes('metadata.name'), bad.text);
  });

  it('a cluster-scoped CRD created through v1 serves cluster-wide instances', async () => {
    const r = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.things.example.org' },
      spec: {
        group: 'things.example.org',
        scope: 'Cluster',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          { name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { size: { type: 'integer' } } } } },
        ],
      },
    });
    assert.equal(r.status, 201, r.text);
    await established('widgets.things.example.org');
    const w = await call('POST', '/apis/things.example.org/v1alpha1/widgets', {
      apiVersion: 'things.example.org/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      size: 3,
    });
    assert.equal(w.status, 201, w.text);
    assert.equal(w.body.metadata.namespace, undefined);
    const bad = await call('POST', '/apis/things.example.org/v1alpha1/widgets', {
      apiVersion: 'things.example.org/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w2' },
      size: 'big',
    });
    assert.equal(bad.status, 422, bad.text);
  });

  it('deleting a CRD removes every instance first, then the CRD, and the resource is no longer served', async () => {
    const del = await call('DELETE', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/crontabs.stable.example.com');
    assert.ok(del.status === 200 || del.status === 202, del.text);
    await eventually(
      async () =>
        (await call('GET', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions/crontabs.stable.example.com')).status === 404 ? true : undefined,
      'the CRD gone',
    );
    const list = await call('GET', '/apis/stable.example.com/v1/namespaces/crd-a/crontabs');
    assert.equal(list.status, 404);
    const keys = await sim.ctx.store.list('/registry/stable.example.com/crontabs/');
    assert.equal(keys.items.length, 0, 'every instance was removed from storage');
    // Created again: served again, and empty.
    await call('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', crontabCrd('stable.example.com'));
    await established('crontabs.stable.example.com');
    const again = await call('GET', '/apis/stable.example.com/v1/namespaces/crd-a/crontabs');
    assert.equal(again.status, 200);
    assert.equal(again.body.items.length, 0);
  });
});
