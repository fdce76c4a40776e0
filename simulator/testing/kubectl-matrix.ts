// The kubectl half of the client matrix: one scenario, run by simulator/clients/kubectl-current.test.ts (the
// machine's kubectl) and kubectl-1.20.test.ts (Debian's kubernetes-client 1.20 from .tools/), each against a
// simulator of its own (API server + controller daemon + one simulated node) through the client config the
// simulator writes. Every command a user would type in the first minutes: create/apply/diff, --dry-run=server,
// get -w, --chunk-size, explain, describe, edit, scale, rollout status|history|undo (deployments, StatefulSets,
// DaemonSets), wait, auth can-i (and --list), get apiservices|psp, logs, top pod|node, create|describe quota, autoscale, delete --cascade=*,
// delete namespace, and last drain with a PodDisruptionBudget (onto a second node started for it). Live objects
// are read back over plain HTTP to prove what changed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../cluster.ts';
import { startNodes, type NodesHandle } from '../nodes/index.ts';
import { eventually } from './test-simulator.ts';
import { clientDir, requireClient, run, skipUnlessFound, type ClientDir, type ClientProbe, type RunResult } from './real-clients.ts';

type Json = Record<string, any>;

const NS = 'matrix';

/**
 * The selector and pod template of a workload's spec (indented for its place under `spec:`): pods labelled
 * app=<name>, one container (named <name> unless said), optionally with the simulated log line annotation.
 */
const podTemplateYaml = (name: string, image: string, opts: { container?: string; logLine?: boolean } = {}) => `  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
${opts.logLine ? `      annotations:\n        simulator.cluster.local/log: "hello from ${name}"\n` : ''}    spec:
      containers:
      - name: ${opts.container ?? name}
        image: ${image}
`;

const deploymentYaml = (name: string, image: string, replicas = 1) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
spec:
  replicas: ${replicas}
${podTemplateYaml(name, image, { container: 'web', logLine: true })}`;

const statefulSetYaml = (name: string, image: string, replicas = 2) => `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: ${name}
spec:
  serviceName: ${name}
  replicas: ${replicas}
${podTemplateYaml(name, image)}`;

const daemonSetYaml = (name: string, image: string) => `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: ${name}
spec:
${podTemplateYaml(name, image)}`;

/** An extensions/v1beta1 Deployment with the given strategy lines (indented for their place under `spec:`). */
const extensionsDeploymentYaml = (name: string, strategy: string) => `apiVersion: extensions/v1beta1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  strategy:
${strategy}
${podTemplateYaml(name, 'nginx:1.13')}`;

const configMapYaml = (name: string, value: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  a: ${value}
`;


export function kubectlMatrix(label: string, probe: ClientProbe): void {
  describe(`kubectl ${label} against the simulator`, { skip: skipUnlessFound(probe) }, () => {
    let sim: RunningSimulator;
    let cd: ClientDir;
    let bin: string;
    let extraNode: NodesHandle | undefined;

    const k = (...args: string[]): Promise<RunResult> => run(bin, args, { env: cd.env });
    const ok = async (...args: string[]): Promise<string> => {
      const r = await k(...args);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      return r.stdout;
    };
    const file = (name: string, text: string): string => {
      const p = join(cd.dir, name);
      writeFileSync(p, text);
      return p;
    };
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
      const res = await fetch(sim.url + path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
    };
    const live = async (path: string): Promise<Json> => {
      const r = await api('GET', path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;
    const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

    before(async () => {
      bin = requireClient(probe).path;
      sim = await startSimulator({ controllers: true, nodes: { count: 1, startMs: 50, log: () => {} } });
      cd = clientDir(sim.url, NS);
      await ok('create', 'namespace', NS);
    });
    after(async () => {
      await extraNode?.close();
      await sim?.close();
      if (cd) rmSync(cd.dir, { recursive: true, force: true });
    });

    test('create -f and apply -f (YAML, validation on): the server stores what the files say', async () => {
      assert.match(await ok('create', '-f', file('web.yaml', deploymentYaml('web', 'nginx:1.13'))), /^deployment\.apps\/web created$/m);
      assert.match(await ok('apply', '-f', file('cm.yaml', configMapYaml('conf', 'one'))), /^configmap\/conf created$/m);
      assert.match(await ok('apply', '-f', file('cm.yaml', configMapYaml('conf', 'two'))), /^configmap\/conf configured$/m);
      assert.deepEqual((await live(cmPath('conf'))).data, { a: 'two' });
      const d = await live(deployPath('web'));
      assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.13');
    });

    test('apply of an extensions/v1beta1 Deployment from RollingUpdate to Recreate: $retainKeys drops rollingUpdate (1.9 strategy retainKeys)', async () => {
      const path = `/apis/extensions/v1beta1/namespaces/${NS}/deployments/strat`;
      // rollingUpdate is not in the file: defaulting writes it, so only $retainKeys (not the three-way diff) removes it.
      assert.match(await ok('apply', '-f', file('strat.yaml', extensionsDeploymentYaml('strat', '    type: RollingUpdate'))), /^deployment\.(extensions|apps)\/strat created$/m);
      assert.deepEqual((await live(path)).spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } });
      assert.match(await ok('apply', '-f', file('strat.yaml', extensionsDeploymentYaml('strat', '    type: Recreate'))), /strat configured$/m);
      assert.deepEqual((await live(path)).spec.strategy, { type: 'Recreate' });
      await ok('delete', 'deployment.extensions/strat', '--wait=false');
    });

    test('diff shows the change and leaves live objects alone (server-side dry run)', async () => {
      const before = await live(cmPath('conf'));
      const r = await k('diff', '-f', file('cm-diff.yaml', configMapYaml('conf', 'three')));
      assert.equal(r.code, 1, `diff exits 1 when there are differences\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      assert.match(r.stdout, /^\+\s+a: three$/m);
      assert.match(r.stdout, /^-\s+a: two$/m);
      const afterDiff = await live(cmPath('conf'));
      assert.deepEqual(afterDiff.data, { a: 'two' });
      assert.equal(afterDiff.metadata.resourceVersion, before.metadata.resourceVersion, 'diff must not write');
      const created = await k('diff', '-f', file('new-diff.yaml', configMapYaml('never-created', 'x')));
      assert.equal(created.code, 1, created.stderr);
      assert.equal((await api('GET', cmPath('never-created'))).status, 404, 'diff of a new object must not create it');
    });

    test('--dry-run=server create, scale and delete change nothing', async () => {
      assert.match(await ok('create', 'configmap', 'dry', '--from-literal=a=b', '--dry-run=server'), /configmap\/dry created/);
      assert.equal((await api('GET', cmPath('dry'))).status, 404);
      const rv = (await live(deployPath('web'))).metadata.resourceVersion;
      await ok('scale', 'deployment', 'web', '--replicas=5', '--dry-run=server');
      const d = await live(deployPath('web'));
      assert.equal(d.spec.replicas, 1);
      assert.equal(d.metadata.resourceVersion, rv);
      assert.match(await ok('delete', 'configmap', 'conf', '--dry-run=server'), /configmap "conf" deleted/);
      assert.equal((await api('GET', cmPath('conf'))).status, 200);
    });

    test('get -w prints an object created after it started', async () => {
      const child = spawn(bin, ['get', 'configmaps', '-w', '-o', 'name'], { env: cd.env });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      try {
        await eventually(`the initial list (stdout: ${out}, stderr: ${err})`, async () => /^configmap\/conf$/m.test(out));
        assert.equal((await api('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'watched' } })).status, 201);
        await eventually(`the watched object (stdout: ${out}, stderr: ${err})`, async () => /^configmap\/watched$/m.test(out));
      } finally {
        child.kill('SIGTERM');
      }
    });

    test('--chunk-size pages through the list with limit and continue', async () => {
      for (let i = 0; i < 5; i++) assert.equal((await api('POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `chunk-${i}` } })).status, 201);
      const r = await k('get', 'configmaps', '--chunk-size=2', '-o', 'name', '-v=6');
      assert.equal(r.code, 0, r.stderr);
      const names = r.stdout.trim().split('\n').filter((n) => n.startsWith('configmap/chunk-'));
      assert.deepEqual(names.sort(), [0, 1, 2, 3, 4].map((i) => `configmap/chunk-${i}`));
      assert.match(r.stderr, /limit=2/);
      assert.match(r.stderr, /continue=/);
    });

    test('explain prints the descriptions of kinds and fields (OpenAPI v3 for current kubectl, v2 for 1.20)', async () => {
      const out = await ok('explain', 'deployment.spec.strategy');
      assert.doesNotMatch(out, /<empty>/);
      // The spec's words for DeploymentSpec.strategy, and the project's for the fields of DeploymentStrategy.
      assert.match(out, /How old pods are replaced/);
      assert.match(out, /rollingUpdate\s+<(Object|RollingUpdateDeployment)>/);
      assert.match(out, /Recreate: remove every old pod/);
      for (const [what, words] of [
        ['configmap', /Configuration data as key\/value pairs/],
        ['pods', /A group of containers run together on one node/],
        ['pod.spec.containers.image', /Image name/],
        ['services.spec.type', /ClusterIP \(default/],
        ['jobs.spec.completions', /Desired successful pods/],
        ['cronjobs.spec.schedule', /Cron-format schedule/],
        ['statefulsets.spec.podManagementPolicy', /OrderedReady \(default\)/],
        ['daemonsets.spec.updateStrategy', /How a DaemonSet replaces its pods|How pods are replaced when the template changes/],
        ['nodes.spec.unschedulable', /no new pod is scheduled/],
        ['events.involvedObject', /The object the event is about/],
        ['deployment.metadata.resourceVersion', /optimistic concurrency/],
      ] as const) {
        const text = await ok('explain', what);
        assert.doesNotMatch(text, /<empty>/, `explain ${what}:\n${text}`);
        assert.match(text, words, `explain ${what}:\n${text}`);
      }
    });

    test('scale, rollout status and wait see the deployment become available', async () => {
      // A name without a group resolves through discovery's group order, which puts extensions before apps as 1.9 does.
      assert.match(await ok('scale', 'deployment', 'web', '--replicas=2'), /deployment\.(apps|extensions)\/web scaled/);
      assert.equal((await live(deployPath('web'))).spec.replicas, 2);
      assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=60s'), /successfully rolled out/);
      assert.match(await ok('wait', '--for=condition=Available', 'deployment/web', '--timeout=60s'), /condition met/);
    });

    test('describe shows the deployment with its events', async () => {
      // deployment.apps: a bare `deployment` resolves to extensions/v1beta1 through 1.9's group order, which this
      // kubectl describes with its generic describer only (as it would against a real 1.9 cluster).
      const out = await ok('describe', 'deployment.apps', 'web');
      assert.match(out, /^Name:\s+web$/m);
      assert.match(out, /^Replicas:\s+2 desired/m);
      assert.match(out, /ScalingReplicaSet/);
    });

    test('edit (EDITOR set to a script) changes the object', async () => {
      const editor = file('editor.sh', '#!/bin/sh\nsed -i "s/^  a: two$/  a: edited/" "$1"\n');
      chmodSync(editor, 0o755);
      const r = await run(bin, ['edit', 'configmap', 'conf'], { env: { ...cd.env, EDITOR: editor, KUBE_EDITOR: editor } });
      assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /configmap\/conf edited/);
      assert.deepEqual((await live(cmPath('conf'))).data, { a: 'edited' });
    });

    test('rollout history and undo go back to the previous template', async () => {
      await ok('set', 'image', 'deployment/web', 'web=nginx:1.14');
      assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=60s'), /successfully rolled out/);
      const history = await ok('rollout', 'history', 'deployment/web');
      assert.match(history, /^1\s/m);
      assert.match(history, /^2\s/m);
      assert.match(await ok('rollout', 'undo', 'deployment/web'), /rolled back/);
      await eventually('the undone template', async () => (await live(deployPath('web'))).spec.template.spec.containers[0].image === 'nginx:1.13');
      assert.match(await ok('rollout', 'status', 'deployment/web', '--timeout=60s'), /successfully rolled out/);
    });

    test('get networkpolicies,limitranges,podtemplates,componentstatuses and get all, as against a 1.9 cluster', async () => {
      assert.equal((await api('POST', `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, { metadata: { name: 'deny' }, spec: { podSelector: { matchLabels: { app: 'web' } } } })).status, 201);
      assert.equal((await api('POST', `/api/v1/namespaces/${NS}/limitranges`, { metadata: { name: 'limits' }, spec: { limits: [{ type: 'PersistentVolumeClaim', max: { storage: '5Gi' } }] } })).status, 201);
      const template = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } };
      assert.equal((await api('POST', `/api/v1/namespaces/${NS}/podtemplates`, { metadata: { name: 'tmpl' }, template })).status, 201);
      const out = await ok('get', 'networkpolicies,limitranges,podtemplates,componentstatuses');
      // 1.9 lists extensions before networking.k8s.io: kubectl resolves networkpolicies to extensions.
      assert.match(out, /^networkpolicy\.extensions\/deny\s+app=web\s/m);
      assert.match(out, /^limitrange\/limits\s/m);
      assert.match(out, /^podtemplate\/tmpl\s+c\s+nginx:1\.13\s+a=b$/m);
      assert.match(out, /^componentstatus\/controller-manager\s+Healthy\s+ok/m);
      assert.match(out, /^componentstatus\/scheduler\s+Healthy\s+ok/m);
      assert.match(out, /^componentstatus\/etcd-0\s+Healthy\s+\{"health": "true"\}/m);
      assert.match(await ok('get', 'netpol,limits'), /networkpolicy\.extensions\/deny[\s\S]*limitrange\/limits/);
      // "all" is 1.9's category: workloads in both groups that serve them, pods, services; never the policies.
      const labels = { app: 'allweb' };
      const d = { metadata: { name: 'allweb' }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.13' }] } } } };
      assert.equal((await api('POST', `/apis/apps/v1beta2/namespaces/${NS}/deployments`, d)).status, 201);
      await eventually('the ReplicaSet of allweb', async () => ((await live(`/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3Dallweb`)).items ?? []).length > 0, 60_000);
      const all = await ok('get', 'all');
      for (const kind of ['deployment.apps/allweb', 'deployment.extensions/allweb', 'replicaset.apps/allweb-', 'replicaset.extensions/allweb-']) assert.ok(all.includes(kind), `get all lists ${kind}\n${all}`);
      for (const kind of ['networkpolicy', 'limitrange', 'podtemplate', 'configmap']) assert.ok(!all.includes(kind), `get all does not list ${kind}\n${all}`);
    });

    test('auth can-i answers from the access review endpoints', async () => {
      assert.equal((await ok('auth', 'can-i', 'create', 'pods')).trim(), 'yes');
      assert.equal((await ok('auth', 'can-i', 'list', 'deployments.apps', '--all-namespaces')).trim(), 'yes');
      // --list goes through SelfSubjectRulesReview: the insecure port's user may do everything.
      assert.match(await ok('auth', 'can-i', '--list'), /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
    });

    test('get apiservices (the server\'s own, v1beta1.metrics.k8s.io Available) and podsecuritypolicies, as against a 1.9 cluster', async () => {
      const services = await ok('get', 'apiservices');
      for (const name of ['v1.', 'v1.apps', 'v1beta1.extensions', 'v1beta1.metrics.k8s.io']) assert.ok(services.split('\n').some((l) => l.split(/\s+/)[0] === name), `${name} in\n${services}`);
      assert.equal(await ok('get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}'), 'True');
      const psp = { metadata: { name: 'matrix-psp' }, spec: { seLinux: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' } } };
      assert.equal((await api('POST', '/apis/extensions/v1beta1/podsecuritypolicies', psp)).status, 201);
      assert.match(await ok('get', 'psp'), /^matrix-psp\s/m);
      assert.equal(await ok('get', 'podsecuritypolicy', 'matrix-psp', '-o', 'jsonpath={.spec.allowPrivilegeEscalation}'), 'true');
    });

    test('logs prints the simulated container output', async () => {
      const out = await ok('logs', 'deployment/web');
      assert.match(out, /hello from web/);
      const tail = await ok('logs', 'deployment/web', '--tail=1', '--timestamps');
      assert.equal(tail.trim().split('\n').length, 1);
      assert.match(tail, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z /);
    });

    test('get --field-selector with the fields of the real 1.9 server; an unsupported field is a 400 naming it', async () => {
      const pods = (await live(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)).items as Json[];
      const running = pods.filter((p) => p.status?.phase === 'Running');
      assert.ok(running.length > 0, 'the deployment runs pods by now');
      const node = running[0].spec.nodeName as string;
      const names = (out: string) => out.split('\n').filter(Boolean).sort();
      assert.deepEqual(names(await ok('get', 'pods', '-l', 'app=web', '--field-selector', `status.phase=Running,spec.nodeName=${node}`, '-o', 'name')),
        running.filter((p) => p.spec.nodeName === node).map((p) => `pod/${p.metadata.name}`).sort());
      assert.equal((await ok('get', 'pods', '-l', 'app=web', '--field-selector', 'status.phase=Failed', '-o', 'name')).trim(), '');
      assert.match(await ok('get', 'nodes', '--field-selector', 'spec.unschedulable=false', '-o', 'name'), new RegExp(`^node/${node}$`, 'm'));
      assert.equal((await ok('get', 'nodes', '--field-selector', 'spec.unschedulable=true', '-o', 'name')).trim(), '');
      const events = names(await ok('get', 'events', '--field-selector', `involvedObject.kind=Deployment,involvedObject.name=web,reason=ScalingReplicaSet,type=Normal`, '-o', 'name'));
      assert.ok(events.length > 0, 'the deployment controller reported scaling events');
      await ok('create', 'secret', 'generic', 'fs-opaque', '--from-literal=a=b');
      await ok('create', 'secret', 'generic', 'fs-basic', '--type=kubernetes.io/basic-auth', '--from-literal=username=u');
      assert.deepEqual(names(await ok('get', 'secrets', '--field-selector', 'type=kubernetes.io/basic-auth', '-o', 'name')), ['secret/fs-basic']);
      const opaque = names(await ok('get', 'secrets', '--field-selector', 'type=Opaque', '-o', 'name'));
      assert.ok(opaque.includes('secret/fs-opaque') && !opaque.includes('secret/fs-basic'), opaque.join(' '));
      assert.match(await ok('get', 'namespaces', '--field-selector', 'status.phase=Active', '-o', 'name'), new RegExp(`^namespace/${NS}$`, 'm'));
      const bad = await k('get', 'configmaps', '--field-selector', 'data.a=two');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /BadRequest|Bad Request/);
      assert.match(bad.stderr, /field label not supported: data\.a/);
    });

    test('delete --cascade=orphan|background|foreground', async () => {
      for (const name of ['orphan', 'background', 'foreground']) await ok('create', '-f', file(`${name}.yaml`, deploymentYaml(name, 'nginx:1.13', 0)));
      const rsOf = async (name: string) => ((await live(`/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3D${name}`)).items as Json[]);
      for (const name of ['orphan', 'background', 'foreground']) await eventually(`the ReplicaSet of ${name}`, async () => (await rsOf(name)).length === 1);
      assert.match(await ok('delete', 'deployment', 'orphan', '--cascade=orphan'), /deleted/);
      await eventually('the orphaned ReplicaSet without an owner', async () => {
        const rs = await rsOf('orphan');
        return rs.length === 1 && (rs[0].metadata.ownerReferences ?? []).length === 0;
      });
      assert.match(await ok('delete', 'deployment', 'background', '--cascade=background'), /deleted/);
      await eventually('the ReplicaSet of a background delete gone', async () => (await rsOf('background')).length === 0);
      assert.match(await ok('delete', 'deployment', 'foreground', '--cascade=foreground', '--timeout=60s'), /deleted/);
      await eventually('the foreground delete finished', async () => (await api('GET', deployPath('foreground'))).status === 404 && (await rsOf('foreground')).length === 0);
    });

    test('delete namespace waits until the namespace is gone', async () => {
      await ok('create', 'namespace', 'matrix-gone');
      await ok('create', 'configmap', 'inside', '-n', 'matrix-gone', '--from-literal=a=b');
      assert.match(await ok('delete', 'namespace', 'matrix-gone', '--timeout=60s'), /namespace "matrix-gone" deleted/);
      assert.equal((await api('GET', '/api/v1/namespaces/matrix-gone')).status, 404);
    });

    const imageOf = async (path: string) => (await live(path)).spec.template.spec.containers[0].image as string;

    test('rollout status, history and undo of a StatefulSet', async () => {
      const path = `/apis/apps/v1/namespaces/${NS}/statefulsets/db`;
      assert.match(await ok('apply', '-f', file('db.yaml', statefulSetYaml('db', 'nginx:1.13'))), /^statefulset\.apps\/db created$/m);
      assert.match(await ok('rollout', 'status', 'statefulset/db', '--timeout=90s'), /complete/);
      await ok('set', 'image', 'statefulset/db', 'db=nginx:1.14');
      assert.match(await ok('rollout', 'status', 'statefulset/db', '--timeout=90s'), /complete/);
      const history = await ok('rollout', 'history', 'statefulset/db');
      assert.match(history, /^1\s/m);
      assert.match(history, /^2\s/m);
      assert.match(await ok('rollout', 'history', 'statefulset/db', '--revision=1'), /nginx:1\.13/);
      assert.match(await ok('rollout', 'undo', 'statefulset/db'), /rolled back/);
      assert.equal(await imageOf(path), 'nginx:1.13');
      assert.match(await ok('rollout', 'status', 'statefulset/db', '--timeout=90s'), /complete/);
      const pods = (await live(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Ddb`)).items as Json[];
      assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['db-0', 'db-1']);
      assert.ok(pods.every((p) => p.spec.containers[0].image === 'nginx:1.13'), 'the pods run the undone template');
      const history3 = await ok('rollout', 'history', 'statefulset/db');
      assert.match(history3, /^3\s/m, 'the undone revision comes back as revision 3');
    });

    test('rollout status, history and undo of a DaemonSet (its ControllerRevisions)', async () => {
      const path = `/apis/apps/v1/namespaces/${NS}/daemonsets/agent`;
      assert.match(await ok('apply', '-f', file('agent.yaml', daemonSetYaml('agent', 'nginx:1.13'))), /^daemonset\.apps\/agent created$/m);
      assert.match(await ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /successfully rolled out/);
      await ok('set', 'image', 'daemonset/agent', 'agent=nginx:1.14');
      assert.match(await ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /successfully rolled out/);
      const history = await ok('rollout', 'history', 'daemonset/agent');
      assert.match(history, /^1\s/m);
      assert.match(history, /^2\s/m);
      assert.match(await ok('rollout', 'history', 'daemonset/agent', '--revision=2'), /nginx:1\.14/);
      assert.match(await ok('rollout', 'undo', 'daemonset/agent'), /rolled back/);
      assert.equal(await imageOf(path), 'nginx:1.13');
      assert.match(await ok('rollout', 'status', 'daemonset/agent', '--timeout=90s'), /successfully rolled out/);
      await eventually('the daemon pods run the undone template', async () => {
        const pods = ((await live(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dagent`)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
        return pods.length > 0 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.13' && p.metadata.labels['controller-revision-hash']);
      }, 60_000);
      assert.match(await ok('rollout', 'history', 'daemonset/agent'), /^3\s/m);
    });

    test('top node and top pod read the metrics API', async () => {
      const nodes = await eventually('node metrics', async () => {
        const r = await k('top', 'node');
        return r.code === 0 && r.stdout;
      }, 60_000);
      assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU(\(%\)|%)\s+MEMORY\(bytes\)/m);
      assert.match(nodes, /^sim-node-0\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%/m);
      const pods = await eventually('pod metrics', async () => {
        const r = await k('top', 'pod', '-l', 'app=web');
        return r.code === 0 && /^web-/m.test(r.stdout) && r.stdout;
      }, 60_000);
      assert.match(pods, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/m);
      assert.match(pods, /^web-\S+\s+\d+m\s+\d+Mi/m);
    });

    test('create quota and describe quota: the controller fills used; a create past it is 403 with the real message', async () => {
      const qns = 'matrix-quota';
      await ok('create', 'namespace', qns);
      assert.match(await ok('create', 'quota', 'small', '--hard=configmaps=2,count/secrets=5', '-n', qns), /resourcequota\/small created/);
      await eventually('used written by the resourcequota controller', async () => (await live(`/api/v1/namespaces/${qns}/resourcequotas/small`)).status?.used?.configmaps === '0', 60_000);
      for (const n of ['one', 'two']) await ok('create', 'configmap', n, '-n', qns);
      const refused = await k('create', 'configmap', 'three', '-n', qns);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /configmaps "three" is forbidden: exceeded quota: small, requested: configmaps=1, used: configmaps=2, limited: configmaps=2/);
      // The namespace's default service account has its token Secret, which counts (as on 1.9).
      await eventually('the token Secret counted', async () => (await live(`/api/v1/namespaces/${qns}/resourcequotas/small`)).status?.used?.['count/secrets'] === '1', 60_000);
      const described = await ok('describe', 'quota', 'small', '-n', qns);
      assert.match(described, /^configmaps\s+2\s+2$/m);
      assert.match(described, /^count\/secrets\s+1\s+5$/m);
      await ok('delete', 'configmap', 'one', '-n', qns);
      await eventually('the delete given back', async () => (await live(`/api/v1/namespaces/${qns}/resourcequotas/small`)).status?.used?.configmaps === '1', 60_000);
      await ok('create', 'configmap', 'three', '-n', qns);
      await ok('delete', 'namespace', qns, '--timeout=60s');
    });

    test('autoscale makes a HorizontalPodAutoscaler the controller looks after', async () => {
      assert.match(await ok('autoscale', 'deployment', 'web', '--min=1', '--max=3', '--cpu-percent=50'), /horizontalpodautoscaler\.autoscaling\/web autoscaled/);
      const hpa = await live(`/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers/web`);
      assert.deepEqual([hpa.spec.minReplicas, hpa.spec.maxReplicas, hpa.spec.targetCPUUtilizationPercentage, hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name], [1, 3, 50, 'Deployment', 'web']);
      await eventually('the HPA status', async () => {
        const h = await live(`/apis/autoscaling/v1/namespaces/${NS}/horizontalpodautoscalers/web`);
        return typeof h.status?.currentReplicas === 'number' && h.status.currentReplicas > 0;
      }, 60_000);
      assert.match(await ok('get', 'hpa', 'web'), /^web\s+Deployment\/web\s/m);
    });

    test('drain with a PodDisruptionBudget of maxUnavailable 1 evicts one pod at a time (last: moves everything)', async () => {
      await ok('create', '-f', file('drainme.yaml', deploymentYaml('drainme', 'nginx:1.13', 2)));
      // policy/v1beta1, the version 1.9 serves (`kubectl create poddisruptionbudget` of newer kubectl posts policy/v1).
      const pdb = 'apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: drainme\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: drainme\n';
      assert.match(await ok('create', '-f', file('pdb.yaml', pdb)), /poddisruptionbudget\.policy\/drainme created/);
      await eventually('the budget allows one disruption', async () => (await live(`/apis/policy/v1beta1/namespaces/${NS}/poddisruptionbudgets/drainme`)).status?.disruptionsAllowed === 1, 60_000);
      // Both pods are on the only node; a second node (no scheduler of its own) takes the replacements.
      extraNode = await startNodes(sim.url, { count: 1, namePrefix: 'matrix-extra-', indexOffset: 8, startMs: 50, scheduler: false, log: () => {} });
      await eventually('the second node Ready', async () => ((await live('/api/v1/nodes/matrix-extra-0')).status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True'));
      const r = await k('drain', 'sim-node-0', '--ignore-daemonsets', '--timeout=120s');
      assert.equal(r.code, 0, `drain exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
      // kubectl 1.20 ends with "node/<name> evicted" (its wording), newer ones with "drained".
      assert.match(r.stdout, /^node\/sim-node-0 (drained|evicted)$/m);
      // The second eviction waited for the first replacement: kubectl was refused (429) and retried.
      assert.match(r.stdout + r.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
      assert.equal((await live('/api/v1/nodes/sim-node-0')).spec.unschedulable, true);
      const pods = ((await live(`/api/v1/namespaces/${NS}/pods?labelSelector=app%3Ddrainme`)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
      assert.ok(pods.length === 2 && pods.every((p) => p.spec.nodeName === 'matrix-extra-0'), pods.map((p) => `${p.metadata.name}@${p.spec.nodeName}`).join(' '));
      assert.match(await ok('uncordon', 'sim-node-0'), /uncordoned/);
    });
  });
}
