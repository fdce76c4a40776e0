// Access reviews (access-review.ts) answer from the configured authorizer: allow-all by default, the plugged
// one when given; validation and the local review's namespace rule as on the real 1.9 server.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startApiServer, type RunningApiServer } from './start.ts';
import { alwaysAllow, type Attributes, type Authorizer } from './authorization/authorizer.ts';

type Json = Record<string, any>;

async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Json };
}

const AUTHZ = '/apis/authorization.k8s.io/v1';
const podsList = { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } };

describe('access reviews with no authorizer configured (allow-all)', () => {
  let server: RunningApiServer;
  before(async () => (server = await startApiServer()));
  after(async () => server.close());

  test('discovery lists the three review resources, create only', async () => {
    const list = (await (await fetch(`${server.url}${AUTHZ}`)).json()) as Json;
    const byName = Object.fromEntries((list.resources as Json[]).map((r) => [r.name, r]));
    for (const name of ['localsubjectaccessreviews', 'selfsubjectaccessreviews', 'subjectaccessreviews']) assert.deepEqual(byName[name]?.verbs, ['create'], name);
    assert.equal(byName.localsubjectaccessreviews.namespaced, true);
    assert.equal(byName.selfsubjectaccessreviews.namespaced, false);
  });

  test('a self review is allowed and echoes the request with a status', async () => {
    const r = await post(server.url, `${AUTHZ}/selfsubjectaccessreviews`, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', metadata: { creationTimestamp: null }, spec: podsList });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.kind, 'SelfSubjectAccessReview');
    assert.deepEqual(r.body.spec, podsList);
    assert.equal(r.body.status.allowed, true);
    assert.equal(r.body.metadata.creationTimestamp, null);
  });

  test('a subject access review needs a user or a group; exactly one kind of attributes', async () => {
    const noUser = await post(server.url, `${AUTHZ}/subjectaccessreviews`, { spec: podsList });
    assert.equal(noUser.status, 422);
    assert.equal(noUser.body.details.causes[0].field, 'spec.user');
    const both = await post(server.url, `${AUTHZ}/subjectaccessreviews`, { spec: { ...podsList, nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'u' } });
    assert.equal(both.status, 422);
    assert.equal(both.body.details.causes[0].field, 'spec.nonResourceAttributes');
    const ok = await post(server.url, `${AUTHZ}/subjectaccessreviews`, { spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'u' } });
    assert.equal(ok.status, 201);
    assert.equal(ok.body.status.allowed, true);
  });

  test('a local review must name the path\'s namespace and no non-resource attributes', async () => {
    const other = await post(server.url, `/apis/authorization.k8s.io/v1/namespaces/kube-system/localsubjectaccessreviews`, { spec: { ...podsList, user: 'u' } });
    assert.equal(other.status, 400);
    assert.match(other.body.message, /spec\.resourceAttributes\.namespace must match namespace: kube-system/);
    const ok = await post(server.url, `/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews`, { spec: { ...podsList, user: 'u' } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.metadata.namespace, 'default');
    assert.equal(ok.body.status.allowed, true);
  });
});

describe('access reviews answered by a plugged authorizer', () => {
  let server: RunningApiServer;
  const asked: Attributes[] = [];
  const authorizer: Authorizer = {
    mode: 'Test',
    authorize(attrs) {
      asked.push(attrs);
      if (attrs.user.name === 'alice' && attrs.verb === 'get') return { decision: 'allow', reason: 'alice may read' };
      if (attrs.user.name === 'alice') return { decision: 'no-opinion', reason: 'no rule' };
      return { decision: 'deny', reason: 'nobody else' };
    },
    rulesFor: (user, ns) => alwaysAllow.rulesFor(user, ns),
  };
  // Access reviews ask the authorizer even without authentication (the insecure port's user asks).
  before(async () => (server = await startApiServer({ security: { authorizer } })));
  after(async () => server.close());

  test('allowed, not allowed and denied come from the authorizer, with its reasons', async () => {
    const spec = (verb: string, user: string) => ({ spec: { resourceAttributes: { namespace: 'default', verb, group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }, user, groups: ['g'] } });
    const allowed = await post(server.url, `${AUTHZ}/subjectaccessreviews`, spec('get', 'alice'));
    assert.deepEqual(allowed.body.status, { allowed: true, reason: 'alice may read' });
    assert.deepEqual(asked.at(-1), { user: { name: 'alice', uid: undefined, groups: ['g'], extra: undefined }, resourceRequest: true, verb: 'get', namespace: 'default', apiGroup: 'apps', apiVersion: undefined, resource: 'deployments', subresource: 'scale', name: 'web' });
    const noOpinion = await post(server.url, `${AUTHZ}/subjectaccessreviews`, spec('delete', 'alice'));
    assert.deepEqual(noOpinion.body.status, { allowed: false, reason: 'no rule' });
    const denied = await post(server.url, `${AUTHZ}/subjectaccessreviews`, spec('get', 'bob'));
    assert.deepEqual(denied.body.status, { allowed: false, denied: true, reason: 'nobody else' });
  });

  test('authorization.k8s.io/v1beta1: the same reviews, the groups under spec.group', async () => {
    const body = { apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' }, group: ['g1', 'g2'] } };
    const r = await post(server.url, '/apis/authorization.k8s.io/v1beta1/subjectaccessreviews', body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.deepEqual(asked.at(-1)?.user.groups, ['g1', 'g2']);
    assert.deepEqual(r.body.status, { allowed: false, denied: true, reason: 'nobody else' });
    const self = await post(server.url, '/apis/authorization.k8s.io/v1beta1/selfsubjectaccessreviews', { spec: { resourceAttributes: { verb: 'list', resource: 'pods' } } });
    assert.equal(self.status, 201);
    assert.equal(self.body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.equal(asked.at(-1)?.user.name, 'system:unsecured');
    // v1's field name is not v1beta1's: a review naming only `groups` names no subject.
    const wrong = await post(server.url, '/apis/authorization.k8s.io/v1beta1/subjectaccessreviews', { ...body, spec: { ...body.spec, group: undefined, groups: ['g1'] } });
    assert.equal(wrong.status, 422, JSON.stringify(wrong.body));
  });

  test('a self review asks about the requesting user (system:unsecured without authentication)', async () => {
    const r = await post(server.url, `${AUTHZ}/selfsubjectaccessreviews`, { spec: { nonResourceAttributes: { path: '/api', verb: 'get' } } });
    assert.equal(r.status, 201);
    assert.equal(r.body.status.allowed, false);
    assert.equal(asked.at(-1)?.user.name, 'system:unsecured');
    assert.equal(asked.at(-1)?.resourceRequest, false);
    assert.equal(asked.at(-1)?.path, '/api');
  });
});
