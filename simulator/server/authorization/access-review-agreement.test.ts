// Access reviews answer what the authorizer really decides (spec 5.3): for a grid of users, verbs, resources,
// subresources and namespaces under RBAC, each SubjectAccessReview, LocalSubjectAccessReview and
// SelfSubjectAccessReview answer is compared with the outcome of the same request made as that user; and
// every rule a SelfSubjectRulesReview lists lets the matching request through, while a request it covers
// no rule for is forbidden.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { buildSecureServing, type SecureServing } from '../secure-serving.ts';

const TOKENS = { editor: 'tok-editor-1', viewer: 'tok-viewer-1', nobody: 'tok-nobody-1' } as const;
type Who = keyof typeof TOKENS;

interface Probe {
  verb: string;
  method: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  name?: string;
  namespace: string;
  body?: unknown;
}

function pathOf(p: Probe): string {
  const base = p.group ? `/apis/${p.group}/${p.version}` : `/api/${p.version}`;
  return `${base}/namespaces/${p.namespace}/${p.resource}${p.name ? `/${p.name}` : ''}${p.subresource ? `/${p.subresource}` : ''}`;
}

describe('access reviews agree with the real outcome (RBAC)', () => {
  let dir: string;
  let sim: RunningSimulator;
  let serving: SecureServing;
  let admin: Agent;
  let plain: Agent;

  const call = async (agent: Agent, method: string, path: string, body?: unknown, token?: string) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await request(sim.url + path, {
      method: method as 'GET',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : {} };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-review-test-'));
    const tokenFile = join(dir, 'tokens.csv');
    writeFileSync(tokenFile, Object.entries(TOKENS).map(([user, t]) => `${t},${user},uid-${user}`).join('\n') + '\n');
    serving = await buildSecureServing({ secure: true, authorizationMode: 'RBAC', tokenAuthFile: tokenFile, host: '127.0.0.1' });
    sim = await startSimulator({ port: 0, serving });
    const a = serving.admin as { cert: string; key: string };
    admin = new Agent({ connect: { ca: serving.ca, cert: a.cert, key: a.key } });
    plain = new Agent({ connect: { ca: serving.ca } });
    for (const ns of ['ar-1', 'ar-2']) await call(admin, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (const [user, role] of [['editor', 'edit'], ['viewer', 'view']]) {
      const rb = await call(admin, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/ar-1/rolebindings', {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `${user}-${role}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      });
      assert.equal(rb.status, 201);
    }
  });

  after(async () => {
    await sim?.close();
    await admin?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const probes = (ns: string, n: number): Probe[] => {
    const cm = `cm-${n}`;
    const dep = `dep-${n}`;
    return [
      { verb: 'list', method: 'GET', group: '', version: 'v1', resource: 'configmaps', namespace: ns },
      { verb: 'get', method: 'GET', group: '', version: 'v1', resource: 'configmaps', name: cm, namespace: ns },
      { verb: 'create', method: 'POST', group: '', version: 'v1', resource: 'configmaps', namespace: ns, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm } } },
      { verb: 'list', method: 'GET', group: '', version: 'v1', resource: 'secrets', namespace: ns },
      { verb: 'get', method: 'GET', group: 'apps', version: 'v1', resource: 'deployments', name: dep, namespace: ns },
      { verb: 'get', method: 'GET', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'status', name: dep, namespace: ns },
      { verb: 'get', method: 'GET', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'scale', name: dep, namespace: ns },
      { verb: 'patch', method: 'PATCH', group: 'apps', version: 'v1', resource: 'deployments', subresource: 'status', name: dep, namespace: ns, body: { metadata: { labels: { x: 'y' } } } },
      { verb: 'list', method: 'GET', group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'rolebindings', namespace: ns },
      { verb: 'delete', method: 'DELETE', group: '', version: 'v1', resource: 'configmaps', name: cm, namespace: ns },
    ];
  };

  test('SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview answers match the requests', async () => {
    let n = 0;
    const disagreements: string[] = [];
    let allowed = 0;
    let denied = 0;
    for (const ns of ['ar-1', 'ar-2']) {
      for (const who of Object.keys(TOKENS) as Who[]) {
        for (const p of probes(ns, n++)) {
          if (p.name) {
            if (p.resource === 'configmaps') await call(admin, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: p.name } });
            else
              await call(admin, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
                apiVersion: 'apps/v1',
                kind: 'Deployment',
                metadata: { name: p.name },
                spec: {
                  selector: { matchLabels: { a: 'b' } },
                  template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
                },
              });
          }
          const resourceAttributes = {
            namespace: ns,
            verb: p.verb,
            group: p.group,
            version: p.version,
            resource: p.resource,
            ...(p.subresource ? { subresource: p.subresource } : {}),
            ...(p.name ? { name: p.name } : {}),
          };
          const sar = await call(admin, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user: who, groups: ['system:authenticated'], resourceAttributes },
          });
          const lsar = await call(admin, 'POST', `/apis/authorization.k8s.io/v1/namespaces/${ns}/localsubjectaccessreviews`, {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'LocalSubjectAccessReview',
            metadata: { namespace: ns },
            spec: { user: who, groups: ['system:authenticated'], resourceAttributes },
          });
          const ssar = await call(
            plain,
            'POST',
            '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
            { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes } },
            TOKENS[who],
          );
          assert.equal(sar.status, 201, JSON.stringify(sar.body));
          assert.equal(lsar.status, 201, JSON.stringify(lsar.body));
          assert.equal(ssar.status, 201, JSON.stringify(ssar.body));
          const real = await call(plain, p.method, pathOf(p), p.body, TOKENS[who]);
          const realAllowed = real.status !== 403;
          if (real.status === 401) disagreements.push(`${who} got 401`);
          if (realAllowed) allowed++;
          else denied++;
          for (const [kind, r] of [['SubjectAccessReview', sar], ['LocalSubjectAccessReview', lsar], ['SelfSubjectAccessReview', ssar]] as const) {
            if (r.body.status.allowed !== realAllowed)
              disagreements.push(`${kind} says allowed=${r.body.status.allowed} for ${who} ${p.verb} ${pathOf(p)}, the request got ${real.status}`);
          }
        }
      }
    }
    assert.deepEqual(disagreements, []);
    // the grid exercises both outcomes
    assert.ok(allowed >= 10 && denied >= 10, `allowed ${allowed}, denied ${denied}`);
  });

  test('SelfSubjectRulesReview lists rules that let requests through, and nothing for a user without grants', async () => {
    const rules = async (who: Who, ns: string) => {
      const r = await call(
        plain,
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
        { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } },
        TOKENS[who],
      );
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.status as {
        resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[] }[];
        nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
        incomplete: boolean;
      };
    };
    const viewer = await rules('viewer', 'ar-1');
    assert.equal(viewer.incomplete, false);
    const covers = (st: typeof viewer, verb: string, group: string, resource: string) =>
      st.resourceRules.some(
        (r) =>
          (r.verbs.includes(verb) || r.verbs.includes('*')) &&
          (r.apiGroups.includes(group) || r.apiGroups.includes('*')) &&
          (r.resources.includes(resource) || r.resources.includes('*')),
      );
    assert.ok(covers(viewer, 'list', '', 'configmaps'), "covers(viewer, 'list', '', 'configmaps')");
    assert.equal((await call(plain, 'GET', '/api/v1/namespaces/ar-1/configmaps', undefined, TOKENS.viewer)).status, 200);
    assert.ok(!covers(viewer, 'create', '', 'configmaps'), "!covers(viewer, 'create', '', 'configmaps')");
    assert.equal(
      (await call(plain, 'POST', '/api/v1/namespaces/ar-1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-viewer' } }, TOKENS.viewer))
        .status,
      403,
    );
    assert.ok(viewer.nonResourceRules.some((r) => r.nonResourceURLs.includes('/version')), "viewer.nonResourceRules.some((r) => r.nonResourceURLs.includes('/version'))");
    // the other namespace: only what everyone has (self reviews), no configmaps
    const elsewhere = await rules('viewer', 'ar-2');
    assert.ok(!covers(elsewhere, 'list', '', 'configmaps'), "!covers(elsewhere, 'list', '', 'configmaps')");
    assert.ok(covers(elsewhere, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews'), "covers(elsewhere, 'create', 'authorization.k8s.io', 'selfsubjectaccessreviews')");
    const nobody = await rules('nobody', 'ar-1');
    assert.ok(!covers(nobody, 'get', '', 'pods'), "!covers(nobody, 'get', '', 'pods')");
    // a request without spec.namespace is invalid
    const bad = await call(
      plain,
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: {} },
      TOKENS.viewer,
    );
    assert.equal(bad.status, 422);
  });
});
