// PodSecurityPolicy: the objects validated as 1.9 validates them, and the admission plugin when --admission-control
// names it (off by default): a pod is refused when no policy its user or service account may `use` admits it, is
// annotated kubernetes.io/psp with the policy that did, gets that policy's defaults, and a policy that admits it
// unchanged wins over one that would change it. Under RBAC with static-token users.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { startApiServer } from '../start.ts';

type Json = Record<string, any>;
let sim: RunningSimulator;
let dir: string;
const ADMIN = 'psp-admin-token';
const DEV = 'psp-dev-token';
const PSPS = '/apis/extensions/v1beta1/podsecuritypolicies';

async function call(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await fetch(sim.url + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Json };
}
const admin = (method: string, path: string, body?: unknown) => call(ADMIN, method, path, body);
const dev = (method: string, path: string, body?: unknown) => call(DEV, method, path, body);

const anyRules = { seLinux: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' } };
const pod = (name: string, container: Json = {}, spec: Json = {}) => ({
  metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...container }], ...spec },
});

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'psp-'));
  writeFileSync(join(dir, 'tokens.csv'), `${ADMIN},admin,uid-admin,"system:masters"\n${DEV},dev,uid-dev,"devs"\n`);
  sim = await startSimulator({
    securityFlags: { tokenAuthFile: join(dir, 'tokens.csv'), serviceAccountLookup: false, authorizationMode: 'RBAC' },
    admissionControl: 'NamespaceLifecycle,PodSecurityPolicy',
  });
  assert.equal((await admin('POST', '/api/v1/namespaces', { metadata: { name: 'psp' } })).status, 201);
  // dev may write pods in psp.
  const role = { metadata: { name: 'pods' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] };
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/psp/roles', role)).status, 201);
  const binding = { metadata: { name: 'dev-pods' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' }, subjects: [{ kind: 'User', name: 'dev' }] };
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/psp/rolebindings', binding)).status, 201);
});

after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('PodSecurityPolicy objects: 1.9 validation and defaults', async () => {
  const bad = async (spec: Json, field: string, message: RegExp) => {
    const r = await admin('POST', PSPS, { metadata: { name: 'bad' }, spec: { ...anyRules, ...spec } });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    const cause = r.body.details.causes.find((c: Json) => c.field === field);
    assert.ok(cause, `${field} in ${JSON.stringify(r.body.details.causes)}`);
    assert.match(cause.message, message);
  };
  await bad({ runAsUser: { rule: 'Sometimes' } }, 'spec.runAsUser.rule', /Unsupported value: "Sometimes": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"/);
  await bad({ fsGroup: { rule: 'MustRunAs', ranges: [{ min: 5, max: 1 }] } }, 'spec.fsGroup.ranges[0]', /min cannot be greater than max/);
  await bad({ volumes: ['hostpath'] }, 'spec.volumes', /Unsupported value: "hostpath"/);
  await bad({ requiredDropCapabilities: ['NET_RAW'], defaultAddCapabilities: ['NET_RAW'] }, 'defaultAddCapabilities', /capability is listed in defaultAddCapabilities and requiredDropCapabilities/);
  await bad({ allowPrivilegeEscalation: false, defaultAllowPrivilegeEscalation: true }, 'spec.defaultAllowPrivilegeEscalation', /without also setting AllowPrivilegeEscalation/);
  await bad({ allowedFlexVolumes: [{ driver: 'x/y' }], volumes: ['secret'] }, 'spec.allowedFlexVolumes', /no flex volumes are allowed/);
  await bad({ hostPorts: [{ min: 10, max: 70000 }] }, 'spec.hostPorts[0].max', /between 0 and 65535/);
  const noRules = await admin('POST', PSPS, { metadata: { name: 'bad' }, spec: {} });
  assert.equal(noRules.status, 422);
  assert.deepEqual(noRules.body.details.causes.map((c: Json) => c.field), ['spec.runAsUser.rule', 'spec.seLinux.rule', 'spec.supplementalGroups.rule', 'spec.fsGroup.rule']);
  const ok = await admin('POST', PSPS, { metadata: { name: 'zz-defaults' }, spec: anyRules });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.equal(ok.body.spec.allowPrivilegeEscalation, true);
  assert.equal((await admin('DELETE', `${PSPS}/zz-defaults`)).status, 200);
});

test('admission: no usable policy, refusals, the annotation, defaults, a non-mutating policy preferred', async () => {
  const none = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p0'));
  assert.equal(none.status, 403);
  assert.equal(none.body.message, 'pods "p0" is forbidden: no providers available to validate pod request');

  const restricted = {
    metadata: { name: 'a-restricted' },
    spec: {
      ...anyRules, runAsUser: { rule: 'MustRunAsNonRoot' }, fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }] },
      requiredDropCapabilities: ['NET_RAW'], volumes: ['configMap', 'emptyDir', 'secret'],
    },
  };
  const privileged = { metadata: { name: 'b-privileged' }, spec: { ...anyRules, privileged: true, hostNetwork: true, volumes: ['*'], allowedCapabilities: ['*'] } };
  for (const p of [restricted, privileged]) assert.equal((await admin('POST', PSPS, p)).status, 201);
  const use = (name: string) => ({ metadata: { name: `use-${name}` }, rules: [{ apiGroups: ['extensions'], resources: ['podsecuritypolicies'], resourceNames: [name], verbs: ['use'] }] });
  for (const n of ['a-restricted', 'b-privileged']) assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', use(n))).status, 201);
  const bind = (name: string, role: string, subject: Json) => admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/psp/rolebindings', {
    metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [subject],
  });
  assert.equal((await bind('dev-restricted', 'use-a-restricted', { kind: 'User', name: 'dev' })).status, 201);

  const refused = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p1', { securityContext: { privileged: true } }));
  assert.equal(refused.status, 403);
  assert.equal(refused.body.message,
    'pods "p1" is forbidden: unable to validate against any pod security policy: [spec.containers[0].securityContext.privileged: Invalid value: true: Privileged containers are not allowed]');
  const hostPath = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p1', {}, { volumes: [{ name: 'h', hostPath: { path: '/etc' } }] }));
  assert.equal(hostPath.status, 403);
  assert.match(hostPath.body.message, /spec\.volumes\[0\]: Invalid value: "hostPath": hostPath volumes are not allowed to be used/);
  const root = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p1', { securityContext: { runAsUser: 0 } }));
  assert.match(root.body.message, /spec\.containers\[0\]\.securityContext\.runAsUser: Invalid value: 0: running with the root UID is forbidden/);

  // Admitted by a-restricted once defaulted: its defaults are written, and its name.
  const plain = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p2'));
  assert.equal(plain.status, 201, JSON.stringify(plain.body));
  assert.equal(plain.body.metadata.annotations['kubernetes.io/psp'], 'a-restricted');
  assert.equal(plain.body.spec.securityContext.fsGroup, 1000);
  assert.deepEqual(plain.body.spec.containers[0].securityContext, { runAsNonRoot: true, capabilities: { drop: ['NET_RAW'] } });

  // An update that changes nothing the policy looks at: still admitted, the annotation unchanged.
  const updated = await dev('PUT', '/api/v1/namespaces/psp/pods/p2', { ...plain.body, metadata: { ...plain.body.metadata, labels: { touched: 'yes' } } });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.metadata.annotations['kubernetes.io/psp'], 'a-restricted');

  // Through the pod's service account: the privileged policy.
  assert.equal((await bind('sa-privileged', 'use-b-privileged', { kind: 'ServiceAccount', name: 'default', namespace: 'psp' })).status, 201);
  const viaSa = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p3', { securityContext: { privileged: true } }));
  assert.equal(viaSa.status, 201, JSON.stringify(viaSa.body));
  assert.equal(viaSa.body.metadata.annotations['kubernetes.io/psp'], 'b-privileged');
  assert.deepEqual(viaSa.body.spec.containers[0].securityContext, { privileged: true });

  // Both allow a plain pod; b-privileged allows it unchanged, so it wins over a-restricted (first by name).
  const preferred = await dev('POST', '/api/v1/namespaces/psp/pods', pod('p4'));
  assert.equal(preferred.status, 201);
  assert.equal(preferred.body.metadata.annotations['kubernetes.io/psp'], 'b-privileged');
  assert.equal(preferred.body.spec.securityContext?.fsGroup, undefined);
});

test('PodSecurityPolicy admission is off unless --admission-control names it', async () => {
  const server = await startApiServer();
  try {
    const r = await fetch(`${server.url}/api/v1/namespaces/default/pods`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pod('privileged', { securityContext: { privileged: true } })),
    });
    const body = (await r.json()) as Json;
    assert.equal(r.status, 201, JSON.stringify(body));
    assert.equal(body.metadata.annotations?.['kubernetes.io/psp'], undefined);
  } finally {
    await server.close();
  }
});
