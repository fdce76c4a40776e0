// --use-service-account-credentials under RBAC (the secured simulator passes it to its daemon): each controller
// works under its own service account with its system:controller:* role — a Deployment gets its ReplicaSet
// and pods, statuses are written — and removing one controller's role denies exactly that controller.

import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { startSimulator, type RunningSimulator } from '../../cluster.ts';
import { eventually } from '../../testing/test-simulator.ts';
import { CONTROLLER_SERVICE_ACCOUNTS } from './service-account-clients.ts';
import { CONTROLLER_ROLES } from '../../server/authorization/bootstrap-policy.ts';

describe('controllers under their own service accounts (RBAC)', () => {
  let sim: RunningSimulator;
  let agent: Agent;
  const log: string[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await request(sim.url + path, {
      method: method as 'GET',
      headers: body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: agent,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : {} };
  };

  before(async () => {
    sim = await startSimulator({
      port: 0,
      securityFlags: { secure: true, authorizationMode: 'RBAC' },
      controllers: ['serviceaccount-token', 'deployment', 'replicaset'],
      controllerLog: (line) => log.push(line),
    });
    const admin = sim.serving!.admin as { cert: string; key: string };
    agent = new Agent({ connect: { ca: sim.serving!.ca, cert: admin.cert, key: admin.key } });
  });

  after(async () => {
    await sim?.close();
    await agent?.close();
  });

  test('every controller account has its bootstrap role', () => {
    const roles = new Set(CONTROLLER_ROLES.map((r) => r.name));
    const missing = [...new Set(Object.values(CONTROLLER_SERVICE_ACCOUNTS))].filter((a) => !roles.has(a) && !['bootstrap-signer', 'token-cleaner'].includes(a));
    assert.deepEqual(missing, []);
  });

  test('a Deployment progresses with each controller under its own account; without its role the ReplicaSet controller is denied', async () => {
    const dep = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sa-web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'sa-web' } }, template: { metadata: { labels: { app: 'sa-web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    assert.equal((await call('POST', '/apis/apps/v1/namespaces/default/deployments', dep)).status, 201);
    const pods = () => call('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dsa-web').then((r) => (r.body.items as unknown[]).length);
    await eventually('2 pods made by the replicaset controller', async () => (await pods()) === 2, 60_000);
    // the ReplicaSet's status (a /status write by replicaset-controller) and the Deployment's
    await eventually('ReplicaSet status.replicas 2', async () => {
      const rs = await call('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dsa-web');
      return (rs.body.items as { status?: { replicas?: number } }[])[0]?.status?.replicas === 2;
    }, 30_000);
    assert.ok(log.some((l) => l.includes('using service account kube-system/replicaset-controller')), "log.some((l) => l.includes('using service account kube-system/replicaset-controller'))");
    assert.ok(log.some((l) => l.includes('using service account kube-system/deployment-controller')), "log.some((l) => l.includes('using service account kube-system/deployment-controller'))");
    assert.ok(!log.some((l) => /403 Forbidden/.test(l)), log.filter((l) => /403/.test(l)).slice(0, 3).join('\n'));

    assert.equal((await call('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:replicaset-controller')).status, 200);
    assert.equal((await call('PATCH', '/apis/apps/v1/namespaces/default/deployments/sa-web', { spec: { replicas: 3 } })).status, 200);
    // the deployment controller (still allowed) scales the ReplicaSet; the replicaset controller cannot add the pod
    await eventually('ReplicaSet spec.replicas 3', async () => {
      const rs = await call('GET', '/apis/apps/v1/namespaces/default/replicasets?labelSelector=app%3Dsa-web');
      return (rs.body.items as { spec?: { replicas?: number } }[])[0]?.spec?.replicas === 3;
    }, 30_000);
    await eventually('the replicaset controller denied', async () => log.some((l) => /User "system:serviceaccount:kube-system:replicaset-controller" cannot (create pods|patch replicasets)/.test(l)), 30_000);
    assert.equal(await pods(), 2);
    assert.ok(!log.some((l) => /User "system:serviceaccount:kube-system:deployment-controller" cannot/.test(l)), '!log.some((l) => /User "system:serviceaccount:kube-system:deployment-controller" cannot/.test(l))');
  });
});
