// Complete REST for every kind of the registry over HTTP, cross-version visibility (apps/v1 <-> extensions/v1beta1),
// storage semantics (resourceVersion, optimistic locking, AlreadyExists, NotFound) and object handling (system
// metadata, namespace and name rules, generateName, missing and terminating namespaces).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { DEFAULT_RESOURCES, RESOURCES, type ResourceDef } from '../api/registry.ts';
import { httpCall } from '../testing/http.ts';
import { decodeObject, hasProtobuf } from '../codec/protobuf.ts';
import { makePki, type Pki } from '../testing/pki.ts';

let sim: RunningSimulator;

before(async () => {
  sim = await startSimulator();
});
after(async () => {
  await sim.close();
  pki?.cleanup();
});

// A CertificateSigningRequest needs a real PKCS#10 request: made once with openssl (CI installs it).
let pki: Pki | undefined;
let csrRequest: string | undefined;
function csrRequestBase64(): string {
  pki ??= makePki('crud-csr-');
  csrRequest ??= readFileSync(pki.csr('crud', '/CN=jane/O=devs').csr).toString('base64');
  return csrRequest;
}

type Json = Record<string, any>;

interface Reply {
  status: number;
  contentType: string | undefined;
  text: string;
  body: Json;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const call = (method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
  httpCall(sim.url, method, path, body, headers).then((r) => ({ ...r, body: (r.body ?? {}) as Json }));

let nsCounter = 0;
async function freshNamespace(prefix = 'crud'): Promise<string> {
  const name = `${prefix}-${++nsCounter}`;
  const r = await call('POST', '/api/v1/namespaces', { metadata: { name } });
  assert.equal(r.status, 201, r.text);
  return name;
}

const CONTAINERS = [{ name: 'c', image: 'nginx:1.13' }];
const podTemplate = (labels: Record<string, string>, restartPolicy?: string) => ({
  metadata: { labels },
  spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: CONTAINERS },
});

/** A minimal valid body per kind (built to pass the per-kind validation being written alongside). */
function validBody(def: ResourceDef, name: string, ns: string | undefined): Json {
  const metadata: Json = { name };
  const labels = { app: name };
  switch (def.kind) {
    case 'Namespace':
    case 'ServiceAccount':
      return { metadata };
    case 'Node':
      return { metadata, spec: {} };
    case 'ConfigMap':
      return { metadata, data: { key: 'value' } };
    case 'Secret':
      return { metadata, type: 'Opaque', data: { key: Buffer.from('value').toString('base64') } };
    case 'Service':
      return { metadata, spec: { selector: labels, ports: [{ port: 80, protocol: 'TCP' }] } };
    case 'Event':
      return {
        metadata,
        involvedObject: { kind: 'Pod', namespace: ns, name: 'some-pod', apiVersion: 'v1' },
        reason: 'Tested',
        message: 'a test event',
        type: 'Normal',
        source: { component: 'crud-test' },
        count: 1,
        firstTimestamp: '2018-01-01T00:00:00Z',
        lastTimestamp: '2018-01-01T00:00:00Z',
      };
    case 'Pod':
      return { metadata, spec: { containers: CONTAINERS } };
    case 'Endpoints':
      return { metadata, subsets: [] };
    case 'ReplicationController':
      return { metadata, spec: { replicas: 1, selector: labels, template: podTemplate(labels) } };
    case 'Deployment':
    case 'ReplicaSet':
      return { metadata, spec: { replicas: 1, selector: { matchLabels: labels }, template: podTemplate(labels) } };
    case 'DaemonSet':
      return { metadata, spec: { selector: { matchLabels: labels }, template: podTemplate(labels) } };
    case 'Ingress':
      return { metadata, spec: { backend: { serviceName: 'svc', servicePort: 80 } } };
    case 'Job':
      return { metadata, spec: { template: podTemplate({}, 'Never') } };
    case 'CronJob':
      return { metadata, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: podTemplate({}, 'Never') } } } };
    case 'StatefulSet':
      return { metadata, spec: { replicas: 1, serviceName: name, selector: { matchLabels: labels }, template: podTemplate(labels) } };
    case 'ControllerRevision':
      return { metadata, data: { spec: { template: podTemplate(labels) } }, revision: 1 };
    case 'PodDisruptionBudget':
      return { metadata, spec: { maxUnavailable: 1, selector: { matchLabels: labels } } };
    case 'ResourceQuota':
      return { metadata, spec: { hard: { pods: '10', 'requests.cpu': '2' } } };
    case 'HorizontalPodAutoscaler':
      return { metadata, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 50 } };
    case 'Role':
    case 'ClusterRole':
      return { metadata, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] };
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return { metadata, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' }] };
    case 'PersistentVolume':
      return { metadata, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } } };
    case 'PersistentVolumeClaim':
      return { metadata, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    case 'StorageClass':
      return { metadata, provisioner: 'kubernetes.io/host-path' };
    case 'VolumeAttachment':
      return { metadata, spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-1' }, nodeName: 'node-1' } };
    case 'CertificateSigningRequest':
      return {
        metadata,
        spec: {
          request: csrRequestBase64(),
          usages: ['digital signature', 'key encipherment', 'client auth'],
          ...(def.version === 'v1' ? { signerName: 'kubernetes.io/kube-apiserver-client' } : {}),
        },
      };
    case 'LimitRange':
      return { metadata, spec: { limits: [{ type: 'Container', default: { cpu: '200m' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1' } }] } };
    case 'PodTemplate':
      return { metadata, template: podTemplate(labels) };
    case 'NetworkPolicy':
      return { metadata, spec: { podSelector: { matchLabels: labels }, ingress: [{ from: [{ podSelector: {} }], ports: [{ protocol: 'TCP', port: 80 }] }] } };
    case 'PodSecurityPolicy':
      return { metadata, spec: { seLinux: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' }, volumes: ['*'] } };
    case 'MutatingWebhookConfiguration':
    case 'ValidatingWebhookConfiguration':
      return {
        metadata,
        webhooks: [{ name: 'check.crud.example.com', clientConfig: { url: 'https://127.0.0.1:1/check', caBundle: '' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['nothing-here'] }], failurePolicy: 'Ignore' }],
      };
    case 'APIService':
      return { metadata, spec: { group: name.slice('v1.'.length), version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: { namespace: 'default', name: 'nowhere' } } };
    default:
      throw new Error(`no valid body for ${def.kind}: add one when a kind joins the registry`);
  }
}

const gvPath = (def: ResourceDef) => (def.group ? `/apis/${def.group}/${def.version}` : `/api/${def.version}`);
const apiVersion = (def: ResourceDef) => (def.group ? `${def.group}/${def.version}` : def.version);
const collection = (def: ResourceDef, ns: string | undefined) => (def.namespaced ? `${gvPath(def)}/namespaces/${ns}/${def.resource}` : `${gvPath(def)}/${def.resource}`);
const DNS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_SECONDS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** Deleting without options: extensions/v1beta1 workloads orphan by default, which leaves a finalizer behind. */
const deleteBody = (def: ResourceDef) => (def.defaultOrphan ? { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } : undefined);

// CustomResourceDefinitions have names of their own (<plural>.<group>) and a deletion the server finishes later
// (instances first): their REST is covered by custom-resources.test.ts.
// Served by default (runtime-config.test covers the alpha ones); extensions' ReplicationControllerDummy has no verbs.
const stored = DEFAULT_RESOURCES.filter((d) => !d.virtual && !d.computed && d.kind !== 'CustomResourceDefinition' && d.verbs.length > 0);

describe('complete REST for every kind', () => {
  for (const def of stored) {
    test(`${apiVersion(def)} ${def.resource}: create, get, replace, list, list cluster-wide, delete, deletecollection`, async () => {
      const ns = def.namespaced ? await freshNamespace(def.resource.slice(0, 10)) : undefined;
      // An APIService is named <version>.<group>.
      const name = def.namespaced ? 'obj-a' : def.kind === 'APIService' ? `v1.crud${++nsCounter}.example.com` : `${def.resource.slice(0, 10)}-${++nsCounter}`;
      const coll = collection(def, ns);

      // create
      const created = await call('POST', `${coll}?fieldManager=crud-test&fieldValidation=Ignore`, validBody(def, name, ns));
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.kind, def.kind);
      assert.equal(created.body.apiVersion, apiVersion(def));
      const meta = created.body.metadata as Json;
      assert.equal(meta.name, name);
      assert.equal(meta.namespace, ns);
      assert.match(meta.uid, UUID);
      assert.match(meta.creationTimestamp, RFC3339_SECONDS_UTC);
      assert.equal(meta.selfLink, `${coll}/${name}`);
      assert.match(meta.resourceVersion, /^[1-9]\d*$/);
      if (def.tracksGeneration) assert.equal(meta.generation, 1);

      // get (an APIService's status is written by the aggregator's availability loop right after its create: the
      // object is read once that is done, and compared without it)
      let got = await call('GET', `${coll}/${name}`);
      assert.equal(got.status, 200, got.text);
      if (def.kind === 'APIService') {
        for (let i = 0; i < 100 && !got.body.status?.conditions; i++) got = await new Promise((r) => setTimeout(r, 20)).then(() => call('GET', `${coll}/${name}`));
        assert.equal(got.body.status.conditions[0].reason, 'ServiceNotFound');
        const bare = (o: Json) => ({ ...o, status: undefined, metadata: { ...o.metadata, resourceVersion: undefined } });
        assert.deepEqual(bare(got.body), bare(created.body));
      } else assert.deepEqual(got.body, created.body);

      // get in protobuf, for every kind 1.9 serves in protobuf: the same object
      if (hasProtobuf(apiVersion(def), def.kind)) {
        const res = await fetch(`${sim.url}${coll}/${name}`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'application/vnd.kubernetes.protobuf');
        assert.deepEqual(decodeObject(new Uint8Array(await res.arrayBuffer())), got.body);
      }

      // replace
      const replaced = await call('PUT', `${coll}/${name}?fieldManager=crud-test`, { ...got.body, metadata: { ...got.body.metadata, labels: { touched: 'yes' } } });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual(replaced.body.metadata.labels, { touched: 'yes' });
      assert.equal(replaced.body.metadata.uid, meta.uid);
      assert.equal(replaced.body.metadata.creationTimestamp, meta.creationTimestamp);
      assert.ok(Number(replaced.body.metadata.resourceVersion) > Number(meta.resourceVersion), 'resourceVersion increases on update');

      // list (namespace) and list cluster-wide
      const listed = await call('GET', coll);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.kind, `${def.kind}List`);
      assert.equal(listed.body.apiVersion, apiVersion(def));
      const item = (listed.body.items as Json[]).find((i) => i.metadata.name === name);
      assert.ok(item, 'the object is listed');
      assert.equal(item.kind, undefined, 'list items carry no kind');
      assert.equal(item.apiVersion, undefined, 'list items carry no apiVersion');
      assert.deepEqual(item.metadata, replaced.body.metadata);
      assert.ok(Number(listed.body.metadata.resourceVersion) >= Number(replaced.body.metadata.resourceVersion), 'Number(listed.body.metadata.resourceVersion) >= Number(replaced.body.metadata.resourceVersion)');
      if (def.namespaced) {
        const all = await call('GET', `${gvPath(def)}/${def.resource}`);
        assert.equal(all.status, 200);
        assert.ok((all.body.items as Json[]).some((i) => i.metadata.name === name && i.metadata.namespace === ns), 'listed cluster-wide');
      }

      // delete
      const del = await call('DELETE', `${coll}/${name}`, deleteBody(def));
      assert.equal(del.status, 200, del.text);
      if (def.kind === 'Namespace') {
        // The namespace finalizer keeps it, Terminating, until the namespace controller empties it.
        assert.equal(del.body.kind, 'Namespace');
        assert.equal(del.body.status.phase, 'Terminating');
        assert.match(del.body.metadata.deletionTimestamp, RFC3339_SECONDS_UTC);
      } else {
        assert.deepEqual(del.body, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, ...(def.group ? { group: def.group } : {}), kind: def.resource, uid: meta.uid },
          code: 200,
        });
        const gone = await call('GET', `${coll}/${name}`);
        assert.equal(gone.status, 404);
      }

      // deletecollection (namespaced kinds; namespaces are covered by the namespace lifecycle)
      if (def.namespaced && !def.verbs.includes('deletecollection')) {
        const dc = await call('DELETE', coll);
        assert.equal(dc.status, 405, dc.text);
      } else if (def.namespaced) {
        for (const n of ['obj-b', 'obj-c']) assert.equal((await call('POST', coll, validBody(def, n, ns))).status, 201);
        const query = def.defaultOrphan ? '?propagationPolicy=Background' : '';
        const dc = await call('DELETE', coll + query);
        assert.equal(dc.status, 200, dc.text);
        assert.equal(dc.body.kind, 'Status');
        assert.equal(dc.body.status, 'Success');
        const after = await call('GET', coll);
        assert.deepEqual(after.body.items, []);
      }
    });
  }

  test('a virtual type (SubjectAccessReview) answers a create and stores nothing', async () => {
    const r = await call('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status.allowed, true);
    const list = await call('GET', '/apis/authorization.k8s.io/v1/subjectaccessreviews');
    assert.equal(list.status, 405);
    assert.equal(list.body.reason, 'MethodNotAllowed');
    assert.equal(list.body.message, 'list is not supported on resources of kind "subjectaccessreviews.authorization.k8s.io"');
  });

  test('extensions/v1beta1 workloads orphan by default: the delete answers the object with the orphan finalizer', async () => {
    const ns = await freshNamespace('orphan');
    const def = RESOURCES.find((d) => d.group === 'extensions' && d.kind === 'ReplicaSet')!;
    const coll = collection(def, ns);
    assert.equal((await call('POST', coll, validBody(def, 'rs', ns))).status, 201);
    const del = await call('DELETE', `${coll}/rs`);
    assert.equal(del.status, 200, del.text);
    assert.equal(del.body.kind, 'ReplicaSet');
    assert.deepEqual(del.body.metadata.finalizers, ['orphan']);
    assert.match(del.body.metadata.deletionTimestamp, RFC3339_SECONDS_UTC);
  });
});

describe('apps/v1 and extensions/v1beta1 share storage', () => {
  for (const kind of ['Deployment', 'ReplicaSet', 'DaemonSet']) {
    test(`${kind}: created through one version, read and listed through the other`, async () => {
      const ns = await freshNamespace('xver');
      const apps = RESOURCES.find((d) => d.group === 'apps' && d.kind === kind)!;
      const ext = RESOURCES.find((d) => d.group === 'extensions' && d.kind === kind)!;
      for (const [from, to, name] of [[apps, ext, 'via-apps'], [ext, apps, 'via-ext']] as const) {
        const c = await call('POST', collection(from, ns), validBody(from, name, ns));
        assert.equal(c.status, 201, c.text);
        const g = await call('GET', `${collection(to, ns)}/${name}`);
        assert.equal(g.status, 200, g.text);
        assert.equal(g.body.apiVersion, apiVersion(to));
        assert.equal(g.body.kind, kind);
        assert.equal(g.body.metadata.uid, c.body.metadata.uid);
        assert.equal(g.body.metadata.resourceVersion, c.body.metadata.resourceVersion);
        assert.equal(g.body.metadata.selfLink, `${collection(to, ns)}/${name}`);
        assert.deepEqual(g.body.spec.template, c.body.spec.template);
        const l = await call('GET', collection(to, ns));
        assert.ok((l.body.items as Json[]).some((i) => i.metadata.uid === c.body.metadata.uid), `listed through ${apiVersion(to)}`);
        const cw = await call('GET', `${gvPath(to)}/${to.resource}`);
        assert.ok((cw.body.items as Json[]).some((i) => i.metadata.uid === c.body.metadata.uid), `listed cluster-wide through ${apiVersion(to)}`);
      }
      // A name taken through one version is taken through the other.
      const dup = await call('POST', collection(ext, ns), validBody(ext, 'via-apps', ns));
      assert.equal(dup.status, 409);
      assert.equal(dup.body.message, `${ext.resource}.extensions "via-apps" already exists`);
    });
  }
});

describe('storage semantics through HTTP', () => {
  let ns: string;
  before(async () => {
    ns = await freshNamespace('store');
  });

  test('create 201, AlreadyExists 409 with the real message and details', async () => {
    const body = { metadata: { name: 'dup' }, data: { a: '1' } };
    assert.equal((await call('POST', `/api/v1/namespaces/${ns}/configmaps`, body)).status, 201);
    const again = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
    assert.equal(again.status, 409);
    assert.equal(again.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}\n');
  });

  test('NotFound 404 names the resource and group', async () => {
    const core = await call('GET', `/api/v1/namespaces/${ns}/configmaps/nope`);
    assert.equal(core.status, 404);
    assert.deepEqual(core.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
    const apps = await call('GET', `/apis/apps/v1/namespaces/${ns}/deployments/nope`);
    assert.deepEqual(apps.body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'deployments.apps "nope" not found', reason: 'NotFound', details: { name: 'nope', group: 'apps', kind: 'deployments' }, code: 404,
    });
    for (const method of ['PUT', 'DELETE'] as const) {
      const r = await call(method, `/apis/batch/v1/namespaces/${ns}/jobs/nope`, method === 'PUT' ? { metadata: { name: 'nope' }, spec: { template: podTemplate({}, 'Never') } } : undefined);
      assert.equal(r.status, 404, method);
      assert.equal(r.body.message, 'jobs.batch "nope" not found');
      assert.deepEqual(r.body.details, { name: 'nope', group: 'batch', kind: 'jobs' });
    }
  });

  test('resourceVersion increases with every write; PUT 200; a stale resourceVersion is 409 Conflict; none is allowed', async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps/locked`;
    const c = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'locked' }, data: { v: '0' } });
    let rv = Number(c.body.metadata.resourceVersion);
    const first = c.body;
    for (let i = 1; i <= 3; i++) {
      const u = await call('PUT', path, { ...first, metadata: { ...first.metadata, resourceVersion: String(rv) }, data: { v: String(i) } });
      assert.equal(u.status, 200, u.text);
      const next = Number(u.body.metadata.resourceVersion);
      assert.ok(next > rv, `${next} > ${rv}`);
      rv = next;
    }
    const stale = await call('PUT', path, { ...first, data: { v: 'stale' } });
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on configmaps "locked": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'locked', kind: 'configmaps' },
      code: 409,
    });
    assert.equal((await call('GET', path)).body.data.v, '3', 'the conflicting write changed nothing');
    const noRv = await call('PUT', path, { metadata: { name: 'locked' }, data: { v: 'blind' } });
    assert.equal(noRv.status, 200, noRv.text);
    assert.ok(Number(noRv.body.metadata.resourceVersion) > rv, 'Number(noRv.body.metadata.resourceVersion) > rv');
    assert.equal(noRv.body.metadata.uid, first.metadata.uid, 'system metadata survives a blind replace');
  });

  test('grouped resources name their group in Conflict', async () => {
    const def = RESOURCES.find((d) => d.group === 'apps' && d.kind === 'Deployment')!;
    const c = await call('POST', collection(def, ns), validBody(def, 'web', ns));
    assert.equal(c.status, 201, c.text);
    const bumped = await call('PUT', `${collection(def, ns)}/web`, { ...c.body, metadata: { ...c.body.metadata, labels: { x: 'y' } } });
    assert.equal(bumped.status, 200);
    const stale = await call('PUT', `${collection(def, ns)}/web`, c.body);
    assert.equal(stale.status, 409);
    assert.equal(stale.body.message, 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual(stale.body.details, { name: 'web', group: 'apps', kind: 'deployments' });
  });

  test('generation: 1 on create, +1 on a spec change, unchanged by a metadata-only change', async () => {
    const def = RESOURCES.find((d) => d.group === 'apps' && d.kind === 'ReplicaSet')!;
    const c = await call('POST', collection(def, ns), validBody(def, 'gen', ns));
    assert.equal(c.body.metadata.generation, 1);
    const spec = await call('PUT', `${collection(def, ns)}/gen`, { ...c.body, metadata: { ...c.body.metadata, resourceVersion: undefined }, spec: { ...c.body.spec, replicas: 3 } });
    assert.equal(spec.status, 200, spec.text);
    assert.equal(spec.body.metadata.generation, 2);
    const meta = await call('PUT', `${collection(def, ns)}/gen`, { ...spec.body, metadata: { ...spec.body.metadata, labels: { only: 'meta' } } });
    assert.equal(meta.status, 200, meta.text);
    assert.equal(meta.body.metadata.generation, 2);
    const cm = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'nogen' } });
    assert.equal(cm.body.metadata.generation, undefined, 'kinds without a spec do not track generation');
  });

  test('system fields in the body are not taken from the client on create', async () => {
    const c = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'sys', uid: 'not-a-uid', resourceVersion: '999999', creationTimestamp: '2000-01-01T00:00:00Z', selfLink: '/elsewhere' },
    });
    assert.equal(c.status, 201, c.text);
    assert.match(c.body.metadata.uid, UUID);
    assert.notEqual(c.body.metadata.resourceVersion, '999999');
    assert.notEqual(c.body.metadata.creationTimestamp, '2000-01-01T00:00:00Z');
    assert.equal(c.body.metadata.selfLink, `/api/v1/namespaces/${ns}/configmaps/sys`);
    const age = Date.now() - Date.parse(c.body.metadata.creationTimestamp);
    assert.ok(age >= -1000 && age < 60_000, `creationTimestamp is now (${c.body.metadata.creationTimestamp})`);
  });
});

describe('object handling', () => {
  let ns: string;
  before(async () => {
    ns = await freshNamespace('meta');
  });

  test('the namespace comes from the path; a different one in the body is 400', async () => {
    const c = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'from-path' } });
    assert.equal(c.body.metadata.namespace, ns);
    const same = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'same-ns', namespace: ns } });
    assert.equal(same.status, 201);
    const other = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x', namespace: 'default' } });
    assert.equal(other.status, 400);
    assert.equal(other.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the namespace of the provided object does not match the namespace sent on the request","reason":"BadRequest","code":400}\n');
    const put = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/from-path`, { metadata: { name: 'from-path', namespace: 'default' } });
    assert.equal(put.status, 400);
    assert.equal(put.body.message, 'the namespace of the provided object does not match the namespace sent on the request');
  });

  test('PUT with a different name than the URL is 400', async () => {
    const r = await call('PUT', `/api/v1/namespaces/${ns}/configmaps/from-path`, { metadata: { name: 'other' } });
    assert.equal(r.status, 400);
    assert.equal(r.body.message, 'the name of the object (other) does not match the name on the URL (from-path)');
    assert.equal(r.body.reason, 'BadRequest');
  });

  test('a name is required: 422 with cause metadata.name', async () => {
    const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { data: { a: 'b' } });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      reason: 'Invalid',
      details: { name: '', kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] },
      code: 422,
    });
  });

  test('invalid DNS names are 422 with the validator message', async () => {
    const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'Bad_Name' } });
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    assert.deepEqual(r.body.details.causes.map((c: Json) => [c.reason, c.field]), [['FieldValueInvalid', 'metadata.name']]);
  });

  test('property: names are accepted exactly when the kind\'s DNS rule accepts them', async () => {
    const subdomain = (n: string) => n.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(n);
    const label1123 = (n: string) => n.length <= 63 && DNS.test(n);
    const label1035 = (n: string) => n.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(n);
    const chars = fc.constantFrom(...'abcz09-.'.split(''), 'A', '_', 'é', ' ');
    const name = fc.oneof(
      { weight: 4, arbitrary: fc.string({ unit: chars, minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 60, max: 260 }), fc.constantFrom('a', 'b.', '-')).map(([n, s]) => ('x' + s.repeat(n)).slice(0, n) + 'z') },
    );
    const kinds = [
      { coll: `/api/v1/namespaces/${ns}/configmaps`, kind: 'ConfigMap', valid: subdomain, body: (n: string) => ({ metadata: { name: n } }) },
      { coll: `/api/v1/namespaces/${ns}/services`, kind: 'Service', valid: label1035, body: (n: string) => ({ metadata: { name: n }, spec: { ports: [{ port: 80 }] } }) },
      { coll: '/api/v1/namespaces', kind: 'Namespace', valid: label1123, body: (n: string) => ({ metadata: { name: n } }) },
    ];
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(name, fc.nat({ max: kinds.length - 1 }), async (n, k) => {
        const kind = kinds[k];
        const key = `${k}/${n}`;
        const r = await call('POST', kind.coll, kind.body(n));
        if (seen.has(key) && kind.valid(n)) {
          assert.equal(r.status, 409, `${kind.kind} ${JSON.stringify(n)}: ${r.text}`);
          return;
        }
        if (kind.valid(n)) {
          assert.equal(r.status, 201, `${kind.kind} ${JSON.stringify(n)}: ${r.text}`);
          assert.equal(r.body.metadata.name, n);
          seen.add(key);
        } else {
          assert.equal(r.status, 422, `${kind.kind} ${JSON.stringify(n)}: ${r.text}`);
          assert.equal(r.body.reason, 'Invalid');
          assert.ok((r.body.details.causes as Json[]).some((c) => c.field === 'metadata.name' && c.reason === 'FieldValueInvalid'), r.text);
        }
      }),
      { numRuns: 120 },
    );
  });

  test('generateName: the prefix (cut to 58) plus five characters of the real alphabet', async () => {
    const r = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { generateName: 'gen-' } });
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(r.body.metadata.generateName, 'gen-');
    assert.equal(r.body.metadata.selfLink, `/api/v1/namespaces/${ns}/configmaps/${r.body.metadata.name}`);
    const long = 'p'.repeat(70) + '-';
    const l = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { generateName: long } });
    assert.equal(l.status, 201, l.text);
    assert.match(l.body.metadata.name, /^p{58}[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) names.add((await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { generateName: 'many-' } })).body.metadata.name);
    assert.equal(names.size, 20, 'each generated name is new');
  });

  test('an invalid generateName is reported on metadata.generateName (and on the generated name)', async () => {
    const bad = await call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { generateName: 'Bad_' } });
    assert.equal(bad.status, 422);
    assert.deepEqual((bad.body.details.causes as Json[]).map((c) => c.field), ['metadata.generateName', 'metadata.name']);
  });

  test('writes into a missing namespace: 404 namespaces "x" not found', async () => {
    const r = await call('POST', '/api/v1/namespaces/does-not-exist/configmaps', { metadata: { name: 'x' } });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'namespaces "does-not-exist" not found', reason: 'NotFound', details: { name: 'does-not-exist', kind: 'namespaces' }, code: 404,
    });
    const d = await call('POST', '/apis/apps/v1/namespaces/does-not-exist/deployments', validBody(RESOURCES.find((x) => x.group === 'apps' && x.kind === 'Deployment')!, 'd', 'does-not-exist'));
    assert.equal(d.status, 404);
    assert.equal(d.body.message, 'namespaces "does-not-exist" not found');
  });

  test('writes into a terminating namespace: 403 Forbidden', async () => {
    const doomed = await freshNamespace('doomed');
    assert.equal((await call('POST', `/api/v1/namespaces/${doomed}/configmaps`, { metadata: { name: 'before' } })).status, 201);
    const del = await call('DELETE', `/api/v1/namespaces/${doomed}`);
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, 'Terminating');
    const r = await call('POST', `/api/v1/namespaces/${doomed}/configmaps`, { metadata: { name: 'late' } });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "late" is forbidden: unable to create new content in namespace ${doomed} because it is being terminated`,
      reason: 'Forbidden',
      details: { name: 'late', kind: 'configmaps' },
      code: 403,
    });
    const job = await call('POST', `/apis/batch/v1/namespaces/${doomed}/jobs`, validBody(RESOURCES.find((x) => x.kind === 'Job')!, 'j', doomed));
    assert.equal(job.status, 403);
    assert.deepEqual(job.body.details, { name: 'j', group: 'batch', kind: 'jobs' });
    // Existing objects can still be read and updated.
    const before = await call('GET', `/api/v1/namespaces/${doomed}/configmaps/before`);
    assert.equal(before.status, 200);
    assert.equal((await call('PUT', `/api/v1/namespaces/${doomed}/configmaps/before`, { ...before.body, data: { x: 'y' } })).status, 200);
  });

  test('query parameters real clients send are accepted on every verb', async () => {
    const q = 'timeout=5s&fieldManager=kubectl-create&fieldValidation=Strict';
    const c = await call('POST', `/api/v1/namespaces/${ns}/configmaps?${q}`, { metadata: { name: 'qp' } });
    assert.equal(c.status, 201, c.text);
    assert.equal((await call('GET', `/api/v1/namespaces/${ns}/configmaps/qp?${q}`)).status, 200);
    assert.equal((await call('GET', `/api/v1/namespaces/${ns}/configmaps?${q}&limit=500`)).status, 200);
    assert.equal((await call('PUT', `/api/v1/namespaces/${ns}/configmaps/qp?${q}`, { metadata: { name: 'qp' }, data: { a: 'b' } })).status, 200);
    const p = await call('PATCH', `/api/v1/namespaces/${ns}/configmaps/qp?fieldManager=kubectl-patch&timeout=5s`, { data: { c: 'd' } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(p.status, 200, p.text);
    assert.deepEqual(p.body.data, { a: 'b', c: 'd' });
    const d = await call('DELETE', `/api/v1/namespaces/${ns}/configmaps/qp?timeout=5s`, { propagationPolicy: 'Background' });
    assert.equal(d.status, 200, d.text);
    assert.equal(d.body.status, 'Success');
  });
});
