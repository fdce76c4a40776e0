// The defaults suite catches a server that drops a default, replaces an explicit 0 by the default, or gets
// the image tag rule wrong, on any of the kinds a row names; it passes a server that leaves zero-valued
// defaults out of its answers (as the real server does for non-pointer fields) or answers creates with 202.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { eachObject, jsonOf, pathOf, withJson, type ProxiedRequest, type ProxiedResponse } from './harness/testdata/proxy-server.ts';
import { loadCatalog } from './harness/catalog.ts';
import { loadSpecTables } from '../spec-tables/index.ts';

after(closeTargets);

function rewriteObjects(fn: (o: any, req: ProxiedRequest) => void) {
  return (req: ProxiedRequest, res: ProxiedResponse): ProxiedResponse => {
    const body = jsonOf(res);
    if (!body || res.status >= 300) return res;
    eachObject(body, (o) => fn(o, req));
    return withJson(res, body);
  };
}

function containersOf(o: any): any[] {
  const spec = o.spec?.jobTemplate?.spec?.template?.spec ?? o.spec?.template?.spec ?? o.spec;
  return Array.isArray(spec?.containers) ? spec.containers : [];
}

test('every field row with a default has a check, and each check names its row', async () => {
  const tables = loadSpecTables();
  const catalog = await loadCatalog();
  for (const row of tables.fields.filter((f) => f.default !== null)) {
    const c = catalog.checks.find((x) => x.id === `defaults.${row.type}.${row.name}`);
    assert.ok(c, `no defaults check for ${row.id}`);
    assert.ok(c.rows.includes(row.id), `defaults.${row.type}.${row.name} does not name ${row.id}`);
  }
});

test('a dropped default, an explicit 0 replaced by the default and a wrong image rule are each caught', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        if (req.method !== 'POST' || !pathOf(req).endsWith('/deployments')) return req;
        const body = jsonOf(req);
        if (body?.spec?.replicas === 0) delete body.spec.replicas;
        return withJson(req, body);
      },
      response: rewriteObjects((o, req) => {
        if (o.kind === 'Deployment' && o.spec?.revisionHistoryLimit === 10) delete o.spec.revisionHistoryLimit;
        if (o.kind === 'CronJob' && o.spec) delete o.spec.successfulJobsHistoryLimit;
        if (o.kind === 'Job' && pathOf(req).includes('/jobs')) for (const c of containersOf(o)) delete c.terminationMessagePath;
        for (const c of containersOf(o)) if (c.imagePullPolicy === 'Always') c.imagePullPolicy = 'IfNotPresent';
      }),
    },
    ['defaults.DeploymentSpec.revisionHistoryLimit', 'defaults.DeploymentSpec.replicas', 'defaults.CronJobSpec.successfulJobsHistoryLimit', 'defaults.Container.terminationMessagePath', 'defaults.Container.imagePullPolicy', 'defaults.DeploymentSpec.progressDeadlineSeconds'],
    { runs: 30 },
  );
  assertFailed(result, 'defaults.DeploymentSpec.revisionHistoryLimit', /spec\.revisionHistoryLimit left out \(default\): expected 10, got undefined/);
  assertFailed(result, 'defaults.DeploymentSpec.replicas', /spec\.replicas set explicitly: expected 0, got 1/);
  assertFailed(result, 'defaults.CronJobSpec.successfulJobsHistoryLimit', /expected 3, got undefined/);
  assertFailed(result, 'defaults.Container.terminationMessagePath', /batch\/v1 Job .*terminationMessagePath left out \(default\): expected "\/dev\/termination-log"/);
  assertFailed(result, 'defaults.Container.imagePullPolicy', /expected imagePullPolicy Always, got "IfNotPresent"/);
  assertPassed(result, ['defaults.DeploymentSpec.progressDeadlineSeconds']);
});

test('zero-valued defaults left out of answers and creates answered 202 are allowed', async () => {
  const ids = loadSpecTables().fields.filter((f) => f.default !== null).map((f) => `defaults.${f.type}.${f.name}`);
  const result = await runThroughProxy(
    {
      response(req, res) {
        const rewritten = rewriteObjects((o) => {
          for (const c of containersOf(o)) for (const k of ['stdin', 'stdinOnce', 'tty']) if (c[k] === false) delete c[k];
          if (o.spec?.minReadySeconds === 0) delete o.spec.minReadySeconds;
          if (o.spec?.suspend === false) delete o.spec.suspend;
        })(req, res);
        return req.method === 'POST' && rewritten.status === 201 ? { ...rewritten, status: 202 } : rewritten;
      },
    },
    ids,
    { runs: 20 },
  );
  assertPassed(result, ids);
});
