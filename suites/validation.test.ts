// The validation suite catches a server that accepts an invalid enum, refuses valid values, or refuses
// without a cause naming the field; it passes a server that reports extra causes besides the right one.
import { after, test } from 'node:test';
import { assertFailed, assertPassed, closeTargets, runThroughProxy } from './harness/testdata/run-on-target.ts';
import { jsonOf, pathOf, withJson } from './harness/testdata/proxy-server.ts';

after(closeTargets);

const VALIDATION_CHECKS = [
  'validation.Container.imagePullPolicy',
  'validation.Container.terminationMessagePolicy',
  'validation.Container.name',
  'validation.Container.tty',
  'validation.CronJobSpec.concurrencyPolicy',
  'validation.DeploymentStrategy.type',
  'validation.RollingUpdateDeployment.not-both-zero',
  'validation.DeploymentSpec.selector-matches-template',
  'validation.JobSpec.activeDeadlineSeconds',
];

function containersOf(o: any): any[] {
  const spec = o?.spec?.jobTemplate?.spec?.template?.spec ?? o?.spec?.template?.spec ?? o?.spec;
  return Array.isArray(spec?.containers) ? spec.containers : [];
}

test('an invalid imagePullPolicy accepted, a valid strategy refused, and a 422 without causes are each caught', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        if (req.method !== 'POST') return req;
        const body = jsonOf(req);
        for (const c of containersOf(body))
          if (c.imagePullPolicy && !['Always', 'Never', 'IfNotPresent'].includes(c.imagePullPolicy)) c.imagePullPolicy = 'IfNotPresent';
        return body ? withJson(req, body) : req;
      },
      async handle(req) {
        const body = req.method === 'POST' && pathOf(req).endsWith('/deployments') ? jsonOf(req) : undefined;
        if (body?.spec?.strategy?.type !== 'Recreate') return undefined;
        const status = {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Recreate refused',
          reason: 'Invalid',
          details: { causes: [{ reason: 'FieldValueNotSupported', field: 'spec.strategy.type' }] },
          code: 422,
        };
        return { status: 422, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(status)) };
      },
      response(req, res) {
        if (res.status !== 422 || !pathOf(req).endsWith('/jobs')) return res;
        const body = jsonOf(res);
        // Broken: the cause for activeDeadlineSeconds is left out.
        if (Array.isArray(body?.details?.causes))
          body.details.causes = body.details.causes.filter((c: { field?: string }) => c.field !== 'spec.activeDeadlineSeconds');
        return withJson(res, body);
      },
    },
    [
      'validation.Container.imagePullPolicy',
      'validation.DeploymentStrategy.type',
      'validation.JobSpec.activeDeadlineSeconds',
      'validation.Container.terminationMessagePolicy',
    ],
    { runs: 20 },
  );
  assertFailed(result, 'validation.Container.imagePullPolicy', /imagePullPolicy .*expected HTTP 422, got 20[012]/);
  assertFailed(result, 'validation.DeploymentStrategy.type', /"Recreate": expected HTTP 200 or 201 or 202, got 422/);
  assertFailed(result, 'validation.JobSpec.activeDeadlineSeconds', /422 without a cause naming spec\.activeDeadlineSeconds/);
  assertPassed(result, ['validation.Container.terminationMessagePolicy']);
});

test('a maxSurge/maxUnavailable pair of zeros accepted and a selector mismatch accepted are caught', async () => {
  const result = await runThroughProxy(
    {
      request(req) {
        if (req.method !== 'POST' || !pathOf(req).endsWith('/deployments')) return req;
        const body = jsonOf(req);
        const ru = body?.spec?.strategy?.rollingUpdate;
        if (ru && [0, '0%'].includes(ru.maxSurge) && [0, '0%'].includes(ru.maxUnavailable)) ru.maxSurge = 1;
        if (body?.spec?.selector?.matchLabels && body.spec.template?.metadata)
          body.spec.template.metadata.labels = { ...body.spec.template.metadata.labels, ...body.spec.selector.matchLabels };
        return withJson(req, body);
      },
    },
    ['validation.RollingUpdateDeployment.not-both-zero', 'validation.DeploymentSpec.selector-matches-template'],
    { runs: 20 },
  );
  assertFailed(result, 'validation.RollingUpdateDeployment.not-both-zero', /expected HTTP 422/);
  assertFailed(result, 'validation.DeploymentSpec.selector-matches-template', /expected HTTP 422/);
});

test('extra causes besides the one for the field, and creates answered 200, are allowed', async () => {
  const result = await runThroughProxy(
    {
      response(req, res) {
        if (req.method === 'POST' && res.status === 201) return { ...res, status: 200 };
        if (res.status !== 422) return res;
        const body = jsonOf(res);
        body.details = {
          ...(body.details ?? {}),
          causes: [{ reason: 'FieldValueInvalid', message: 'also this', field: 'metadata.annotations' }, ...(body.details?.causes ?? [])],
        };
        return withJson(res, body);
      },
    },
    VALIDATION_CHECKS,
  );
  assertPassed(result, VALIDATION_CHECKS);
});
