// Validation: 422 Invalid with one cause per violation, all reported at once (spec 2.2-2.5 rows, 3 rules;
// wire-facts 2 for the Status shape). Wrong JSON types are 400, never 422 or 500. Test names carry row ids.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fieldRow } from '../../spec-tables/index.ts';
import { type Harness, type Json, assertInvalid, causeFields, cronJob, deployment, harness, job, pod, podTemplate } from '../testing/kinds.ts';

let h: Harness;
let ns: string;
before(async () => {
  h = await harness();
  ns = await h.namespace('valid');
});
after(() => h.close());

const APPS = () => `/apis/apps/v1/namespaces/${ns}/deployments`;
const PODS = () => `/api/v1/namespaces/${ns}/pods`;
const JOBS = () => `/apis/batch/v1/namespaces/${ns}/jobs`;
const CRONJOBS = () => `/apis/batch/v1beta1/namespaces/${ns}/cronjobs`;
let seq = 0;
const uniq = (p: string) => `${p}-${++seq}`;

describe('Container rules (spec 2.2)', () => {
  test('field.Container.name: DNS_LABEL, unique across containers and initContainers; all violations at once', async () => {
    const r = await h.call('POST', PODS(), pod(uniq('p'), {
      initContainers: [{ name: 'dup', image: 'a' }],
      containers: [{ name: 'dup', image: 'a' }, { name: 'Bad_Name', image: 'a' }, { image: 'a' }],
    }));
    assertInvalid(r, 'spec.containers[0].name', 'FieldValueDuplicate');
    assertInvalid(r, 'spec.containers[1].name', 'FieldValueInvalid');
    assertInvalid(r, 'spec.containers[2].name', 'FieldValueRequired');
    assert.match(r.body.message, /^Pod "p-\d+" is invalid: \[/);
  });

  test('field.Container.name: property: DNS labels accepted, others rejected at the container name', async () => {
    const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
    const bad = fc.oneof(fc.constant('-x'), fc.constant('x-'), fc.stringMatching(/^[a-z]{1,5}[A-Z_.][a-z]{1,5}$/), fc.constant('a'.repeat(64)));
    await fc.assert(fc.asyncProperty(label, async (name) => {
      const r = await h.call('POST', PODS(), pod(uniq('pn'), { containers: [{ name, image: 'a' }] }));
      assert.equal(r.status, 201, r.text);
    }), { numRuns: 15 });
    await fc.assert(fc.asyncProperty(bad, async (name) => {
      const r = await h.call('POST', PODS(), pod(uniq('pn'), { containers: [{ name, image: 'a' }] }));
      assertInvalid(r, 'spec.containers[0].name', 'FieldValueInvalid');
    }), { numRuns: 15 });
  });

  test('field.Container.image: required in pods, optional in templates (spec 2.2)', async () => {
    const r = await h.call('POST', PODS(), pod(uniq('p'), { containers: [{ name: 'c' }] }));
    assertInvalid(r, 'spec.containers[0].image', 'FieldValueRequired');
    const d = deployment(uniq('noimage'));
    delete d.spec.template.spec.containers[0].image;
    assert.equal((await h.call('POST', APPS(), d)).status, 201);
  });

  test('at least one container', async () => {
    assertInvalid(await h.call('POST', PODS(), pod(uniq('p'), { containers: [] })), 'spec.containers', 'FieldValueRequired');
  });

  test('field.Container.imagePullPolicy and field.Container.terminationMessagePolicy: enums from the rows (NotSupported listing them)', async () => {
    const r = await h.call('POST', PODS(), pod(uniq('p'), { containers: [{ name: 'c', image: 'a', imagePullPolicy: 'Sometimes', terminationMessagePolicy: 'Nope' }] }));
    const a = assertInvalid(r, 'spec.containers[0].imagePullPolicy', 'FieldValueNotSupported');
    for (const v of fieldRow('Container', 'imagePullPolicy')!.enum!) assert.ok(a.message.includes(`"${v}"`), a.message);
    const b = assertInvalid(r, 'spec.containers[0].terminationMessagePolicy', 'FieldValueNotSupported');
    for (const v of fieldRow('Container', 'terminationMessagePolicy')!.enum!) assert.ok(b.message.includes(`"${v}"`), b.message);
    for (const v of fieldRow('Container', 'imagePullPolicy')!.enum!) {
      assert.equal((await h.call('POST', PODS(), pod(uniq('p'), { containers: [{ name: 'c', image: 'a', imagePullPolicy: v }] }))).status, 201);
    }
  });

  test('field.Container.tty: tty needs stdin', async () => {
    assertInvalid(await h.call('POST', PODS(), pod(uniq('p'), { containers: [{ name: 'c', image: 'a', tty: true }] })), 'spec.containers[0].tty');
    assert.equal((await h.call('POST', PODS(), pod(uniq('p'), { containers: [{ name: 'c', image: 'a', tty: true, stdin: true }] }))).status, 201);
  });

  test('PodSpec restartPolicy and dnsPolicy enums', async () => {
    const r = await h.call('POST', PODS(), pod(uniq('p'), { restartPolicy: 'Sometimes', dnsPolicy: 'Weird' }));
    assertInvalid(r, 'spec.restartPolicy', 'FieldValueNotSupported');
    assertInvalid(r, 'spec.dnsPolicy', 'FieldValueNotSupported');
  });

  test('field.Container.name (Not updatable) and the other "Not updatable" Container rows: Pod updates are Forbidden; image may change', async () => {
    const p = await h.create(PODS(), pod(uniq('upd')));
    const withImage = structuredClone(p);
    withImage.spec.containers[0].image = 'nginx:1.14';
    const ok = await h.call('PUT', `${PODS()}/${p.metadata.name}`, withImage);
    assert.equal(ok.status, 200, ok.text);
    for (const [field, value] of [['command', ['sh']], ['workingDir', '/tmp'], ['terminationMessagePath', '/x']] as const) {
      const cur = (await h.call('GET', `${PODS()}/${p.metadata.name}`)).body;
      cur.spec.containers[0][field] = value;
      const r = await h.call('PUT', `${PODS()}/${p.metadata.name}`, cur);
      const c = assertInvalid(r, 'spec', 'FieldValueForbidden');
      assert.match(c.message, /pod updates may not change fields other than/);
      assert.equal(fieldRow('Container', field)!.updatable, false);
    }
  });
});

describe('Deployment rules (spec 2.4)', () => {
  test('field.DeploymentSpec.selector: required in apps/v1, must match template labels (rule.fields.deployment-selector-matches-template)', async () => {
    const d = deployment(uniq('sel'));
    delete d.spec.selector;
    assertInvalid(await h.call('POST', APPS(), d), 'spec.selector', 'FieldValueRequired');
    const m = await h.call('POST', APPS(), deployment(uniq('sel'), { selector: { matchLabels: { app: 'other' } } }));
    const c = assertInvalid(m, 'spec.template.metadata.labels');
    assert.match(c.message, /`selector` does not match template `labels`/);
    const e = await h.call('POST', APPS(), deployment(uniq('sel'), { selector: {} }));
    assertInvalid(e, 'spec.selector');
  });

  test('field.DeploymentStrategy.type: enum from the row; Recreate forbids rollingUpdate', async () => {
    const r = await h.call('POST', APPS(), deployment(uniq('st'), { strategy: { type: 'Blue' } }));
    const c = assertInvalid(r, 'spec.strategy.type', 'FieldValueNotSupported');
    for (const v of fieldRow('DeploymentStrategy', 'type')!.enum!) assert.ok(c.message.includes(`"${v}"`), 'c.message.includes(`"${v}"`)');
    assertInvalid(await h.call('POST', APPS(), deployment(uniq('st'), { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } })), 'spec.strategy.rollingUpdate', 'FieldValueForbidden');
  });

  test('field.RollingUpdateDeployment.maxSurge / field.RollingUpdateDeployment.maxUnavailable: not both 0 (rule.fields.rolling-update-not-both-zero)', async () => {
    for (const [s, u] of [[0, 0], ['0%', 0], [0, '0%']]) {
      const r = await h.call('POST', APPS(), deployment(uniq('ru'), { strategy: { rollingUpdate: { maxSurge: s, maxUnavailable: u } } }));
      assertInvalid(r, 'spec.strategy.rollingUpdate.maxUnavailable');
    }
    assert.equal((await h.call('POST', APPS(), deployment(uniq('ru'), { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }))).status, 201);
  });

  test('field.RollingUpdateDeployment.maxUnavailable: property over percentages and counts', async () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 20 }).map((n) => ({ v: n as number | string, ok: n >= 0 })),
      fc.integer({ min: 0, max: 200 }).map((n) => ({ v: `${n}%` as number | string, ok: n <= 100 })),
      fc.constantFrom('abc', '10', '%', '1.5%', '-1%').map((v) => ({ v: v as number | string, ok: false })),
    );
    await fc.assert(fc.asyncProperty(value, async ({ v, ok }) => {
      const r = await h.call('POST', APPS(), deployment(uniq('mu'), { strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: v } } }));
      if (ok) assert.equal(r.status, 201, r.text);
      else assertInvalid(r, 'spec.strategy.rollingUpdate.maxUnavailable');
    }), { numRuns: 30 });
  });

  test('field.DeploymentSpec.replicas, field.DeploymentSpec.minReadySeconds, field.DeploymentSpec.revisionHistoryLimit: non-negative; progressDeadlineSeconds > minReadySeconds', async () => {
    const r = await h.call('POST', APPS(), deployment(uniq('neg'), { replicas: -1, minReadySeconds: -2, revisionHistoryLimit: -3 }));
    assert.deepEqual(new Set(causeFields(r)), new Set(['spec.replicas', 'spec.minReadySeconds', 'spec.revisionHistoryLimit']));
    const p = await h.call('POST', APPS(), deployment(uniq('pd'), { minReadySeconds: 30, progressDeadlineSeconds: 30 }));
    assertInvalid(p, 'spec.progressDeadlineSeconds');
    assert.equal((await h.call('POST', APPS(), deployment(uniq('pd'), { minReadySeconds: 30, progressDeadlineSeconds: 31 }))).status, 201);
  });

  test('field.DeploymentSpec.template: template restartPolicy must be Always', async () => {
    const d = deployment(uniq('rp'));
    d.spec.template.spec.restartPolicy = 'Never';
    assertInvalid(await h.call('POST', APPS(), d), 'spec.template.spec.restartPolicy', 'FieldValueNotSupported');
  });

  test('field.DeploymentSpec.selector: immutable in apps/v1 (field is immutable), mutable through extensions/v1beta1', async () => {
    const name = uniq('imm');
    const d = await h.create(APPS(), deployment(name));
    d.spec.selector = { matchLabels: { app: 'x', extra: 'y' } };
    d.spec.template.metadata.labels.extra = 'y';
    const r = await h.call('PUT', `${APPS()}/${name}`, d);
    assert.match(assertInvalid(r, 'spec.selector').message, /field is immutable/);
    const ext = (await h.call('GET', `/apis/extensions/v1beta1/namespaces/${ns}/deployments/${name}`)).body;
    ext.spec.selector = { matchLabels: { app: 'x', extra: 'y' } };
    ext.spec.template.metadata.labels.extra = 'y';
    const ok = await h.call('PUT', `/apis/extensions/v1beta1/namespaces/${ns}/deployments/${name}`, ext);
    assert.equal(ok.status, 200, ok.text);
  });

  test('ReplicaSet and DaemonSet apps/v1 selectors are immutable', async () => {
    for (const res of ['replicasets', 'daemonsets']) {
      const name = uniq(res.slice(0, 2));
      const o = await h.create(`/apis/apps/v1/namespaces/${ns}/${res}`, { metadata: { name }, spec: { selector: { matchLabels: { app: 'x' } }, template: podTemplate() } });
      o.spec.selector.matchLabels = { app: 'x', b: 'c' };
      o.spec.template.metadata.labels.b = 'c';
      assertInvalid(await h.call('PUT', `/apis/apps/v1/namespaces/${ns}/${res}/${name}`, o), 'spec.selector');
    }
  });
});

describe('Job and CronJob rules (spec 2.3, 2.5)', () => {
  test('field.JobSpec.activeDeadlineSeconds: positive (rule.fields.job-active-deadline-positive); completions, parallelism, backoffLimit non-negative', async () => {
    const r = await h.call('POST', JOBS(), job(uniq('j'), { activeDeadlineSeconds: 0, completions: -1, parallelism: -1, backoffLimit: -1 }));
    assert.deepEqual(new Set(causeFields(r)), new Set(['spec.activeDeadlineSeconds', 'spec.completions', 'spec.parallelism', 'spec.backoffLimit']));
    assert.equal((await h.call('POST', JOBS(), job(uniq('j'), { activeDeadlineSeconds: fieldRow('JobSpec', 'activeDeadlineSeconds')!.minimum! }))).status, 201);
  });

  test('field.JobSpec.template: restartPolicy must be OnFailure or Never (the PodSpec default Always is refused)', async () => {
    const j = job(uniq('j'));
    delete j.spec.template.spec.restartPolicy;
    const c = assertInvalid(await h.call('POST', JOBS(), j), 'spec.template.spec.restartPolicy', 'FieldValueNotSupported');
    assert.match(c.message, /"OnFailure", "Never"/);
  });

  test('field.JobSpec.selector: a user selector without manualSelector is not auto-generated; manual selectors must match', async () => {
    const r = await h.call('POST', JOBS(), job(uniq('j'), { selector: { matchLabels: { app: 'z' } } }));
    assertInvalid(r, 'spec.selector');
    const m = await h.call('POST', JOBS(), job(uniq('j'), { manualSelector: true, selector: { matchLabels: { app: 'z' } } }));
    assertInvalid(m, 'spec.template.metadata.labels');
  });

  test('field.JobSpec.selector and field.JobSpec.template: immutable on update', async () => {
    const name = uniq('jimm');
    const j = await h.create(JOBS(), job(name));
    const t = structuredClone(j);
    t.spec.template.spec.containers[0].image = 'other';
    assert.match(assertInvalid(await h.call('PUT', `${JOBS()}/${name}`, t), 'spec.template').message, /field is immutable/);
    const s = structuredClone(j);
    s.spec.selector.matchLabels.extra = 'x';
    assertInvalid(await h.call('PUT', `${JOBS()}/${name}`, s), 'spec.selector');
    const ok = structuredClone(j);
    ok.spec.parallelism = 3;
    assert.equal((await h.call('PUT', `${JOBS()}/${name}`, ok)).status, 200);
  });

  test('field.CronJobSpec.schedule: parseable; field.CronJobSpec.concurrencyPolicy enum; history limits and startingDeadlineSeconds non-negative', async () => {
    const r = await h.call('POST', CRONJOBS(), cronJob(uniq('cj'), { schedule: 'every minute', concurrencyPolicy: 'Sometimes', startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -1 }));
    assert.deepEqual(new Set(causeFields(r)), new Set(['spec.schedule', 'spec.concurrencyPolicy', 'spec.startingDeadlineSeconds', 'spec.successfulJobsHistoryLimit', 'spec.failedJobsHistoryLimit']));
    for (const schedule of ['@hourly', '@every 1h30m', '0 0 * * 1-5', '*/15 2,4 * JAN MON']) {
      const ok = await h.call('POST', CRONJOBS(), cronJob(uniq('cj'), { schedule }));
      assert.equal(ok.status, 201, `${schedule}: ${ok.text}`);
    }
    assertInvalid(await h.call('POST', CRONJOBS(), cronJob(uniq('cj'), { schedule: '0 0 * * * *' })), 'spec.schedule');
  });

  test('field.CronJobSpec.jobTemplate: job template restartPolicy and auto-generated selector', async () => {
    const c = cronJob(uniq('cj'));
    c.spec.jobTemplate.spec.template.spec.restartPolicy = 'Always';
    c.spec.jobTemplate.spec.selector = { matchLabels: { a: 'b' } };
    const r = await h.call('POST', CRONJOBS(), c);
    assertInvalid(r, 'spec.jobTemplate.spec.template.spec.restartPolicy');
    assertInvalid(r, 'spec.jobTemplate.spec.selector');
  });
});

describe('Service, ConfigMap, Secret rules', () => {
  const SVC = () => `/api/v1/namespaces/${ns}/services`;
  test('Service: type enum, port range, names required and unique with several ports', async () => {
    const r = await h.call('POST', SVC(), { metadata: { name: uniq('s') }, spec: { type: 'Magic', ports: [{ port: 0 }, { port: 70000, name: 'a' }, { port: 80, name: 'a' }] } });
    assertInvalid(r, 'spec.type', 'FieldValueNotSupported');
    assertInvalid(r, 'spec.ports[0].name', 'FieldValueRequired');
    assertInvalid(r, 'spec.ports[0].port', 'FieldValueRequired');
    assertInvalid(r, 'spec.ports[1].port', 'FieldValueInvalid');
    assertInvalid(r, 'spec.ports[2].name', 'FieldValueDuplicate');
    assert.equal((await h.call('POST', SVC(), { metadata: { name: uniq('s') }, spec: { ports: [{ port: 65535 }] } })).status, 201, 'one port needs no name');
  });

  test('ConfigMap and Secret data keys: [-._a-zA-Z0-9]+, at most 253 characters', async () => {
    const r = await h.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: uniq('cm') }, data: { 'a b': 'x', ['k'.repeat(254)]: 'y', 'ok.key_1-x': 'z' } });
    assert.deepEqual(new Set(causeFields(r)), new Set(['data[a b]', `data[${'k'.repeat(254)}]`]));
    const s = await h.call('POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: uniq('sec') }, data: { 'bad/key': 'eA==' } });
    assertInvalid(s, 'data[bad/key]');
    await fc.assert(fc.asyncProperty(fc.stringMatching(/^[-._a-zA-Z0-9]{1,40}$/).filter((k) => k !== '.' && k !== '..' && !k.startsWith('..')), async (key) => {
      const ok = await h.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: uniq('cm') }, data: { [key]: 'v' } });
      assert.equal(ok.status, 201, ok.text);
    }), { numRuns: 15 });
  });
});

describe('Wrong JSON types are 400 BadRequest (decoder), never 422 or 500', () => {
  const cases: Array<[string, () => string, Json, RegExp]> = [
    ['spec.replicas "three"', () => APPS(), deployment('t1', { replicas: 'three' }), /spec\.replicas: expected integer, got string/],
    ['ConfigMap data {"a": 1}', () => `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 't2' }, data: { a: 1 } }, /data\[a\]: expected string, got integer/],
    ['metadata.labels non-string', () => `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 't3', labels: { a: 5 } } }, /metadata\.labels/],
    ['containers not a list', () => PODS(), { metadata: { name: 't4' }, spec: { containers: { name: 'c' } } }, /spec\.containers: expected array, got object/],
    ['Secret data not base64', () => `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 't5' }, data: { a: '***' } }, /data\[a\]: expected base64 string/],
    ['replicas 1.5', () => APPS(), deployment('t6', { replicas: 1.5 }), /expected integer, got number/],
  ];
  for (const [name, path, body, message] of cases) {
    test(`field.Object.spec: ${name}`, async () => {
      const r = await h.call('POST', path(), body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.reason, 'BadRequest');
      assert.match(r.body.message, message);
    });
  }

  test('fieldValidation=Strict refuses unknown fields (400 naming them); Ignore drops them', async () => {
    const body = { metadata: { name: 'strict' }, data: { a: 'b' }, foo: 1, metadata2: {} };
    const r = await h.call('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, { ...body, spec: { bar: 1 } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.message, 'strict decoding error: unknown field "foo", unknown field "metadata2", unknown field "spec"');
    const nested = await h.call('POST', `${APPS()}?fieldValidation=Strict`, deployment('strict-d', { foo: 1 }));
    assert.equal(nested.body.message, 'strict decoding error: unknown field "spec.foo"');
    const ok = await h.call('POST', `/api/v1/namespaces/${ns}/configmaps`, body);
    assert.equal(ok.status, 201);
    assert.equal(ok.body.foo, undefined, 'unknown fields are dropped, as decoding into the typed object does');
    assert.equal((await h.call('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Sometimes`, body)).status, 400);
  });
});

describe('Events (spec 6.3)', () => {
  test('Event: involvedObject namespace must match; type Normal or Warning', async () => {
    const EV = () => `/api/v1/namespaces/${ns}/events`;
    const r = await h.call('POST', EV(), { metadata: { name: uniq('ev') }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'elsewhere' }, type: 'Odd' });
    assertInvalid(r, 'involvedObject.namespace');
    assertInvalid(r, 'type', 'FieldValueNotSupported');
  });
});

describe('patches are decoded like bodies', () => {
  test('field.DeploymentSpec.replicas: a merge patch setting replicas "three" is 400 and stores nothing; unknown fields are dropped', async () => {
    const name = 'patch-types';
    await h.create(APPS(), deployment(name));
    const r = await h.call('PATCH', `${APPS()}/${name}`, JSON.stringify({ spec: { replicas: 'three' } }), { 'content-type': 'application/merge-patch+json' });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, /spec\.replicas: expected integer, got string/);
    assert.equal((await h.call('GET', `${APPS()}/${name}`)).body.spec.replicas, 1);
    const u = await h.call('PATCH', `${APPS()}/${name}`, JSON.stringify({ spec: { foo: 1 } }), { 'content-type': 'application/merge-patch+json' });
    assert.equal(u.status, 200, u.text);
    assert.equal(u.body.spec.foo, undefined);
  });
});

describe('no body reaches a 5xx through the kind rules', () => {
  test('field.Object.spec: property: random JSON specs for every workload kind answer 201, 400 or 422', async () => {
    const paths = [APPS(), PODS(), JOBS(), CRONJOBS(), `/api/v1/namespaces/${ns}/services`, `/apis/extensions/v1beta1/namespaces/${ns}/deployments`, `/apis/apps/v1/namespaces/${ns}/daemonsets`, `/api/v1/namespaces/${ns}/replicationcontrollers`];
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.string(), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('containers', 'template', 'spec', 'metadata', 'labels', 'selector', 'name', 'image', 'ports', 'strategy', 'rollingUpdate', 'jobTemplate', 'x'), tie('v'), { maxKeys: 4 })),
    })).v;
    await fc.assert(fc.asyncProperty(fc.constantFrom(...paths), value, async (path, spec) => {
      const r = await h.call('POST', path, { metadata: { name: uniq('fz') }, spec });
      assert.ok([201, 400, 422].includes(r.status), `${path} ${JSON.stringify(spec)} -> ${r.status} ${r.text}`);
    }), { numRuns: 150 });
  });
});
