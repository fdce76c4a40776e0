// rbac.authorization.k8s.io/v1 through the API: discovery, CRUD + watch, protobuf round trip, defaults,
// validation (one cause per rule the real 1.9 validators check), roleRef immutability, create-on-update, the
// binding table, and kubectl's create role / clusterrole / rolebinding / clusterrolebinding.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { type Harness, type Json, assertInvalid, causeFields, harness } from '../../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('rbac');
});
after(() => h.close());

const G = '/apis/rbac.authorization.k8s.io/v1';
let seq = 0;
const uniq = (p: string) => `${p}-${++seq}`;
const role = (name: string, rules: Json[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, roleRef: Json, subjects: Json[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, roleRef, subjects });

describe('rbac.authorization.k8s.io/v1', () => {
  test('discovery: the group, its four resources (scope, verbs), alphabetical as the real server', async () => {
    const groups = (await h.call('GET', '/apis')).body.groups as Json[];
    const rbac = groups.find((g) => g.name === 'rbac.authorization.k8s.io');
    assert.ok(rbac, 'rbac');
    assert.deepEqual(rbac.preferredVersion, { groupVersion: 'rbac.authorization.k8s.io/v1', version: 'v1' });
    const list = (await h.call('GET', G)).body.resources as Json[];
    assert.deepEqual(list.map((r) => [r.name, r.namespaced, r.kind]), [
      ['clusterrolebindings', false, 'ClusterRoleBinding'],
      ['clusterroles', false, 'ClusterRole'],
      ['rolebindings', true, 'RoleBinding'],
      ['roles', true, 'Role'],
    ]);
    for (const r of list) assert.deepEqual([...r.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  });

  test('CRUD and watch of a Role; protobuf answers decode to the same object', async () => {
    const name = uniq('reader');
    const path = `${G}/namespaces/${ns}/roles`;
    const events = h.watch(path, 3, 10_000);
    const created = await h.create(path, role(name));
    assert.deepEqual(created.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
    const got = await h.call('GET', `${path}/${name}`);
    assert.equal(got.status, 200);
    const patched = await h.call('PATCH', `${path}/${name}`, { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }] }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.rules[0].resourceNames, ['a']);
    const pb = h.sim.ctx.protobuf;
    if (pb) {
      const res = await request(`${h.sim.url}${path}/${name}`, { headers: { accept: pb.mediaType } });
      const bytes = Buffer.from(await res.body.arrayBuffer());
      assert.equal(res.statusCode, 200);
      const decoded = pb.decodeObject(bytes) as Json;
      assert.deepEqual(decoded.rules, patched.body.rules);
      assert.equal(decoded.kind, 'Role');
      // A protobuf body is accepted on create.
      const other = role(uniq('pb'));
      const r2 = await request(`${h.sim.url}${path}`, { method: 'POST', headers: { 'content-type': pb.mediaType, accept: 'application/json' }, body: pb.encodeObject(other) });
      const b2 = (await r2.body.json()) as Json;
      assert.equal(r2.statusCode, 201, JSON.stringify(b2));
      assert.deepEqual(b2.rules, other.rules);
    }
    assert.equal((await h.call('DELETE', `${path}/${name}`)).status, 200);
    const seen = await events;
    assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'MODIFIED', pb ? 'ADDED' : 'DELETED']);
  });

  test('PUT of a missing role creates it (the RBAC strategies allow create on update)', async () => {
    const name = uniq('putrole');
    const r = await h.call('PUT', `${G}/clusterroles/${name}`, { ...role(name), kind: 'ClusterRole' });
    assert.equal(r.status, 201, r.text);
  });

  test('PolicyRule validation: verbs; apiGroups and resources for resource rules; non-resource URLs', async () => {
    const path = `${G}/namespaces/${ns}/roles`;
    const r = await h.call('POST', path, role(uniq('bad'), [{ resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }, { verbs: ['get'] }]));
    assertInvalid(r, 'rules[0].verbs', 'FieldValueRequired');
    assertInvalid(r, 'rules[0].apiGroups', 'FieldValueRequired');
    assertInvalid(r, 'rules[1].nonResourceURLs', 'FieldValueInvalid');
    assertInvalid(r, 'rules[2].resources', 'FieldValueRequired');
    assert.match(assertInvalid(r, 'rules[0].verbs').message, /verbs must contain at least one value/);
    // In a ClusterRole non-resource URLs are fine, but not mixed with resources.
    const cr = { ...role(uniq('urls'), [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }]), kind: 'ClusterRole' };
    assert.equal((await h.call('POST', `${G}/clusterroles`, cr)).status, 201);
    const mixed = { ...role(uniq('mixed'), [{ verbs: ['get'], resources: ['pods'], nonResourceURLs: ['/x'] }]), kind: 'ClusterRole' };
    assert.match(assertInvalid(await h.call('POST', `${G}/clusterroles`, mixed), 'rules[0].nonResourceURLs').message, /both regular resources and non-resource URLs/);
    // Names are path segments: "a:b" is fine (system:* roles), "a%b" is not.
    assert.equal((await h.call('POST', path, role('system:test-reader'))).status, 201);
    assertInvalid(await h.call('POST', path, role('a%b')), 'metadata.name', 'FieldValueInvalid');
  });

  test('ClusterRole aggregationRule: at least one selector, each a valid label selector', async () => {
    const agg = (sel: Json[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: uniq('agg') }, aggregationRule: { clusterRoleSelectors: sel } });
    assertInvalid(await h.call('POST', `${G}/clusterroles`, agg([])), 'aggregationRule.clusterRoleSelectors', 'FieldValueRequired');
    const bad = await h.call('POST', `${G}/clusterroles`, agg([{ matchExpressions: [{ key: 'a', operator: 'Nope' }] }]));
    assertInvalid(bad, 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator', 'FieldValueNotSupported');
    const ok = await h.create(`${G}/clusterroles`, agg([{ matchLabels: { 'rbac.example.com/aggregate-to-x': 'true' } }]));
    assert.deepEqual(ok.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-x': 'true' } }] });
  });

  test('bindings: defaults (roleRef.apiGroup, User/Group apiGroup), subject and roleRef validation, roleRef immutable', async () => {
    const path = `${G}/namespaces/${ns}/rolebindings`;
    const name = uniq('rb');
    const b = await h.create(path, binding('RoleBinding', name, { kind: 'Role', name: 'reader' }, [
      { kind: 'User', name: 'alice' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'default', namespace: ns },
    ]));
    assert.equal(b.roleRef.apiGroup, 'rbac.authorization.k8s.io');
    assert.deepEqual(b.subjects.map((s: Json) => s.apiGroup), ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', undefined]);
    const changed = await h.call('PATCH', `${path}/${name}`, { roleRef: { name: 'other' } }, { 'content-type': 'application/merge-patch+json' });
    assert.match(assertInvalid(changed, 'roleRef', 'FieldValueInvalid').message, /cannot change roleRef/);
    const subjectsOnly = await h.call('PATCH', `${path}/${name}`, { subjects: [{ kind: 'User', name: 'bob' }] }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(subjectsOnly.status, 200, subjectsOnly.text);

    const bad = await h.call('POST', path, binding('RoleBinding', uniq('rb'), { apiGroup: 'x', kind: 'Pod', name: '' }, [
      { kind: 'Robot', name: 'r2' },
      { kind: 'ServiceAccount', name: 'Not_Valid', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'User', name: '', apiGroup: 'other' },
    ]));
    assert.deepEqual(causeFields(bad).sort(), [
      'roleRef.apiGroup', 'roleRef.kind', 'roleRef.name',
      'subjects[0].kind', 'subjects[1].apiGroup', 'subjects[1].name', 'subjects[2].apiGroup', 'subjects[2].name',
    ]);
    // A ClusterRoleBinding references only ClusterRoles, and its ServiceAccount subjects need a namespace.
    const crb = await h.call('POST', `${G}/clusterrolebindings`, binding('ClusterRoleBinding', uniq('crb'), { kind: 'Role', name: 'r' }, [{ kind: 'ServiceAccount', name: 'default' }]));
    assertInvalid(crb, 'roleRef.kind', 'FieldValueNotSupported');
    assertInvalid(crb, 'subjects[0].namespace', 'FieldValueRequired');
  });

  test('table: bindings show the role and their subjects by kind (wide columns)', async () => {
    const name = uniq('crb');
    await h.create(`${G}/clusterrolebindings`, binding('ClusterRoleBinding', name, { kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns1' },
    ]));
    const r = await h.call('GET', `${G}/clusterrolebindings/${name}`, undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.columnDefinitions.map((c: Json) => [c.name, c.priority]), [['Name', 0], ['Age', 0], ['Role', 1], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]]);
    const cells = r.body.rows[0].cells as unknown[];
    assert.deepEqual([cells[0], cells[2], cells[3], cells[4], cells[5]], [name, 'ClusterRole/view', 'alice, bob', '', 'ns1/sa']);
  });
});

const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const noKubectl = probe.error ? `kubectl is not on PATH (${(probe.error as NodeJS.ErrnoException).code})` : false;

describe('kubectl create role / clusterrole / rolebinding / clusterrolebinding', { skip: noKubectl }, () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'rbac-kubectl-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));
  const kubectl = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile('kubectl', ['--server', h.sim.url, ...args], { env: { PATH: process.env.PATH, HOME: home }, timeout: 30_000 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`kubectl ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      });
    });

  test('the objects kubectl builds are accepted and read back; get -o wide prints the binding columns', async () => {
    await kubectl('-n', ns, 'create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods');
    await kubectl('create', 'clusterrole', 'agg-parent', '--aggregation-rule=example.com/agg=true');
    await kubectl('create', 'clusterrole', 'url-reader', '--verb=get', '--non-resource-url=/logs/*');
    await kubectl('-n', ns, 'create', 'rolebinding', 'rb1', '--role=pod-reader', '--user=alice', `--serviceaccount=${ns}:default`);
    await kubectl('create', 'clusterrolebinding', 'crb1', '--clusterrole=url-reader', '--group=ops');
    const r = JSON.parse(await kubectl('-n', ns, 'get', 'role', 'pod-reader', '-o', 'json')) as Json;
    assert.deepEqual(r.rules, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }]);
    const agg = JSON.parse(await kubectl('get', 'clusterrole', 'agg-parent', '-o', 'json')) as Json;
    assert.deepEqual(agg.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'example.com/agg': 'true' } }] });
    const wide = await kubectl('-n', ns, 'get', 'rolebinding', 'rb1', '-o', 'wide');
    assert.match(wide, /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS|^NAME\s+AGE\s+ROLE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS/);
    assert.match(wide, new RegExp(`rb1\\s+.*Role/pod-reader.*alice\\s+${ns}/default`));
    await kubectl('delete', 'clusterrolebinding', 'crb1');
    const left = await h.call('GET', `${G}/clusterrolebindings/crb1`);
    assert.equal(left.status, 404);
  });
});
