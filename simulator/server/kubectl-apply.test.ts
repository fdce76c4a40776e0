// Drives the real kubectl (when it is on PATH) against the simulator: create -f with validation on, the three
// patch types, label, annotate, scale, and client-side apply twice with a changed manifest, for a Deployment and a
// ConfigMap. kubectl 1.32 reads /openapi/v3 for validation (whether the server validates fields itself) and to
// compute apply's strategic merge patches; `explain --output=plaintext-openapiv2` reads the protobuf /openapi/v2.
// Each run gets its own HOME and kubeconfig, so kubectl's discovery and OpenAPI caches never leak between runs.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSimulator, type RunningSimulator } from '../cluster.ts';

function findKubectl(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === 'win32' ? 'kubectl.exe' : 'kubectl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const KUBECTL = findKubectl();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

type Obj = { metadata: { labels?: Record<string, string>; annotations?: Record<string, string> }; [k: string]: unknown };

const deployment = (image: string, env: Array<[string, string]>, labels: Record<string, string>) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
${Object.entries(labels).map(([k, v]) => `    ${k}: ${v}`).join('\n')}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: ${image}
        env:
${env.map(([n, v]) => `        - name: ${n}\n          value: "${v}"`).join('\n')}
        ports:
        - containerPort: 80
`;

describe('kubectl against the simulator', { skip: KUBECTL ? false : 'kubectl not on PATH' }, () => {
  let sim: RunningSimulator;
  let dir: string;

  const kubectl = (args: string[], input?: string): Promise<Run> =>
    new Promise((resolve) => {
      const child = execFile(
        KUBECTL!,
        args,
        { cwd: dir, timeout: 30_000, env: { PATH: process.env.PATH ?? '', HOME: dir, KUBECONFIG: path.join(dir, 'kubeconfig') } },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      );
      if (input !== undefined) child.stdin!.end(input);
    });
  const ok = async (args: string[], input?: string): Promise<Run> => {
    const r = await kubectl(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}`);
    return r;
  };
  const file = (name: string, text: string): string => {
    writeFileSync(path.join(dir, name), text);
    return name;
  };
  const read = async (apiPath: string): Promise<Obj> => {
    const res = await fetch(sim.url + apiPath);
    assert.equal(res.status, 200, apiPath);
    return (await res.json()) as Obj;
  };
  const deploymentNow = () => read('/apis/apps/v1/namespaces/default/deployments/web') as Promise<Obj & { spec: any }>;
  const configMapNow = (name: string) => read(`/api/v1/namespaces/default/configmaps/${name}`) as Promise<Obj & { data?: Record<string, string> }>;

  before(async () => {
    sim = await startSimulator();
    dir = mkdtempSync(path.join(tmpdir(), 'kubectl-apply-'));
    writeFileSync(
      path.join(dir, 'kubeconfig'),
      `apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: ${sim.url}
contexts:
- name: sim
  context:
    cluster: sim
    user: sim
    namespace: default
current-context: sim
users:
- name: sim
  user: {}
`,
    );
  });

  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('create -f with validation on (the default) works, and reads the OpenAPI v3 documents', async () => {
    const f = file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: created\ndata:\n  a: b\n');
    const r = await ok(['create', '-f', f, '-v=6']);
    assert.match(r.stderr, /GET \S+\/openapi\/v3(\?\S*)? 200 OK/);
    assert.match(r.stderr, /GET \S+\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+\S* 200 OK/);
    assert.doesNotMatch(r.stderr, /failed to download openapi/);
    assert.deepEqual((await configMapNow('created')).data, { a: 'b' });
  });

  it('create -f rejects an unknown field (validation on) and a missing container name', async () => {
    const bad = file('bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\nbogus: 1\ndata:\n  a: b\n');
    const r = await kubectl(['create', '-f', bad]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown field "bogus"/);
    const nested = file('bad-deploy.yaml', deployment('nginx:1.0', [['A', '1']], { app: 'web' }).replace('name: web\n  labels', 'name: bad\n  labels').replace('image:', 'imagee:'));
    const r2 = await kubectl(['create', '-f', nested]);
    assert.notEqual(r2.code, 0);
    assert.match(r2.stderr, /unknown field "spec\.template\.spec\.containers\[0\]\.imagee"/);
    const noName = file('noname.yaml', deployment('nginx:1.0', [['A', '1']], { app: 'web' }).replace('name: web\n  labels', 'name: noname\n  labels').replace('      - name: web\n        image:', '      - image:'));
    const r3 = await kubectl(['create', '-f', noName]);
    assert.notEqual(r3.code, 0);
    assert.match(r3.stderr, /containers\[0\]\.name: Required value/);
  });

  it('apply twice: a changed image, an added env var, a removed label (strategic merge patch from OpenAPI v3)', async () => {
    await ok(['apply', '-f', file('d1.yaml', deployment('nginx:1.0', [['A', '1']], { app: 'web', tier: 'front' }))]);
    let d = await deploymentNow();
    assert.deepEqual(d.metadata.labels, { app: 'web', tier: 'front' });
    const r = await ok(['apply', '-f', file('d2.yaml', deployment('nginx:1.1', [['A', '1'], ['B', '2']], { app: 'web' })), '-v=8']);
    // The patch was computed from the OpenAPI v3 document of apps/v1 (no v2 fallback, no builtin fallback warning).
    assert.match(r.stderr, /GET \S+\/openapi\/v3\/apis\/apps\/v1\?hash=/);
    assert.doesNotMatch(r.stderr, /\/openapi\/v2/);
    assert.doesNotMatch(r.stderr, /error calculating patch from openapi/);
    assert.match(r.stderr, /PATCH \S+\/apis\/apps\/v1\/namespaces\/default\/deployments\/web\?/);
    assert.match(r.stderr, /application\/strategic-merge-patch\+json/);
    assert.match(r.stderr, /\$setElementOrder\/env/);
    d = await deploymentNow();
    assert.deepEqual(d.metadata.labels, { app: 'web' });
    const c = d.spec.template.spec.containers;
    assert.equal(c.length, 1);
    assert.equal(c[0].image, 'nginx:1.1');
    assert.deepEqual(c[0].env, [{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
    assert.deepEqual(c[0].ports.map((p: { containerPort: number }) => p.containerPort), [80]);
    assert.match(d.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'], /nginx:1\.1/);
  });

  it('scale, label, annotate and the three patch types on a Deployment', async () => {
    await ok(['scale', 'deployment/web', '--replicas=3']);
    assert.equal((await deploymentNow()).spec.replicas, 3);
    await ok(['label', 'deployment', 'web', 'team=blue']);
    await ok(['annotate', 'deployment', 'web', 'note=hello']);
    let d = await deploymentNow();
    assert.equal(d.metadata.labels!.team, 'blue');
    assert.equal(d.metadata.annotations!.note, 'hello');
    await ok(['label', 'deployment', 'web', 'team-']);
    assert.equal((await deploymentNow()).metadata.labels!.team, undefined);
    await ok(['patch', 'deployment', 'web', '--type=strategic', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"C","value":"3"}]}]}}}}']);
    d = await deploymentNow();
    assert.deepEqual(d.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name).sort(), ['A', 'B', 'C']);
    await ok(['patch', 'deployment', 'web', '--type=merge', '-p', '{"spec":{"minReadySeconds":5}}']);
    assert.equal((await deploymentNow()).spec.minReadySeconds, 5);
    await ok(['patch', 'deployment', 'web', '--type=json', '-p', '[{"op":"replace","path":"/spec/replicas","value":1}]']);
    assert.equal((await deploymentNow()).spec.replicas, 1);
    // A third apply keeps what others changed outside the manifest (a label added by hand, env C added by a
    // patch) and removes only what it applied before and the manifest no longer has (env B).
    await ok(['label', 'deployment', 'web', 'owner=me']);
    await ok(['apply', '-f', file('d3.yaml', deployment('nginx:1.2', [['A', '1']], { app: 'web' }))]);
    d = await deploymentNow();
    assert.equal(d.metadata.labels!.owner, 'me');
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.2');
    assert.deepEqual(d.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name).sort(), ['A', 'C']);
  });

  it('ConfigMap: apply twice, label, annotate and the three patch types', async () => {
    const cm = (data: Record<string, string>, labels: Record<string, string>) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels:\n${Object.entries(labels).map(([k, v]) => `    ${k}: "${v}"`).join('\n')}\ndata:\n${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join('\n')}\n`;
    await ok(['apply', '-f', file('cm1.yaml', cm({ a: '1', b: '2' }, { x: '1', y: '2' }))]);
    await ok(['apply', '-f', file('cm2.yaml', cm({ a: '10', c: '3' }, { x: '1' }))]);
    let c = await configMapNow('applied');
    assert.deepEqual(c.data, { a: '10', c: '3' });
    assert.deepEqual(c.metadata.labels, { x: '1' });
    await ok(['label', 'configmap', 'applied', 'env=dev']);
    await ok(['annotate', 'configmap', 'applied', 'note=hi']);
    await ok(['patch', 'configmap', 'applied', '--type=json', '-p', '[{"op":"add","path":"/data/j","value":"json"}]']);
    await ok(['patch', 'configmap', 'applied', '--type=merge', '-p', '{"data":{"m":"merge","c":null}}']);
    await ok(['patch', 'configmap', 'applied', '--type=strategic', '-p', '{"data":{"s":"smp"}}']);
    c = await configMapNow('applied');
    assert.deepEqual(c.data, { a: '10', j: 'json', m: 'merge', s: 'smp' });
    assert.equal(c.metadata.labels!.env, 'dev');
    assert.equal(c.metadata.annotations!.note, 'hi');
  });

  it('explain reads both OpenAPI documents: v3 and the protobuf v2', async () => {
    const v3 = await ok(['explain', 'deployment.spec.template.spec.containers.env']);
    assert.match(v3.stdout, /valueFrom/);
    const v2 = await ok(['explain', '--output=plaintext-openapiv2', 'deployment.spec.template.spec.containers.env']);
    assert.match(v2.stdout, /name\s+<string> -required-/);
  });
});
